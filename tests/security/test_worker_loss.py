"""Finding 5 (Medium), the broker's part: a worker killed with `kill -9` leaves its message
unacknowledged until the broker's visibility timeout (Redis: one hour by default), and a
go-live run stalled that long. The timeout is now derived from the tasks' limits; these tests
hold it to every registered task, so a task that may run or wait longer than the timeout
(and would then be delivered twice while still running) fails the suite."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from backoffice.celery import app


def _longest_countdown(task: Any) -> float:
    if getattr(task, "retry_backoff", False):
        return float(getattr(task, "retry_backoff_max", 600))
    return float(getattr(task, "default_retry_delay", 0) if getattr(task, "max_retries", 0) else 0)


def test_the_visibility_timeout_outlasts_every_tasks_wait_and_run_but_not_an_hour() -> None:
    app.loader.import_default_modules()
    visibility = app.conf.broker_transport_options["visibility_timeout"]
    assert visibility < 3600, "a lost message would again wait the broker's default hour"
    for name, task in app.tasks.items():
        if name.startswith("celery."):
            continue
        limit = task.time_limit or app.conf.task_time_limit
        assert limit, f"{name} has no hard time limit: it could outlive the visibility timeout"
        countdown = max(_longest_countdown(task), 0.0)
        assert countdown <= settings.CELERY_LONGEST_RETRY_COUNTDOWN, name
        assert countdown + limit < visibility, (
            f"{name}: may stay unacknowledged {countdown + limit:.0f} s, the broker redelivers "
            f"after {visibility} s"
        )


def test_the_go_live_trial_wall_time_fits_inside_the_task_limit() -> None:
    from evals.services.suites import LimitsEntry

    assert LimitsEntry().wall_time_s < app.conf.task_soft_time_limit
