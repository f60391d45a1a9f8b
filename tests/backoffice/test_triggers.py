"""Every database trigger the apps install is listed in docs/inbox.md's trigger table, and
every trigger that table names for this database exists: logic kept by the database is
visible where the next engineer reads about the inbox."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

DOC = Path(settings.BASE_DIR) / "docs" / "inbox.md"
ROW = re.compile(r"^\| `(?P<name>\w+)` \| (?P<db>PostgreSQL|SQLite|both) \|", re.MULTILINE)


def _documented() -> dict[str, str]:
    rows = {m["name"]: m["db"] for m in ROW.finditer(DOC.read_text())}
    assert len(rows) >= 10, "the trigger table of docs/inbox.md was not found"
    return rows


def _installed() -> set[str]:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")
        elif connection.vendor == "sqlite":
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        else:  # pragma: no cover - the migrations refuse other vendors
            pytest.skip(f"no trigger listing for {connection.vendor}")
        return {name for (name,) in cursor.fetchall()}


@pytest.mark.django_db
def test_the_docs_list_exactly_the_triggers_this_database_has() -> None:
    vendor = {"postgresql": "PostgreSQL", "sqlite": "SQLite"}[connection.vendor]
    documented = _documented()
    expected = {name for name, db in documented.items() if db in (vendor, "both")}
    installed = _installed()

    undocumented = sorted(installed - set(documented))
    assert not undocumented, f"add a row to the trigger table of {DOC.name} for: {undocumented}"
    missing = sorted(expected - installed)
    assert not missing, f"{DOC.name} lists triggers this {vendor} database lacks: {missing}"
