"""How the offline models speak at the clinic's front desk: the reference desk, the scripted
caller, and the vocabulary they share (text only)."""

from evals.domains.clinic_admin.scripted.agent import ClinicReferenceAgent
from evals.domains.clinic_admin.scripted.user import ClinicScriptedUser

__all__ = ["ClinicReferenceAgent", "ClinicScriptedUser"]
