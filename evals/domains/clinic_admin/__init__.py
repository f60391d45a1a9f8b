"""Front desk of a medical clinic, administrative intake only: appointments (book, move,
cancel with 24 hours' notice), medical-record requests, hand-over of issued documents to the
authorised person, and transfers to the responsible desk; the caller verified with their role
(patient, guardian of a minor, proxy with an authorisation in force that covers the action).
No clinical advice: symptom and medication questions go to the nurse line or the clinician,
emergencies to 112 — and the guard checks every agent message for advice."""

from __future__ import annotations

from evals.engine.domain import Domain, package_domain


def load() -> Domain:
    from evals.domains.clinic_admin.scripted import ClinicReferenceAgent, ClinicScriptedUser

    about = "Administrative front desk of a medical clinic (no clinical advice)."
    return package_domain(__name__, about, ClinicReferenceAgent.factory, ClinicScriptedUser.factory)
