"""Each operator's active-ticket count as a row, kept exact by triggers on tickets_ticket.

Routing used to count every candidate's active tickets per pass; with large capacities that
walked tens of thousands of index entries per escalation. The triggers fire on every INSERT,
DELETE and UPDATE OF assignee_id/status of a ticket, whatever issued it (services, routing's
claim, bulk loads, the admin), so the counter cannot drift from the tickets; the migration
counts what is already there once they exist. See tickets.routing for how the rows are
locked.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# Keep in step with tickets.models.ACTIVE_STATUSES (a test compares them).
ACTIVE = "('new', 'open', 'pending_customer', 'on_hold', 'escalated')"

POSTGRES = [
    f"""
    CREATE OR REPLACE FUNCTION tickets_operator_load_sync() RETURNS trigger AS $$
    DECLARE
        was_counted boolean := TG_OP <> 'INSERT'
            AND OLD.assignee_id IS NOT NULL AND OLD.status IN {ACTIVE};
        is_counted boolean := TG_OP <> 'DELETE'
            AND NEW.assignee_id IS NOT NULL AND NEW.status IN {ACTIVE};
    BEGIN
        IF was_counted AND is_counted AND OLD.assignee_id = NEW.assignee_id THEN
            RETURN NULL;  -- same owner, still active: nothing to count (and no row lock)
        END IF;
        IF was_counted THEN
            UPDATE tickets_operatorload SET active_tickets = active_tickets - 1
            WHERE operator_id = OLD.assignee_id;
        END IF;
        IF is_counted THEN
            INSERT INTO tickets_operatorload (operator_id, active_tickets)
            VALUES (NEW.assignee_id, 1)
            ON CONFLICT (operator_id) DO UPDATE
            SET active_tickets = tickets_operatorload.active_tickets + 1;
        END IF;
        RETURN NULL;
    END
    $$ LANGUAGE plpgsql
    """,
    """
    CREATE TRIGGER tickets_operator_load_sync
    AFTER INSERT OR DELETE OR UPDATE OF assignee_id, status ON tickets_ticket
    FOR EACH ROW EXECUTE FUNCTION tickets_operator_load_sync()
    """,
]
POSTGRES_DROP = [
    "DROP TRIGGER IF EXISTS tickets_operator_load_sync ON tickets_ticket",
    "DROP FUNCTION IF EXISTS tickets_operator_load_sync()",
]

_INCREMENT = """
    INSERT INTO tickets_operatorload (operator_id, active_tickets)
    SELECT NEW.assignee_id, 1 WHERE NEW.assignee_id IS NOT NULL AND NEW.status IN {active}
    ON CONFLICT (operator_id) DO UPDATE SET active_tickets = active_tickets + 1;
"""
_DECREMENT = """
    UPDATE tickets_operatorload SET active_tickets = active_tickets - 1
    WHERE operator_id = OLD.assignee_id AND OLD.status IN {active};
"""
SQLITE = [
    f"""
    CREATE TRIGGER tickets_operator_load_insert AFTER INSERT ON tickets_ticket
    WHEN NEW.assignee_id IS NOT NULL AND NEW.status IN {ACTIVE}
    BEGIN {_INCREMENT.format(active=ACTIVE)} END
    """,
    f"""
    CREATE TRIGGER tickets_operator_load_delete AFTER DELETE ON tickets_ticket
    WHEN OLD.assignee_id IS NOT NULL AND OLD.status IN {ACTIVE}
    BEGIN {_DECREMENT.format(active=ACTIVE)} END
    """,
    f"""
    CREATE TRIGGER tickets_operator_load_update AFTER UPDATE OF assignee_id, status
    ON tickets_ticket
    WHEN OLD.assignee_id IS NOT NEW.assignee_id
        OR (OLD.status IN {ACTIVE}) <> (NEW.status IN {ACTIVE})
    BEGIN {_DECREMENT.format(active=ACTIVE)} {_INCREMENT.format(active=ACTIVE)} END
    """,
]
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS tickets_operator_load_insert",
    "DROP TRIGGER IF EXISTS tickets_operator_load_delete",
    "DROP TRIGGER IF EXISTS tickets_operator_load_update",
]

RECOUNT = f"""
    INSERT INTO tickets_operatorload (operator_id, active_tickets)
    SELECT assignee_id, COUNT(*) FROM tickets_ticket
    WHERE assignee_id IS NOT NULL AND status IN {ACTIVE}
    GROUP BY assignee_id
"""


def create(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    statements = {"postgresql": POSTGRES, "sqlite": SQLITE}.get(vendor)
    if statements is None:
        raise NotImplementedError(f"No operator-load triggers for {vendor}.")
    for sql in statements:
        schema_editor.execute(sql)
    schema_editor.execute(RECOUNT)


def drop(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for sql in {"postgresql": POSTGRES_DROP, "sqlite": SQLITE_DROP}.get(vendor, []):
        schema_editor.execute(sql)
    schema_editor.execute("DELETE FROM tickets_operatorload")


class Migration(migrations.Migration):
    dependencies = [
        ("identity", "0003_audit_append_only_trigger"),
        ("tickets", "0005_routing_and_customer_email_indexes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="OperatorLoad",
            fields=[
                (
                    "operator",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="ticket_load",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("active_tickets", models.IntegerField(default=0)),
            ],
        ),
        migrations.RunPython(create, drop),
    ]
