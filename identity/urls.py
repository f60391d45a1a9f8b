from django.urls import path

from identity.views import admin, audit, auth, security

app_name = "identity"

urlpatterns = [
    # Open before the second factor (see identity.middleware.OPEN_URL_NAMES).
    path("login/", auth.login_view, name="login"),
    path("login/verify/", auth.otp_challenge, name="otp_challenge"),
    path("login/enroll/", auth.enroll, name="enroll"),
    path("logout/", auth.logout_view, name="logout"),
    path("language/", auth.language_set, name="language"),
    # Verified operators.
    path("security/", security.security, name="security"),
    path("security/verify/", auth.stepup_view, name="stepup"),
    path("security/password/", security.password_change, name="password_change"),
    path(
        "security/backup-codes/",
        security.backup_codes_regenerate,
        name="backup_codes_regenerate",
    ),
    path("security/sessions/<int:pk>/revoke/", security.session_revoke, name="session_revoke"),
    # Admins.
    path("operators/", admin.operator_list, name="operator_list"),
    path("operators/new/", admin.operator_create, name="operator_create"),
    path("operators/<int:pk>/", admin.operator_detail, name="operator_detail"),
    path("operators/<int:pk>/roles/", admin.operator_roles, name="operator_roles"),
    path(
        "operators/<int:pk>/force-logout/",
        admin.operator_force_logout,
        name="operator_force_logout",
    ),
    path("operators/<int:pk>/reset-2fa/", admin.operator_reset_2fa, name="operator_reset_2fa"),
    path(
        "operators/<int:pk>/reset-password/",
        admin.operator_reset_password,
        name="operator_reset_password",
    ),
    path(
        "operators/resets/<int:pk>/approve/",
        admin.credential_reset_approve,
        name="credential_reset_approve",
    ),
    path(
        "operators/resets/<int:pk>/cancel/",
        admin.credential_reset_cancel,
        name="credential_reset_cancel",
    ),
    path("operators/<int:pk>/deactivate/", admin.operator_deactivate, name="operator_deactivate"),
    path("tokens/", admin.token_list, name="token_list"),
    path("tokens/new/", admin.token_create, name="token_create"),
    path("tokens/<int:pk>/revoke/", admin.token_revoke, name="token_revoke"),
    # Auditors.
    path("audit/", audit.audit_list, name="audit_list"),
    path("audit/export.csv", audit.audit_export, name="audit_export"),
]
