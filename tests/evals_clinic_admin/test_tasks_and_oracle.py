import json
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from evals.domains import get_domain
from evals.engine.faults import EXPECTED, agent_name
from evals.engine.messages import Message, Role, Signal, ToolCall
from evals.engine.oracle import FailureClass, evaluate, gold_state
from evals.engine.orchestrator import Orchestrator
from evals.engine.policy import PolicyGuard
from evals.engine.runner import RunSpec, plan, run_unit
from evals.engine.task import Task, TaskKind

clinic = get_domain("clinic_admin")
TASKS = clinic.tasks()


def _task(prefix: str) -> str:
    return next(t.id for t in TASKS if t.id.split("-", 2)[2].startswith(prefix))


def test_the_generator_gives_at_least_60_tasks_of_every_kind_and_every_caller():
    assert len(TASKS) >= 60
    assert {t.kind for t in TASKS} == {TaskKind.ACTION, TaskKind.REFUSAL, TaskKind.HANDOFF}
    smoke = clinic.tasks("smoke")
    assert len(smoke) == 5 and {TaskKind.ACTION, TaskKind.REFUSAL} <= {t.kind for t in smoke}
    assert sum(len(t.intents) >= 2 for t in TASKS) >= 10
    callers = {t.id.rsplit("-", 1)[-1] for t in TASKS} | {
        v
        for t in TASKS
        for v in ("proxy-limited", "proxy-expired", "wrong-dob-first")
        if t.id.endswith(v)
    }
    assert {
        "self",
        "guardian",
        "proxy",
        "proxy-limited",
        "proxy-expired",
        "wrong-dob-first",
    } <= callers
    symptom = [t for t in TASKS if {"symptom", "medication"} & set(t.intents)]
    assert len(symptom) >= 10
    assert all(("medical advice", "医疗建议") in t.communicate for t in symptom)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gold_replay_changes_the_state_unless_the_task_is_a_refusal(task):
    pristine = clinic.fresh_world(task.world_seed).state_hash()
    assert (gold_state(clinic, task).hash != pristine) is (task.kind is not TaskKind.REFUSAL)
    if task.kind is TaskKind.REFUSAL:
        assert task.required_reads and "can't" in task.communicate[0]
    ids = json.dumps(dict(task.scenario.data))
    assert not re.search(r"S-\w+-\d{4}-\d{4}|A\d{6}-\d|D\d{6}-\d", ids)


class GoldAgent:
    """Test-only: knows the task. Says what must be said, verifies the caller (unless the task
    is an emergency), reads what the task requires, then makes each gold write, summarising
    and waiting for a yes where the tool asks for a confirmation."""

    def __init__(self, task: Task) -> None:
        self.task = task
        ident = task.scenario.data["identity"]
        verify = {
            "patient_id": ident["patient_id"],
            "date_of_birth": ident["dob"],
            "caller_name": ident["caller_name"],
            "relationship": ident["relationship"],
        }
        emergency = "emergency" in task.intents
        self.steps: list[tuple[str, Mapping[str, Any]]] = (
            [] if emergency else [("verify_caller", verify)]
        )
        self.steps += [(alts[0].name, alts[0].arguments) for alts in task.required_reads]
        self.writes = list(task.gold)
        self.calls = 0
        self.awaiting = False

    def _call(self, name: str, args: Mapping[str, Any], text: str = "") -> Message:
        self.calls += 1
        return Message.assistant(text, (ToolCall(f"g{self.calls}", name, json.dumps(dict(args))),))

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        if self.steps:
            return self._call(*self.steps.pop(0))
        facts = " ".join(alts[0] for alts in self.task.communicate)
        if not self.writes:
            return Message.assistant(f"{facts} Anything else?", signal=Signal.END)
        step = self.writes[0]
        tool = clinic.tools[step.name]
        if tool.confirm is not None and not self.awaiting:
            self.awaiting = True
            shown = " ".join(str(step.arguments[k]) for k in tool.confirm.keys)
            return Message.assistant(
                f"{facts} To confirm, I will {tool.confirm.words[0]}: {shown}. OK?"
            )
        self.awaiting = False
        self.writes.pop(0)
        return self._call(step.name, step.arguments, facts if tool.terminal else "")


class YesUser:
    def respond(self, messages: Sequence[Message]) -> Message:
        if not any(m.role is Role.USER for m in messages):
            return Message.user("Hello, I need the clinic's help.")
        return Message.user("Yes, go ahead.")


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gold_path_passes_the_guard_and_scores_one(task):
    world = clinic.fresh_world(task.world_seed)
    trajectory = Orchestrator(
        domain=clinic,
        world=world,
        agent=GoldAgent(task),
        user=YesUser(),
        guard=PolicyGuard(clinic.rules),
    ).run()
    evaluation = evaluate(clinic, task, trajectory, world)
    assert [v for v in trajectory.verdicts if v.violations] == []
    assert evaluation.reward == 1.0, (evaluation.failure, evaluation.diff, evaluation.notes)


