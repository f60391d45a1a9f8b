"""Anchors for the audit chain kept outside the database: a head given on the command line
(`audit verify --expect-head SEQ:HASH`) and signed checkpoints in a file.

Why: the chain alone proves only that the table is self-consistent. Someone who can write
the table can TRUNCATE it and reset the head row, cut the tail and move the head back, or
edit an event and recompute every later hash and the head: each leaves a consistent chain.
An anchor — "event #SEQ had hash HASH" recorded somewhere the database's writer cannot reach —
catches all three, because the chain can no longer contain that event with that hash.

Checkpoints: `audit checkpoint` verifies the chain (against the earlier checkpoints too),
then appends one JSON line {"seq", "hash", "at", "mac"} to AUDIT_CHECKPOINT_FILE, where `mac`
is HMAC-SHA256 over the other three with AUDIT_CHECKPOINT_KEY (an environment secret, never
stored in the database). `audit verify` reads every line, refuses one whose MAC does not
match (a forged or edited checkpoint), and checks each against the chain. It also refuses an
event stored after a checkpoint but dated more than AUDIT_CHECKPOINT_SKEW_SECONDS before it:
an event forged and back-dated into a period a checkpoint already covered.

What no anchor can tell: an event appended after the latest anchor, dated after it, is
indistinguishable from a genuine one (docs/security.md says so); `--exact` asks that the
chain end exactly at the given head, for a quiesced system or a restored backup.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from identity.audit import GENESIS_HASH
from identity.audit_verify import ChainProblem
from identity.models import AuditChainHead, AuditEvent

_HEAD_RE = re.compile(r"^\s*#?(\d{1,19})[:\s]\s*([0-9a-f]{64})\s*$")


class AnchorError(ValueError):
    """An anchor that cannot be used: malformed, or a checkpoint with a bad signature."""


@dataclass(frozen=True)
class Anchor:
    seq: int
    hash: str
    source: str
    at: dt.datetime | None = None  # when a checkpoint was taken


def parse_head(text: str) -> Anchor:
    """`SEQ:HASH`, or the `#SEQ HASH` that `audit head` prints."""
    match = _HEAD_RE.match(text)
    if match is None:
        raise AnchorError(f"{text!r} is not SEQ:HASH (a sequence number and 64 hex digits)")
    return Anchor(int(match.group(1)), match.group(2), f"the expected head #{match.group(1)}")


def _key() -> bytes:
    key = getattr(settings, "AUDIT_CHECKPOINT_KEY", "")
    if not key:
        raise AnchorError(
            "AUDIT_CHECKPOINT_KEY is not set: checkpoints cannot be signed or checked"
        )
    return str(key).encode()


def _mac(seq: int, head_hash: str, at: str) -> str:
    message = f"backoffice-audit-checkpoint\n{seq}\n{head_hash}\n{at}".encode()
    return hmac.new(_key(), message, hashlib.sha256).hexdigest()


def checkpoint_path() -> Path | None:
    value = getattr(settings, "AUDIT_CHECKPOINT_FILE", "")
    return Path(value) if value else None


def checkpoints_read(path: Path) -> list[Anchor]:
    """Every checkpoint in the file, each with its signature checked; AnchorError names the
    first bad line. A missing file has no checkpoints."""
    if not path.exists():
        return []
    anchors: list[Anchor] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        try:
            record = json.loads(line)
            seq, head_hash, at, mac = record["seq"], record["hash"], record["at"], record["mac"]
            taken = dt.datetime.fromisoformat(at)
        except (ValueError, KeyError, TypeError) as exc:
            raise AnchorError(f"{where} is not a checkpoint: {exc}") from None
        if not (isinstance(seq, int) and isinstance(head_hash, str) and isinstance(mac, str)):
            raise AnchorError(f"{where} is not a checkpoint")
        if not hmac.compare_digest(mac, _mac(seq, head_hash, at)):
            raise AnchorError(f"{where}: the signature does not match (forged or edited)")
        if anchors and (seq < anchors[-1].seq or taken < (anchors[-1].at or taken)):
            raise AnchorError(f"{where} goes back in sequence or time")
        anchors.append(Anchor(seq, head_hash, f"checkpoint {where} ({at})", taken))
    return anchors


def checkpoint_append(path: Path, *, using: str = "default") -> Anchor:
    """Sign the current head and append it to `path`. The caller verifies the chain first:
    a checkpoint of a tampered chain would vouch for the tampering."""
    head = AuditChainHead.objects.using(using).filter(pk=1).first()
    seq, head_hash = (head.seq, head.hash) if head else (0, GENESIS_HASH)
    at = timezone.now().astimezone(dt.UTC).isoformat(timespec="seconds")
    line = json.dumps(
        {"seq": seq, "hash": head_hash, "at": at, "mac": _mac(seq, head_hash, at)},
        sort_keys=True,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
    return Anchor(seq, head_hash, f"checkpoint {path.name} ({at})", dt.datetime.fromisoformat(at))


def anchor_problem(
    anchor: Anchor, *, last_seq: int, using: str = "default", exact: bool = False
) -> ChainProblem | None:
    """Whether a verified chain ending at #last_seq still holds the anchored event."""
    if anchor.seq > last_seq:
        return ChainProblem(
            "truncated",
            last_seq + 1,
            None,
            f"the chain ends at #{last_seq} but {anchor.source} saw #{anchor.seq}: events "
            "were removed (truncated or cut at the tail) and the head moved back",
        )
    if anchor.seq == 0:
        stored: str | None = GENESIS_HASH
        event_id = None
    else:
        row = AuditEvent.objects.using(using).filter(seq=anchor.seq).values("id", "hash").first()
        stored, event_id = (row["hash"], row["id"]) if row else (None, None)
    if stored != anchor.hash:
        return ChainProblem(
            "rewritten",
            anchor.seq,
            event_id,
            f"event #{anchor.seq} no longer has the hash {anchor.source} recorded: the chain "
            f"was rewritten at or before #{anchor.seq} and every later hash recomputed",
        )
    if exact and last_seq != anchor.seq:
        return ChainProblem(
            "unexpected_events",
            anchor.seq + 1,
            None,
            f"events #{anchor.seq + 1}..#{last_seq} follow {anchor.source}, which was "
            "expected to be the head",
        )
    if anchor.at is not None:
        skew = dt.timedelta(seconds=int(getattr(settings, "AUDIT_CHECKPOINT_SKEW_SECONDS", 300)))
        backdated = (
            AuditEvent.objects.using(using)
            .filter(seq__gt=anchor.seq, occurred_at__lt=anchor.at - skew)
            .order_by("seq")
            .values("id", "seq", "occurred_at")
            .first()
        )
        if backdated is not None:
            return ChainProblem(
                "backdated",
                backdated["seq"],
                backdated["id"],
                f"event #{backdated['seq']} is dated {backdated['occurred_at'].isoformat()}, "
                f"before {anchor.source} that does not contain it: it was added later and "
                "back-dated",
            )
    return None
