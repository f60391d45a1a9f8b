"""Full-text search over one document per ticket: its subject and all its messages.

Before, the search matched subjects and message bodies separately (PostgreSQL's GIN
expression indexes of migration 0002, SQLite's FTS5 tables of 0007) and turned the message
hits into tickets through a UNION. A word found in nearly every message then meant a million
hits to join back, deduplicate and count — about half a second per query on either backend
at 1M messages, twice per inbox page (the page and its count). With one document per ticket
the same word is ten times fewer hits and no join, and every word of a search may come from
any part of the ticket (the subject, the customer's words, a note), as a ticket search does.

The documents are kept by triggers, whatever writes the rows (services, merges moving
messages, note edits, bulk loads, deletes):
- PostgreSQL: `tickets_ticketsearch(ticket_id, document tsvector)` with a GIN index,
  rebuilt for the touched tickets by `tickets_search_refresh(ids)`. Inserts and deletes of
  messages fire once per statement (transition tables), so a transcript inserted in one
  statement rebuilds its ticket once; message updates fire per row, only when the body or the
  ticket changes; a ticket's row follows its subject.
- SQLite: an FTS5 table `tickets_ticket_search` (rowid = ticket id; Porter-stemmed like
  PostgreSQL's 'english'), a document deleted and inserted again on each change. SQLite has
  no statement-level triggers: each message insert rebuilds its ticket's document (a
  ticket's messages are few, and the rebuild reads them by the ticket_id index).
The old per-field indexes go: they cost every message insert for nothing now.
tickets.selectors.tickets._search_filter queries the documents.
"""

from django.db import migrations

# The document of the tickets whose ids are in `ids`: subject, then the messages in order.
_PG_REFRESH = """
CREATE OR REPLACE FUNCTION tickets_search_refresh(ids bigint[]) RETURNS void AS $$
    INSERT INTO tickets_ticketsearch (ticket_id, document)
    SELECT t.id, to_tsvector(
        'english', COALESCE(t.subject, '') || ' '
        || COALESCE((SELECT string_agg(m.body, ' ' ORDER BY m.id)
                     FROM tickets_message m WHERE m.ticket_id = t.id), ''))
    FROM tickets_ticket t WHERE t.id = ANY(ids)
    ON CONFLICT (ticket_id) DO UPDATE SET document = EXCLUDED.document
$$ LANGUAGE sql
"""

