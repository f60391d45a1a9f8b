import json
from functools import partial

import pytest

from evals.domains.clinic_admin.tools import TOOLS
from evals.domains.clinic_admin.world import build_world
from tests.evals_clinic_admin.conftest import patients
from tests.support import tool_kit

call = partial(tool_kit.call, TOOLS)


@pytest.fixture
def world():
    return build_world(4242).copy()


def test_every_tool_has_a_schema_from_its_signature_and_docstring():
    schemas = {s["function"]["name"]: s["function"] for s in TOOLS.schemas()}
    verify = schemas["verify_caller"]["parameters"]
    assert verify["properties"]["relationship"]["enum"] == ["self", "guardian", "proxy"]
    assert set(verify["required"]) == {"patient_id", "date_of_birth", "caller_name", "relationship"}
    assert schemas["request_records"]["parameters"]["properties"]["scope"]["enum"] == [
        "full",
        "last_12_months",
    ]
    assert all(s["description"] for s in schemas.values())


def test_verify_caller_accepts_the_patient_a_guardian_and_a_proxy(world):
    adult = patients(world, minor=False)[0]
    child = patients(world, minor=True)[0]
    me = call(
        world,
        "verify_caller",
        patient_id=adult.id,
        date_of_birth=adult.date_of_birth,
        caller_name=adult.name,
        relationship="self",
    )
    assert not me.error and json.loads(me.content)["relationship"] == "self"
    guardian = world.tables["authorisations"][f"AU{child.id[1:]}-G"]
    g = call(
        world,
        "verify_caller",
        patient_id=child.id,
        date_of_birth=child.date_of_birth,
        caller_name=guardian.holder_name,
        relationship="guardian",
    )
    assert not g.error and json.loads(g.content)["patient_is_minor"] is True
    expired = world.tables["authorisations"][f"AU{adult.id[1:]}-3"]
    p = call(
        world,
        "verify_caller",
        patient_id=adult.id,
        date_of_birth=adult.date_of_birth,
        caller_name=expired.holder_name,
        relationship="proxy",
    )
    data = json.loads(p.content)
    assert data["authorisation_expired"] is True and data["authorisation_expires"] == "2025-05-31"
    assert world.caller is not None and world.caller.name == expired.holder_name


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"date_of_birth": "1900-01-01"}, "No patient matches"),
        ({"date_of_birth": "01/02/1980"}, "YYYY-MM-DD"),
        ({"patient_id": "P000000"}, "No patient matches"),
        ({"caller_name": "Somebody Else"}, "not the patient's name"),
        ({"caller_name": "Somebody Else", "relationship": "proxy"}, "No proxy named"),
    ],
)
def test_verify_caller_refuses_what_is_not_on_record(world, change, message):
    adult = patients(world, minor=False)[0]
    args = {
        "patient_id": adult.id,
        "date_of_birth": adult.date_of_birth,
        "caller_name": adult.name,
        "relationship": "self",
        **change,
    }
    result = call(world, "verify_caller", **args)
    assert result.error and message in result.content
    assert world.session.verified_customer_id == "" and world.caller is None


def test_a_guardian_cannot_act_for_an_adult(world):
    adult = patients(world, minor=False)[0]
    proxy = world.tables["authorisations"][f"AU{adult.id[1:]}-1"]
    # A proxy on record is no guardian; an adult has no guardian at all.
    result = call(
        world,
        "verify_caller",
        patient_id=adult.id,
        date_of_birth=adult.date_of_birth,
        caller_name=proxy.holder_name,
        relationship="guardian",
    )
    assert result.error and "No guardian named" in result.content


def test_wrong_types_and_missing_fields_are_tool_errors(world):
    assert call(world, "find_slots", department="cardiology", date="2025-06-18").error
    assert tool_kit.call_raw(TOOLS, world, "book_appointment", "{").error
    assert tool_kit.call_raw(TOOLS, world, "cancel_appointment", "{}").error
    assert call(world, "find_slots", department="dermatology", date="18 June").error


def test_unknown_ids_and_wrong_statuses_are_clear_tool_errors(world):
    adult = patients(world, minor=False)[0]
    assert (
        "Appointment ids look like"
        in call(world, "cancel_appointment", appointment_id="A1").content
    )
    assert (
        "Document ids look like"
        in call(world, "hand_over_document", document_id="D1", recipient_name="x").content
    )
    assert (
        "find them with find_slots"
        in call(world, "book_appointment", patient_id=adult.id, slot_id="S-nope").content
    )
    far = f"A{adult.id[1:]}-1"
    taken = world.tables["appointments"][far].slot_id
    assert (
        "already taken"
        in call(world, "book_appointment", patient_id=adult.id, slot_id=taken).content
    )
    assert not call(world, "cancel_appointment", appointment_id=far).error
    assert "already cancelled" in call(world, "cancel_appointment", appointment_id=far).content
    other_dept = next(
        s for s in world.tables["slots"].values() if s.department == "dermatology" and not s.taken
    )
    moved = call(
        world, "reschedule_appointment", appointment_id=f"A{adult.id[1:]}-2", slot_id=other_dept.id
    )
    assert not moved.error  # same department (dermatology) is allowed by the tool
    gp = next(
        s for s in world.tables["slots"].values() if s.department == "physiotherapy" and not s.taken
    )
    assert (
        "Book a new appointment"
        in call(
            world, "reschedule_appointment", appointment_id=f"A{adult.id[1:]}-2", slot_id=gp.id
        ).content
    )
    doc = f"D{adult.id[1:]}-1"
    assert not call(world, "hand_over_document", document_id=doc, recipient_name=adult.name).error
    assert (
        "already handed over"
        in call(world, "hand_over_document", document_id=doc, recipient_name=adult.name).content
    )


def test_moving_frees_the_old_slot_and_takes_the_new_one(world):
    adult = patients(world, minor=False)[0]
    appt = world.tables["appointments"][f"A{adult.id[1:]}-1"]
    new = next(
        s for s in world.tables["slots"].values() if s.department == appt.department and not s.taken
    )
    assert not call(world, "reschedule_appointment", appointment_id=appt.id, slot_id=new.id).error
    assert world.tables["slots"][appt.slot_id].taken is False
    assert world.tables["slots"][new.id].taken is True
    assert world.tables["appointments"][appt.id].start == new.start


def test_a_transfer_records_the_desk_and_its_named_staff(world):
    assert call(world, "transfer_to_staff", desk="nurse_line", summary="s").content.startswith(
        "Transferred to Maria Keller"
    )
    assert world.backoffice.handoffs[-1].category == "nurse_line"
    assert call(world, "transfer_to_staff", desk="nurse_line", summary="s", patient_id="P1").error


def test_the_world_is_deterministic_and_copies_forget_the_caller():
    a, b = build_world(4242).copy(), build_world(4242).copy()
    assert a.state_hash() == b.state_hash()
    adult = patients(a, minor=False)[0]
    call(
        a,
        "verify_caller",
        patient_id=adult.id,
        date_of_birth=adult.date_of_birth,
        caller_name=adult.name,
        relationship="self",
    )
    assert a.caller is not None and a.copy().caller is None
    assert a.state_hash() == b.state_hash()  # verifying changes no compared state
