"""Finding 4 (Medium): audit chain gaps. The attacker can write the audit tables (raw SQL as
the table owner; on PostgreSQL the append-only trigger is disabled first, inside the test's
transaction) and leaves a self-consistent chain: TRUNCATE plus a head reset, a tail cut with
the head moved back, a forged append with the head moved on, an edit with every later hash
recomputed. Alone, `audit verify` passes all four (shown first in each test); given a head
recorded outside the database (`--expect-head`) or the signed checkpoints file, it fails
naming what happened. The attacker cannot sign a checkpoint: the key is not in the database."""

from __future__ import annotations

import datetime as dt
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from identity.audit import GENESIS_HASH, audit_record, compute_hash
from identity.audit_verify import verify_chain
from identity.models import AuditEvent

pytestmark = pytest.mark.django_db

TRIGGER = "identity_auditevent_append_only"


@pytest.fixture
def chain(alice) -> list[AuditEvent]:
    return [audit_record(actor=alice, action=f"test.step{i}", after={"i": i}) for i in range(1, 7)]


@pytest.fixture
def owner() -> None:
    """The attacker owns the table: the append-only trigger is off (rolled back after)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ALTER TABLE identity_auditevent DISABLE TRIGGER {TRIGGER}")


@pytest.fixture
def checkpoints(settings, tmp_path: Path) -> Path:
    settings.AUDIT_CHECKPOINT_KEY = "an-environment-secret"
    settings.AUDIT_CHECKPOINT_FILE = str(tmp_path / "audit-checkpoints.jsonl")
    return Path(settings.AUDIT_CHECKPOINT_FILE)


def sql(statement: str, params: list | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])


def audit(*args: str) -> str:
    out = StringIO()
    call_command("audit", *args, stdout=out)
    return out.getvalue()


def head() -> str:
    """What an operator copies out of the database (`audit head`), as SEQ:HASH."""
    seq, head_hash = audit("head").split()
    return f"{seq.lstrip('#')}:{head_hash}"


def move_head(seq: int, head_hash: str) -> None:
    sql("UPDATE identity_auditchainhead SET seq = %s, hash = %s WHERE id = 1", [seq, head_hash])


def truncate() -> None:
    if connection.vendor == "postgresql":
        sql("TRUNCATE identity_auditevent")
    else:
        sql("DELETE FROM identity_auditevent")
    move_head(0, GENESIS_HASH)


def cut_tail(chain: list[AuditEvent], keep: int) -> None:
    sql("DELETE FROM identity_auditevent WHERE seq > %s", [chain[keep - 1].seq])
    move_head(chain[keep - 1].seq, chain[keep - 1].hash)


def forge_append(*, occurred_at: dt.datetime | None = None) -> AuditEvent:
    last = AuditEvent.objects.order_by("-seq").first()
    assert last is not None
    forged = AuditEvent(
        seq=last.seq + 1,
        occurred_at=occurred_at or timezone.now(),
        actor_type="operator",
        actor_id=last.actor_id,
        actor_label="bob",
        action="refund.approve",
        target_type="payments_sandbox.refund",
        target_id="7",
        before={},
        after={"status": "approved"},
        request_id="",
        ip=None,
        prev_hash=last.hash,
    )
    forged.hash = compute_hash(last.hash, forged)
    AuditEvent.objects.bulk_create([forged])
    move_head(forged.seq, forged.hash)
    return forged


def rewrite_from(chain: list[AuditEvent], index: int) -> None:
    """Edit one event, then recompute its hash and every later one, and the head."""
    prev = chain[index - 1].hash if index else GENESIS_HASH
    for position, event in enumerate(AuditEvent.objects.filter(seq__gte=chain[index].seq)):
        if position == 0:
            event.after = {"i": 999}
            sql(
                "UPDATE identity_auditevent SET after = %s WHERE id = %s",
                [json.dumps(event.after), event.pk],
            )
        new_hash = compute_hash(prev, event)
        sql(
            "UPDATE identity_auditevent SET prev_hash = %s, hash = %s WHERE id = %s",
            [prev, new_hash, event.pk],
        )
        prev = new_hash
    move_head(chain[-1].seq, prev)


def test_truncate_and_head_reset_is_caught_by_an_external_head_and_a_checkpoint(
    chain, owner, checkpoints
) -> None:
    anchor = head()
    audit("checkpoint")
    truncate()
    assert verify_chain().ok  # the chain alone is consistent
    with pytest.raises(CommandError, match=r"\(truncated\): the chain ends at #0 but"):
        audit("verify", "--expect-head", anchor)
    with pytest.raises(CommandError, match=r"\(truncated\).*checkpoint audit-checkpoints"):
        audit("verify")


def test_truncate_alone_verifies_without_an_anchor_and_says_so(chain, owner) -> None:
    truncate()
    out = audit("verify")
    assert "OK: 0 events" in out and "No external anchor was checked" in out


def test_a_tail_cut_with_the_head_moved_back_is_caught(chain, owner, checkpoints) -> None:
    anchor = head()
    audit("checkpoint")
    cut_tail(chain, keep=4)
    assert verify_chain().ok  # the chain alone is consistent
    with pytest.raises(CommandError, match=rf"\(truncated\): the chain ends at #{chain[3].seq}"):
        audit("verify", "--expect-head", anchor)
    with pytest.raises(CommandError, match=r"\(truncated\)"):
        audit("verify")


def test_an_edit_with_every_later_hash_recomputed_is_caught(chain, owner, checkpoints) -> None:
    anchor = head()
    audit("checkpoint")
    rewrite_from(chain, 2)
    assert verify_chain().ok  # the chain alone is consistent
    with pytest.raises(CommandError, match=rf"\(rewritten\): event #{chain[-1].seq} no longer"):
        audit("verify", "--expect-head", anchor)
    with pytest.raises(CommandError, match=r"\(rewritten\)"):
        audit("verify")


def test_a_forged_append_is_caught_by_an_exact_head(chain, owner) -> None:
    anchor = head()
    forged = forge_append()
    assert verify_chain().ok  # the chain alone is consistent
    assert "events verified" in audit("verify", "--expect-head", anchor)  # a later event is fine
    with pytest.raises(CommandError, match=rf"\(unexpected_events\): events #{forged.seq}\.\."):
        audit("verify", "--expect-head", anchor, "--exact")


def test_a_forged_append_dated_into_a_checkpointed_period_is_caught(chain, owner, checkpoints):
    audit("checkpoint")
    # "Bob approved refund 7 yesterday", written today after the checkpoint.
    forged = forge_append(occurred_at=timezone.now() - dt.timedelta(days=1))
    assert verify_chain().ok  # the chain alone is consistent
    with pytest.raises(CommandError, match=rf"\(backdated\): event #{forged.seq} is dated"):
        audit("verify")


def test_a_forged_append_dated_after_the_last_anchor_is_not_detectable(
    chain, owner, checkpoints
) -> None:
    """The documented limit (docs/security.md): nothing distinguishes it from a real event."""
    audit("checkpoint")
    forge_append()
    assert "1 external anchors hold" in audit("verify")


def test_a_checkpoint_the_attacker_edits_to_match_is_refused(chain, owner, checkpoints) -> None:
    audit("checkpoint")
    rewrite_from(chain, 2)
    record = json.loads(checkpoints.read_text())
    record["hash"] = AuditEvent.objects.get(seq=record["seq"]).hash
    checkpoints.write_text(json.dumps(record) + "\n")
    with pytest.raises(CommandError, match="signature does not match"):
        audit("verify")


def test_checkpoint_refuses_to_sign_a_broken_chain(chain, owner, checkpoints) -> None:
    sql("UPDATE identity_auditevent SET after = %s WHERE id = %s", ['{"i": 5}', chain[1].pk])
    with pytest.raises(CommandError, match=r"\(altered\)"):
        audit("checkpoint")
    assert not checkpoints.exists()


def test_checkpoints_need_the_key(chain, checkpoints, settings) -> None:
    settings.AUDIT_CHECKPOINT_KEY = ""
    with pytest.raises(CommandError, match="AUDIT_CHECKPOINT_KEY"):
        audit("checkpoint")


def test_an_untouched_chain_holds_every_anchor(chain, checkpoints, alice) -> None:
    first = head()
    audit("checkpoint")
    audit_record(actor=alice, action="test.later")
    audit("checkpoint")
    out = audit("verify", "--expect-head", first, "--expect-head", head(), "--exact")
    assert "OK: 7 events" in out and "4 external anchors hold" in out


def test_the_periodic_task_signs_a_checkpoint_that_verify_then_holds(chain, checkpoints) -> None:
    from identity.tasks import audit_checkpoint

    assert f"checkpoint #{chain[-1].seq}" in audit_checkpoint.apply().get()
    assert json.loads(checkpoints.read_text())["seq"] == chain[-1].seq
    assert "1 external anchors hold" in audit("verify")
