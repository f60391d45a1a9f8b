"""`Domain.message_rules`: the policy's rules on what the agent says. A finding is a policy
verdict like a write's (never blocked), fails the trial's `policy` component, and is counted;
a domain without message rules is not affected."""

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from evals.domains import get_domain
from evals.engine.messages import GuardMode, Message, Role, Signal, ToolCall, Violation
from evals.engine.oracle import FailureClass, evaluate
from evals.engine.orchestrator import Orchestrator
from evals.engine.policy import MESSAGE, PolicyGuard

RETAIL = get_domain("retail")


def forbid_secret(world: Any, text: str) -> list[Violation]:
    return [Violation("secret", "said the secret")] if "swordfish" in text else []


class Sayer:
    """Says each of its lines in turn, then ends."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        line = self.lines.pop(0)
        return Message.assistant(line, signal=Signal.END if not self.lines else Signal.NONE)


class Listener:
    def respond(self, messages: Sequence[Message]) -> Message:
        return Message.user("I see, tell me more about it please.")


def _trial(domain: Any, agent: Any, mode: GuardMode = GuardMode.ENFORCE):
    task = domain.tasks("smoke")[0]
    world = domain.fresh_world(task.world_seed)
    trajectory = Orchestrator(
        domain=domain,
        world=world,
        agent=agent,
        user=Listener(),
        guard=PolicyGuard(domain.rules, mode),
    ).run()
    return task, world, trajectory


def test_a_message_breaking_the_rules_is_recorded_as_a_policy_verdict_never_blocked():
    domain = replace(RETAIL, message_rules=forbid_secret)
    for mode in GuardMode:
        task, world, trajectory = _trial(
            domain, Sayer("Hello.", "The password is swordfish."), mode
        )
        found = [v for v in trajectory.verdicts if v.tool == MESSAGE]
        assert len(found) == 1 and found[0].violations[0].code == "secret"
        assert found[0].blocked is False and found[0].mode is mode
        index = int(found[0].call_id.split(":")[1])
        assert trajectory.messages[index].role is Role.ASSISTANT
        assert "swordfish" in trajectory.messages[index].content
        evaluation = evaluate(domain, task, trajectory, world)
        assert evaluation.components["policy"] == 0.0


def test_clean_messages_and_domains_without_message_rules_are_unaffected():
    domain = replace(RETAIL, message_rules=forbid_secret)
    *_, clean = _trial(domain, Sayer("Hello.", "Goodbye."))
    assert [v for v in clean.verdicts if v.tool == MESSAGE] == []
    assert RETAIL.message_rules is None
    task, world, plain = _trial(RETAIL, Sayer("Hello.", "The password is swordfish."))
    assert plain.verdicts == ()
    assert evaluate(RETAIL, task, plain, world).components["policy"] == 1.0


def test_a_trial_that_would_pass_fails_on_its_words_alone():
    clinic = get_domain("clinic_admin")
    task = clinic.task(next(t.id for t in clinic.tasks() if t.id.endswith("emergency-self")))
    world = clinic.fresh_world(task.world_seed)

    class AdvisingEmergencyDesk:
        def respond(self, messages, tools):
            args = '{"desk":"nurse_line","summary":"s","patient_id":"","reference":""}'
            return Message.assistant(
                "Call 112 now. It sounds like you have a heart problem; take an aspirin.",
                (ToolCall("t1", "transfer_to_staff", args),),
            )

    trajectory = Orchestrator(
        domain=clinic,
        world=world,
        agent=AdvisingEmergencyDesk(),
        user=Listener(),
        guard=PolicyGuard(clinic.rules),
    ).run()
    evaluation = evaluate(clinic, task, trajectory, world)
    assert evaluation.components["state"] == 1.0
    assert evaluation.reward == 0.0 and evaluation.failure is FailureClass.POLICY_VIOLATION
