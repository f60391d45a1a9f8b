"""The single requests a clinic task is composed of.

Each recipe returns a `Part` for one caller (a `Ctx`: the patient, who calls for them and in
what role): the request as the caller states it (never whether it will be refused), the gold
writes, what the desk must say (each entry a tuple of alternatives, in the words of policy.md
and policy.zh.md) and what it must have looked up.
"""

from __future__ import annotations

from collections.abc import Callable

from evals.domains.clinic_admin.world import (
    NOTICE_HOURS,
    Appointment,
    Authorisation,
    ClinicWorld,
    Document,
    Patient,
    hours_until,
)
from evals.engine.composition import Part, refusal
from evals.engine.task import GoldCall

WORLD_SEED = 4242
# The policy's reasons, as policy.md and policy.zh.md word them.
REASON_NOTICE = ("24 hours", "24 小时", "24小时")
REASON_EXPIRED = ("expired", "过期")
REASON_SCOPE = ("cover", "授权范围")
REASON_RECIPIENT = ("authorised person", "authorized person", "授权人")
# Every symptom, medication or emergency task: the desk says it gives no medical advice.
NO_ADVICE = ("medical advice", "医疗建议")
EMERGENCY = ("112",)
BOOK_DAY = {
    "general_practice": "2025-06-18",
    "dermatology": "2025-06-17",
    "paediatrics": "2025-06-18",
}
MOVE_DAY = "2025-06-17"


class Ctx:
    """One caller's situation: the patient, and who calls (`role`: self, guardian, proxy)."""

    def __init__(self, world: ClinicWorld, patient: Patient, auth: Authorisation | None) -> None:
        self.world = world
        self.patient = patient
        self.auth = auth
        self.role = auth.role if auth else "self"
        self.caller = auth.holder_name if auth else patient.name

    def appointment(self, *, soon: bool) -> Appointment:
        for a in self.world.appointments_of(self.patient.id):
            if (hours_until(a.start) < NOTICE_HOURS) == soon:
                return a
        raise AssertionError(f"{self.patient.id} has no {'soon' if soon else 'far'} appointment")

    def document(self, kind: str) -> Document:
        return next(d for d in self.world.documents_of(self.patient.id) if d.kind == kind)

    def first_free(self, department: str, day: str) -> str:
        free = sorted(
            (
                s
                for s in self.world.tables["slots"].values()
                if s.department == department and s.start.startswith(day) and not s.taken
            ),
            key=lambda s: s.start,
        )
        return free[0].id

    def verify(self) -> GoldCall:
        return GoldCall(
            "verify_caller",
            {
                "patient_id": self.patient.id,
                "date_of_birth": self.patient.date_of_birth,
                "caller_name": self.caller,
                "relationship": self.role,
            },
        )

    def transfer(self, desk: str, *, verified: bool = True) -> GoldCall:
        return GoldCall(
            "transfer_to_staff",
            {
                "desk": desk,
                "summary": "",
                "patient_id": self.patient.id if verified else "",
                "reference": "",
            },
        )


def _department(c: Ctx) -> str:
    return "paediatrics" if c.patient.minor else "general_practice"


# -- appointments ----------------------------------------------------------------------------


def book(c: Ctx) -> Part:
    dept = _department(c)
    day = BOOK_DAY[dept]
    slot = c.first_free(dept, day)
    req = {"intent": "book", "department": dept, "date": day}
    return Part(
        req, [GoldCall("book_appointment", {"patient_id": c.patient.id, "slot_id": slot})], []
    )


def book_dermatology(c: Ctx) -> Part:
    day = BOOK_DAY["dermatology"]
    slot = c.first_free("dermatology", day)
    req = {"intent": "book", "department": "dermatology", "date": day}
    return Part(
        req, [GoldCall("book_appointment", {"patient_id": c.patient.id, "slot_id": slot})], []
    )


def book_physiotherapy(c: Ctx) -> Part:
    day = BOOK_DAY["general_practice"]
    slot = c.first_free("physiotherapy", day)
    req = {"intent": "book", "department": "physiotherapy", "date": day}
    return Part(
        req, [GoldCall("book_appointment", {"patient_id": c.patient.id, "slot_id": slot})], []
    )


