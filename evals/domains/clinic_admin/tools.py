"""The clinic front desk's tools. Docstrings are written for the model.

Every tool is administrative: none reads or writes anything clinical. Symptoms, diagnoses,
medication and what to do about them are never the desk's to answer: transfer_to_staff hands
them to the nurse line or the responsible clinician."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Literal

from evals.domains.clinic_admin.world import (
    DEPARTMENTS,
    NOTICE_HOURS,
    ROSTER,
    Appointment,
    Caller,
    ClinicWorld,
    Document,
    RecordRequest,
    expired,
    hours_until,
)
from evals.engine.errors import ToolError
from evals.engine.tools import Confirm, ToolKind, ToolSet, tool
from evals.engine.world import Handoff

Relationship = Literal["self", "guardian", "proxy"]
Department = Literal["general_practice", "dermatology", "physiotherapy", "paediatrics"]
RecordScope = Literal["full", "last_12_months"]
Delivery = Literal["portal", "post"]
Desk = Literal["nurse_line", "clinician", "records_office", "billing", "practice_manager"]
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def appointment_view(a: Appointment) -> dict[str, Any]:
    return {
        "appointment_id": a.id,
        "department": a.department,
        "clinician": a.clinician,
        "start": a.start,
        "status": a.status,
        "hours_until_start": round(hours_until(a.start), 1),
        "within_notice_period": hours_until(a.start) < NOTICE_HOURS,
    }


def document_view(d: Document) -> dict[str, Any]:
    return {
        "document_id": d.id,
        "kind": d.kind,
        "title": d.title,
        "issued": d.issued,
        "status": d.status,
        "handed_to": d.handed_to,
    }


# -- identity -------------------------------------------------------------------------------


@tool(kind=ToolKind.READ)
def verify_caller(
    world: ClinicWorld,
    patient_id: str,
    date_of_birth: str,
    caller_name: str,
    relationship: Relationship,
) -> dict[str, Any]:
    """Verify who is calling, for which patient: the patient's number and date of birth must
    match the patient's file, and the caller's role must be on record — "self" (the caller is
    the patient; the name must be the patient's), "guardian" (a parent or guardian recorded for
    a patient under 18) or "proxy" (a person the patient authorised in writing). Returns the
    caller's role, the scope of what they may do (appointments, records, documents) and when
    their authorisation expires. Do this before anything else.

    Args:
        patient_id: The patient number on the clinic card, "P" and 6 digits, e.g. "P204518".
        date_of_birth: The patient's date of birth, YYYY-MM-DD, e.g. "1984-11-19".
        caller_name: The caller's own full name, e.g. "Felix Novak".
        relationship: "self", "guardian" or "proxy".
    """
    if not _DATE.match(date_of_birth.strip()):
        raise ToolError("date_of_birth must be written YYYY-MM-DD, e.g. 1984-11-19.")
    patient = world.tables["patients"].get(patient_id.strip().upper())
    if patient is None or patient.date_of_birth != date_of_birth.strip():
        raise ToolError("No patient matches that patient number and date of birth.")
    name = " ".join(caller_name.split()).lower()
    if relationship == "self":
        if name != patient.name.lower():
            raise ToolError(
                "The caller's name is not the patient's name; ask whether they are a guardian "
                "or an authorised proxy."
            )
        caller = Caller(
            patient.id, patient.name, "self", ("appointments", "records", "documents"), ""
        )
    else:
        found = next(
            (
                a
                for a in world.authorisations_of(patient.id)
                if a.role == relationship and a.holder_name.lower() == name
            ),
            None,
        )
        if found is None:
            raise ToolError(
                f"No {relationship} named {caller_name!r} is recorded for this patient. Only the "
                "patient, a recorded guardian of a minor, or a recorded proxy may be helped."
            )
        if relationship == "guardian" and not patient.minor:
            raise ToolError(
                "The patient is an adult: a guardian may no longer act for them; the patient "
                "must authorise a proxy."
            )
        caller = Caller(patient.id, found.holder_name, relationship, found.scope, found.expires)
    world.session.verified_customer_id = patient.id
    world.caller = caller
    return {
        "patient_id": patient.id,
        "patient_name": patient.name,
        "caller_name": caller.name,
        "relationship": caller.role,
        "patient_is_minor": patient.minor,
        "scope": list(caller.scope),
        "authorisation_expires": caller.expires,
        "authorisation_expired": expired(caller.expires),
    }


# -- reads ----------------------------------------------------------------------------------


@tool(kind=ToolKind.READ)
def list_appointments(world: ClinicWorld, patient_id: str) -> list[dict[str, Any]]:
    """The patient's appointments: id, department, clinician, start (YYYY-MM-DDTHH:MM),
    status (booked, cancelled), hours until the start, and whether it is inside the 24-hour
    notice period (then it can no longer be moved or cancelled by the desk).

    Args:
        patient_id: The verified patient's number, e.g. "P204518".
    """
    patient = world.patient(patient_id)
    return [appointment_view(a) for a in world.appointments_of(patient.id)]


@tool(kind=ToolKind.READ)
def find_slots(world: ClinicWorld, department: Department, date: str) -> list[dict[str, Any]]:
    """The free appointment slots of a department on one day, earliest first (slot id,
    clinician, start). Changes nothing.

    Args:
        department: "general_practice", "dermatology", "physiotherapy" or "paediatrics".
        date: The day, YYYY-MM-DD, e.g. "2025-06-18".
    """
    if not _DATE.match(date.strip()):
        raise ToolError("date must be written YYYY-MM-DD, e.g. 2025-06-18.")
    slots = sorted(
        (
            s
            for s in world.tables["slots"].values()
            if s.department == department and s.start.startswith(date.strip()) and not s.taken
        ),
        key=lambda s: s.start,
    )
    return [{"slot_id": s.id, "clinician": s.clinician, "start": s.start} for s in slots]


@tool(kind=ToolKind.READ)
def list_documents(world: ClinicWorld, patient_id: str) -> list[dict[str, Any]]:
    """Documents the clinic has already issued for the patient and keeps at the desk
    (referral letters, sick notes): id, kind, title, issue date, status (ready, handed_over)
    and to whom it was handed.

    Args:
        patient_id: The verified patient's number, e.g. "P204518".
    """
    patient = world.patient(patient_id)
    return [document_view(d) for d in world.documents_of(patient.id)]


@tool(kind=ToolKind.READ)
def list_record_requests(world: ClinicWorld, patient_id: str) -> list[dict[str, Any]]:
    """The patient's medical-record requests already received (id, scope, delivery, who asked,
    status).

    Args:
        patient_id: The verified patient's number, e.g. "P204518".
    """
    patient = world.patient(patient_id)
    return [
        {
            "request_id": r.id,
            "scope": r.scope,
            "delivery": r.delivery,
            "requested_by": r.requested_by,
            "status": r.status,
        }
        for r in world.record_requests_of(patient.id)
    ]


# -- writes ---------------------------------------------------------------------------------


@tool(kind=ToolKind.WRITE, confirm=Confirm(words=("book", "预约"), keys=("slot_id",)))
def book_appointment(world: ClinicWorld, patient_id: str, slot_id: str) -> dict[str, Any]:
    """Book a free slot (from find_slots) for the verified patient. Requires the caller's
    explicit confirmation of the slot (its id, department and start).

    Args:
        patient_id: The verified patient's number, e.g. "P204518".
        slot_id: The slot id from find_slots, e.g. "S-general_practice-0618-0900".
    """
    patient = world.patient(patient_id)
    slot = world.slot(slot_id)
    if slot.taken:
        raise ToolError(f"Slot {slot.id} is already taken; find another with find_slots.")
    n = len(world.appointments_of(patient.id)) + 1
    apid = f"A{patient.id[1:]}-{n}"
    world.put("slots", slot.id, replace(slot, taken=True))
    world.put(
        "appointments",
        apid,
        Appointment(
            apid, patient.id, slot.department, slot.clinician, slot.id, slot.start, "booked"
        ),
    )
    return {"appointment_id": apid, **appointment_view(world.appointment(apid))}


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(
        words=("move", "reschedule", "改约", "改到"), keys=("appointment_id", "slot_id")
    ),
)
def reschedule_appointment(world: ClinicWorld, appointment_id: str, slot_id: str) -> dict[str, Any]:
    """Move a booked appointment to another free slot of the same department. Only with at
    least 24 hours' notice before the current appointment. Requires explicit confirmation of
    the appointment and the new slot.

    Args:
        appointment_id: The appointment id from list_appointments, e.g. "A204518-1".
        slot_id: The new slot's id from find_slots, e.g. "S-general_practice-0618-0900".
    """
    appt = world.appointment(appointment_id)
    slot = world.slot(slot_id)
    if appt.status != "booked":
        raise ToolError(f"Appointment {appt.id} is {appt.status}; only booked ones can be moved.")
    if slot.taken:
        raise ToolError(f"Slot {slot.id} is already taken; find another with find_slots.")
    if slot.department != appt.department:
        raise ToolError(
            f"Slot {slot.id} is in {slot.department}; appointment {appt.id} is in "
            f"{appt.department}. Book a new appointment for another department."
        )
    old = world.tables["slots"].get(appt.slot_id)
    if old is not None:
        world.put("slots", old.id, replace(old, taken=False))
    world.put("slots", slot.id, replace(slot, taken=True))
    world.put(
        "appointments",
        appt.id,
        replace(appt, slot_id=slot.id, start=slot.start, clinician=slot.clinician),
    )
    return appointment_view(world.appointment(appt.id))


@tool(kind=ToolKind.WRITE, confirm=Confirm(words=("cancel", "取消"), keys=("appointment_id",)))
def cancel_appointment(world: ClinicWorld, appointment_id: str) -> dict[str, Any]:
    """Cancel a booked appointment and free its slot. Only with at least 24 hours' notice.
    Requires explicit confirmation of the appointment.

    Args:
        appointment_id: The appointment id from list_appointments, e.g. "A204518-1".
    """
    appt = world.appointment(appointment_id)
    if appt.status != "booked":
        raise ToolError(f"Appointment {appt.id} is already {appt.status}.")
    old = world.tables["slots"].get(appt.slot_id)
    if old is not None:
        world.put("slots", old.id, replace(old, taken=False))
    world.put("appointments", appt.id, replace(appt, status="cancelled"))
    return appointment_view(world.appointment(appt.id))


@tool(kind=ToolKind.WRITE, confirm=Confirm(words=("record", "病历"), keys=("scope", "delivery")))
def request_records(
    world: ClinicWorld, patient_id: str, scope: RecordScope, delivery: Delivery
) -> dict[str, Any]:
    """Register a request for a copy of the patient's medical record; the records office
    prepares it within 30 days. Requires explicit confirmation of the scope and the delivery.

    Args:
        patient_id: The verified patient's number, e.g. "P204518".
        scope: "full" (the whole record) or "last_12_months".
        delivery: "portal" (the patient portal) or "post" (to the address on file).
    """
    patient = world.patient(patient_id)
    caller = world.caller.name if world.caller is not None else ""
    n = len(world.record_requests_of(patient.id)) + 1
    rid = f"RR{patient.id[1:]}-{n}"
    world.put(
        "record_requests", rid, RecordRequest(rid, patient.id, scope, delivery, caller, "received")
    )
    return {"request_id": rid, "scope": scope, "delivery": delivery, "ready_within_days": 30}


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("hand over", "release", "交给", "交付"), keys=("document_id",)),
)
def hand_over_document(world: ClinicWorld, document_id: str, recipient_name: str) -> dict[str, Any]:
    """Hand over a document the clinic already issued (a referral letter, a sick note) to the
    verified caller, who must be the patient or a person authorised for documents — never to
    anyone else (an employer, a school, a relative without authorisation). Requires explicit
    confirmation of the document.

    Args:
        document_id: The document id from list_documents, e.g. "D204518-2".
        recipient_name: The full name of the person receiving it: the verified caller.
    """
    doc = world.document(document_id)
    if doc.status != "ready":
        raise ToolError(f"Document {doc.id} was already handed over to {doc.handed_to}.")
    if not recipient_name.strip():
        raise ToolError("recipient_name is required: the verified caller's full name.")
    world.put(
        "documents",
        doc.id,
        replace(doc, status="handed_over", handed_to=" ".join(recipient_name.split())),
    )
    return document_view(world.document(doc.id))


@tool(kind=ToolKind.WRITE, terminal=True, free_text=("summary",))
def transfer_to_staff(
    world: ClinicWorld, desk: Desk, summary: str, patient_id: str = "", reference: str = ""
) -> str:
    """Hand the conversation to the responsible staff member: "nurse_line" for symptoms, what
    to do about them, and anything urgent (after telling an emergency to call 112);
    "clinician" for questions about a treatment, a medication or results; "records_office" to
    correct or dispute what a medical record says; "billing" for invoices; "practice_manager"
    for complaints. The conversation ends after the transfer, so tell the caller in the same
    message.

    Args:
        desk: "nurse_line", "clinician", "records_office", "billing" or "practice_manager".
        summary: Two sentences for the staff member: who is calling, for whom, what they need.
        patient_id: The verified patient's number, if any ("" before verification).
        reference: The appointment or document id concerned, if any.
    """
    if patient_id and patient_id.strip().upper() not in world.tables["patients"]:
        raise ToolError(f"No patient with number {patient_id!r}.")
    if desk not in ROSTER:
        raise ToolError(f"Unknown desk {desk!r}.")
    customer = patient_id.strip().upper() or world.session.verified_customer_id
    world.backoffice.handoffs.append(
        Handoff(desk, ROSTER[desk], customer, reference.strip(), summary)
    )
    return f"Transferred to {ROSTER[desk]}."


TOOLS = ToolSet(
    [
        verify_caller,
        list_appointments,
        find_slots,
        list_documents,
        list_record_requests,
        book_appointment,
        reschedule_appointment,
        cancel_appointment,
        request_records,
        hand_over_document,
        transfer_to_staff,
    ]
)

__all__ = ["DEPARTMENTS", "TOOLS", "appointment_view", "document_view"]
