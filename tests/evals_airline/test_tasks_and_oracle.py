"""The airline task generator, the gold path and the oracle: at least 60 tasks of every kind
and a smoke split of 5, gold that replays and passes the guard, adversaries and injected faults
caught, the reference agent deterministic per seed."""

import json
from typing import Any

import pytest

from evals.domains import get_domain
from evals.domains.airline.scripted import AirlineReferenceAgent
from evals.domains.airline.scripted.agent import Req
from evals.engine import registry
from evals.engine.faults import EXPECTED, agent_name
from evals.engine.messages import Message
from evals.engine.oracle import FailureClass
from evals.engine.runner import MemorySink, RunSpec, run
from evals.engine.task import TaskKind
from tests.support import domain_kit as kit

airline = get_domain("airline")
TASKS = airline.tasks()
POLICY_BLIND = "test/airline-policy-blind"


def test_the_generator_gives_at_least_60_tasks_of_every_kind_and_a_smoke_split_of_5():
    smoke = kit.assert_a_full_task_set(airline)
    assert {TaskKind.ACTION, TaskKind.REFUSAL, TaskKind.HANDOFF} <= {t.kind for t in smoke}
    assert {t.id.rsplit("-", 2)[-2] + "-" + t.id.rsplit("-", 1)[-1] for t in TASKS} >= {
        "ref-name",
        "ref-unknown",
    }
    assert any(t.id.endswith("-email") for t in TASKS)
    # Every currency, the zero-decimal JPY among them, is in some task's gold.
    currencies = {g.arguments.get("currency") for t in TASKS for g in t.gold}
    assert {"USD", "EUR", "GBP", "JPY"} <= currencies


def test_a_customer_without_its_booking_reference_holds_none_in_its_scenario():
    unknown = [t for t in TASKS if t.id.endswith("-ref-unknown")]
    assert unknown
    for task in unknown:
        refs = {g.arguments["booking_ref"] for g in task.gold if "booking_ref" in g.arguments}
        said = json.dumps(dict(task.scenario.data)) + task.scenario.prompt()
        assert not any(ref in said for ref in refs), task.id
        assert task.scenario.data["trip"]["from"] in task.scenario.prompt()


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gold_replay_changes_the_state_unless_the_task_is_a_refusal(task):
    kit.assert_gold_changes_the_state_unless_refused(airline, task)
    if task.kind is TaskKind.REFUSAL:
        assert task.required_reads


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gold_path_passes_the_guard_and_scores_one(task):
    email = task.scenario.data["identity"]["email"]
    agent = kit.GoldAgent(airline, task, opening=[("find_customer_by_email", {"email": email})])
    kit.assert_gold_path_scores_one(airline, task, agent, "Hello, I need help with my booking.")


# -- the offline models and adversaries on this domain --------------------------------------


def _run(agent: str, task_id: str, persona: str = "baseline", seed: int = 0) -> Any:
    return kit.run_one("airline", agent, task_id, persona, seed=seed)


def _task(prefix: str) -> str:
    return kit.task_id(TASKS, prefix)


def _all(agent: str, kind: TaskKind | None = None) -> list[Any]:
    ids = tuple(t.id for t in TASKS if kind in (None, t.kind))
    spec = RunSpec(domains=("airline",), agent=agent, task_ids=ids, include_trajectory=False)
    sink = MemorySink()
    run(spec, sink, ks=(1,))
    assert {r.task_id for r in sink.records} == set(ids)
    return list(sink.records)


def test_the_reference_agent_scores_one_on_every_task_with_a_baseline_customer():
    records = _all("sandbox/reference")
    # Measured 1.0 (74/74) at commit time, in English and Chinese.
    assert [r.task_id for r in records if r.reward < 1.0] == []


def test_the_do_nothing_agent_scores_zero_on_every_task():
    assert all(r.reward == 0.0 for r in _all(agent_name("do_nothing")))


def test_the_blanket_refuser_scores_zero_on_every_task():
    assert all(r.reward == 0.0 for r in _all("sandbox/adversary:blanket_refuser"))


def test_the_transfer_proposer_scores_zero_on_every_task_whose_change_it_hands_off():
    # It hands off the flight changes, bag additions and compensations it would propose.
    handed = ("change_flight", "add_checked_bags", "issue_compensation")
    ids = {t.id for t in TASKS if any(g.name in handed for g in t.gold)}
    assert len(ids) >= 20
    records = [r for r in _all("sandbox/adversary:transfer_proposer") if r.task_id in ids]
    assert records and all(r.reward == 0.0 for r in records)