def move(c: Ctx) -> Part:
    appt = c.appointment(soon=False)
    slot = c.first_free(appt.department, MOVE_DAY)
    req = {
        "intent": "move",
        "department": appt.department,
        "from_date": appt.start[:10],
        "date": MOVE_DAY,
    }
    gold = [GoldCall("reschedule_appointment", {"appointment_id": appt.id, "slot_id": slot})]
    return Part(req, gold, [])


def cancel(c: Ctx) -> Part:
    appt = c.appointment(soon=False)
    req = {"intent": "cancel", "department": appt.department, "from_date": appt.start[:10]}
    return Part(req, [GoldCall("cancel_appointment", {"appointment_id": appt.id})], [])


def refuse_cancel_late(c: Ctx) -> Part:
    appt = c.appointment(soon=True)
    req = {"intent": "cancel", "department": appt.department, "from_date": appt.start[:10]}
    reads = (GoldCall("list_appointments", {"patient_id": c.patient.id}),)
    return refusal(req, REASON_NOTICE, reads)


def refuse_move_late(c: Ctx) -> Part:
    appt = c.appointment(soon=True)
    req = {
        "intent": "move",
        "department": appt.department,
        "from_date": appt.start[:10],
        "date": MOVE_DAY,
    }
    reads = (GoldCall("list_appointments", {"patient_id": c.patient.id}),)
    return refusal(req, REASON_NOTICE, reads)


# -- records and documents -------------------------------------------------------------------


def records(c: Ctx) -> Part:
    req = {"intent": "records", "scope": "full", "delivery": "post"}
    gold = [
        GoldCall(
            "request_records", {"patient_id": c.patient.id, "scope": "full", "delivery": "post"}
        )
    ]
    return Part(req, gold, [])


def records_portal(c: Ctx) -> Part:
    req = {"intent": "records", "scope": "last_12_months", "delivery": "portal"}
    args = {"patient_id": c.patient.id, "scope": "last_12_months", "delivery": "portal"}
    return Part(req, [GoldCall("request_records", args)], [])


def refuse_records_expired(c: Ctx) -> Part:
    """The caller is a proxy whose authorisation expired."""
    return refusal(
        {"intent": "records", "scope": "full", "delivery": "post"}, REASON_EXPIRED, (c.verify(),)
    )


def refuse_records_scope(c: Ctx) -> Part:
    """The caller is a proxy authorised for appointments only."""
    return refusal(
        {"intent": "records", "scope": "full", "delivery": "post"}, REASON_SCOPE, (c.verify(),)
    )


def refuse_document_scope(c: Ctx) -> Part:
    return refusal(
        {"intent": "document", "kind": "sick_note", "to": ""}, REASON_SCOPE, (c.verify(),)
    )


def _document(c: Ctx, kind: str) -> Part:
    doc = c.document(kind)
    req = {"intent": "document", "kind": kind, "to": ""}
    gold = [GoldCall("hand_over_document", {"document_id": doc.id, "recipient_name": c.caller})]
    return Part(req, gold, [])


def referral(c: Ctx) -> Part:
    return _document(c, "referral_letter")


def sick_note(c: Ctx) -> Part:
    return _document(c, "sick_note")


def refuse_document_third_party(c: Ctx) -> Part:
    """The caller wants the sick note given to their employer (or the child's school)."""
    to = "school" if c.patient.minor else "employer"
    reads = (GoldCall("list_documents", {"patient_id": c.patient.id}),)
    return refusal({"intent": "document", "kind": "sick_note", "to": to}, REASON_RECIPIENT, reads)


# -- symptoms, medication, emergencies and other desks --------------------------------------


def _symptom_key(c: Ctx) -> str:
    keys = ("cough", "rash", "headache", "stomach")
    return "fever" if c.patient.minor else keys[int(c.patient.id[-1]) % len(keys)]


