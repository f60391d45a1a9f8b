"""Front desk of a medical clinic, administrative intake only: appointments (book, move,
cancel with 24 hours' notice), medical-record requests, hand-over of issued documents to the
authorised person, and transfers to the responsible desk; the caller verified with their role
(patient, guardian of a minor, proxy with an authorisation in force that covers the action).
No clinical advice: symptom and medication questions go to the nurse line or the clinician,
emergencies to 112 — and the guard checks every agent message for advice."""

from __future__ import annotations

from pathlib import Path

from evals.engine.domain import Domain


def load() -> Domain:
    from evals.domains.clinic_admin.rules import check_message, check_rules
    from evals.domains.clinic_admin.scripted import ClinicReferenceAgent, ClinicScriptedUser
    from evals.domains.clinic_admin.tasks import generate_tasks
    from evals.domains.clinic_admin.tools import TOOLS
    from evals.domains.clinic_admin.world import build_world

    return Domain(
        name="clinic_admin",
        policy=Path(__file__).with_name("policy.md").read_text(encoding="utf-8"),
        tools=TOOLS,
        rules=check_rules,
        message_rules=check_message,
        build_world=build_world,
        load_tasks=generate_tasks,
        reference_agent=ClinicReferenceAgent.factory,
        scripted_user=ClinicScriptedUser.factory,
        description="Administrative front desk of a medical clinic (no clinical advice).",
        scripted_languages=("en", "zh-Hans"),
    )
