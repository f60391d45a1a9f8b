"""Where one escalation's time goes: the whole request (middleware, token auth, DRF, the
idempotency claim, the service, routing, the audit append, the notification), profiled
with cProfile, and the SQL statements it sends, listed.

    .venv/bin/python bench/escalation_profile.py --postgres-db bo_bench_inbox   # after
        bench/inbox.py --postgres --escalations-only (reuses its seeded database)
    .venv/bin/python bench/escalation_profile.py --sqlite-path /tmp/x.sqlite3

Prints the statements of one escalation, then the top functions by cumulative and by own
time over --n escalations, then CPU ms per escalation outside the profiler; progress on
stderr.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inbox import ESCALATION, broker_deferred_email, setup_on_seeded  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--postgres-db", help="a database bench/inbox.py seeded")
    parser.add_argument("--sqlite-path", help="a SQLite file bench/inbox.py seeded")
    parser.add_argument("--n", type=int, default=300, help="escalations to profile")
    parser.add_argument("--top", type=int, default=45)
    parser.add_argument("--save", help="also write the profile here (for pstats)")
    args = parser.parse_args()
    setup_on_seeded(postgres_db=args.postgres_db, sqlite_path=args.sqlite_path)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext, setup_test_environment

    from tests.conftest import make_service_token, token_client

    setup_test_environment()
    _, raw = make_service_token(["escalations:create", "tickets:read"])
    client = token_client(raw)
    run = uuid.uuid4().hex[:12]

    def post(key: str) -> None:
        response = client.post(
            "/api/v1/escalations", ESCALATION, format="json", HTTP_IDEMPOTENCY_KEY=key
        )
        assert response.status_code == 201, response.content[:300]

    with broker_deferred_email():
        for i in range(10):
            post(f"{run}-warm-{i}")
        with CaptureQueriesContext(connection) as captured:
            post(f"{run}-count")
        print(f"# {len(captured.captured_queries)} statements in one escalation")
        for query in captured.captured_queries:
            print(f"  {query['time']}s  {query['sql'][:220]}")
        start = time.process_time()
        for i in range(args.n):
            post(f"{run}-plain-{i}")
        plain = (time.process_time() - start) * 1000 / args.n
        profile = cProfile.Profile(time.process_time)
        profile.enable()
        for i in range(args.n):
            post(f"{run}-prof-{i}")
        profile.disable()
    if args.save:
        profile.dump_stats(args.save)
    for key in ("cumulative", "tottime"):
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats(key).print_stats(args.top)
        print(f"# by {key}")
        print(out.getvalue())
    print(f"# CPU ms per escalation, unprofiled: {plain:.2f} over {args.n}")


if __name__ == "__main__":
    main()
