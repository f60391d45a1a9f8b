# ruff: noqa: RUF001 -- Chinese agent messages use full-width punctuation on purpose.
"""The scripted member understands an agent by what it asks and the entities it names, knows
only what a member knows, and measures any agent: wordings the reference agent never uses,
a policy-blind agent, and the reference logic reworded."""

from __future__ import annotations

from typing import Any

import pytest

from evals.domains import get_domain
from evals.domains.membership.scripted import MembershipReferenceAgent, MembershipScriptedUser
from evals.domains.membership.scripted.customer_phrases import PHRASES
from evals.domains.membership.scripted.phrasings import REWORDINGS
from evals.domains.membership.world import money_text
from evals.engine.messages import Message, Signal
from evals.engine.oracle import FailureClass, evaluate
from evals.engine.orchestrator import Orchestrator
from evals.engine.persona import Language, parse_persona
from evals.engine.policy import PolicyGuard
from evals.engine.runner import MemorySink, RunSpec, run
from evals.engine.task import TaskKind
from evals.engine.understanding.answers import read_answer

DOMAIN = get_domain("membership")
TASKS = {t.id: t for t in DOMAIN.tasks()}
REFUSALS = [t for t in DOMAIN.tasks() if t.kind is TaskKind.REFUSAL]


def _member(task_id: str, persona: str = "baseline") -> MembershipScriptedUser:
    user = MembershipScriptedUser(
        scenario=TASKS[task_id].scenario, persona=parse_persona(persona), seed=3
    )
    user.respond([])  # the opening
    return user


def _reply(user: MembershipScriptedUser, text: str) -> Message:
    return user.respond([Message.user("(the opening)"), Message.assistant(text)])


def _task(name: str) -> str:
    return next(t for t in TASKS if name in t)


# -- reading what is asked, in words the reference agent never uses ---------------------------


@pytest.mark.parametrize(
    "ask",
    [
        "To pull up your file I need the e-mail address on the account, or your member number "
        "plus your birthday.",
        "请先告诉我您注册时用的邮箱，我需要核实身份。",
    ],
)
def test_the_member_gives_the_identity_asked_for(ask):
    user = _member(_task("upgrade-premium-email"))
    email = TASKS[_task("upgrade-premium-email")].scenario.data["identity"]["email"]
    assert email in _reply(user, ask).content


def test_a_member_who_forgot_their_email_gives_number_and_birth_date_instead():
    task = _task("upgrade-premium-number-dob")
    identity = TASKS[task].scenario.data["identity"]
    text = _reply(_member(task), "What's the email address on your membership?").content
    assert "don't remember" in text and identity["member_number"] in text


@pytest.mark.parametrize(
    ("task", "ask", "wanted"),
    [
        (
            "upgrade-premium-email",
            "Sure - Basic, Plus or Premium, which one would you like?",
            "Premium",
        ),
        ("upgrade-premium-email", "您想换成哪个套餐：基础版、进阶版还是高级版？", "Premium"),
        ("freeze-two-months-email", "How long should the hold last, in months?", "2 months"),
        ("freeze-two-months-email", "您想冻结几个月？", "2 months"),
        (
            "freeze+pt-sessions-email",
            "Are you asking about classes, guest passes, or personal-training sessions?",
            "personal-training",
        ),
    ],
)
def test_the_member_answers_the_slot_or_choice_asked(task, ask, wanted):
    user = _member(_task(task))
    assert wanted.lower() in _reply(user, ask).content.lower()


def test_a_proposal_matching_the_request_gets_a_yes_and_another_gets_what_the_member_wants():
    task = _task("upgrade-premium-email")
    proposal = (
        "Let me check I've got it: MS379031 switches plan from Plus to {} ({}). Today 18.00 USD "
        "is charged pro rata. OK to go ahead?"
    )
    right = proposal.format("Premium", "premium")
    assert read_answer(_reply(_member(task), right).content, proposal=right).confirms
    wrong = proposal.format("Basic", "basic")
    answer = _reply(_member(task), wrong).content
    assert not read_answer(answer, proposal=wrong).confirms and "Premium" in answer


def test_a_member_who_will_not_pay_a_fee_declines_a_cancellation_with_one():
    task = _task("refuse-cancel-without-fee-email")
    text = "请确认：我将取消会员资格 MS123456。您在合约期内，取消费为 79.98 GBP。请问可以吗？"
    assert read_answer(_reply(_member(task), text).content, proposal=text).answer.value == "no"


@pytest.mark.parametrize(
    "report",
    [
        "That's done - MS379031 now runs on the Premium plan (18.00 USD charged today).",
        "已完成：会员资格 MS379031 已改为 Premium 套餐。",
    ],
)
def test_a_done_statement_settles_the_request_and_a_closing_question_ends_the_chat(report):
    task = _task("upgrade-premium-email")
    user = _member(task)
    proposal = "Here's the plan change: MS379031 moves from Plus to Premium (premium). Go ahead?"
    _reply(user, proposal)
    reply = _reply(user, f"{report} Anything more I can do for you today?")
    assert reply.signal is Signal.STOP


