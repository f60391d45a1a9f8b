"""A real Celery worker (`celery worker`, prefork pool) whose refund execution stops at a point
the kill -9 test chooses, and says so in a marker file before it waits there to be killed:

    in-provider-call  inside the provider call, before the provider has made the refund
    before-commit     the provider has refunded and our settlement's UPDATEs are written, but
                      its transaction has not committed (its row locks are held)

Run as `python -m tests.security.refund_celery_worker STOP MARKER -A backoffice worker ...`
(tests/security/test_fault_refund_celery.py does, through tests.celery_workers.spawn_worker).
With STOP `none` and a number of seconds as MARKER, it is a plain worker whose broker
visibility timeout is that short: it stands for the fresh worker that finds the killed one's
unacknowledged message once the timeout has passed, without the test waiting the real one.
The seam is the one every refund test patches: the payment adapter chokepoint.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

HOLD_SECONDS = 300  # the test kills the worker long before this


def _instrument(stop: str, marker: Path) -> None:
    from payments_sandbox.adapters import SandboxAdapter
    from payments_sandbox.services import execution

    def reached(where: str) -> None:
        marker.write_text(f"{where} {os.getpid()}")
        time.sleep(HOLD_SECONDS)

    class Instrumented(SandboxAdapter):
        def create_refund(self, **kwargs: Any) -> Any:
            if stop == "in-provider-call":
                reached(stop)
            return super().create_refund(**kwargs)

    execution.get_adapter = Instrumented
    if stop == "before-commit":
        real_audit = execution.audit_record

        def audit_then_hold(**kwargs: Any) -> Any:
            event = real_audit(**kwargs)
            if kwargs.get("action") == "refund.succeed":
                reached(stop)  # inside refund_settle's transaction, before its commit
            return event

        execution.audit_record = audit_then_hold


def main() -> None:
    stop, marker_or_seconds, *celery_argv = sys.argv[1:]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backoffice.settings")
    import django

    django.setup()
    from backoffice.celery import app

    if stop == "none":
        app.conf.broker_transport_options = {
            **app.conf.broker_transport_options,
            "visibility_timeout": int(marker_or_seconds),
        }
    else:
        _instrument(stop, Path(marker_or_seconds))
    # The pool's children are forked from this process, so they run the instrumented code.
    app.worker_main(celery_argv[2:])  # drop "-A backoffice": the app is already loaded


if __name__ == "__main__":
    main()
