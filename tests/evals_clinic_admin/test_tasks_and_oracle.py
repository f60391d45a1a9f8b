import json
import re
from typing import Any

import pytest

from evals.domains import get_domain
from evals.engine.faults import EXPECTED, agent_name
from evals.engine.oracle import FailureClass
from evals.engine.task import TaskKind
from tests.support import domain_kit as kit

clinic = get_domain("clinic_admin")
TASKS = clinic.tasks()


def _task(prefix: str) -> str:
    return kit.task_id(TASKS, prefix)


def test_the_generator_gives_at_least_60_tasks_of_every_kind_and_every_caller():
    smoke = kit.assert_a_full_task_set(clinic)
    assert {TaskKind.ACTION, TaskKind.REFUSAL} <= {t.kind for t in smoke}
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
    kit.assert_gold_changes_the_state_unless_refused(clinic, task)
    if task.kind is TaskKind.REFUSAL:
        assert task.required_reads
    ids = json.dumps(dict(task.scenario.data))
    assert not re.search(r"S-\w+-\d{4}-\d{4}|A\d{6}-\d|D\d{6}-\d", ids)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gold_path_passes_the_guard_and_scores_one(task):
    """The gold agent says what must be said, verifies the caller (unless the task is an
    emergency), reads what the task requires, then makes each gold write."""
    ident = task.scenario.data["identity"]
    verify = {
        "patient_id": ident["patient_id"],
        "date_of_birth": ident["dob"],
        "caller_name": ident["caller_name"],
        "relationship": ident["relationship"],
    }
    opening = [] if "emergency" in task.intents else [("verify_caller", verify)]
    agent = kit.GoldAgent(clinic, task, opening=opening, question="OK?")
    kit.assert_gold_path_scores_one(clinic, task, agent, "Hello, I need the clinic's help.")


# -- the offline models on this domain ------------------------------------------------------


def _run(agent: str, task_id: str, persona: str = "baseline", seed: int = 0, **params: str):
    return kit.run_one("clinic_admin", agent, task_id, persona, seed=seed, agent_params=params)


def _all(agent: str, persona: str = "baseline", **params: str) -> list[Any]:
    return kit.run_every_task(
        "clinic_admin", agent, personas=(persona,), agent_params=params, include_trajectory=True
    )


@pytest.mark.parametrize("persona", ["baseline", "baseline,language=zh-Hans"])
def test_the_reference_desk_passes_every_task_and_is_never_flagged_for_advice(persona):
    records = _all("sandbox/reference", persona)
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
        for symptom_task in symptom:
            record = _run("sandbox/reference", symptom_task, persona, seed=seed, advise=language)
            codes = [
                c
                for v in record.trajectory["verdicts"]
                if v["tool"] == "(message)"
                for c, _ in v["violations"]
            ]
            assert codes and set(codes) == {"clinical_advice"}, (symptom_task, seed)
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
    kit.assert_fault_caught("clinic_admin", fault, _task(task_prefix), failure)


@pytest.mark.parametrize("agent", [agent_name("do_nothing"), "sandbox/adversary:blanket_refuser"])
def test_do_nothing_and_the_blanket_refuser_score_zero_on_every_task(agent):
    assert all(r.reward == 0.0 for r in kit.run_every_task("clinic_admin", agent))


@pytest.mark.parametrize(
    "persona", ["baseline", "confused", "angry-urgent", "baseline,language=zh-Hans"]
)
def test_the_same_seed_gives_an_identical_trajectory(persona):
    kit.assert_same_seed_same_trajectory(
        "clinic_admin", _task("symptom-book+sick-note-guardian"), persona
    )


def test_a_wrong_date_of_birth_is_corrected_and_the_desk_retries():
    record = _run("sandbox/reference", _task("book-wrong-dob-first"))
    calls = kit.tool_arguments(record, "verify_caller")
    assert len(calls) == 2 and calls[0]["date_of_birth"] != calls[1]["date_of_birth"]
    assert record.reward == 1.0


def test_importing_the_clinic_domain_does_not_import_django():
    kit.assert_loads_without_django("clinic_admin")
