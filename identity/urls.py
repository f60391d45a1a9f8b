from django.urls import path

from identity.views import auth

app_name = "identity"

urlpatterns = [
    path("login/", auth.login_view, name="login"),
    path("login/verify/", auth.otp_challenge, name="otp_challenge"),
    path("login/enroll/", auth.enroll, name="enroll"),
    path("logout/", auth.logout_view, name="logout"),
    path("security/verify/", auth.stepup_view, name="stepup"),
    path("healthz", auth.healthz, name="healthz"),
]
