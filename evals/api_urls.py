from django.urls import path

from evals import api

urlpatterns = [
    path("evals/runs", api.RunListApi.as_view(), name="evals-runs-list"),
    path("evals/runs/start", api.RunCreateApi.as_view(), name="evals-runs-start"),
    path("evals/runs/<int:run_id>", api.RunDetailApi.as_view(), name="evals-runs-detail"),
    path("evals/runs/<int:run_id>/resume", api.RunResumeApi.as_view(), name="evals-runs-resume"),
]
