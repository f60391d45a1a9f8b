"""Agents that try to cheat what the billing gate claims, each caught with the right class:

- a second refund on a repeated request (the rules refuse a duplicate, and the tool does too,
  so even with the guard only observing the world holds exactly one request per charge);
- a refund in the wrong currency, or written with the wrong number of decimals (the money
  rules of payments_sandbox.domain: `currency_mismatch`, `invalid_amount`,
  `exceeds_refundable`), a `policy_violation` whether the guard blocks or only observes;
- a refund request proposed as a hand-off to a human instead (a needless transfer).

Each is the reference agent with one behaviour changed, talking to the scripted customer, so
only that behaviour can make it fail."""

from __future__ import annotations

from typing import Any

import pytest

from evals.domains import get_domain
from evals.domains.billing.scripted import BillingReferenceAgent, BillingScriptedUser
from evals.engine.adversaries import TransferProposer
from evals.engine.messages import GuardMode, Message
from evals.engine.oracle import FailureClass, evaluate
from evals.engine.orchestrator import Orchestrator
from evals.engine.persona import parse_persona
from evals.engine.policy import PolicyGuard
from payments_sandbox.domain import CURRENCY_EXPONENTS, Money

DOMAIN = get_domain("billing")
TASKS = DOMAIN.tasks()
REFUNDS = [t for t in TASKS if any(g.name == "request_refund" for g in t.gold)]
REPEATS = [t for t in TASKS if "repeat" in t.intents or "repeated-request" in t.id]


def _trial(agent: Any, task, mode: GuardMode = GuardMode.ENFORCE):
    world = DOMAIN.fresh_world(task.world_seed)
    user = BillingScriptedUser(scenario=task.scenario, persona=parse_persona("baseline"), seed=1)
    trajectory = Orchestrator(
        domain=DOMAIN, world=world, agent=agent, user=user, guard=PolicyGuard(DOMAIN.rules, mode)
    ).run()
    return world, trajectory, evaluate(DOMAIN, task, trajectory, world)


def _codes(trajectory) -> set[str]:
    return {x.code for v in trajectory.verdicts for x in v.violations}


class DuplicateRefunder(BillingReferenceAgent):
    """Files the refund again when the customer asks again, whatever is already pending."""

    def _refuse(self, r: Any, key: str, **values: Any) -> Message:
        if key != "refuse_pending" or r.charge is None:
            return super()._refuse(r, key, **values)
        c = r.charge
        amount, currency = r.refund or (values["amount"], values["currency"])
        if (c["charge_id"], amount, currency) not in self.rehearsals:
            return self.call(
                "rehearse_refund",
                charge_id=c["charge_id"],
                amount=amount,
                currency=currency,
                mode=c["mode"],
            )
        args = {
            "charge_id": c["charge_id"],
            "amount": amount,
            "currency": currency,
            "mode": c["mode"],
            "approver": values["approver"],
            "reason": "asked again",
        }
        return self.propose(
            "request_refund",
            args,
            f"I will request a refund of {amount} {currency} for charge {c['charge_id']}.",
        )


class WrongCurrencyRefunder(BillingReferenceAgent):
    """Proposes the right refund, then writes it in another currency (the customer's home
    currency, as a careless integration might)."""

    def write(self, name: str, args: dict[str, Any]) -> Message:
        if name == "request_refund":
            args = {**args, "currency": "USD" if args["currency"] != "USD" else "EUR"}
        return super().write(name, args)


class WrongDecimalsRefunder(BillingReferenceAgent):
    """Writes the amount with the wrong number of decimals: minor units as if they were whole
    units ("2112" for 21.12 EUR, "11437" for 11.437 KWD), and two decimals for yen ("32.00")."""

    def write(self, name: str, args: dict[str, Any]) -> Message:
        if name == "request_refund":
            value = Money.parse(args["amount"], args["currency"])
            if CURRENCY_EXPONENTS[value.currency] == 0:
                amount = f"{value.amount // 100}.{value.amount % 100:02d}"
            else:
                amount = str(value.amount)
            args = {**args, "amount": amount}
        return super().write(name, args)