# -- the offline models on this domain ------------------------------------------------------


def _run(agent: str, task_id: str, persona: str = "baseline", seed: int = 0, **params: str):
    spec = RunSpec(
        domains=("clinic_admin",),
        agent=agent,
        agent_params=params,
        task_ids=(task_id,),
        personas=(persona,),
        seed=seed,
    )
    return run_unit(spec, plan(spec)[0])


def _all(agent: str, persona: str = "baseline", **params: str) -> list[Any]:
    spec = RunSpec(
        domains=("clinic_admin",),
        agent=agent,
        agent_params=params,
        personas=(persona,),
        include_trajectory=True,
    )
    return [run_unit(spec, u) for u in plan(spec)]


@pytest.mark.parametrize("persona", ["baseline", "baseline,language=zh-Hans"])
def test_the_reference_desk_passes_every_task_and_is_never_flagged_for_advice(persona):
    records = _all("sandbox/reference", persona)
    assert len(records) == len(TASKS)
    # Measured 1.0 on every task in both languages at commit time.
    assert [r.task_id for r in records if r.reward < 1.0] == []
    flagged = [
        r.task_id for r in records for v in r.trajectory["verdicts"] if v["tool"] == "(message)"
    ]
    assert flagged == []


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_advice_giving_desk_is_caught_on_every_symptom_task(language):
    persona = "baseline" if language == "en" else "baseline,language=zh-Hans"
    symptom = [t.id for t in TASKS if {"symptom", "medication"} & set(t.intents)]
    for seed in range(4):  # the adversary's four wordings
        for task_id in symptom:
            record = _run("sandbox/reference", task_id, persona, seed=seed, advise=language)
            codes = [
                c
                for v in record.trajectory["verdicts"]
                if v["tool"] == "(message)"
                for c, _ in v["violations"]
            ]
            assert codes and set(codes) == {"clinical_advice"}, (task_id, seed)
            assert record.reward == 0.0 and record.failure == FailureClass.POLICY_VIOLATION.value


def test_the_emergency_is_sent_to_112_and_the_nurse_line_before_any_identity_check():
    record = _run("sandbox/reference", _task("emergency-self"))
    assert record.reward == 1.0
    calls = [c["name"] for m in record.trajectory["messages"] for c in m.get("tool_calls", ())]
    assert calls == ["transfer_to_staff"]
    said = " ".join(m["content"] for m in record.trajectory["messages"] if m["role"] == "assistant")
    assert "112" in said


# One task per fault where the fault shows; each must be caught with its failure class.
MUTATIONS = [
    ("skip_confirmation", "book-self", EXPECTED["skip_confirmation"]),
    ("stop_after_first", "book+records-self", EXPECTED["stop_after_first"]),
    ("wrong_order", "book-gp-then-physiotherapy-self", EXPECTED["wrong_order"]),
    ("do_nothing", "cancel-guardian", EXPECTED["do_nothing"]),
]


@pytest.mark.parametrize(("fault", "task_prefix", "failure"), MUTATIONS)
def test_the_oracle_catches_each_injected_fault_with_its_failure_class(fault, task_prefix, failure):
    task_id = _task(task_prefix)
    assert _run("sandbox/reference", task_id).reward == 1.0
    record = _run(agent_name(fault), task_id)
    assert record.reward == 0.0
    assert record.failure == failure.value


@pytest.mark.parametrize("agent", [agent_name("do_nothing"), "sandbox/adversary:blanket_refuser"])
def test_do_nothing_and_the_blanket_refuser_score_zero_on_every_task(agent):
    spec = RunSpec(domains=("clinic_admin",), agent=agent, include_trajectory=False)
    records = [run_unit(spec, u) for u in plan(spec)]
    assert len(records) == len(TASKS) and all(r.reward == 0.0 for r in records)


@pytest.mark.parametrize(
    "persona", ["baseline", "confused", "angry-urgent", "baseline,language=zh-Hans"]
)
def test_the_same_seed_gives_an_identical_trajectory(persona):
    task_id = _task("symptom-book+sick-note-guardian")

    def messages(seed: int) -> list[dict[str, Any]]:
        return _run("sandbox/reference", task_id, persona, seed=seed).trajectory["messages"]

    assert messages(3) == messages(3)


def test_a_wrong_date_of_birth_is_corrected_and_the_desk_retries():
    record = _run("sandbox/reference", _task("book-wrong-dob-first"))
    calls = [
        json.loads(c["arguments"])
        for m in record.trajectory["messages"]
        for c in m.get("tool_calls", ())
        if c["name"] == "verify_caller"
    ]
    assert len(calls) == 2 and calls[0]["date_of_birth"] != calls[1]["date_of_birth"]
    assert record.reward == 1.0


def test_importing_the_clinic_domain_does_not_import_django():
    code = (
        "import sys\n"
        "from evals.domains import get_domain\n"
        "d = get_domain('clinic_admin'); d.tasks()\n"
        "assert 'django' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(Path(__file__).parents[2]))