POSTGRES = [
    # No foreign key: a TRUNCATE of tickets_ticket (the test runner's flush) would refuse
    # a referencing table; a trigger removes the document of a deleted ticket instead.
    "CREATE TABLE tickets_ticketsearch ("
    " ticket_id bigint PRIMARY KEY, document tsvector NOT NULL)",
    "CREATE INDEX tickets_ticketsearch_document ON tickets_ticketsearch USING gin (document)",
    _PG_REFRESH,
    # Messages inserted or deleted: once per statement, for the distinct tickets touched.
    """
    CREATE OR REPLACE FUNCTION tickets_search_messages_added_or_removed() RETURNS trigger AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            PERFORM tickets_search_refresh(ARRAY(SELECT DISTINCT ticket_id FROM new_rows));
        ELSE
            PERFORM tickets_search_refresh(ARRAY(SELECT DISTINCT ticket_id FROM old_rows));
        END IF;
        RETURN NULL;
    END
    $$ LANGUAGE plpgsql
    """,
    # A message edited or moved (merge): its old and its new ticket.
    """
    CREATE OR REPLACE FUNCTION tickets_search_message_changed() RETURNS trigger AS $$
    BEGIN
        PERFORM tickets_search_refresh(ARRAY[OLD.ticket_id, NEW.ticket_id]);
        RETURN NULL;
    END
    $$ LANGUAGE plpgsql
    """,
    """
    CREATE OR REPLACE FUNCTION tickets_search_ticket_changed() RETURNS trigger AS $$
    BEGIN
        PERFORM tickets_search_refresh(ARRAY[NEW.id]);
        RETURN NULL;
    END
    $$ LANGUAGE plpgsql
    """,
    "CREATE TRIGGER tickets_search_messages_inserted AFTER INSERT ON tickets_message"
    " REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT"
    " EXECUTE FUNCTION tickets_search_messages_added_or_removed()",
    "CREATE TRIGGER tickets_search_messages_deleted AFTER DELETE ON tickets_message"
    " REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT"
    " EXECUTE FUNCTION tickets_search_messages_added_or_removed()",
    "CREATE TRIGGER tickets_search_message_changed AFTER UPDATE OF body, ticket_id"
    " ON tickets_message FOR EACH ROW"
    " WHEN (OLD.body IS DISTINCT FROM NEW.body OR OLD.ticket_id <> NEW.ticket_id)"
    " EXECUTE FUNCTION tickets_search_message_changed()",
    """
    CREATE OR REPLACE FUNCTION tickets_search_ticket_deleted() RETURNS trigger AS $$
    BEGIN
        DELETE FROM tickets_ticketsearch WHERE ticket_id = OLD.id;
        RETURN NULL;
    END
    $$ LANGUAGE plpgsql
    """,
    "CREATE TRIGGER tickets_search_ticket_inserted AFTER INSERT ON tickets_ticket"
    " FOR EACH ROW EXECUTE FUNCTION tickets_search_ticket_changed()",
    "CREATE TRIGGER tickets_search_ticket_deleted AFTER DELETE ON tickets_ticket"
    " FOR EACH ROW EXECUTE FUNCTION tickets_search_ticket_deleted()",
    "CREATE TRIGGER tickets_search_ticket_changed AFTER UPDATE OF subject ON tickets_ticket"
    " FOR EACH ROW WHEN (OLD.subject IS DISTINCT FROM NEW.subject)"
    " EXECUTE FUNCTION tickets_search_ticket_changed()",
    "SELECT tickets_search_refresh(ARRAY(SELECT id FROM tickets_ticket))",
    "DROP INDEX IF EXISTS ticket_subject_fts",
    "DROP INDEX IF EXISTS message_body_fts",
]
POSTGRES_DROP = [
    "DROP TRIGGER IF EXISTS tickets_search_messages_inserted ON tickets_message",
    "DROP TRIGGER IF EXISTS tickets_search_messages_deleted ON tickets_message",
    "DROP TRIGGER IF EXISTS tickets_search_message_changed ON tickets_message",
    "DROP TRIGGER IF EXISTS tickets_search_ticket_inserted ON tickets_ticket",
    "DROP TRIGGER IF EXISTS tickets_search_ticket_changed ON tickets_ticket",
    "DROP TRIGGER IF EXISTS tickets_search_ticket_deleted ON tickets_ticket",
    "DROP FUNCTION IF EXISTS tickets_search_messages_added_or_removed()",
    "DROP FUNCTION IF EXISTS tickets_search_message_changed()",
    "DROP FUNCTION IF EXISTS tickets_search_ticket_changed()",
    "DROP FUNCTION IF EXISTS tickets_search_ticket_deleted()",
    "DROP FUNCTION IF EXISTS tickets_search_refresh(bigint[])",
    "DROP TABLE IF EXISTS tickets_ticketsearch",
    "CREATE INDEX IF NOT EXISTS ticket_subject_fts ON tickets_ticket"
    " USING gin (to_tsvector('english'::regconfig, COALESCE(subject, '')))",
    "CREATE INDEX IF NOT EXISTS message_body_fts ON tickets_message"
    " USING gin (to_tsvector('english'::regconfig, COALESCE(body, '')))",
]


def _sqlite_rebuild(ticket_id: str) -> str:
    """Statements (for a trigger body) replacing one ticket's document."""
    return (
        f"DELETE FROM tickets_ticket_search WHERE rowid = {ticket_id}; "
        "INSERT INTO tickets_ticket_search (rowid, document) "
        "SELECT t.id, COALESCE(t.subject, '') || ' ' || COALESCE("
        "(SELECT group_concat(body, ' ') FROM "
        f"(SELECT body FROM tickets_message WHERE ticket_id = {ticket_id} ORDER BY id)), '') "
        f"FROM tickets_ticket t WHERE t.id = {ticket_id}; "
    )


