from django.urls import path

from identity.api import WhoAmIView

urlpatterns = [
    path("identity/whoami/", WhoAmIView.as_view(), name="identity-whoami"),
]
