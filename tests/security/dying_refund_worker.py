"""A refund worker in its own process, for the kill -9 test: it executes one approved refund
with the sandbox provider, and once the provider has made the refund (before the worker
records the answer) it writes a marker file and waits to be killed.

Run as `python -m tests.security.dying_refund_worker REFUND_ID MARKER` with DATABASE_URL
naming the test's database (tests/security/test_fault_refund_kill.py does).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()
    from payments_sandbox.adapters import SandboxAdapter
    from payments_sandbox.services import refund_execute

    refund_id, marker = int(sys.argv[1]), Path(sys.argv[2])

    class Killed(SandboxAdapter):
        def create_refund(self, **kwargs: Any) -> Any:
            result = super().create_refund(**kwargs)
            marker.write_text("provider refunded")
            time.sleep(120)  # the parent kills this process here
            return result

    refund_execute(refund_id=refund_id, adapter=Killed())


if __name__ == "__main__":
    main()
