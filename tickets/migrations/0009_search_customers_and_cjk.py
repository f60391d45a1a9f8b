"""The ticket search document also holds the customer's name and e-mail, and the pairs of CJK
characters of its text (tickets.search), so operators find a ticket by who wrote it and by
any two or more Chinese characters of it.

Triggers, whatever writes the rows (0008's, with these changes):
- the document is rebuilt as subject, customer name, customer e-mail, messages, then
  tickets_cjk_bigrams() of all of that;
- a ticket's row is rebuilt when its subject or its customer changes;
- a customer's name or e-mail changing rebuilds the documents of that customer's tickets.
PostgreSQL computes the pairs in SQL (`tickets_cjk_bigrams`, same ranges as
tickets.search.CJK_CLASS). SQLite's triggers call the Python function of the same name,
registered on each connection by tickets.apps; a connection without it (the sqlite3 shell)
cannot write tickets or messages.
"""

from importlib import import_module

from django.db import migrations

from tickets.search import CJK_CLASS, cjk_bigrams

_PREVIOUS = import_module("tickets.migrations.0008_ticket_search_documents")

_PG_CLASS = "".join(
    f"\\u{ord(ch):04x}" if ord(ch) > 127 else ch for ch in CJK_CLASS
)  # written out as \\uXXXX escapes for PostgreSQL's regular expressions

_PG_BIGRAMS = f"""
CREATE OR REPLACE FUNCTION tickets_cjk_bigrams(doc text) RETURNS text AS $$
    SELECT CASE WHEN doc ~ '[{_PG_CLASS}]' THEN COALESCE((
        SELECT string_agg(substr(doc, i, 2), ' ' ORDER BY i)
        FROM generate_series(1, length(doc) - 1) AS i
        WHERE substr(doc, i, 2) ~ '^[{_PG_CLASS}]{{2}}$'), '') ELSE '' END
$$ LANGUAGE sql IMMUTABLE PARALLEL SAFE
"""

_PG_REFRESH = """
CREATE OR REPLACE FUNCTION tickets_search_refresh(ids bigint[]) RETURNS void AS $$
    INSERT INTO tickets_ticketsearch (ticket_id, document)
    SELECT d.id, to_tsvector('english', d.doc || ' ' || tickets_cjk_bigrams(d.doc))
    FROM (
        SELECT t.id, COALESCE(t.subject, '') || ' ' || COALESCE(c.name, '') || ' '
            || COALESCE(c.email, '') || ' '
            || COALESCE((SELECT string_agg(m.body, ' ' ORDER BY m.id)
                         FROM tickets_message m WHERE m.ticket_id = t.id), '') AS doc
        FROM tickets_ticket t LEFT JOIN tickets_customer c ON c.id = t.customer_id
        WHERE t.id = ANY(ids)
    ) d
    ON CONFLICT (ticket_id) DO UPDATE SET document = EXCLUDED.document
$$ LANGUAGE sql
"""

POSTGRES = [
    _PG_BIGRAMS,
    _PG_REFRESH,
    "DROP TRIGGER IF EXISTS tickets_search_ticket_changed ON tickets_ticket",
    "CREATE TRIGGER tickets_search_ticket_changed AFTER UPDATE OF subject, customer_id"
    " ON tickets_ticket FOR EACH ROW"
    " WHEN (OLD.subject IS DISTINCT FROM NEW.subject OR OLD.customer_id <> NEW.customer_id)"
    " EXECUTE FUNCTION tickets_search_ticket_changed()",
    """
    CREATE OR REPLACE FUNCTION tickets_search_customer_changed() RETURNS trigger AS $$
    BEGIN
        PERFORM tickets_search_refresh(
            ARRAY(SELECT id FROM tickets_ticket WHERE customer_id = NEW.id));
        RETURN NULL;
    END
    $$ LANGUAGE plpgsql
    """,
    "CREATE TRIGGER tickets_search_customer_changed AFTER UPDATE OF name, email"
    " ON tickets_customer FOR EACH ROW"
    " WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.email IS DISTINCT FROM NEW.email)"
    " EXECUTE FUNCTION tickets_search_customer_changed()",
    "SELECT tickets_search_refresh(ARRAY(SELECT id FROM tickets_ticket))",
]
POSTGRES_DROP = [
    "DROP TRIGGER IF EXISTS tickets_search_customer_changed ON tickets_customer",
    "DROP FUNCTION IF EXISTS tickets_search_customer_changed()",
    *_PREVIOUS.POSTGRES_DROP,
    "DROP FUNCTION IF EXISTS tickets_cjk_bigrams(text)",
]