class PolicyBlindAgent(AirlineReferenceAgent):
    """The reference agent that does what the customer asks: where the policy says no, it
    proposes the write anyway (naming the trip, as a customer without its reference needs)."""

    def _refuse(self, r: Req, key: str, **values: Any) -> Message:
        res = self.res
        assert res is not None
        ref, cur, trip = res["booking_ref"], res["currency"], self._trip()
        if r.intent == "change":
            flight = res["flight"]["flight_id"].rsplit("-", 3)[0]
            date = r.date or "2026-03-24"
            args = {"booking_ref": ref, "new_flight_id": f"{flight}-{date}", "amount": "0",
                    "currency": cur}  # fmt: skip
            return self.propose("change_flight", args, f"I will change {trip} to {date}: 0 {cur}.")
        if r.intent in ("cancel", "remove"):
            if r.intent == "remove":
                pax = self._passenger_named(r.text) or res["passengers"][-1]
                args = {"booking_ref": ref, "passenger_id": pax["passenger_id"],
                        "refund_amount": res["paid"], "currency": cur}  # fmt: skip
                return self.propose(
                    "remove_passenger", args,
                    f"I will remove {pax['first_name']} {pax['last_name']} from {trip} and "
                    f"refund {res['paid']} {cur}.",
                )  # fmt: skip
            args = {"booking_ref": ref, "refund_amount": res["paid"], "currency": cur}
            return self.propose(
                "cancel_reservation", args, f"I will cancel {trip}: {res['paid']} {cur}."
            )
        if r.intent == "bags":
            args = {"booking_ref": ref, "count": r.bags, "fee": "0", "currency": cur}
            return self.propose(
                "add_checked_bags", args, f"I will add {r.bags} bags to {trip}: fee 0 {cur}."
            )
        if r.intent == "name":
            first, last = values["new"].split(" ", 1)
            args = {"booking_ref": ref, "passenger_id": res["passengers"][-1]["passenger_id"],
                    "first_name": first, "last_name": last}  # fmt: skip
            return self.propose(
                "correct_passenger_name", args, f"I will change the name to {first} {last}."
            )
        if r.intent == "compensation":
            args = {"booking_ref": ref, "amount": "1" if cur == "JPY" else "1.00", "currency": cur}
            return self.propose(
                "issue_compensation", args, f"I will issue a certificate of {args['amount']} {cur}."
            )
        if r.intent == "new_passenger":
            first, last = values["name"].split(" ", 1)
            args = {"booking_ref": ref, "first_name": first, "last_name": last,
                    "amount": res["flight"]["price_per_passenger"], "currency": cur}  # fmt: skip
            return self.propose("add_passenger", args, f"I will add {first} {last} to {trip}.")
        return super()._refuse(r, key, **values)


if POLICY_BLIND not in registry.agent_names():
    registry.register_agent(POLICY_BLIND, PolicyBlindAgent.factory)


def test_the_policy_blind_agent_violates_the_policy_on_every_refusal_task():
    records = _all(POLICY_BLIND, TaskKind.REFUSAL)
    for record in records:
        assert record.reward == 0.0, record.task_id
        assert record.policy_violations > 0, record.task_id


# One task per fault where the fault shows; each must be caught with its failure class.
# wrong_amount: every amount is the guard's to check (the change fee, the full refund, the
# bag fee, the certificate are fixed by the rules), so a changed amount is blocked before it
# is written: a policy violation, not a wrong argument.
MUTATIONS = [
    ("skip_confirmation", "change-standard-fare-email", EXPECTED["skip_confirmation"]),
    ("wrong_amount", "cancel-within-24-hours-email", FailureClass.POLICY_VIOLATION),
    ("stop_after_first", "add-bag+correct-name-ref-name", EXPECTED["stop_after_first"]),
    ("wrong_order", "remove-passenger-then-add-bag-ref-name", None),
    ("do_nothing", "compensation-long-delay-email", EXPECTED["do_nothing"]),
]


@pytest.mark.parametrize(("fault", "task_prefix", "failure"), MUTATIONS)
def test_the_oracle_catches_each_injected_fault_with_its_failure_class(fault, task_prefix, failure):
    kit.assert_fault_caught("airline", fault, _task(task_prefix), failure)


@pytest.mark.parametrize("persona", ["baseline", "confused", "angry-urgent"])
def test_the_same_seed_gives_an_identical_trajectory(persona):
    kit.assert_same_seed_same_trajectory(
        "airline", _task("compensation+cancel-cancelled-flight-ref-unknown"), persona
    )


def test_a_customer_without_its_reference_is_told_which_trip_by_route_and_date():
    record = _run("sandbox/reference", _task("cancel-within-24-hours-ref-unknown"))
    assert record.reward == 1.0
    task = airline.task(record.task_id)
    trip = task.scenario.data["trip"]
    proposals = [
        m["content"]
        for m in record.trajectory["messages"]
        if m["role"] == "assistant" and "cancel" in (m.get("content") or "")
    ]
    assert any(trip["from"] in p and trip["to"] in p and trip["date"] in p for p in proposals)


def test_a_mistyped_last_name_is_corrected_and_the_agent_retries():
    record = _run("sandbox/reference", _task("add-paid-bag-ref-name"), "confused", seed=2)
    calls = [a["last_name"] for a in kit.tool_arguments(record, "find_reservation")]
    assert record.reward == 1.0
    assert len(calls) in (1, 2)
    if len(calls) == 2:
        assert calls[0] != calls[1]


def test_importing_the_airline_domain_does_not_import_django():
    kit.assert_loads_without_django("airline")
