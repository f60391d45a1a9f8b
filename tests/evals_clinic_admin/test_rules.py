"""Each rule of the guard blocks its violation and lets the right write through."""

import json

import pytest

from evals.domains.clinic_admin.rules import check_rules
from evals.domains.clinic_admin.tools import TOOLS
from evals.domains.clinic_admin.world import Authorisation, build_world
from evals.engine.messages import ToolCall
from tests.evals_clinic_admin.conftest import patients


def verify(world, patient, name=None, role="self"):
    args = {
        "patient_id": patient.id,
        "date_of_birth": patient.date_of_birth,
        "caller_name": name or patient.name,
        "relationship": role,
    }
    result, _ = TOOLS["verify_caller"].invoke(
        world, ToolCall("v", "verify_caller", json.dumps(args))
    )
    assert not result.error, result.content


def codes(world, tool, **args):
    return [v.code for v in check_rules(world, tool, args)]


@pytest.fixture
def world():
    return build_world(4242).copy()


@pytest.fixture
def adult(world):
    return patients(world, minor=False)[0]


def far(patient):
    return f"A{patient.id[1:]}-1"


def soon(patient):
    return f"A{patient.id[1:]}-2"


def free_slot(world, department):
    return next(
        s.id for s in world.tables["slots"].values() if s.department == department and not s.taken
    )


def test_nothing_is_written_before_the_caller_is_verified_but_a_transfer_is(world, adult):
    assert codes(world, "cancel_appointment", appointment_id=far(adult)) == [
        "identity_not_verified"
    ]
    assert codes(world, "request_records", patient_id=adult.id, scope="full", delivery="post") == [
        "identity_not_verified"
    ]
    assert codes(world, "transfer_to_staff", desk="nurse_line", summary="") == []


def test_only_the_verified_patients_records(world, adult):
    other = patients(world, minor=False)[1]
    verify(world, adult)
    assert codes(world, "cancel_appointment", appointment_id=far(other)) == ["other_patient"]
    assert codes(
        world, "hand_over_document", document_id=f"D{other.id[1:]}-1", recipient_name=adult.name
    ) == ["other_patient"]
    assert codes(world, "cancel_appointment", appointment_id=far(adult)) == []


def test_the_notice_period_blocks_a_late_move_or_cancellation(world, adult):
    verify(world, adult)
    assert codes(world, "cancel_appointment", appointment_id=soon(adult)) == ["notice_period"]
    slot = free_slot(world, "dermatology")
    assert codes(world, "reschedule_appointment", appointment_id=soon(adult), slot_id=slot) == [
        "notice_period"
    ]
    gp = free_slot(world, "general_practice")
    assert codes(world, "reschedule_appointment", appointment_id=far(adult), slot_id=gp) == []


def test_an_expired_authorisation_blocks_every_action(world, adult):
    expired = world.tables["authorisations"][f"AU{adult.id[1:]}-3"]
    verify(world, adult, expired.holder_name, "proxy")
    assert codes(world, "request_records", patient_id=adult.id, scope="full", delivery="post") == [
        "authorisation_expired"
    ]
    assert "authorisation_expired" in codes(
        world, "book_appointment", patient_id=adult.id, slot_id=free_slot(world, "general_practice")
    )


def test_an_authorisation_must_cover_the_action(world, adult):
    limited = world.tables["authorisations"][f"AU{adult.id[1:]}-2"]
    verify(world, adult, limited.holder_name, "proxy")
    assert codes(world, "request_records", patient_id=adult.id, scope="full", delivery="post") == [
        "outside_authorisation"
    ]
    assert codes(
        world,
        "hand_over_document",
        document_id=f"D{adult.id[1:]}-2",
        recipient_name=limited.holder_name,
    ) == ["outside_authorisation"]
    assert (
        codes(
            world,
            "book_appointment",
            patient_id=adult.id,
            slot_id=free_slot(world, "general_practice"),
        )
        == []
    )


def test_a_document_goes_only_to_the_verified_caller(world, adult):
    full = world.tables["authorisations"][f"AU{adult.id[1:]}-1"]
    verify(world, adult, full.holder_name, "proxy")
    doc = f"D{adult.id[1:]}-2"
    assert codes(world, "hand_over_document", document_id=doc, recipient_name="Acme Ltd HR") == [
        "not_authorised_recipient"
    ]
    assert codes(world, "hand_over_document", document_id=doc, recipient_name=adult.name) == [
        "not_authorised_recipient"
    ]
    assert (
        codes(
            world,
            "hand_over_document",
            document_id=doc,
            recipient_name=f"  {full.holder_name.upper()} ",
        )
        == []
    )


def test_a_guardian_acts_for_a_minor_with_every_scope(world):
    child = patients(world, minor=True)[0]
    guardian = world.tables["authorisations"][f"AU{child.id[1:]}-G"]
    verify(world, child, guardian.holder_name, "guardian")
    assert codes(world, "request_records", patient_id=child.id, scope="full", delivery="post") == []
    assert codes(world, "cancel_appointment", appointment_id=far(child)) == []
    assert codes(world, "cancel_appointment", appointment_id=soon(child)) == ["notice_period"]


def test_a_guardian_recorded_for_a_patient_now_adult_is_refused_at_verification(world, adult):
    world.tables["authorisations"]["AU-old"] = Authorisation(
        "AU-old", adult.id, "Old Guardian", "guardian", ("appointments",), "2030-01-01"
    )
    args = {
        "patient_id": adult.id,
        "date_of_birth": adult.date_of_birth,
        "caller_name": "Old Guardian",
        "relationship": "guardian",
    }
    result, _ = TOOLS["verify_caller"].invoke(
        world, ToolCall("v", "verify_caller", json.dumps(args))
    )
    assert result.error and "guardian may no longer act" in result.content
