"""PostgreSQL's `tickets_cjk_bigrams` pairs the characters of each CJK run instead of testing
every position of the document.

Migration 0009's version ran a regular expression on every pair of adjacent characters of a
document that held any CJK at all: a ticket's document is its subject, customer and every
message, so one Chinese phrase in a ten-message ticket meant ~2,000 regular-expression
matches on each rebuild, i.e. on every message inserted into that ticket (~45 ms on a loaded
two-core machine; the rebuild of 100,000 documents took over an hour). This one finds the
runs of two or more CJK characters with one regexp_matches scan and pairs the characters
inside each run: the same pairs in the same order (tickets.search.cjk_bigrams, which SQLite
calls), ~400 times faster on those documents. tests/tickets/test_search_cjk_sql.py holds the
SQL to the Python definition. SQLite is unchanged (its triggers call the Python function).
"""

from importlib import import_module

from django.db import migrations

from tickets.search import CJK_CLASS

_PREVIOUS = import_module("tickets.migrations.0009_search_customers_and_cjk")

_PG_CLASS = "".join(
    f"\\u{ord(ch):04x}" if ord(ch) > 127 else ch for ch in CJK_CLASS
)  # written out as \\uXXXX escapes for PostgreSQL's regular expressions

# r.n orders the runs as they occur, i the pairs inside a run. No run: no row, string_agg
# gives NULL, hence the COALESCE (a NULL document gives '' as before).
_PG_BIGRAMS = f"""
CREATE OR REPLACE FUNCTION tickets_cjk_bigrams(doc text) RETURNS text AS $$
    SELECT COALESCE(string_agg(substr(r.m[1], i, 2), ' ' ORDER BY r.n, i), '')
    FROM regexp_matches(doc, '[{_PG_CLASS}]{{2,}}', 'g') WITH ORDINALITY AS r(m, n),
         generate_series(1, length(r.m[1]) - 1) AS i
$$ LANGUAGE sql IMMUTABLE PARALLEL SAFE
"""


def forwards(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_PG_BIGRAMS)


def backwards(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_PREVIOUS._PG_BIGRAMS)


class Migration(migrations.Migration):
    dependencies = [("tickets", "0012_event_and_notification_keys_data")]
    operations = [migrations.RunPython(forwards, backwards)]
