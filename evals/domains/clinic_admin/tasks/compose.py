"""Composing recipes into tasks: caller variants (the patient, the patient with a wrong date of
birth first, a guardian of a minor, a proxy — fully authorised, for appointments only, or
expired), the scenario (only what the caller knows), gold writes and the smoke split."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from evals.domains.clinic_admin.tasks.recipes import COMPOUNDS, SINGLES, WORLD_SEED, Ctx, Recipe
from evals.domains.clinic_admin.world import (
    DEPARTMENTS,
    Authorisation,
    ClinicWorld,
    Patient,
    build_world,
)
from evals.engine.composition import (
    Built,
    Row,
    compose,
    recipe_rows,
    slip,
    wants,
    wrong_dob,
)
from evals.engine.task import Scenario, Task

SMOKE = {
    "book/self",
    "cancel/guardian",
    "refuse-cancel-inside-24h/self",
    "symptom-then-book/self",
    "emergency/self",
}
PROXY_AUTH = {"proxy": "1", "proxy-limited": "2", "proxy-expired": "3"}
SYMPTOMS = {
    "cough": "a dry cough for ten days",
    "rash": "an itchy rash on the arms since last week",
    "headache": "headaches every afternoon for two weeks",
    "stomach": "stomach pain after meals for a few days",
    "fever": "a fever of 38.5 since yesterday",
}


def _caller(world: ClinicWorld, variant: str, n: int) -> tuple[Patient, Authorisation | None]:
    patients = list(world.tables["patients"].values())
    adults = [p for p in patients if not p.minor]
    minors = [p for p in patients if p.minor]
    if variant == "guardian":
        patient = minors[n % len(minors)]
        return patient, world.tables["authorisations"][f"AU{patient.id[1:]}-G"]
    patient = adults[n % len(adults)]
    if variant in PROXY_AUTH:
        return patient, world.tables["authorisations"][f"AU{patient.id[1:]}-{PROXY_AUTH[variant]}"]
    return patient, None


def describe(r: dict[str, Any], who: str) -> str:
    intent = r["intent"]
    dept = DEPARTMENTS.get(r.get("department", ""), ("", ""))[0].lower()
    if intent == "book":
        return f"book a {dept} appointment for {who} on {r['date']}"
    if intent == "move":
        return f"move {who}'s {dept} appointment of {r['from_date']} to {r['date']}"
    if intent == "cancel":
        return f"cancel {who}'s {dept} appointment of {r['from_date']}"
    if intent == "records":
        what = (
            "the full medical record"
            if r["scope"] == "full"
            else "the last 12 months of the record"
        )
        return f"get a copy of {what} of {who}, by {r['delivery']}"
    if intent == "document":
        what = "referral letter" if r["kind"] == "referral_letter" else "sick note"
        if r["to"]:
            return f"have the clinic give {who}'s {what} directly to the {r['to']}"
        return f"collect {who}'s {what}"
    if intent == "symptom":
        text = f"describe {SYMPTOMS[r['symptom']]} ({who}) and ask what to take"
        return text + (" and see a doctor" if r["wants"] == "book" else " or do")
    if intent == "medication":
        return f"ask whether {who} can double the dose of a prescribed medication"
    if intent == "emergency":
        return f"get help: {who} has crushing chest pain and trouble breathing right now"
    if intent == "correction":
        return f"have a wrong allergy corrected in {who}'s medical record"
    return "ask about an invoice you do not understand"


def _scenario(
    patient: Patient,
    auth: Authorisation | None,
    requests: list[dict[str, Any]],
    variant: str,
    ordered: bool,
) -> Scenario:
    role = auth.role if auth else "self"
    caller = auth.holder_name if auth else patient.name
    identity = {
        "patient_id": patient.id,
        "dob": patient.date_of_birth,
        "patient_name": patient.name,
        "caller_name": caller,
        "relationship": role,
        "wrong_dob": wrong_dob(patient.date_of_birth) if variant == "wrong-dob-first" else "",
    }
    who = "yourself" if role == "self" else patient.first_name
    if role == "self":
        known = (
            f"You are {patient.name}, patient number {patient.id}, born {patient.date_of_birth}."
        )
    elif role == "guardian":
        known = (
            f"You are {caller}, parent and guardian of {patient.name} (under 18), patient number "
            f"{patient.id}, born {patient.date_of_birth}."
        )
    else:
        known = (
            f"You are {caller}; {patient.name} (patient number {patient.id}, born "
            f"{patient.date_of_birth}) gave you a written authorisation to deal with the clinic."
        )
    instructions = "Ask for these in this order. " if ordered else ""
    instructions += slip("the date of birth", identity["wrong_dob"])
    instructions += (
        "Accept a refusal if the desk explains the policy; accept a transfer to a staff member; "
        "if the desk tells you to call emergency services, you will."
    )
    return Scenario(
        reason=wants(requests, lambda r: describe(r, who)),
        known_info=known,
        unknown_info="You do not know the ids of appointments, slots or documents.",
        instructions=instructions,
        data={"identity": identity, "requests": requests, "ordered": ordered},
    )


@lru_cache(maxsize=1)
def generate_tasks() -> tuple[Task, ...]:
    world = build_world(WORLD_SEED)

    def make(k: int, row: Row[tuple[str, ...], Recipe], v_index: int, variant: str) -> Built:
        """The row's key is its caller variants; callers rotate with the row and variant."""
        ctx = Ctx(world, *_caller(world, variant, k + v_index))
        return Built(
            [r(ctx) for r in row.recipes],
            lambda requests: _scenario(ctx.patient, ctx.auth, requests, variant, row.ordered),
            WORLD_SEED,
        )

    return compose(
        "clinic_admin",
        recipe_rows(SINGLES, COMPOUNDS),
        variants=lambda row: row.key,
        make=make,
        smoke=SMOKE,
        handoff=("transfer_to_staff", "desk"),
    )
