import itertools
import json
import os
import stat
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from evals.domains import get_domain
from evals.engine.__main__ import main as engine_main
from evals.engine.errors import EngineError, InfrastructureError
from evals.engine.messages import (
    GuardMode,
    Message,
    Signal,
    TerminationReason,
    ToolCall,
    Trajectory,
)
from evals.engine.orchestrator import Limits, Orchestrator
from evals.engine.persona import PRESETS, Emotion, Level, parse_persona
from evals.engine.policy import PolicyGuard
from evals.engine.registry import register_agent
from evals.engine.runner import (
    JsonlSink,
    MemorySink,
    RunSpec,
    agent_seed,
    default_out,
    derive_seed,
    new_agent_key,
    plan,
    read_records,
    run,
    run_unit,
)
from evals.engine.runner import spec as spec_module
from evals.engine.runner.fingerprint import difference, source_digest
from evals.engine.runner.runfile import run_file_path
from tests.evals_engine.seed_spy import SEED_SPY, seed_of

retail = get_domain("retail")
ROOT = Path(__file__).resolve().parents[2]


def test_seeds_come_from_sha256_and_are_stable_across_processes():
    code = "from evals.engine.runner import derive_seed; print(derive_seed(7, 'retail', 't1', 'baseline', 0))"
    env = {**os.environ, "PYTHONHASHSEED": "123", "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert int(out.stdout) == derive_seed(7, "retail", "t1", "baseline", 0)
    assert derive_seed(7, "retail", "t1", "baseline", 0) != derive_seed(
        7, "retail", "t1", "baseline", 1
    )


def test_the_same_seed_gives_an_identical_trajectory_and_another_seed_varies_the_phrasing():
    spec = RunSpec(domains=("retail",), personas=("anxious",), trials=3, seed=11, split="smoke")
    units = plan(spec)
    first = [run_unit(spec, u).trajectory["messages"] for u in units]
    again = [run_unit(spec, u).trajectory["messages"] for u in units]
    assert first == again
    user_texts = {json.dumps([m for m in msgs if m["role"] == "user"]) for msgs in first}
    assert len(user_texts) > len(retail.tasks("smoke"))  # trials of one task differ


def test_a_trajectory_round_trips_through_json():
    spec = RunSpec(domains=("retail",), split="smoke")
    record = run_unit(spec, plan(spec)[0])
    trajectory = Trajectory.from_dict(json.loads(json.dumps(record.trajectory)))
    assert trajectory.to_dict() == record.trajectory
    assert trajectory.termination is TerminationReason.USER_STOP


def test_the_plan_is_task_by_persona_by_trial():
    spec = RunSpec(domains=("retail",), personas=("baseline", "impatient"), trials=3, split="smoke")
    units = plan(spec)
    assert len(units) == 5 * 2 * 3
    assert len({u.key for u in units}) == len(units) and len({u.seed for u in units}) == len(units)


def test_trials_are_appended_one_line_each_and_resume_skips_finished_units(tmp_path):
    spec = RunSpec(
        domains=("retail",),
        personas=("baseline",),
        trials=2,
        split="smoke",
        include_trajectory=False,
    )
    path = tmp_path / "run.jsonl"
    with JsonlSink(path) as sink:
        run(spec, sink)
    assert len(path.read_bytes().splitlines()) == 10
    with path.open("ab") as handle:
        handle.write(b'{"truncated": ')  # a crash mid-line
    seen: list[str] = []
    with JsonlSink(path) as sink:
        run(spec, sink, on_progress=lambda r, done, total: seen.append(r.key))
    assert seen == []
    assert len(list(read_records(path))) == 10


def test_the_thread_pool_gives_the_same_records_as_inline():
    spec = RunSpec(
        domains=("retail",),
        personas=("baseline", "confused"),
        trials=2,
        split="smoke",
        include_trajectory=False,
    )
    inline, pooled = MemorySink(), MemorySink()
    run(spec, inline)
    run(spec, pooled, workers=4)
    strip = lambda rs: sorted((r.key, r.reward, r.failure, r.agent_turns) for r in rs)  # noqa: E731
    assert strip(inline.records) == strip(pooled.records)


DEFAULT_LIMITS = Limits()


def _orchestrate(agent, limits=DEFAULT_LIMITS):
    task = retail.tasks("smoke")[0]
    user = retail.scripted_user(
        domain=retail, scenario=task.scenario, persona=PRESETS["baseline"], params={}, seed=1
    )
    return Orchestrator(
        domain=retail,
        world=retail.fresh_world(task.world_seed),
        agent=agent,
        user=user,
        guard=PolicyGuard(retail.rules),
        limits=limits,
    ).run()


class Raising:
    def __init__(self, exc):
        self.exc = exc

    def respond(self, messages, tools):
        raise self.exc


def test_an_agent_exception_ends_the_trial_as_agent_error():
    trajectory = _orchestrate(Raising(KeyError("boom")))
    assert trajectory.termination is TerminationReason.AGENT_ERROR and "boom" in trajectory.error


def test_an_infrastructure_exception_ends_the_trial_as_infrastructure_error():
    trajectory = _orchestrate(Raising(InfrastructureError("provider down")))
    assert trajectory.termination is TerminationReason.INFRASTRUCTURE_ERROR


class Chatty:
    def respond(self, messages, tools):
        return Message.assistant("Could you tell me more?")


class BadCaller:
    def respond(self, messages, tools):
        return Message.assistant("", (ToolCall(f"c{len(messages)}", "get_order", "{oops"),))


def test_turn_and_error_limits_end_the_trial():
    assert _orchestrate(Chatty(), Limits(max_turns=6)).termination in (
        TerminationReason.MAX_TURNS,
        TerminationReason.USER_ABANDON,
    )
    trajectory = _orchestrate(BadCaller(), Limits(max_tool_errors=3))
    assert trajectory.termination is TerminationReason.MAX_ERRORS and trajectory.tool_errors == 4


def test_the_user_sees_only_the_agents_text_never_tool_calls():
    seen: list[list[Message]] = []

    class Spy:
        def respond(self, messages):
            seen.append(list(messages))
            return Message.user("bye", Signal.STOP) if len(seen) > 1 else Message.user("hi")

    class Caller:
        def respond(self, messages, tools):
            if messages[-1].role.value == "tool":
                return Message.assistant("Done.")
            return Message.assistant("", (ToolCall("c1", "get_customer", '{"customer_id": "x"}'),))

    task = retail.tasks("smoke")[0]
    Orchestrator(
        domain=retail,
        world=retail.fresh_world(task.world_seed),
        agent=Caller(),
        user=Spy(),
        guard=PolicyGuard(retail.rules),
    ).run()
    last_view = seen[-1]
    assert [m.role.value for m in last_view] == ["assistant", "user", "assistant"]
    assert all(not m.tool_calls for m in last_view)


def test_personas_compose_from_presets_and_traits():
    p = parse_persona("impatience=high,emotion=anger:high")
    assert (
        p.impatience is Level.HIGH
        and p.emotion is Emotion.ANGER
        and p.emotion_intensity is Level.HIGH
    )
    assert parse_persona("skeptical,urgency=high").skepticism is Level.HIGH
    assert set(PRESETS) == {
        "baseline",
        "impatient",
        "skeptical",
        "confused",
        "incoherent",
        "anxious",
        "angry-urgent",
    }
    with pytest.raises(EngineError):
        parse_persona("impatience=extreme")


def test_the_registry_rejects_a_duplicate_name():
    with pytest.raises(EngineError, match="already registered"):
        register_agent("sandbox/reference", lambda **kw: None)


def test_hard_personas_make_the_reference_agent_fail_for_real_reasons():
    spec = RunSpec(
        domains=("retail",), personas=("incoherent",), trials=2, include_trajectory=False
    )
    sink = MemorySink()
    report = run(spec, sink, ks=(1,))
    assert report.pass_hat[1].value < 1.0
    assert "user_abandoned" in report.failures


def test_importing_the_engine_and_every_domain_does_not_import_django():
    code = (
        "import sys, importlib\n"
        "import evals.engine, evals.engine.runner, evals.engine.faults, evals.engine.metrics\n"
        "import evals.engine.gate\n"
        "from evals.domains import domain_names, get_domain\n"
        "for name in domain_names():\n"
        "    try:\n"
        "        get_domain(name)\n"
        "    except AttributeError:\n"
        "        pass  # a domain still being written\n"
        "assert 'django' not in sys.modules, sorted(m for m in sys.modules if m.startswith('django'))\n"
        "print('ok')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


# -- fingerprints, resume refusals and the agent's opaque seed -----------------------------

BASE = RunSpec(domains=("retail",), split="smoke", trials=1, include_trajectory=False)


@pytest.mark.parametrize(
    "change",
    [
        {"agent": "sandbox/fault:do_nothing"},
        {"agent_params": {"temperature": 0.2}},
        {"agent_params": {"max_tokens": 512}},
        {"user": "gpt-4.1-mini"},
        {"user_params": {"temperature": 0.7}},
        {"judge_model": "gpt-4.1"},
        {"judge_params": {"temperature": 0.0}},
        {"domains": ("retail", "membership")},
        {"split": "all"},
        {"task_ids": ("retail-001",)},
        {"personas": ("impatient",)},
        {"seed": 1},
        {"trials": 2},
        {"guard_mode": GuardMode.OBSERVE},
        {"limits": Limits(max_turns=10)},
    ],
    ids=lambda change: next(iter(change)),
)
def test_the_fingerprint_changes_with_each_fingerprinted_field(change):
    assert replace(BASE, **change).fingerprint() != BASE.fingerprint()


def test_the_fingerprint_changes_with_the_code(monkeypatch):
    before = BASE.fingerprint()
    monkeypatch.setattr(spec_module, "source_digest", lambda: "0" * 64)
    assert BASE.fingerprint() != before


def test_the_code_version_hashes_the_engine_and_domain_sources():
    digest = source_digest()
    assert len(digest) == 64 and digest == BASE.fingerprint_fields()["code"]


def test_secrets_change_no_fingerprint_and_are_never_in_its_fields():
    secrets_a = {
        "api_key": "sk-aaaa",
        "extra_headers": {"X-Org": "acme-aaaa"},
        "Authorization": "Bearer aaaa",
        "access_token": "tok-aaaa",
        "client_secret": "cs-aaaa",
        "db_password": "pw-aaaa",
        "nested": {"api_key": "sk-nested-aaaa", "temperature": 0.1},
    }
    secrets_b = {
        "api_key": "sk-bbbb",
        "extra_headers": {"X-Org": "acme-bbbb"},
        "Authorization": "Bearer bbbb",
        "access_token": "tok-bbbb",
        "client_secret": "cs-bbbb",
        "db_password": "pw-bbbb",
        "nested": {"api_key": "sk-nested-bbbb", "temperature": 0.1},
    }
    a = replace(BASE, agent_params=secrets_a, user_params=secrets_a, judge_params=secrets_a)
    b = replace(BASE, agent_params=secrets_b, user_params=secrets_b, judge_params=secrets_b)
    assert a.fingerprint() == b.fingerprint()
    assert a.fingerprint() != BASE.fingerprint()  # `nested.temperature` is measured
    text = json.dumps(a.fingerprint_fields())
    assert "aaaa" not in text and "temperature" in text


def test_the_difference_names_each_differing_field_in_words():
    words = difference(
        BASE.fingerprint_fields(), replace(BASE, agent="x/y", seed=3).fingerprint_fields()
    )
    assert words == (
        "agent sandbox/reference, this run's agent is x/y; seed 0, this run's seed is 3"
    )


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    code = engine_main(["run", "--domain", "retail", "--split", "smoke", "--trials", "1", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_do_nothing_agent_resuming_a_reference_file_is_refused_not_scored(capsys, tmp_path):
    out = tmp_path / "x.jsonl"
    code, table, _ = _cli(capsys, "--out", str(out))
    assert code == 0 and "1.000" in table
    before = out.read_bytes()

    code, table, err = _cli(capsys, "--agent", "sandbox/fault:do_nothing", "--out", str(out))

    assert code == 2
    assert err.strip().splitlines()[-1] == (
        f"{out} holds trials of agent sandbox/reference, this run's agent is "
        "sandbox/fault:do_nothing: choose another --out or remove the file"
    )
    assert table == ""  # no pass^k table, let alone pass^1 = 1.000
    assert out.read_bytes() == before  # nothing appended


def test_rerunning_the_same_run_resumes_and_a_changed_seed_is_named(capsys, tmp_path):
    out = tmp_path / "x.jsonl"
    assert _cli(capsys, "--out", str(out))[0] == 0
    lines = out.read_bytes().splitlines()
    out.write_bytes(b"\n".join(lines[:2]) + b"\n")  # interrupted after two trials

    code, _, _ = _cli(capsys, "--out", str(out))
    assert code == 0 and len(out.read_bytes().splitlines()) == len(lines)
    assert {r.fingerprint for r in read_records(out)} == {BASE.fingerprint()}

    code, _, err = _cli(capsys, "--seed", "5", "--out", str(out))
    assert code == 2 and "seed 0, this run's seed is 5" in err


def test_trials_written_before_fingerprints_are_refused(capsys, tmp_path):
    out = tmp_path / "old.jsonl"
    assert _cli(capsys, "--out", str(out))[0] == 0
    legacy = [json.loads(line) for line in out.read_bytes().splitlines()]
    for record in legacy:
        del record["fingerprint"]
    out.write_text("".join(json.dumps(r) + "\n" for r in legacy))
    before = out.read_bytes()

    code, _, err = _cli(capsys, "--out", str(out))

    assert code == 2 and "predate run fingerprints" in err
    assert out.read_bytes() == before


def test_trials_whose_run_file_is_gone_are_refused(capsys, tmp_path):
    out = tmp_path / "x.jsonl"
    assert _cli(capsys, "--out", str(out))[0] == 0
    run_file_path(out).unlink()
    code, _, err = _cli(capsys, "--out", str(out))
    assert code == 2 and "not its run file" in err


def test_the_default_output_path_carries_the_fingerprint(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert _cli(capsys)[0] == 0
    assert _cli(capsys, "--agent", "sandbox/fault:do_nothing")[0] == 0
    reference = tmp_path / default_out(BASE)
    do_nothing = tmp_path / default_out(replace(BASE, agent="sandbox/fault:do_nothing"))
    assert reference.name == f"retail-0-{BASE.fingerprint()[:12]}.jsonl"
    assert {r.models["agent"] for r in read_records(reference)} == {"sandbox/reference"}
    assert {r.models["agent"] for r in read_records(do_nothing)} == {"sandbox/fault:do_nothing"}


def test_the_run_file_is_private_and_the_key_is_in_no_trial_line(capsys, tmp_path):
    out = tmp_path / "x.jsonl"
    assert _cli(capsys, "--out", str(out))[0] == 0
    path = run_file_path(out)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    key = json.loads(path.read_text())["agent_key"]
    assert len(bytes.fromhex(key)) == 32
    assert key not in out.read_text()


def _derive_seeds_over_parts(spec: RunSpec, unit) -> set[int]:
    """derive_seed over every ordered choice of the unit's public parts."""
    parts = (spec.seed, unit.domain, unit.task_id, unit.persona, unit.trial, unit.seed, "agent")
    return {
        derive_seed(*chosen)
        for k in range(1, len(parts) + 1)
        for chosen in itertools.permutations(parts, k)
    }


def test_agent_seeds_differ_between_units_and_equal_no_derive_seed_of_the_plan():
    spec = replace(BASE, agent=SEED_SPY, personas=("baseline", "impatient"), trials=2)
    sink = MemorySink()
    run(spec, sink, agent_key=new_agent_key())
    seeds = {r.key: seed_of(r.models) for r in sink.records}
    assert len(seeds) == len(plan(spec)) and len(set(seeds.values())) == len(seeds)
    for unit in plan(spec):
        assert seeds[unit.key] not in _derive_seeds_over_parts(spec, unit)


def test_agent_seeds_follow_the_runs_key_in_threads_and_worker_processes():
    spec = replace(BASE, agent=SEED_SPY, trials=2)
    key = new_agent_key()
    inline, processes, other = MemorySink(), MemorySink(), MemorySink()
    run(spec, inline, agent_key=key)
    run(spec, processes, agent_key=key, workers=2, processes=2)
    run(spec, other, agent_key=new_agent_key())
    seeds = lambda sink: {r.key: seed_of(r.models) for r in sink.records}  # noqa: E731
    assert seeds(inline) == seeds(processes) == {u.key: agent_seed(key, u.seed) for u in plan(spec)}
    assert set(seeds(other).values()).isdisjoint(seeds(inline).values())


def test_a_resumed_run_gives_the_remaining_agents_the_seeds_they_would_have_had(capsys, tmp_path):
    out = tmp_path / "spy.jsonl"
    assert _cli(capsys, "--agent", SEED_SPY, "--out", str(out))[0] == 0
    first = {r.key: seed_of(r.models) for r in read_records(out)}
    lines = out.read_bytes().splitlines()
    out.write_bytes(b"\n".join(lines[:2]) + b"\n")  # interrupted after two trials

    assert _cli(capsys, "--agent", SEED_SPY, "--out", str(out))[0] == 0

    resumed = {r.key: seed_of(r.models) for r in read_records(out)}
    assert resumed == first and len(out.read_bytes().splitlines()) == len(lines)


_TEAM_AGENT = '''
def respond(messages, tools):
    """A team's own agent: it says one thing and the customer leaves."""
    return {"role": "assistant", "content": "%s"}
'''


def test_a_python_agent_whose_code_changed_is_refused_its_old_trials(capsys, tmp_path, monkeypatch):
    """The team's agent is `python:module:function`: editing its module and rerunning with the
    same --out must not resume into the old code's trials; unchanged code resumes."""
    module = tmp_path / "team_agent_i12b.py"
    module.write_text(_TEAM_AGENT % "I cannot help with that.")
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "x.jsonl"
    agent = ("--agent", "python:team_agent_i12b:respond", "--out", str(out))
    assert _cli(capsys, *agent)[0] == 0
    lines = out.read_bytes().splitlines()
    out.write_bytes(lines[0] + b"\n")  # interrupted after one trial

    code, _, err = _cli(capsys, *agent)  # same code: resumes
    assert code == 0, err
    assert len(out.read_bytes().splitlines()) == len(lines)

    module.write_text(_TEAM_AGENT % "Your order is cancelled.")  # the team edits its agent
    before = out.read_bytes()
    code, _, err = _cli(capsys, *agent)

    assert code == 2
    reason = err.strip().splitlines()[-1]
    assert "agent's code" in reason and "this run's agent's code is" in reason
    assert out.read_bytes() == before  # nothing appended
