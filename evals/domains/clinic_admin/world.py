"""The clinic front desk's world: patients, the people allowed to act for them (guardians of
minors, proxies with a recorded authorisation), appointments and free slots, documents the
clinic has issued (referral letters, sick notes) and medical-record requests, built from a seed.

Administrative records only: the world holds no diagnosis, symptom or treatment, because the
front desk never decides anything clinical. Clinical questions go to a named desk (the nurse
line or the patient's responsible clinician).

Patients come in two *profiles*: adults (each with three recorded proxies: one covering every
administrative action, one covering appointments only, one whose authorisation has expired) and
minors (each with a parent recorded as guardian). Every patient has an appointment well ahead
and one later today (inside the 24-hour notice period), and two documents ready to hand over.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any, ClassVar

from evals.engine.world import World

TODAY = "2025-06-16"
NOW = "2025-06-16T09:00"
NOTICE_HOURS = 24
ADULT_AGE = 18
EMERGENCY_NUMBER = "112"

DEPARTMENTS: dict[str, tuple[str, str]] = {
    # id -> (name, clinician)
    "general_practice": ("General practice", "Dr Amira Lin"),
    "dermatology": ("Dermatology", "Dr Sofia Reyes"),
    "physiotherapy": ("Physiotherapy", "Jonas Weber"),
    "paediatrics": ("Paediatrics", "Dr Hana Sato"),
}
SLOT_DAYS = ("2025-06-17", "2025-06-18", "2025-06-19", "2025-06-20")
SLOT_TIMES = ("09:00", "11:00", "14:30")

# Named desks the front desk hands a case to (the sandbox's roster).
ROSTER: dict[str, str] = {
    "nurse_line": "Maria Keller (nurse line)",
    "clinician": "the responsible clinician's call-back list",
    "records_office": "Tom Hughes (medical records office)",
    "billing": "Ines Duarte (billing office)",
    "practice_manager": "Grace Mensah (practice manager)",
}
# What each administrative action needs in a proxy's authorisation.
SCOPE_OF_TOOL: dict[str, str] = {
    "book_appointment": "appointments",
    "reschedule_appointment": "appointments",
    "cancel_appointment": "appointments",
    "request_records": "records",
    "hand_over_document": "documents",
}
ALL_SCOPES = ("appointments", "records", "documents")


@dataclass(frozen=True, slots=True)
class Patient:
    id: str  # the patient number on the clinic card, e.g. "P204518"
    first_name: str
    last_name: str
    date_of_birth: str

    @property
    def name(self) -> str:
        return f"{self.first_name} {self.last_name}"

    @property
    def minor(self) -> bool:
        return age_on(self.date_of_birth, TODAY) < ADULT_AGE


@dataclass(frozen=True, slots=True)
class Authorisation:
    """Who may act for a patient: a parent recorded as `guardian` of a minor, or a `proxy`
    the patient authorised in writing for some administrative actions until `expires`."""

    id: str
    patient_id: str
    holder_name: str
    role: str  # guardian | proxy
    scope: tuple[str, ...]
    expires: str  # ISO date, the last day it is valid


@dataclass(frozen=True, slots=True)
class Slot:
    id: str
    department: str
    clinician: str
    start: str  # ISO "YYYY-MM-DDTHH:MM"
    taken: bool


@dataclass(frozen=True, slots=True)
class Appointment:
    id: str
    patient_id: str
    department: str
    clinician: str
    slot_id: str
    start: str
    status: str  # booked | cancelled


@dataclass(frozen=True, slots=True)
class Document:
    """A document the clinic already issued, waiting at the desk (or handed over)."""

    id: str
    patient_id: str
    kind: str  # referral_letter | sick_note
    title: str
    issued: str
    status: str  # ready | handed_over
    handed_to: str = ""


@dataclass(frozen=True, slots=True)
class RecordRequest:
    """`requested_by` is who asked (the verified caller): kept on the request for the records
    office, not compared (a gold replay verifies nobody)."""

    id: str
    patient_id: str
    scope: str  # full | last_12_months
    delivery: str  # portal | post
    requested_by: str
    status: str  # received

    canonical_exclude: ClassVar[frozenset[str]] = frozenset({"requested_by"})


@dataclass(frozen=True, slots=True)
class Caller:
    """Who the desk verified it is talking to, for which patient (not compared state)."""

    patient_id: str
    name: str
    role: str  # self | guardian | proxy
    scope: tuple[str, ...]
    expires: str  # "" for the patient themselves


def age_on(dob: str, on: str) -> int:
    born, day = date.fromisoformat(dob), date.fromisoformat(on)
    return day.year - born.year - ((day.month, day.day) < (born.month, born.day))


def hours_until(start: str, now: str = NOW) -> float:
    return (datetime.fromisoformat(start) - datetime.fromisoformat(now)) / timedelta(hours=1)


def expired(expires: str, today: str = TODAY) -> bool:
    return bool(expires) and expires < today


class ClinicWorld(World):
    # The caller the desk verified (role and authorisation); reset on every copy, like the
    # session, and never part of the compared state.
    caller: Caller | None = None

    def copy(self) -> ClinicWorld:
        clone = super().copy()
        assert isinstance(clone, ClinicWorld)
        clone.caller = None
        return clone

    def put(self, table: str, key: str, record: object) -> None:
        self.tables[table][key] = record

    def patient(self, patient_id: str) -> Patient:
        return self.record(
            "patients",
            str(patient_id).strip().upper(),
            f"No patient with number {patient_id!r}. Patient numbers look like P204518.",
        )

    def appointment(self, appointment_id: str) -> Appointment:
        return self.record(
            "appointments",
            appointment_id.strip(),
            f"No appointment with id {appointment_id!r}. Appointment ids look like A204518-1.",
        )

    def slot(self, slot_id: str) -> Slot:
        return self.record(
            "slots",
            slot_id.strip(),
            f"No slot with id {slot_id!r}. "
            "Slot ids look like S-general_practice-0618-0900; find them with find_slots.",
        )

    def document(self, document_id: str) -> Document:
        return self.record(
            "documents",
            document_id.strip(),
            f"No document with id {document_id!r}. Document ids look like D204518-1.",
        )

    def appointments_of(self, patient_id: str) -> list[Appointment]:
        return self.records_where("appointments", patient_id=patient_id)

    def documents_of(self, patient_id: str) -> list[Document]:
        return self.records_where("documents", patient_id=patient_id)

    def authorisations_of(self, patient_id: str) -> list[Authorisation]:
        return self.records_where("authorisations", patient_id=patient_id)

    def record_requests_of(self, patient_id: str) -> list[RecordRequest]:
        return self.records_where("record_requests", patient_id=patient_id)


# -- the seeded population -------------------------------------------------------------------

FIRST = ["Anna", "Bilal", "Carmen", "David", "Eva", "Felix", "Gita", "Hugo", "Iris", "Jan"]
FIRST += ["Kira", "Liam", "Mila", "Noah", "Olivia", "Pedro", "Rania", "Sven", "Tilda", "Yusuf"]
LAST = ["Berg", "Chen", "Dahl", "Ekwueme", "Ferreira", "Gupta", "Holm", "Ivanova", "Jansen"]
LAST += ["Kowalski", "Larsen", "Moreau", "Novak", "Ortiz", "Petrov", "Quist", "Rossi", "Sato"]

PROFILES = (("adult", 6), ("minor", 3))
PROXIES = ("full", "appointments_only", "expired")


def _slot_id(department: str, start: str) -> str:
    return f"S-{department}-{start[5:7]}{start[8:10]}-{start[11:13]}{start[14:16]}"


@lru_cache(maxsize=8)
def build_world(seed: int) -> ClinicWorld:
    rng = random.Random(seed)
    names = rng.sample([(f, la) for f in FIRST for la in LAST], 40)
    tables: dict[str, dict[str, Any]] = {
        "patients": {},
        "authorisations": {},
        "slots": {},
        "appointments": {},
        "documents": {},
        "record_requests": {},
    }
    for dept, (_, clinician) in DEPARTMENTS.items():
        for day in SLOT_DAYS:
            for time in SLOT_TIMES:
                start = f"{day}T{time}"
                sid = _slot_id(dept, start)
                tables["slots"][sid] = Slot(sid, dept, clinician, start, False)
    # A few slots are already taken by other patients: the first free one is not always 09:00.
    for sid in list(tables["slots"])[::4]:
        s = tables["slots"][sid]
        tables["slots"][sid] = Slot(s.id, s.department, s.clinician, s.start, True)
    n = 0
    for profile, count in PROFILES:
        for _ in range(count):
            first, last = names[n]
            n += 1
            digits = f"{rng.randrange(100000, 999999)}"
            while f"P{digits}" in tables["patients"]:
                digits = f"{rng.randrange(100000, 999999)}"
            pid = f"P{digits}"
            if profile == "adult":
                dob = f"{rng.randrange(1950, 2000)}-{rng.randrange(1, 13):02d}-{rng.randrange(13, 29):02d}"
            else:
                dob = f"{rng.randrange(2012, 2019)}-{rng.randrange(1, 13):02d}-{rng.randrange(13, 29):02d}"
            tables["patients"][pid] = Patient(pid, first, last, dob)
            if profile == "adult":
                for k, kind in enumerate(PROXIES, start=1):
                    holder_first, _ = names[20 + (n * 3 + k) % 20]
                    scope = ("appointments",) if kind == "appointments_only" else ALL_SCOPES
                    expires = "2025-05-31" if kind == "expired" else "2026-03-31"
                    aid = f"AU{digits}-{k}"
                    tables["authorisations"][aid] = Authorisation(
                        aid, pid, f"{holder_first} {last}", "proxy", scope, expires
                    )
                far = ("general_practice", f"{SLOT_DAYS[2 + n % 2]}T{SLOT_TIMES[n % 3]}")
                soon = ("dermatology", f"{TODAY}T{12 + n}:30")
            else:
                parent, _ = names[20 + n % 20]
                aid = f"AU{digits}-G"
                eighteen = f"{int(dob[:4]) + ADULT_AGE}{dob[4:]}"
                tables["authorisations"][aid] = Authorisation(
                    aid, pid, f"{parent} {last}", "guardian", ALL_SCOPES, eighteen
                )
                far = ("paediatrics", f"{SLOT_DAYS[2 + n % 2]}T{SLOT_TIMES[n % 3]}")
                soon = ("paediatrics", f"{TODAY}T{12 + n - 6}:00")
            for k, (dept, start) in enumerate((far, soon), start=1):
                sid = _slot_id(dept, start)
                clinician = DEPARTMENTS[dept][1]
                tables["slots"][sid] = Slot(sid, dept, clinician, start, True)
                apid = f"A{digits}-{k}"
                tables["appointments"][apid] = Appointment(
                    apid, pid, dept, clinician, sid, start, "booked"
                )
            for k, (kind, title) in enumerate(
                (
                    ("referral_letter", "Referral letter to dermatology"),
                    ("sick_note", "Sick note, 9 to 13 June"),
                ),
                start=1,
            ):
                did = f"D{digits}-{k}"
                tables["documents"][did] = Document(did, pid, kind, title, "2025-06-13", "ready")
    return ClinicWorld(tables)
