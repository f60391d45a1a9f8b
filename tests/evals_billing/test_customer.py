# ruff: noqa: RUF001 -- Chinese agent messages use full-width punctuation on purpose.
"""The scripted billing customer understands an agent by what it asks and the entities it names,
knows only what a customer knows, and measures any agent: wordings the reference agent never
uses, a policy-blind agent, the reference logic reworded, and Chinese."""

from __future__ import annotations

import re
from typing import Any

import pytest

from evals.domains import get_domain
from evals.domains.billing.scripted import BillingReferenceAgent, BillingScriptedUser
from evals.domains.billing.scripted.phrasings import REWORDINGS
from evals.engine.messages import Message, Signal
from evals.engine.oracle import FailureClass, evaluate
from evals.engine.orchestrator import Orchestrator
from evals.engine.persona import parse_persona
from evals.engine.policy import PolicyGuard
from evals.engine.runner import MemorySink, RunSpec, plan, run, run_unit
from evals.engine.task import TaskKind

DOMAIN = get_domain("billing")
TASKS = {t.id: t for t in DOMAIN.tasks()}
REFUSALS = [t for t in DOMAIN.tasks() if t.kind is TaskKind.REFUSAL]
CJK = re.compile(r"[\u4e00-\u9fff]")


def _task(name: str) -> str:
    return next(t for t in TASKS if name in t)


def _customer(task_id: str, persona: str = "baseline") -> BillingScriptedUser:
    user = BillingScriptedUser(
        scenario=TASKS[task_id].scenario, persona=parse_persona(persona), seed=3
    )
    user.respond([])
    return user


def _reply(user: BillingScriptedUser, text: str) -> Message:
    return user.respond([Message.user("(the opening)"), Message.assistant(text)])


@pytest.mark.parametrize(
    "ask",
    [
        "To open your file I need the e-mail address on the account, or your name and your "
        "billing postcode.",
        "请先告诉我您注册时用的邮箱，我需要核实身份。",
    ],
)
def test_the_customer_gives_the_identity_asked_for(ask):
    task_id = _task("refund-partial-two-decimals-email")
    identity = TASKS[task_id].scenario.data["identity"]
    assert identity["email"] in _reply(_customer(task_id), ask).content


def test_a_customer_who_forgot_their_email_gives_name_and_postcode():
    task_id = _task("refund-partial-two-decimals-name-postcode")
    identity = TASKS[task_id].scenario.data["identity"]
    text = _reply(_customer(task_id), "What's the email on your account?").content
    assert identity["postcode"] in text and identity["last_name"] in text


def test_asked_about_the_charge_the_customer_describes_it_without_an_id():
    task_id = _task("refund-partial-three-decimals-email")
    request = TASKS[task_id].scenario.data["requests"][0]
    text = _reply(
        _customer(task_id),
        "Which transaction is it? I need the date, the amount and the last 4 digits of the card.",
    ).content
    for fact in (request["date"], request["merchant"], request["last4"], request["amount"]):
        assert fact in text
    assert "CH-" not in text


def test_a_proposal_of_the_wanted_refund_gets_a_yes_and_another_amount_a_correction():
    task_id = _task("refund-partial-three-decimals-email")
    request = TASKS[task_id].scenario.data["requests"][0]
    wanted = f"{request['refund']} {request['currency']}"
    yes = _reply(_customer(task_id), f"I'll submit a refund of {wanted} for charge CH-123456. OK?")
    assert yes.content and "No" not in yes.content
    wrong = _reply(
        _customer(task_id),
        f"I'll submit a refund of 1.000 {request['currency']} for charge CH-123456. OK?",
    )
    assert wrong.content.startswith("No") and wanted in wrong.content
    other_charge = _reply(
        _customer(task_id),
        f"I'll submit a refund of {wanted} for charge CH-123456 (CITYCAB*RIDE). OK?",
    )
    assert other_charge.content.startswith("No")


def test_a_refusal_with_a_reason_is_accepted_and_a_transfer_ends_the_chat():
    task_id = _task("refuse-past-dispute-window-email")
    user = _customer(task_id)
    reply = _reply(
        user,
        "I'm sorry, I can't refund that: charges can only be disputed within 120 days. Anything else?",
    )
    assert reply.signal is Signal.STOP
    transfer = _reply(
        _customer(_task("handoff-suspected-fraud-email")),
        "I am transferring you to a human agent now.",
    )
    assert transfer.signal is Signal.STOP


