from django.urls import path  # noqa: F401

app_name = "tickets"

urlpatterns: list = []
