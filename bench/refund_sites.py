"""CPU per call of the refund path's database sites, hand-written SQL against the ORM,
printed as JSON.

Each site of a refund request that could be either (the token lookup, the payment lock, the
pending sum, the refund insert) is spelled both ways here, independently of which one the
app uses, and the two are timed alternately in one process (CPU time of this process: the
statement's building, sending and decoding, not the server's work), `--rounds` times
`--calls` calls each, inside one transaction that is rolled back. Issue 19's rule: a site
stays hand-written when the ORM's spelling costs over a tenth of a refund request's CPU
(`per_request` of bench/refunds.py); docs/performance.md has the figures.

PostgreSQL (database bo_bench_refund_sites on postgres://postgres@127.0.0.1:5432, dropped and
recreated), or the database DATABASE_URL names with --database-url.

    .venv/bin/python bench/refund_sites.py [--calls 300] [--rounds 4] [--database-url URL]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
PG_BENCH_URL = "postgres://postgres@127.0.0.1:5432/bo_bench_refund_sites"


def _recreate_pg_database() -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as c:
        c.execute("DROP DATABASE IF EXISTS bo_bench_refund_sites WITH (FORCE)")
        c.execute("CREATE DATABASE bo_bench_refund_sites")


def _sites() -> dict[str, tuple[Callable[[], Any], Callable[[], Any]]]:
    """{site: (hand-written SQL, ORM)}, each a call with the same result."""
    from django.core.management import call_command
    from django.db import connection
    from django.db.models import Sum
    from django.utils import timezone

    from identity import tokens
    from identity.models import ApiToken, Operator, OperatorKind
    from payments_sandbox.domain import PENDING_REFUND_STATES, Money
    from payments_sandbox.models import Payment, Refund
    from payments_sandbox.services import payment_capture

    call_command("migrate", verbosity=0)
    operator = Operator.objects.create(
        username="bench-sites", kind=OperatorKind.SERVICE, display_name="bench"
    )
    _raw, prefix, token_hash = tokens.generate()
    ApiToken.objects.create(
        operator=operator, name="bench", prefix=prefix, token_hash=token_hash, scopes=[]
    )
    payment = payment_capture(actor=None, amount=Money.parse("100000.00", "USD"))
    quote = connection.ops.quote_name

    def table(model: Any) -> str:
        return quote(model._meta.db_table)

    def col(model: Any, name: str) -> str:
        return quote(next(f.column for f in model._meta.concrete_fields if f.name == name))

    token_fields = [f.attname for f in ApiToken._meta.concrete_fields]
    operator_fields = [f.attname for f in Operator._meta.concrete_fields]
    token_sql = (
        "SELECT "
        + ", ".join(
            [f"t.{quote(str(f.column))}" for f in ApiToken._meta.concrete_fields]
            + [f"o.{quote(str(f.column))}" for f in Operator._meta.concrete_fields]
        )
        + f" FROM {table(ApiToken)} t JOIN {table(Operator)} o"
        + f" ON o.{col(Operator, 'id')} = t.{col(ApiToken, 'operator')}"
        + f" WHERE t.{col(ApiToken, 'prefix')} = %s"
    )

    def converters(model: Any) -> list[tuple[Any, list[Any]]]:
        found = []
        for field in model._meta.concrete_fields:
            column = field.get_col(model._meta.db_table)
            found.append(
                (
                    column,
                    connection.ops.get_db_converters(column) + column.get_db_converters(connection),
                )
            )
        return found

    token_converters, operator_converters = converters(ApiToken), converters(Operator)

    def converted(values: Any, found: list[tuple[Any, list[Any]]]) -> list[Any]:
        out = []
        for value, (column, functions) in zip(values, found, strict=True):
            for function in functions:
                value = function(value, column, connection)
            out.append(value)
        return out

    def token_sql_call() -> ApiToken:
        # As the app's hand-written lookup does it: each column through its converters.
        with connection.cursor() as cursor:
            cursor.execute(token_sql, [prefix])
            row = cursor.fetchone()
        split = len(token_fields)
        token = ApiToken.from_db("default", token_fields, converted(row[:split], token_converters))
        token.operator = Operator.from_db(
            "default", operator_fields, converted(row[split:], operator_converters)
        )
        return token

    lock_sql = f"SELECT * FROM {table(Payment)} WHERE {col(Payment, 'id')} = %s FOR UPDATE"
    states = sorted(str(s) for s in PENDING_REFUND_STATES)
    pending_sql = (
        f"SELECT SUM({col(Refund, 'amount')}) FROM {table(Refund)} "
        f"WHERE {col(Refund, 'payment')} = %s "
        f"AND {col(Refund, 'status')} IN ({', '.join(['%s'] * len(states))})"
    )

    def pending_sql_call() -> int:
        with connection.cursor() as cursor:
            cursor.execute(pending_sql, [payment.pk, *states])
            return cursor.fetchone()[0] or 0

    insert_fields = [f for f in Refund._meta.concrete_fields if not f.primary_key]
    insert_sql = (
        f"INSERT INTO {table(Refund)} ({', '.join(quote(str(f.column)) for f in insert_fields)}) "
        f"VALUES ({', '.join(['%s'] * len(insert_fields))}) RETURNING {col(Refund, 'id')}"
    )

    def new_refund() -> Refund:
        now = timezone.now()
        return Refund(
            mode=payment.mode,
            payment=payment,
            amount=1,
            currency="USD",
            reason="bench",
            requested_by=operator,
            requested_at=now,
            provider_idempotency_key=f"bench-{time.perf_counter_ns()}",
            updated_at=now,
            status="pending_approval",
        )

    def insert_sql_call() -> None:
        refund = new_refund()
        params = [
            f.get_db_prep_save(f.pre_save(refund, add=True), connection) for f in insert_fields
        ]
        with connection.cursor() as cursor:
            cursor.execute(insert_sql, params)
            refund.pk = cursor.fetchone()[0]

    return {
        "token_by_prefix": (
            token_sql_call,
            lambda: ApiToken.objects.select_related("operator").get(prefix=prefix),
        ),
        "lock_payment": (
            lambda: next(iter(Payment.objects.raw(lock_sql, [payment.pk]))),
            lambda: Payment.objects.select_for_update().get(pk=payment.pk),
        ),
        "refundable_facts_pending_sum": (
            pending_sql_call,
            lambda: (
                Refund.objects.filter(payment_id=payment.pk, status__in=states)
                .order_by()
                .aggregate(total=Sum("amount"))["total"]
            ),
        ),
        "insert_refund": (insert_sql_call, lambda: new_refund().save(force_insert=True)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--database-url", help="measure this database instead of a scratch one")
    args = parser.parse_args()
    if args.database_url is None:
        _recreate_pg_database()
    os.environ.update(
        DATABASE_URL=args.database_url or PG_BENCH_URL,
        DEBUG="0",
        SECRET_KEY=os.environ.get("SECRET_KEY", "bench-only-secret-key"),
        DJANGO_SETTINGS_MODULE="backoffice.settings",
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.db import transaction

    load_at_start = os.getloadavg()
    figures: dict[str, dict[str, list[float]]] = {}
    with transaction.atomic():
        sites = _sites()
        for number in range(args.rounds):
            for name, (sql, orm) in sites.items():
                runs = figures.setdefault(name, {"sql_cpu_ms": [], "orm_cpu_ms": []})
                order = [("sql_cpu_ms", sql), ("orm_cpu_ms", orm)]
                for label, call in order if number % 2 == 0 else order[::-1]:
                    for _ in range(20):  # warm up
                        call()
                    began = time.process_time()
                    for _ in range(args.calls):
                        call()
                    spent = time.process_time() - began
                    runs[label].append(round(spent / args.calls * 1000, 4))
        transaction.set_rollback(True)
    print(
        json.dumps(
            {
                "load_average_at_start": load_at_start,
                "load_average_at_end": os.getloadavg(),
                "calls_per_round": args.calls,
                "sites": {
                    name: {
                        **runs,
                        "orm_minus_sql_ms_median": round(
                            sorted(runs["orm_cpu_ms"])[len(runs["orm_cpu_ms"]) // 2]
                            - sorted(runs["sql_cpu_ms"])[len(runs["sql_cpu_ms"]) // 2],
                            4,
                        ),
                    }
                    for name, runs in figures.items()
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
