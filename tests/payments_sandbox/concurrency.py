"""Helpers for the tests that race real threads on real database connections."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, cast

import pytest
from django.db import connection
from django.db.backends.sqlite3.base import DatabaseWrapper as SQLiteWrapper


def _in_memory_sqlite() -> bool:
    if connection.vendor != "sqlite":
        return False
    return cast(SQLiteWrapper, connection).is_in_memory_db()


def require_real_connections() -> None:
    """Skip the calling test on the in-memory SQLite test database.

    That database is shared between threads through SQLite's shared cache, whose *table*
    locks fail at once with SQLITE_LOCKED ("database table is locked") instead of waiting on
    busy_timeout, so a race between threads cannot be run faithfully there. PostgreSQL (CI)
    and a file-based SQLite test database (IMMEDIATE transactions + WAL) run these tests.
    """
    if _in_memory_sqlite():
        pytest.skip(
            "needs real connections to a shared database: the in-memory SQLite test DB's "
            "shared-cache table locks ignore busy_timeout; run with DATABASE_URL=postgres://... "
            "or a file SQLite test DB"
        )


def run_concurrently(count: int, work: Callable[[int], Any]) -> list[Any]:
    """Start `count` threads that call work(i) at the same moment; return results in order.
    An exception in a thread is returned as its result, never swallowed."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count

    def runner(index: int) -> None:
        try:
            barrier.wait()
            results[index] = work(index)
        except BaseException as exc:  # reported to the caller, which asserts on it
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=runner, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