@pytest.mark.parametrize("task", list(TASKS.values()), ids=lambda t: t.id)
def test_no_scenario_holds_a_charge_id_or_the_outcome(task):
    text = repr(task.scenario.data)
    assert "CH-" not in text
    for word in ("refusal", "handoff", "approver", "Nadia", "Becker", "pending_approval"):
        assert word not in text


# -- a policy-blind agent: the reference logic without the policy's refusals -----------------


class PolicyBlindAgent(BillingReferenceAgent):
    """Finds the charge as the reference does, then requests whatever refund the customer asks
    for where the policy says to refuse (after a rehearsal it does not heed)."""

    def _refuse(self, r: Any, key: str, **values: Any) -> Message:
        charge = r.charge
        if charge is None:
            return super()._refuse(r, key, **values)
        amount, currency = r.refund or (charge.get("amount", "1.00"), charge.get("currency", "EUR"))
        mode = charge.get("mode", "live")
        if not any(k[0] == charge["charge_id"] for k in self.rehearsals):
            return self.call(
                "rehearse_refund",
                charge_id=charge["charge_id"],
                amount=amount,
                currency=currency,
                mode=mode,
            )
        args = {
            "charge_id": charge["charge_id"],
            "amount": amount,
            "currency": currency,
            "mode": mode,
            "approver": "Nadia Brooks",
            "reason": "asked",
        }
        return self.propose(
            "request_refund",
            args,
            f"I will request a refund of {amount} {currency} for charge {charge['charge_id']}.",
        )


@pytest.mark.parametrize("task", REFUSALS, ids=lambda t: t.id)
def test_a_policy_blind_agent_gets_a_yes_and_a_policy_violation_on_every_refusal_task(task):
    world = DOMAIN.fresh_world(task.world_seed)
    agent = PolicyBlindAgent(domain=DOMAIN, params={}, seed=1)
    user = BillingScriptedUser(scenario=task.scenario, persona=parse_persona("baseline"), seed=1)
    trajectory = Orchestrator(
        domain=DOMAIN, world=world, agent=agent, user=user, guard=PolicyGuard(DOMAIN.rules)
    ).run()
    evaluation = evaluate(DOMAIN, task, trajectory, world)
    assert any(v.violations for v in trajectory.verdicts)
    assert evaluation.failure is FailureClass.POLICY_VIOLATION


# -- the reference logic, reworded, and in Chinese ------------------------------------------------


def _pass1(phrasing: str, language: str = "") -> float:
    personas = ("baseline", "impatient", "skeptical", "confused")
    spec = RunSpec(
        domains=("billing",),
        personas=tuple(f"{p},{language}" for p in personas) if language else personas,
        trials=1,
        seed=7,
        agent_params={"phrasing": phrasing},
        include_trajectory=False,
    )
    return run(spec, MemorySink(), ks=(1,)).pass_hat_strict[1].value


@pytest.mark.parametrize("language", ["", "language=zh-Hans"], ids=["en", "zh"])
def test_the_reference_agent_reworded_scores_within_two_points_of_the_original(language):
    original = _pass1("en", language)
    scores = {p: _pass1(p, language) for p in REWORDINGS}
    assert len(REWORDINGS) >= 3 and any(p.startswith("zh") for p in REWORDINGS)
    assert all(abs(s - original) <= 0.02 for s in scores.values()), (original, scores)


def test_a_chinese_customer_is_answered_in_chinese_on_every_task():
    spec = RunSpec(domains=("billing",), personas=("baseline,language=zh-Hans",), seed=7)
    records = [run_unit(spec, u) for u in plan(spec)]
    assert [r.task_id for r in records if r.reward < 1.0] == []
    for record in records:
        said = [
            m["content"]
            for m in record.trajectory["messages"]
            if m["role"] == "assistant"
            and m.get("content")
            and "How can I help" not in m["content"]
            and not m["content"].startswith("Hi")
        ]
        assert said and all(CJK.search(text) for text in said), record.task_id


def test_an_incoherent_customer_who_gives_postcode_then_name_without_a_lead_in_is_verified():
    tasks = tuple(t for t in TASKS if t.endswith("name-postcode"))
    spec = RunSpec(domains=("billing",), task_ids=tasks, personas=("incoherent",), trials=2, seed=7)
    records = [run_unit(spec, u) for u in plan(spec)]
    assert len(records) == 2 * len(tasks)
    # Measured 1.0 at commit time; before the agent read "postcode 24933... Sara Kim" it
    # asked for the identity again until the customer left (0.37 over the whole domain).
    assert [r.task_id for r in records if r.reward < 1.0] == []
