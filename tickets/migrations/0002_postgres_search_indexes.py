"""Full-text search indexes, PostgreSQL only.

The inbox search matches `to_tsvector('english', ...)` of ticket subjects and message
bodies; these GIN expression indexes use the same expressions as
tickets.selectors.tickets._search_filter, so PostgreSQL answers from the index instead of scanning
a million messages. SQLite has no such index type; there the search is a plain substring
match (fine for a single-machine install).
"""

from django.db import migrations

INDEXES = [
    (
        "ticket_subject_fts",
        "CREATE INDEX IF NOT EXISTS ticket_subject_fts ON tickets_ticket "
        "USING gin (to_tsvector('english'::regconfig, COALESCE(subject, '')))",
    ),
    (
        "message_body_fts",
        "CREATE INDEX IF NOT EXISTS message_body_fts ON tickets_message "
        "USING gin (to_tsvector('english'::regconfig, COALESCE(body, '')))",
    ),
]


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for _name, sql in INDEXES:
        schema_editor.execute(sql)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, _sql in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [("tickets", "0001_initial")]
    operations = [migrations.RunPython(create, drop)]
