"""PostgreSQL: refuse UPDATE and DELETE on audit rows inside the database, so a raw SQL
session cannot quietly rewrite history either (the ORM already refuses). TRUNCATE is left
alone on purpose: test-database flushes use it, and it needs table ownership anyway.

A table owner can still `ALTER TABLE ... DISABLE TRIGGER`; that is why the hash chain and
`manage.py audit verify` exist — the trigger prevents accidents, the chain detects intent.
SQLite has no equivalent worth the complexity; there the ORM guard and the chain apply.
"""

from django.db import migrations

TRIGGER = "identity_auditevent_append_only"

CREATE = f"""
CREATE OR REPLACE FUNCTION identity_audit_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'identity_auditevent is append-only (% refused)', TG_OP;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER {TRIGGER}
    BEFORE UPDATE OR DELETE ON identity_auditevent
    FOR EACH ROW EXECUTE FUNCTION identity_audit_append_only();
"""

DROP = f"""
DROP TRIGGER IF EXISTS {TRIGGER} ON identity_auditevent;
DROP FUNCTION IF EXISTS identity_audit_append_only();
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE, params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("identity", "0002_throttle_and_sessions")]

    operations = [migrations.RunPython(forwards, backwards, elidable=False)]