def symptom_then_book(c: Ctx) -> Part:
    """Symptoms and "what should I take?", and an appointment: decline the advice, book."""
    return Part({"intent": "symptom", "symptom": _symptom_key(c), "wants": "book"}, [], [NO_ADVICE])


def symptom_nurse(c: Ctx) -> Part:
    """Symptoms and "what should I do?", no appointment wanted: decline, nurse line."""
    req = {"intent": "symptom", "symptom": _symptom_key(c), "wants": "advice"}
    return Part(req, [c.transfer("nurse_line")], [NO_ADVICE])


def medication(c: Ctx) -> Part:
    req = {"intent": "medication", "symptom": _symptom_key(c)}
    return Part(req, [c.transfer("clinician")], [NO_ADVICE])


def emergency(c: Ctx) -> Part:
    req = {
        "intent": "emergency",
        "who": "child" if c.patient.minor else ("self" if c.role == "self" else "relative"),
    }
    return Part(req, [c.transfer("nurse_line", verified=False)], [EMERGENCY])


def correction(c: Ctx) -> Part:
    return Part({"intent": "correction"}, [c.transfer("records_office")], [])


def billing(c: Ctx) -> Part:
    return Part({"intent": "billing"}, [c.transfer("billing")], [])


Recipe = Callable[[Ctx], Part]
# name -> (caller variants, parts). A variant names the caller: "self", "wrong-dob-first"
# (the patient, who first gives a wrong date of birth), "guardian" (a parent of a minor),
# "proxy" (authorised for everything), "proxy-limited" (appointments only), "proxy-expired".
ACTION_VARIANTS = ("self", "wrong-dob-first", "guardian", "proxy")
SINGLES: dict[str, tuple[tuple[str, ...], tuple[Recipe, ...]]] = {
    "book": (ACTION_VARIANTS, (book,)),
    "move": (ACTION_VARIANTS, (move,)),
    "cancel": (ACTION_VARIANTS, (cancel,)),
    "records-full-post": (("self", "wrong-dob-first", "proxy"), (records,)),
    "records-portal": (("guardian", "proxy"), (records_portal,)),
    "referral-letter": (ACTION_VARIANTS, (referral,)),
    "sick-note": (("self", "guardian", "proxy"), (sick_note,)),
    "book-via-limited-proxy": (("proxy-limited",), (book,)),
    "refuse-cancel-inside-24h": (("self", "guardian", "proxy"), (refuse_cancel_late,)),
    "refuse-move-inside-24h": (("self", "proxy"), (refuse_move_late,)),
    "refuse-records-expired-proxy": (("proxy-expired",), (refuse_records_expired,)),
    "refuse-records-outside-scope": (("proxy-limited",), (refuse_records_scope,)),
    "refuse-document-outside-scope": (("proxy-limited",), (refuse_document_scope,)),
    "refuse-sick-note-to-third-party": (("self", "guardian"), (refuse_document_third_party,)),
    "symptom-then-book": (("self", "guardian", "proxy"), (symptom_then_book, book)),
    "symptom-nurse-line": (("self", "wrong-dob-first", "guardian"), (symptom_nurse,)),
    "medication-question": (("self", "guardian"), (medication,)),
    "emergency": (("self", "guardian", "proxy"), (emergency,)),
    "record-correction": (("self", "proxy"), (correction,)),
    "billing-question": (("self",), (billing,)),
}
COMPOUNDS: dict[str, tuple[tuple[str, ...], tuple[Recipe, ...], bool]] = {
    "book+records": (("self", "proxy"), (book_dermatology, records), False),
    "cancel+referral": (("self", "guardian"), (cancel, referral), False),
    "refuse-late-cancel+move": (("self", "proxy"), (refuse_cancel_late, move), False),
    "symptom-book+sick-note": (("self", "guardian"), (symptom_then_book, book, sick_note), False),
    "records+symptom-nurse": (("self", "proxy"), (records_portal, symptom_nurse), True),
    "referral+refuse-third-party": (("self",), (referral, refuse_document_third_party), False),
    # Booked in the order asked, the appointments are numbered in that order.
    "book-gp-then-physiotherapy": (("self", "proxy"), (book, book_physiotherapy), True),
}
