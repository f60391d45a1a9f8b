"""The plans of the inbox searches of bench/inbox.py, on a seeded bench database: for each
search and operator, the SQL statements that touch the search index as the API sends them
(how common the words are, the capped count, the page's ids), each with what it reads:

  - PostgreSQL: EXPLAIN (ANALYZE, BUFFERS): shared buffers touched (hit + read), rows out of
    the search table, and the plan's nodes — load-independent;
  - SQLite: EXPLAIN QUERY PLAN and the CPU time of the statement (best of 5, this process).

    .venv/bin/python bench/search_plans.py --postgres --postgres-db bo_bench_inbox
    .venv/bin/python bench/search_plans.py --sqlite-path /path/to/bench.sqlite3

Seed the database first with bench/inbox.py (same --postgres-db / --sqlite-path). Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inbox_seed import FIRST_NAMES, LAST_NAMES  # noqa: E402

SEARCH_TABLES = ("tickets_ticketsearch", "tickets_ticket_search")


def _nodes(plan: dict[str, Any], out: list[str]) -> list[str]:
    label = plan["Node Type"]
    if "Index Name" in plan:
        label += f" {plan['Index Name']}"
    elif "Relation Name" in plan:
        label += f" {plan['Relation Name']}"
    out.append(f"{label} rows={plan.get('Actual Rows')} loops={plan.get('Actual Loops')}")
    for child in plan.get("Plans", []):
        _nodes(child, out)
    return out


def _explain(sql: str) -> dict[str, Any]:
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)
            raw = cursor.fetchone()[0]
            plan = (json.loads(raw) if isinstance(raw, str) else raw)[0]
            top = plan["Plan"]
            return {
                "buffers": top.get("Shared Hit Blocks", 0) + top.get("Shared Read Blocks", 0),
                "execution_ms": round(plan["Execution Time"], 2),
                "nodes": _nodes(top, []),
            }
        cursor.execute("EXPLAIN QUERY PLAN " + sql)
        steps = [row[3] for row in cursor.fetchall()]
        best = float("inf")
        for _ in range(5):
            start = time.process_time()
            cursor.execute(sql)
            cursor.fetchall()
            best = min(best, time.process_time() - start)
        return {"cpu_ms": round(best * 1000, 2), "plan": steps}


def plans(client: Any, url: str) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    searching = [
        q["sql"] for q in captured.captured_queries if any(t in q["sql"] for t in SEARCH_TABLES)
    ]
    return {
        "count": response.json()["count"],
        "statements": len(captured.captured_queries),
        "search_statements": [
            {"sql": sql[:160] + ("..." if len(sql) > 160 else ""), **_explain(sql)}
            if not sql.startswith("EXPLAIN")
            else {"sql": sql[:160] + "...", "note": "plan estimate only, nothing read"}
            for sql in searching
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--postgres-db", default="bo_bench_inbox")
    parser.add_argument("--sqlite-path")
    args = parser.parse_args()
    if args.postgres:
        os.environ["DATABASE_URL"] = f"postgresql://postgres@127.0.0.1:5432/{args.postgres_db}"
    elif args.sqlite_path:
        os.environ["DATABASE_URL"] = f"sqlite:///{args.sqlite_path}"
    else:
        parser.error("--postgres or --sqlite-path")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()
    from django.test.utils import setup_test_environment
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from identity.models import Operator
    from tests.conftest import verified_client

    setup_test_environment()
    sam, agent = Operator.objects.get(username="sam"), Operator.objects.get(username="agent00")
    for op in (sam, agent):
        TOTPDevice.objects.get_or_create(user=op, name="default", defaults={"confirmed": True})
    supervisor, agent_client = verified_client(sam, api=True), verified_client(agent, api=True)
    name = quote(f"{FIRST_NAMES[7]} {LAST_NAMES[3]}")
    cases = {
        "supervisor number": (supervisor, "view=all&q=12345"),
        "supervisor name": (supervisor, f"view=all&q={name}"),
        "supervisor chinese rare": (supervisor, f"view=all&q={quote('没有到账')}"),
        "supervisor chinese common": (supervisor, f"view=all&q={quote('送到')}"),
        "supervisor english word of every ticket": (supervisor, "view=all&q=voucher"),
        "agent number": (agent_client, "view=search&q=12345"),
        "agent chinese common": (agent_client, f"view=search&q={quote('送到')}"),
        "agent queues chinese common": (agent_client, f"view=queues&q={quote('送到')}"),
        "agent english word of every ticket": (agent_client, "view=search&q=voucher"),
    }
    out = {key: plans(client, f"/api/v1/tickets?{query}") for key, (client, query) in cases.items()}
    print(json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
