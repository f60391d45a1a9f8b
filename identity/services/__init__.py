"""Identity writes. Each service runs in one transaction and records exactly one audit
event as its last step (login failures and lockouts included)."""

from identity.services.api_tokens import api_token_create, api_token_revoke
from identity.services.credential_resets import (
    approval_refusal,
    credential_reset_approve,
    credential_reset_cancel,
    credential_reset_request,
)
from identity.services.login import (
    GENERIC_LOGIN_ERROR,
    LoginRefused,
    OtpPurpose,
    OtpRefused,
    login_password_check,
    logout_record,
    otp_verify,
)
from identity.services.operators import (
    operator_create,
    operator_deactivate,
    operator_force_logout,
    operator_roles_set,
)
from identity.services.passwords import PasswordChangeRefused, operator_password_change
from identity.services.preferences import operator_language_set
from identity.services.second_factor import (
    backup_codes_regenerate,
    operator_totp_enroll_confirm,
    operator_totp_enroll_start,
)
from identity.services.sessions import session_revoke, session_rotate

__all__ = [
    "GENERIC_LOGIN_ERROR",
    "LoginRefused",
    "OtpPurpose",
    "OtpRefused",
    "PasswordChangeRefused",
    "api_token_create",
    "api_token_revoke",
    "approval_refusal",
    "backup_codes_regenerate",
    "credential_reset_approve",
    "credential_reset_cancel",
    "credential_reset_request",
    "login_password_check",
    "logout_record",
    "operator_create",
    "operator_deactivate",
    "operator_force_logout",
    "operator_language_set",
    "operator_password_change",
    "operator_roles_set",
    "operator_totp_enroll_confirm",
    "operator_totp_enroll_start",
    "otp_verify",
    "session_revoke",
    "session_rotate",
]
