from django.urls import path

from evals import views

app_name = "evals"

urlpatterns = [
    path("", views.run_list, name="run_list"),
    path("start/", views.run_start, name="run_start"),
    path("compare/", views.compare, name="compare"),
    path("import/", views.run_import, name="run_import"),
    path("selftests/<int:selftest_id>/", views.selftest_detail, name="selftest_detail"),
    path("<int:run_id>/", views.run_detail, name="run_detail"),
    path("<int:run_id>/progress/", views.run_progress, name="run_progress"),
    path("<int:run_id>/export.jsonl", views.run_export, name="run_export"),
    path("<int:run_id>/report.html", views.run_report_file, name="run_report_file"),
    path("<int:run_id>/resume/", views.run_resume, name="run_resume"),
    path("<int:run_id>/rerun-errors/", views.run_rerun_errors, name="run_rerun_errors"),
    path("<int:run_id>/selftest/", views.run_selftest, name="run_selftest"),
    path("<int:run_id>/trials/", views.run_trial_list, name="run_trial_list"),
    path("<int:run_id>/trials/<int:trial_id>/", views.trial_detail, name="trial_detail"),
    path("<int:run_id>/trials/<int:trial_id>/cell/", views.trial_cell, name="trial_cell"),
    path("<int:run_id>/trials/<int:trial_id>/ticket/", views.trial_ticket, name="trial_ticket"),
]