@pytest.mark.parametrize(
    "refusal",
    [
        "I'm afraid MS620263 cannot be frozen again this year: you've used both of your 2 "
        "freezes for this calendar year. Anything more I can do for you today?",
        "很抱歉，我无法冻结会员资格 MS620263：您今年已经用完了两次冻结。还有其他需要帮忙的吗？",
    ],
)
def test_a_refusal_with_a_reason_is_accepted(refusal):
    user = _member(_task("refuse-third-freeze-email"))
    assert _reply(user, refusal).signal is Signal.STOP


def test_a_transfer_to_a_person_is_accepted():
    user = _member(_task("dispute-late-fee-email"))
    text = "明白，您对这笔费用有异议，需要同事来复核。现在为您转接人工客服。"
    assert _reply(user, text).signal is Signal.STOP


def test_a_message_that_asks_nothing_gets_a_question_back_and_costs_patience():
    user = _member(_task("upgrade-premium-email"), "impatient")
    first = _reply(user, "Let me check.")
    assert first.signal is Signal.NONE
    assert any(unsure.lower() in first.content.lower() for unsure in PHRASES[Language.EN]["unsure"])
    assert _reply(user, "Let me check.").signal is Signal.ABANDON


# -- no answer key -----------------------------------------------------------------------------


@pytest.mark.parametrize("task", DOMAIN.tasks(), ids=lambda t: t.id)
def test_no_scenario_says_what_the_outcome_should_be(task):
    said = f"{task.scenario.reason} {task.scenario.data!r}".lower()
    assert "expect" not in said and task.kind.value not in said
    assert not any(gold.name in said for gold in task.gold)


class PolicyBlindAgent(MembershipReferenceAgent):
    """Does what the member asks, whatever the policy: where the reference agent refuses, it
    proposes the member's request and makes it on their yes."""

    def _refuse(self, r: Any, key: str, **values: Any) -> Message:
        ms = self.ms
        assert ms is not None
        msid = ms["membership_id"]
        if r.intent == "plan_change":
            args: dict[str, Any] = {"membership_id": msid, "new_plan_id": r.plan}
            return self.propose("change_plan", args, f"I will change your plan to {r.plan}.")
        if r.intent == "freeze":
            if not r.months:
                return self._ask(r, "months", self.t("ask_months"))
            args = {"membership_id": msid, "months": r.months}
            return self.propose("freeze_membership", args, f"I will freeze {msid} for {r.months}.")
        if r.intent == "cancel":
            fee = money_text(0, ms["currency"])
            args = {"membership_id": msid, "fee": fee}
            return self.propose("cancel_membership", args, f"I will cancel {msid}, fee {fee}.")
        assert self.invoices is not None
        inv = next(i for i in self.invoices if i["invoice_id"] == values["invoice_id"])
        if r.intent == "waive":
            found = self._late_fee()
            assert found is not None
            line = found[1]
            args = {"invoice_id": inv["invoice_id"], "item_id": line["item_id"], "reason": "asked"}
            return self.propose(
                "waive_fee", args, f"I will waive {line['item_id']} on {inv['invoice_id']}."
            )
        kind = "class_drop_in" if key == "refuse_class" else "dues"
        line = next(
            x for x in inv["lines"] if x["item_id"] == values.get("item_id") or x["kind"] == kind
        )
        args = {
            "invoice_id": inv["invoice_id"],
            "item_id": line["item_id"],
            "amount": line["amount"],
            "currency": inv["currency"],
            "reason": "asked",
        }
        return self.propose(
            "request_refund",
            args,
            f"I will request a refund of {line['amount']} {inv['currency']} for {line['item_id']} "
            f"on {inv['invoice_id']}.",
        )


@pytest.mark.parametrize("task", REFUSALS, ids=lambda t: t.id)
def test_a_policy_blind_agent_gets_a_yes_and_a_policy_violation_on_every_refusal_task(task):
    world = DOMAIN.fresh_world(task.world_seed)
    agent = PolicyBlindAgent(domain=DOMAIN, params={}, seed=1)
    user = MembershipScriptedUser(scenario=task.scenario, persona=parse_persona("baseline"), seed=1)
    trajectory = Orchestrator(
        domain=DOMAIN, world=world, agent=agent, user=user, guard=PolicyGuard(DOMAIN.rules)
    ).run()
    evaluation = evaluate(DOMAIN, task, trajectory, world)
    assert any(v.violations for v in trajectory.verdicts)
    assert evaluation.failure is FailureClass.POLICY_VIOLATION


# -- the reference logic, reworded ---------------------------------------------------------------


def _pass1(phrasing: str) -> float:
    spec = RunSpec(
        domains=("membership",),
        personas=("baseline", "impatient", "skeptical", "confused"),
        trials=2,
        seed=7,
        agent_params={"phrasing": phrasing},
        include_trajectory=False,
    )
    return run(spec, MemorySink(), ks=(1,)).pass_hat_strict[1].value


def test_the_reference_agent_reworded_scores_within_two_points_of_the_original():
    original = _pass1("en")
    scores = {p: _pass1(p) for p in REWORDINGS}
    assert len(REWORDINGS) >= 3 and any(p.startswith("zh") for p in REWORDINGS)
    assert all(abs(s - original) <= 0.02 for s in scores.values()), (original, scores)
