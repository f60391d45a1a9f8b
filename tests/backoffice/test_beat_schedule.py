from django.conf import settings

from backoffice.celery import app


def test_every_beat_entry_names_a_registered_task() -> None:
    app.loader.import_default_modules()
    scheduled = {name: entry["task"] for name, entry in settings.CELERY_BEAT_SCHEDULE.items()}
    missing = {name: task for name, task in scheduled.items() if task not in app.tasks}
    assert not missing
    assert scheduled["tickets-loads-recount"] == "tickets.tasks.operator_loads_recount_task"
