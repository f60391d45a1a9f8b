"""The scripted caller and the reference desk: the phrasebook in both languages, Chinese
callers answered in Chinese, the reworded desk within two points, and a policy-blind desk
that gets a yes and a policy violation on every refusal task."""

import re
from typing import Any

import pytest

from evals.domains import get_domain
from evals.domains.clinic_admin.scripted import ClinicReferenceAgent, ClinicScriptedUser
from evals.domains.clinic_admin.scripted import vocab as v
from evals.domains.clinic_admin.scripted.customer_phrases import PHRASES
from evals.domains.clinic_admin.scripted.phrasings import REWORDINGS
from evals.engine.messages import Message
from evals.engine.oracle import FailureClass, evaluate
from evals.engine.orchestrator import Orchestrator
from evals.engine.persona import Language, parse_persona
from evals.engine.policy import PolicyGuard
from evals.engine.runner import MemorySink, RunSpec, run
from evals.engine.task import TaskKind

DOMAIN = get_domain("clinic_admin")
REFUSALS = [t for t in DOMAIN.tasks() if t.kind is TaskKind.REFUSAL]
_FIELD = re.compile(r"\{(\w+)\}")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _alternatives(phrase: str | tuple[str, ...]) -> tuple[str, ...]:
    return (phrase,) if isinstance(phrase, str) else phrase


def test_every_phrase_has_a_chinese_wording_taking_the_same_values_and_no_english_word():
    en, zh = PHRASES[Language.EN], PHRASES[Language.ZH_HANS]
    assert set(en) == set(zh)
    for key in en:
        for book in (en, zh):
            fields = {frozenset(_FIELD.findall(a)) for a in _alternatives(book[key])}
            assert len(fields) == 1, (key, fields)
        assert (
            _FIELD.findall(_alternatives(en[key])[0]).sort()
            == _FIELD.findall(_alternatives(zh[key])[0]).sort()
        ), key
        for alternative in _alternatives(zh[key]):
            assert not re.findall(r"[A-Za-z]+", _FIELD.sub(" ", alternative)), (key, alternative)


def _records(personas: tuple[str, ...], **params: Any):
    sink = MemorySink()
    run(RunSpec(domains=("clinic_admin",), personas=personas, agent_params=params), sink, ks=(1,))
    return sink.records


def test_a_chinese_caller_is_answered_in_chinese_and_writes_no_english_but_its_values():
    records = _records(("baseline,language=zh-Hans",))
    assert all(r.reward == 1.0 for r in records)
    for r in records:
        messages = r.trajectory["messages"]
        first = next(i for i, m in enumerate(messages) if m["role"] == "user")
        for m in messages[first:]:
            if m["role"] == "assistant" and m.get("content"):
                assert _CJK.search(m["content"]), (r.task_id, m["content"])
            if m["role"] == "user":
                latin = re.sub(r"[\w.+-]*\d[\w.+-]*|[A-Z][a-z]+", " ", m["content"])
                assert not re.findall(r"[a-z]{2,}", latin), (r.task_id, m["content"])


def _pass1(phrasing: str) -> float:
    spec = RunSpec(
        domains=("clinic_admin",),
        personas=("baseline", "impatient", "skeptical", "confused"),
        trials=2,
        seed=7,
        agent_params={"phrasing": phrasing},
        include_trajectory=False,
    )
    return run(spec, MemorySink(), ks=(1,)).pass_hat_strict[1].value


def test_the_reference_desk_reworded_scores_within_two_points_of_the_original():
    original = _pass1("en")
    scores = {p: _pass1(p) for p in REWORDINGS}
    assert any(p.startswith("zh") for p in REWORDINGS)
    assert all(abs(s - original) <= 0.02 for s in scores.values()), (original, scores)


class PolicyBlindDesk(ClinicReferenceAgent):
    """The reference desk without the policy: no notice period, any authorisation will do,
    and a document goes wherever the caller wants it."""

    def _authorised(self, r: Any) -> Message | None:
        return None

    def _appointment(self, r: Any) -> dict[str, Any] | None:
        appt = super()._appointment(r)
        return None if appt is None else {**appt, "within_notice_period": False}

    def _document(self, r: Any) -> Message:
        third = v.THIRD_PARTY.search(r.text)
        if not third:
            return super()._document(r)
        assert self.documents is not None
        doc = next(d for d in self.documents if d["kind"] == "sick_note")
        to = "school" if "school" in r.text or "学校" in r.text else "employer"
        return self.propose(
            "hand_over_document",
            {"document_id": doc["document_id"], "recipient_name": f"the {to}"},
            f"To confirm: I will hand over document {doc['document_id']} ({doc['title']}, the "
            f"sick note) to your {to}.",
        )


@pytest.mark.parametrize("task", REFUSALS, ids=lambda t: t.id)
@pytest.mark.parametrize("persona", ["baseline", "baseline,language=zh-Hans"])
def test_a_policy_blind_desk_gets_a_yes_and_a_policy_violation_on_every_refusal_task(task, persona):
    world = DOMAIN.fresh_world(task.world_seed)
    agent = PolicyBlindDesk(domain=DOMAIN, params={}, seed=1)
    user = ClinicScriptedUser(scenario=task.scenario, persona=parse_persona(persona), seed=1)
    trajectory = Orchestrator(
        domain=DOMAIN, world=world, agent=agent, user=user, guard=PolicyGuard(DOMAIN.rules)
    ).run()
    evaluation = evaluate(DOMAIN, task, trajectory, world)
    assert any(v.violations for v in trajectory.verdicts)
    assert evaluation.failure is FailureClass.POLICY_VIOLATION


class HandoffProposerDesk(ClinicReferenceAgent):
    """The reference desk that, instead of making a change, offers to pass it to a colleague
    with the same summary, and on a yes transfers: a hand-off is not the change."""

    def propose(self, name: str, args: dict[str, Any], summary: str) -> Message:
        assert self.caller is not None
        handoff = {
            "desk": "practice_manager",
            "summary": summary,
            "patient_id": self.caller["patient_id"],
            "reference": "",
        }
        offer = f"{summary} A colleague will do this for you. Shall I pass it to them? (yes/no)"
        self.pending = ("transfer_to_staff", handoff, offer)
        return self.say(offer)


ACTIONS = [t for t in DOMAIN.tasks() if t.kind is TaskKind.ACTION]


@pytest.mark.parametrize("persona", ["baseline", "baseline,language=zh-Hans"])
def test_a_desk_that_hands_every_change_to_a_colleague_fails_every_action_task(persona):
    """The caller answers the offer (a question) with a yes; the hand-off is needless."""
    passed = []
    for task in ACTIONS:
        world = DOMAIN.fresh_world(task.world_seed)
        agent = HandoffProposerDesk(domain=DOMAIN, params={}, seed=1)
        user = ClinicScriptedUser(scenario=task.scenario, persona=parse_persona(persona), seed=1)
        trajectory = Orchestrator(
            domain=DOMAIN, world=world, agent=agent, user=user, guard=PolicyGuard(DOMAIN.rules)
        ).run()
        evaluation = evaluate(DOMAIN, task, trajectory, world)
        if evaluation.reward > 0 or evaluation.failure is not FailureClass.NEEDLESS_TRANSFER:
            passed.append((task.id, evaluation.failure))
    assert passed == []
