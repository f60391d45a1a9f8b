from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from backoffice import health, views

api_v1 = [
    path("", include("identity.api_urls")),
    path("", include("tickets.api_urls")),
    path("", include("payments_sandbox.api_urls")),
    path("", include("evals.api_urls")),
]

urlpatterns = [
    path("", views.home, name="home"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("healthz", health.healthz, name="healthz"),
    path("", include("identity.urls")),
    path("tickets/", include("tickets.urls")),
    path("payments/", include("payments_sandbox.urls")),
    path("evals/", include("evals.urls")),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger's start-up script as a file (the Content-Security-Policy
    # runs no inline script).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
]

handler400 = "backoffice.error_views.bad_request"
handler403 = "backoffice.error_views.permission_denied"
handler404 = "backoffice.error_views.page_not_found"
handler500 = "backoffice.error_views.server_error"
