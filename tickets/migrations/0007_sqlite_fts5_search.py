"""Full-text search on SQLite: FTS5 indexes over ticket subjects and message bodies.

PostgreSQL answers the inbox search from the GIN tsvector indexes of migration 0002; on
SQLite the search was a substring scan of every message (about a second at a million). These
are external-content FTS5 tables (the text stays in tickets_ticket/tickets_message; the index
holds only tokens), stemmed with the Porter tokenizer like PostgreSQL's 'english'
configuration. Triggers keep them in step with every INSERT, UPDATE of the text and DELETE,
whatever issues it (services, note edits, bulk loads); a merge moves messages by changing
their ticket_id, which the index does not hold (search joins back to tickets_message), so it
needs no re-indexing. The backfill is FTS5's own 'rebuild'. tickets.selectors.tickets._search_filter
queries them.
"""

from django.db import migrations

TABLES = [
    # (fts table, content table, column)
    ("tickets_ticket_fts", "tickets_ticket", "subject"),
    ("tickets_message_fts", "tickets_message", "body"),
]


def _statements(fts: str, content: str, column: str) -> list[str]:
    return [
        f"CREATE VIRTUAL TABLE {fts} USING fts5({column}, content='{content}', "
        "content_rowid='id', tokenize='porter unicode61')",
        f"CREATE TRIGGER {fts}_insert AFTER INSERT ON {content} BEGIN "
        f"INSERT INTO {fts}(rowid, {column}) VALUES (new.id, new.{column}); END",
        f"CREATE TRIGGER {fts}_delete AFTER DELETE ON {content} BEGIN "
        f"INSERT INTO {fts}({fts}, rowid, {column}) VALUES ('delete', old.id, old.{column}); END",
        f"CREATE TRIGGER {fts}_update AFTER UPDATE OF {column} ON {content} BEGIN "
        f"INSERT INTO {fts}({fts}, rowid, {column}) VALUES ('delete', old.id, old.{column}); "
        f"INSERT INTO {fts}(rowid, {column}) VALUES (new.id, new.{column}); END",
        f"INSERT INTO {fts}({fts}) VALUES ('rebuild')",
    ]


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for table in TABLES:
        for sql in _statements(*table):
            schema_editor.execute(sql)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for fts, _content, _column in TABLES:
        for suffix in ("insert", "delete", "update"):
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {fts}_{suffix}")
        schema_editor.execute(f"DROP TABLE IF EXISTS {fts}")


class Migration(migrations.Migration):
    dependencies = [("tickets", "0006_operator_load")]
    operations = [migrations.RunPython(create, drop)]