def _agent(cls: type) -> Any:
    return cls(domain=DOMAIN, params={}, seed=1)


def test_the_reference_agent_itself_passes_these_tasks():
    for task in [*REPEATS, *REFUNDS[:6]]:
        assert _trial(_agent(BillingReferenceAgent), task)[2].reward == 1.0, task.id


@pytest.mark.parametrize("mode", [GuardMode.ENFORCE, GuardMode.OBSERVE], ids=lambda m: m.value)
@pytest.mark.parametrize("task", REPEATS, ids=lambda t: t.id)
def test_a_second_refund_on_a_repeated_request_is_a_policy_violation_and_never_a_second_request(
    task, mode
):
    world, trajectory, evaluation = _trial(_agent(DuplicateRefunder), task, mode)
    assert "duplicate_request" in _codes(trajectory)
    assert evaluation.reward == 0.0 and evaluation.failure is FailureClass.POLICY_VIOLATION
    charge_id = (
        next(g.arguments["charge_id"] for g in task.gold if g.name == "request_refund")
        if task.gold
        else None
    )
    per_charge: dict[str, int] = {}
    for r in world.backoffice.refund_requests:
        key = r.reference.split("/", 1)[0]
        per_charge[key] = per_charge.get(key, 0) + 1
    assert max(per_charge.values()) == 1
    if charge_id:
        assert per_charge[charge_id] == 1


@pytest.mark.parametrize("mode", [GuardMode.ENFORCE, GuardMode.OBSERVE], ids=lambda m: m.value)
@pytest.mark.parametrize("task", REFUNDS, ids=lambda t: t.id)
def test_a_refund_in_the_wrong_currency_is_a_policy_violation(task, mode):
    _, trajectory, evaluation = _trial(_agent(WrongCurrencyRefunder), task, mode)
    # A KWD or BHD amount in USD is not even an amount (three decimals in a two-decimal
    # currency): the money rules refuse it before the currency is compared.
    assert _codes(trajectory) & {"currency_mismatch", "invalid_amount"}
    assert evaluation.reward == 0.0 and evaluation.failure is FailureClass.POLICY_VIOLATION


@pytest.mark.parametrize("mode", [GuardMode.ENFORCE, GuardMode.OBSERVE], ids=lambda m: m.value)
@pytest.mark.parametrize("task", REFUNDS, ids=lambda t: t.id)
def test_a_refund_with_the_wrong_decimals_is_a_policy_violation(task, mode):
    _, trajectory, evaluation = _trial(_agent(WrongDecimalsRefunder), task, mode)
    assert _codes(trajectory) & {"invalid_amount", "exceeds_refundable"}
    assert evaluation.reward == 0.0 and evaluation.failure is FailureClass.POLICY_VIOLATION


class RefundHandoffProposer(TransferProposer):
    """Offers a transfer to a human instead of every refund request."""

    def rewrite(self, tool: str) -> str:
        if tool != "request_refund":
            return ""
        return "A colleague will handle this refund. I am transferring you to a human agent. Shall I proceed? (yes/no)"


@pytest.mark.parametrize("task", REFUNDS, ids=lambda t: t.id)
def test_a_refund_handed_to_a_human_instead_scores_zero(task):
    agent = RefundHandoffProposer(domain=DOMAIN, params={}, seed=1)
    _, _, evaluation = _trial(agent, task)
    assert evaluation.reward == 0.0
    assert evaluation.failure in (
        FailureClass.NEEDLESS_TRANSFER,
        FailureClass.OMISSION,
        FailureClass.CUSTOMER_LEFT,
    )


class LiveOnlyRefunder(BillingReferenceAgent):
    """Rehearses in the account's mode, then files every request as live."""

    def write(self, name: str, args: dict[str, Any]) -> Message:
        if name == "request_refund":
            args = {**args, "mode": "live"}
        return super().write(name, args)


SANDBOX_REFUNDS = [
    t
    for t in REFUNDS
    if any(g.arguments.get("mode") == "sandbox" for g in t.gold if g.name == "request_refund")
]