SQLITE = [
    "CREATE VIRTUAL TABLE tickets_ticket_search USING fts5(document, "
    "tokenize='porter unicode61')",
    "CREATE TRIGGER tickets_search_ticket_inserted AFTER INSERT ON tickets_ticket BEGIN "
    + _sqlite_rebuild("new.id")
    + "END",
    "CREATE TRIGGER tickets_search_ticket_changed AFTER UPDATE OF subject ON tickets_ticket "
    "WHEN old.subject IS NOT new.subject BEGIN " + _sqlite_rebuild("new.id") + "END",
    "CREATE TRIGGER tickets_search_ticket_deleted AFTER DELETE ON tickets_ticket BEGIN "
    "DELETE FROM tickets_ticket_search WHERE rowid = old.id; END",
    "CREATE TRIGGER tickets_search_message_inserted AFTER INSERT ON tickets_message BEGIN "
    + _sqlite_rebuild("new.ticket_id")
    + "END",
    "CREATE TRIGGER tickets_search_message_deleted AFTER DELETE ON tickets_message BEGIN "
    + _sqlite_rebuild("old.ticket_id")
    + "END",
    "CREATE TRIGGER tickets_search_message_changed AFTER UPDATE OF body, ticket_id "
    "ON tickets_message WHEN old.body IS NOT new.body OR old.ticket_id <> new.ticket_id BEGIN "
    + _sqlite_rebuild("old.ticket_id")
    + _sqlite_rebuild("new.ticket_id")
    + "END",
    "INSERT INTO tickets_ticket_search (rowid, document) "
    "SELECT t.id, COALESCE(t.subject, '') || ' ' || COALESCE(m.bodies, '') "
    "FROM tickets_ticket t LEFT JOIN (SELECT ticket_id, group_concat(body, ' ') AS bodies "
    "FROM (SELECT ticket_id, body FROM tickets_message ORDER BY ticket_id, id) "
    "GROUP BY ticket_id) m ON m.ticket_id = t.id",
    # Migration 0007's per-field tables and their triggers.
    *(
        f"DROP TRIGGER IF EXISTS {fts}_{suffix}"
        for fts in ("tickets_ticket_fts", "tickets_message_fts")
        for suffix in ("insert", "delete", "update")
    ),
    "DROP TABLE IF EXISTS tickets_ticket_fts",
    "DROP TABLE IF EXISTS tickets_message_fts",
]
SQLITE_DROP = [
    *(
        f"DROP TRIGGER IF EXISTS tickets_search_{name}"
        for name in (
            "ticket_inserted",
            "ticket_changed",
            "ticket_deleted",
            "message_inserted",
            "message_deleted",
            "message_changed",
        )
    ),
    "DROP TABLE IF EXISTS tickets_ticket_search",
]


def _run(schema_editor, postgres: list[str], sqlite: list[str]) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        statements = postgres
    elif vendor == "sqlite":
        statements = sqlite
    else:  # the load-counter triggers of 0006 already refuse other databases
        raise NotImplementedError(f"no ticket search documents for {vendor}")
    for sql in statements:
        schema_editor.execute(sql)


def create(apps, schema_editor):
    _run(schema_editor, POSTGRES, SQLITE)


def drop(apps, schema_editor):
    _run(schema_editor, POSTGRES_DROP, SQLITE_DROP)
    if schema_editor.connection.vendor == "sqlite":
        # Migration 0007's tables again, as that migration creates them.
        from importlib import import_module

        previous = import_module("tickets.migrations.0007_sqlite_fts5_search")
        previous.create(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [("tickets", "0007_sqlite_fts5_search")]
    operations = [migrations.RunPython(create, drop)]
