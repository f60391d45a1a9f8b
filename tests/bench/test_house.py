"""What bench/house.py counts, on a small made-up tree: the closing note's figures are only as
good as these rules."""

import importlib
from pathlib import Path

# Imported by name: bench/ is scripts, not a package (see test_latency_ideal.py).
house = importlib.import_module("bench.house")


def _write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _body(lines: int) -> str:
    return "".join(f"    x{i} = {i}\n" for i in range(lines))


def test_it_counts_sql_by_function_long_functions_and_long_modules(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "tickets/routing.py",
        "from django.db import connection\n"
        "from django.db.models.expressions import RawSQL\n"
        "def lock():\n"
        "    with connection.cursor() as cursor:\n"
        "        cursor.execute('SELECT 1')\n"
        "        cursor.execute('SELECT 2')\n"
        "def annotate(qs):\n"
        "    return qs.annotate(n=RawSQL('1', []))\n"
        "def orm(qs):\n"
        "    return qs.filter(pk=1)\n",
    )
    # 81 lines from `def` to the end of the body: over; 80: not over.
    _write(tmp_path, "evals/long.py", "def over():\n" + _body(80) + "def at_limit():\n" + _body(79))
    _write(tmp_path, "identity/big.py", "x = 1\n" * 401)
    _write(tmp_path, "payments_sandbox/ok.py", "x = 1\n" * 400)
    # Migrations and tests are not the code measured.
    _write(tmp_path, "tickets/migrations/0001.py", "def f(c):\n    c.execute('SELECT 1')\n")
    _write(tmp_path, "tests/test_x.py", "def f(c):\n    c.execute('SELECT 1')\n")

    figures = house.measure(tmp_path, with_duplicates=False)

    assert figures["sql_sites"] == 2
    assert figures["sql_calls"] == 4
    assert figures["lists"]["sql_sites"] == [
        "tickets/routing.py:annotate",
        "tickets/routing.py:lock",
    ]
    assert figures["functions_over_80_lines"] == 1
    assert figures["lists"]["functions"] == ["evals/long.py:1 over (81)"]
    assert figures["lists"]["modules"] == ["identity/big.py (401)"]

    # --exclude leaves a part out (the domain packages, say).
    without = house.measure(tmp_path, with_duplicates=False, exclude=("evals/",))
    assert without["functions_over_80_lines"] == 0
    assert without["sql_sites"] == 2