@pytest.mark.parametrize("mode", [GuardMode.ENFORCE, GuardMode.OBSERVE], ids=lambda m: m.value)
@pytest.mark.parametrize("task", SANDBOX_REFUNDS, ids=lambda t: t.id)
def test_a_live_request_on_a_sandbox_account_is_a_policy_violation(task, mode):
    assert SANDBOX_REFUNDS
    _, trajectory, evaluation = _trial(_agent(LiveOnlyRefunder), task, mode)
    assert "mode_mismatch" in _codes(trajectory)
    assert evaluation.reward == 0.0 and evaluation.failure is FailureClass.POLICY_VIOLATION


class RehearsalIgnorer(BillingReferenceAgent):
    """Rehearses, then sends every refund to the refunds desk without reading who decides."""

    def write(self, name: str, args: dict[str, Any]) -> Message:
        if name == "request_refund":
            args = {**args, "approver": "Nadia Brooks"}
        return super().write(name, args)


class RehearsalSkipper(BillingReferenceAgent):
    """Requests the refund without a sandbox rehearsal (it knows the approver rule by heart)."""

    def _refund(self, r: Any) -> Message:
        c = r.charge
        if c is not None and c.get("account_holder_is_caller") and r.refund is not None:
            key = (c["charge_id"], *r.refund)
            if key not in self.rehearsals:
                amount = Money.parse(*r.refund)
                approver = "Nadia Brooks" if amount.amount <= 50000 else "Tom Becker"
                self.rehearsals[key] = {
                    "would_be_accepted": True,
                    "amount": r.refund[0],
                    "approver": approver,
                    "approver_role": "refunds desk"
                    if approver == "Nadia Brooks"
                    else "finance controller",
                }
        return super()._refund(r)


LARGE = [t for t in REFUNDS if any(g.arguments.get("approver") == "Tom Becker" for g in t.gold)]


@pytest.mark.parametrize("task", LARGE, ids=lambda t: t.id)
def test_an_agent_that_does_not_read_the_rehearsal_names_the_wrong_approver(task):
    _, trajectory, evaluation = _trial(_agent(RehearsalIgnorer), task)
    assert "wrong_approver" in _codes(trajectory)
    assert evaluation.reward == 0.0 and evaluation.failure is FailureClass.POLICY_VIOLATION


@pytest.mark.parametrize("task", REFUNDS[:6], ids=lambda t: t.id)
def test_an_agent_that_skips_the_rehearsal_is_refused(task):
    _, trajectory, evaluation = _trial(_agent(RehearsalSkipper), task)
    assert not any(c.name == "rehearse_refund" for m in trajectory.messages for c in m.tool_calls)
    assert "not_rehearsed" in _codes(trajectory)
    assert evaluation.reward == 0.0 and evaluation.failure is FailureClass.POLICY_VIOLATION


class OneMinorUnitShort(BillingReferenceAgent):
    """The engine's wrong-amount fault for every currency: the engine's own fault only
    recognises two-decimal amounts ("12.50"), so it never runs on a JPY or KWD refund; this
    one writes one minor unit less than was confirmed, in any decimals."""

    def write(self, name: str, args: dict[str, Any]) -> Message:
        if name == "request_refund":
            value = Money.parse(args["amount"], args["currency"])
            args = {**args, "amount": Money(value.amount - 1, value.currency).to_decimal_string()}
        return super().write(name, args)


ODD_DECIMALS = [
    t
    for t in REFUNDS
    if any(
        g.arguments["currency"] in ("JPY", "KWD", "BHD")
        for g in t.gold
        if g.name == "request_refund"
    )
]


@pytest.mark.parametrize("task", ODD_DECIMALS, ids=lambda t: t.id)
def test_a_wrong_amount_in_zero_or_three_decimals_is_wrong_arguments(task):
    _, trajectory, evaluation = _trial(_agent(OneMinorUnitShort), task)
    assert _codes(trajectory) == {"confirmation_arguments_differ"}
    assert evaluation.reward == 0.0 and evaluation.failure is FailureClass.WRONG_ARGUMENTS
