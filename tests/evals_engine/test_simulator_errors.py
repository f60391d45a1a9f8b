"""Simulator fidelity as its own outcome, on positive evidence only: a simulated customer that
invents facts, or that stops or says no when the agent proposes exactly a write its scenario
requires, spoils the trial; it is a simulator error — excluded from pass^k, counted apart with
its rate, and re-run by resume. A customer who leaves after any other proposal is the agent's
failure."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from evals.domains import get_domain
from evals.engine import registry
from evals.engine.adversaries import TRANSFER_ANNOUNCEMENT
from evals.engine.errors import SimulatorError
from evals.engine.fidelity import asks_for_confirmation, declined_gold_write, pending_gold_write
from evals.engine.messages import Message, Role, Signal
from evals.engine.metrics import summarise
from evals.engine.runner import (
    JsonlSink,
    MemorySink,
    RunSpec,
    TrialRecord,
    plan,
    read_records,
    run,
    run_unit,
)

retail = get_domain("retail")
SMOKE = [t for t in retail.tasks() if "smoke" in t.splits]
WRITE_TASK = next(t for t in SMOKE if t.gold)


class _Wrapped:
    """The scripted customer with one behaviour changed (subclasses override `respond`)."""

    def __init__(self, **kwargs: Any) -> None:
        assert retail.scripted_user is not None, "retail ships a scripted customer"
        self.inner = retail.scripted_user(**kwargs)

    def respond(self, messages: Sequence[Message]) -> Message:
        return self.inner.respond(messages)


class _Inventor(_Wrapped):
    """Opens with an order number that is in no scenario. Does not check itself."""

    def respond(self, messages: Sequence[Message]) -> Message:
        if not any(m.role is Role.USER for m in messages):
            return Message.user("Hi, it's about my order #W0000001.")
        return self.inner.respond(messages)


class _Quitter(_Wrapped):
    """Says stop the moment the agent asks for the go-ahead on a write."""

    fidelity_checked = True

    def respond(self, messages: Sequence[Message]) -> Message:
        last = next((m.content for m in reversed(messages) if m.role is Role.ASSISTANT), "")
        if asks_for_confirmation(last):
            return Message.user("Never mind, bye.", Signal.STOP)
        return self.inner.respond(messages)


class _Transferrer(_Wrapped):
    """An LLM customer's ###TRANSFER### the moment the agent asks for the go-ahead on a
    write, though no agent offered a human."""

    fidelity_checked = True

    def respond(self, messages: Sequence[Message]) -> Message:
        last = next((m.content for m in reversed(messages) if m.role is Role.ASSISTANT), "")
        if asks_for_confirmation(last):
            return Message.user("", Signal.TRANSFER)
        return self.inner.respond(messages)


class _Raiser(_Wrapped):
    """A simulator that checks itself and gives up (what the LiteLLM user does when its
    re-samples stay unfaithful)."""

    def respond(self, messages: Sequence[Message]) -> Message:
        raise SimulatorError("the simulated customer stated facts absent from its scenario")


@pytest.fixture(autouse=True)
def test_users() -> Iterator[None]:
    names = {
        "test/inventor": _Inventor,
        "test/quitter": _Quitter,
        "test/raiser": _Raiser,
        "test/transferrer": _Transferrer,
    }
    for name, cls in names.items():
        registry.register_user(name, lambda _cls=cls, **kw: _cls(**kw))
    yield
    for name in names:
        registry._users.pop(name, None)


def _spec(user: str, **kw: Any) -> RunSpec:
    return RunSpec(domains=("retail",), task_ids=(WRITE_TASK.id,), user=user, **kw)


def test_a_customer_inventing_an_order_number_is_a_simulator_error_not_an_agent_failure():
    spec = _spec("test/inventor")
    record = run_unit(spec, plan(spec)[0])
    assert record.termination == "simulator_error"
    assert record.simulator_error and record.infrastructure
    assert record.failure == "simulator_error" and "#w0000001" in record.error


def test_a_simulator_error_raised_by_the_simulator_ends_the_trial_as_one():
    spec = _spec("test/raiser")
    record = run_unit(spec, plan(spec)[0])
    assert record.termination == "simulator_error" and "absent from its scenario" in record.error


def test_a_customer_stopping_when_asked_to_confirm_a_write_is_a_simulator_error():
    spec = _spec("test/quitter")
    record = run_unit(spec, plan(spec)[0])
    assert record.termination == "simulator_error", (record.termination, record.error)
    assert "stopped when the agent asked the go-ahead for" in record.error
    assert WRITE_TASK.gold[0].name in record.error
    trajectory = record.trajectory
    assert trajectory is not None and trajectory["termination"] == "simulator_error"


def test_a_customer_claiming_a_transfer_nobody_offered_at_an_exact_proposal_is_the_simulators():
    spec = _spec("test/transferrer")
    record = run_unit(spec, plan(spec)[0])
    assert record.termination == "simulator_error", (record.termination, record.error)
    assert "transfer" in record.error and WRITE_TASK.gold[0].name in record.error


class _AnnouncingAgent:
    """The reference agent, announcing a transfer in front of each go-ahead question."""

    def __init__(self, **kwargs: Any) -> None:
        assert retail.reference_agent is not None
        self.inner = retail.reference_agent(**kwargs)

    def respond(self, messages: Sequence[Message], tools: Sequence[Any]) -> Message:
        reply = self.inner.respond(messages, tools)
        if reply.content and asks_for_confirmation(reply.content):
            return Message.assistant(f"{TRANSFER_ANNOUNCEMENT} {reply.content}")
        return reply


def test_a_transfer_after_the_agent_announced_one_is_a_hand_off_not_the_simulators():
    registry.register_agent("test/announcer", lambda **kw: _AnnouncingAgent(**kw))
    try:
        spec = _spec("test/transferrer", agent="test/announcer")
        record = run_unit(spec, plan(spec)[0])
    finally:
        registry._agents.pop("test/announcer", None)
    assert record.termination == "transfer_to_human", (record.termination, record.error)
    assert not record.simulator_error and record.failure == "needless_transfer"


def test_a_stop_after_a_closing_question_is_the_customers_right():
    assert not asks_for_confirmation("Done. Is there anything else I can help with?")
    assert asks_for_confirmation("I will cancel order #W1 ($54.84). Shall I proceed? (yes/no)")
    assert asks_for_confirmation("确认取消订单 #W1 吗\uff1f")

    messages = (
        Message.assistant("Is there anything else I can help with?"),
        Message.user("No, bye.", Signal.STOP),
    )
    assert pending_gold_write(retail, WRITE_TASK, messages) is None


def _proposal_of(call: Any) -> str:
    values = ", ".join(str(v) for v in call.arguments.values())
    return f"I will {call.name.replace('_', ' ')} ({values}). Shall I proceed? (yes/no)"


def test_only_an_exact_proposal_of_an_outstanding_gold_write_is_pending():
    gold = WRITE_TASK.gold[0]
    exact = (Message.assistant(_proposal_of(gold)), Message.user("bye", Signal.STOP))
    assert pending_gold_write(retail, WRITE_TASK, exact) == gold
    other = dict(gold.arguments)
    key = next(k for k, v in other.items() if isinstance(v, str) and v)
    other[key] = "something else"
    wrong = type(gold)(gold.name, other)
    assert (
        pending_gold_write(
            retail,
            WRITE_TASK,
            (Message.assistant(_proposal_of(wrong)), Message.user("bye", Signal.STOP)),
        )
        is None
    )
    transfer = Message.assistant("I'll transfer you to a human. Shall I proceed? (yes/no)")
    assert pending_gold_write(retail, WRITE_TASK, (transfer, Message.user("ok"))) is None


class _Leaver(_Wrapped):
    """Says goodbye at the first question that asks for a go-ahead (whatever it proposes)."""

    fidelity_checked = True

    def respond(self, messages: Sequence[Message]) -> Message:
        last = next((m.content for m in reversed(messages) if m.role is Role.ASSISTANT), "")
        if asks_for_confirmation(last):
            return Message.user("No thanks, bye.", Signal.STOP)
        return self.inner.respond(messages)


def test_a_customer_leaving_after_a_needless_transfer_proposal_is_the_agents_failure():
    registry.register_user("test/leaver", lambda **kw: _Leaver(**kw))
    try:
        exchange = next(t for t in retail.tasks() if t.gold and "exchange" in t.gold[0].name)
        spec = RunSpec(
            domains=("retail",),
            task_ids=(exchange.id,),
            user="test/leaver",
            agent="sandbox/adversary:transfer_proposer",
        )
        record = run_unit(spec, plan(spec)[0])
    finally:
        registry._users.pop("test/leaver", None)
    assert record.termination == "user_stop" and not record.simulator_error
    assert record.reward == 0.0 and record.failure == "needless_transfer", record.notes


def test_the_scripted_customer_is_never_flagged_on_the_smoke_split():
    spec = RunSpec(domains=("retail",), split="smoke", personas=("baseline", "impatient"), trials=2)
    sink = MemorySink()
    report = run(spec, sink)
    assert report.simulator_errors == 0 and report.infrastructure_errors == 0
    assert {r.termination for r in sink.records} <= {
        "user_stop",
        "transfer_to_human",
        "user_abandon",
    }


def _record(key_trial: int, termination: str, reward: float, error: str = "") -> TrialRecord:
    return TrialRecord(
        domain="retail",
        task_id="t1",
        persona="baseline",
        trial=key_trial,
        seed=key_trial,
        reward=reward,
        failure="none" if reward else "omission",
        termination=termination,
        error=error,
    )


def test_the_report_counts_infrastructure_and_simulator_errors_apart_with_their_rates():
    records = [
        _record(0, "user_stop", 1.0),
        _record(1, "user_stop", 0.0),
        _record(2, "infrastructure_error", 0.0, "ModelCallExhausted()"),
        _record(3, "simulator_error", 0.0, "SimulatorError: invented"),
        # A file written before simulator errors had their own termination.
        _record(4, "infrastructure_error", 0.0, "user: SimulatorError('empty')"),
    ]
    report = summarise(records, ks=(1,))
    assert report.trials == 5 and report.evaluated == 2
    assert report.pass_hat[1].value == 0.5
    assert report.infrastructure_errors == 1 and report.simulator_errors == 2
    assert report.infrastructure_error_rate == pytest.approx(0.2)
    assert report.simulator_error_rate == pytest.approx(0.4)
    data = report.to_dict()
    assert data["simulator_error_rate"] == pytest.approx(0.4)
    assert data["infrastructure_error_rate"] == pytest.approx(0.2)


def test_a_later_record_of_a_key_replaces_the_earlier_one_in_the_report():
    records = [_record(0, "infrastructure_error", 0.0), _record(0, "user_stop", 1.0)]
    report = summarise(records, ks=(1,))
    assert report.trials == 1 and report.infrastructure_errors == 0
    assert report.pass_hat[1].value == 1.0
    flipped = summarise([_record(0, "user_stop", 0.0), _record(0, "user_stop", 1.0)], ks=(1,))
    assert flipped.failures == {} and flipped.pass_hat[1].value == 1.0


def test_resume_re_runs_infrastructure_and_simulator_errors_and_reads_keep_the_latest(tmp_path):
    spec = RunSpec(domains=("retail",), split="smoke", trials=1, include_trajectory=False)
    units = plan(spec)
    path = tmp_path / "run.jsonl"
    with JsonlSink(path) as sink:
        for i, unit in enumerate(units):
            good = run_unit(spec, unit)
            if i == 0:
                sink.append(_as(good, "infrastructure_error", "ModelCallExhausted('5 tries')"))
            elif i == 1:
                sink.append(_as(good, "simulator_error", "SimulatorError: invented #W0"))
            else:
                sink.append(good)
        assert sink.finished_keys() == {u.key for u in units[2:]}
        rerun: list[str] = []
        report = run(
            spec,
            sink,
            on_progress=lambda r, done, total: rerun.append(r.key),
            previous=read_records(path),
        )
    assert rerun == [units[0].key, units[1].key]
    assert report.trials == 5 and report.infrastructure_errors == 0
    assert report.simulator_errors == 0
    lines = path.read_bytes().splitlines()
    assert len(lines) == 7  # append-only: the failed lines stay, superseded
    latest = list(read_records(path))
    assert [r.key for r in latest] == [u.key for u in units[2:]] + [units[0].key, units[1].key]
    assert not any(r.infrastructure for r in latest)
    assert len(list(read_records(path, dedupe=False))) == 7
    assert summarise(read_records(path), ks=(1,)).trials == 5


def _as(record: TrialRecord, termination: str, error: str) -> TrialRecord:
    d = record.to_dict()
    d.update(termination=termination, error=error, reward=0.0, failure="infrastructure")
    return TrialRecord.from_dict(d)


def test_memory_sink_resume_also_re_runs_errors():
    spec = RunSpec(domains=("retail",), split="smoke", trials=1, include_trajectory=False)
    units = plan(spec)
    sink = MemorySink()
    sink.append(_as(run_unit(spec, units[0]), "simulator_error", "SimulatorError: x"))
    assert sink.finished_keys() == set()
    run(spec, sink)
    assert sink.finished_keys() == {u.key for u in units}


def test_each_record_carries_the_models_as_resolved():
    spec = RunSpec(domains=("retail",), split="smoke", trials=1)
    record = run_unit(spec, plan(spec)[0])
    assert record.models == {"agent": "sandbox/reference", "user": "sandbox/scripted"}
    assert TrialRecord.from_dict(record.to_dict()).models == record.models
    fault = RunSpec(domains=("retail",), split="smoke", agent="sandbox/fault:do_nothing")
    assert run_unit(fault, plan(fault)[0]).models["agent"] == "sandbox/fault:do_nothing"


def test_a_no_to_the_exact_proposal_is_the_simulators_but_a_correction_is_not():
    gold = WRITE_TASK.gold[0]
    proposal = Message.assistant(_proposal_of(gold))
    no = (proposal, Message.user("No, don't do that."))
    assert "declined" in declined_gold_write(retail, WRITE_TASK, no)
    other = "Yes, but make it something else."
    assert declined_gold_write(retail, WRITE_TASK, (proposal, Message.user(other)))
    shown = next(str(v) for v in gold.arguments.values() if isinstance(v, str) and v)
    correction = f"Sorry, my mistake: it's {shown}, not what I said."
    assert declined_gold_write(retail, WRITE_TASK, (proposal, Message.user(correction))) == ""
    assert declined_gold_write(retail, WRITE_TASK, (proposal, Message.user("Yes please."))) == ""