def _document(ticket_id: str) -> str:
    """A SELECT of (ticket id, document) for the tickets matching `ticket_id`."""
    return (
        "SELECT d.id, d.doc || ' ' || tickets_cjk_bigrams(d.doc) FROM ("
        "SELECT t.id, COALESCE(t.subject, '') || ' ' || COALESCE(c.name, '') || ' ' "
        "|| COALESCE(c.email, '') || ' ' || COALESCE("
        "(SELECT group_concat(body, ' ') FROM "
        f"(SELECT body FROM tickets_message WHERE ticket_id = t.id ORDER BY id)), '') AS doc "
        "FROM tickets_ticket t LEFT JOIN tickets_customer c ON c.id = t.customer_id "
        f"WHERE {ticket_id}) d"
    )


def _sqlite_rebuild(ticket_id: str) -> str:
    return (
        f"DELETE FROM tickets_ticket_search WHERE rowid = {ticket_id}; "
        "INSERT INTO tickets_ticket_search (rowid, document) "
        + _document(f"t.id = {ticket_id}")
        + "; "
    )


_SQLITE_TRIGGERS = [
    "tickets_search_ticket_inserted",
    "tickets_search_ticket_changed",
    "tickets_search_ticket_deleted",
    "tickets_search_message_inserted",
    "tickets_search_message_deleted",
    "tickets_search_message_changed",
    "tickets_search_customer_changed",
]

SQLITE = [
    *(f"DROP TRIGGER IF EXISTS {name}" for name in _SQLITE_TRIGGERS),
    "CREATE TRIGGER tickets_search_ticket_inserted AFTER INSERT ON tickets_ticket BEGIN "
    + _sqlite_rebuild("new.id")
    + "END",
    "CREATE TRIGGER tickets_search_ticket_changed AFTER UPDATE OF subject, customer_id "
    "ON tickets_ticket WHEN old.subject IS NOT new.subject "
    "OR old.customer_id <> new.customer_id BEGIN " + _sqlite_rebuild("new.id") + "END",
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
    "CREATE TRIGGER tickets_search_customer_changed AFTER UPDATE OF name, email "
    "ON tickets_customer WHEN old.name IS NOT new.name OR old.email IS NOT new.email BEGIN "
    "DELETE FROM tickets_ticket_search WHERE rowid IN "
    "(SELECT id FROM tickets_ticket WHERE customer_id = new.id); "
    "INSERT INTO tickets_ticket_search (rowid, document) "
    + _document("t.customer_id = new.id")
    + "; END",
    "DELETE FROM tickets_ticket_search",
    "INSERT INTO tickets_ticket_search (rowid, document) " + _document("1"),
]


def _run(schema_editor, postgres, sqlite) -> None:
    connection = schema_editor.connection
    if connection.vendor == "sqlite":
        # tickets.apps registers it on every new connection; this one may predate that.
        connection.ensure_connection()
        connection.connection.create_function(
            "tickets_cjk_bigrams", 1, cjk_bigrams, deterministic=True
        )
        statements = sqlite
    elif connection.vendor == "postgresql":
        statements = postgres
    else:  # the load-counter triggers of 0006 already refuse other databases
        raise NotImplementedError(f"no ticket search documents for {connection.vendor}")
    for sql in statements:
        schema_editor.execute(sql)


def create(apps, schema_editor) -> None:
    _run(schema_editor, POSTGRES, SQLITE)


def drop(apps, schema_editor) -> None:
    _run(
        schema_editor,
        POSTGRES_DROP,
        [*(f"DROP TRIGGER IF EXISTS {name}" for name in _SQLITE_TRIGGERS), *_PREVIOUS.SQLITE_DROP],
    )
    _PREVIOUS.create(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [("tickets", "0008_ticket_search_documents")]
    operations = [migrations.RunPython(create, drop)]
