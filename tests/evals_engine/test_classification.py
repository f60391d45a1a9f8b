"""The oracle's failure classes when several gold writes share a tool name (a notify and a
note after each request): a write matching one gold call exactly is never read as a wrong
argument for another."""

from __future__ import annotations

from evals.domains import get_domain
from evals.engine.oracle import FailureClass
from evals.engine.oracle.evidence import _Write, classify_state
from evals.engine.task import GoldCall

membership = get_domain("membership")
task = membership.task("membership-064-unfreeze-then-upgrade-email")


def _w(call: GoldCall, ok: bool = True) -> _Write:
    return _Write(call.name, membership.write_key(call.name, call.arguments), ok)


def test_the_unfreeze_chain_alone_is_an_omission_not_wrong_arguments():
    unfreeze, notify, note = task.gold[:3]
    assert {g.name for g in task.gold[3:]} == {"change_plan", "notify_customer", "add_note"}
    writes = [_w(unfreeze), _w(notify), _w(note)]
    assert classify_state(membership, task, writes) is FailureClass.OMISSION


def test_a_follow_up_with_other_values_is_still_wrong_arguments():
    unfreeze, notify, note, change, notify2, note2 = task.gold
    wrong = GoldCall(notify2.name, {**notify2.arguments, "topic": "unfreeze", "reference": "X"})
    writes = [_w(unfreeze), _w(notify), _w(note), _w(change), _w(wrong), _w(note2)]
    assert classify_state(membership, task, writes) is FailureClass.WRONG_ARGUMENTS


def test_the_gold_writes_reversed_are_wrong_order():
    writes = [_w(g) for g in reversed(task.gold)]
    assert classify_state(membership, task, writes) is FailureClass.WRONG_ORDER
