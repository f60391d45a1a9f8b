"""Planning and executing a run: `plan`, `run_unit` (pure, picklable inputs: what a Celery
task calls) and `run` (inline or thread pool, streaming records to a sink, resumable).

Seeds: the user simulator gets the unit's seed, sha256 of (run seed, domain, task, persona,
trial), so a run is reproducible from its spec. The agent gets `agent_seed(key, unit.seed)`,
an HMAC keyed by the run's secret (`agent_key`), which the agent never sees: the public parts
would otherwise let it find its task by hashing every task id of the domain."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import replace
from typing import Any

from evals.domains import get_domain
from evals.engine.domain import domain_tasks
from evals.engine.errors import EngineError, InfrastructureError
from evals.engine.judge import NLVerdict, make_judge, not_judged
from evals.engine.messages import Role, TerminationReason, Trajectory
from evals.engine.metrics import Aggregator, Report
from evals.engine.oracle import Evaluation, FailureClass, evaluate, with_nl_verdicts
from evals.engine.orchestrator import Orchestrator
from evals.engine.persona import expand_personas, parse_persona
from evals.engine.policy import PolicyGuard
from evals.engine.registry import agent_factory, user_factory
from evals.engine.runner.processes import execute_in_processes
from evals.engine.runner.records import TrialRecord
from evals.engine.runner.sink import Sink
from evals.engine.runner.spec import RunSpec, WorkUnit, agent_seed, derive_seed, new_agent_key
from evals.engine.runner.turns import Timed, message_records, opening_length
from evals.engine.task import Task
from evals.engine.tools import Actor

Progress = Callable[[TrialRecord, int, int], None]


def plan(spec: RunSpec) -> list[WorkUnit]:
    """Every work unit of the run, in a stable order (domain, task, persona, trial)."""
    units: list[WorkUnit] = []
    for domain_name in spec.domains:
        domain = get_domain(domain_name)
        # Without a judge model, tasks judged in prose still run: a trial that passes every
        # deterministic check is reported "not judged" (never a pass), one that fails them
        # is a failure — and a gate cannot pass while any is unjudged.
        tasks = _sample(domain_tasks(domain, spec.split, spec.task_ids), spec, domain_name)
        personas = expand_personas(spec.personas, spec.seed)
        if spec.solo and not domain.tools.names(Actor.USER):
            raise EngineError(
                f"{domain_name} has no customer tools: a solo run (the agent holding the "
                "customer's tools) needs a dual-control domain"
            )
        if spec.user == "sandbox/scripted" and domain.scripted_user is None:
            raise EngineError(
                f"{domain_name} has no offline customer (sandbox/scripted): its scenarios are "
                "written for an LLM customer (use an LLM user)"
            )
        for persona in personas:
            language = parse_persona(persona).language  # fail early on a bad persona spec
            if spec.user == "sandbox/scripted" and language not in domain.scripted_languages:
                raise EngineError(
                    f"the offline customer of {domain_name} does not write {language}; "
                    f"it writes {', '.join(domain.scripted_languages)} (use an LLM user)"
                )
        for task in tasks:
            for persona in personas:
                for trial in range(spec.trials):
                    seed = derive_seed(spec.seed, domain_name, task.id, persona, trial)
                    units.append(WorkUnit(domain_name, task.id, persona, trial, seed))
    return units


def _sample(tasks: list[Task], spec: RunSpec, domain_name: str) -> list[Task]:
    """`spec.num_tasks` of `tasks`, in their order, drawn by a generator seeded from the run's
    seed and the domain: the same sample for the same seed, whatever else the run changes."""
    if not spec.num_tasks or spec.num_tasks >= len(tasks):
        return tasks
    rng = random.Random(derive_seed(spec.seed, domain_name, "num_tasks"))
    chosen = set(rng.sample(range(len(tasks)), spec.num_tasks))
    return [t for i, t in enumerate(tasks) if i in chosen]


_process_key: bytes | None = None
_process_key_lock = threading.Lock()


def process_agent_key() -> bytes:
    """The key of trials run one by one outside a run (`run_unit` without a key): random,
    drawn once per process, so such trials agree with each other within the process."""
    global _process_key
    with _process_key_lock:
        if _process_key is None:
            _process_key = new_agent_key()
        return _process_key


def _resolved(participant: Any, requested: str) -> str:
    """The model that answered for a participant: what its `resolved_models()` reports (an
    LLM adapter: the provider's name for it), else the name it was asked for (the offline
    models are their own names)."""
    resolved = getattr(participant, "resolved_models", None)
    names = list(resolved()) if callable(resolved) else []
    return ",".join(names) if names else requested


def _record(
    spec: RunSpec,
    unit: WorkUnit,
    trajectory: Trajectory,
    evaluation: Evaluation,
    started: float,
    models: Mapping[str, str],
    nl: Sequence[NLVerdict] = (),
    usage: Mapping[str, float] | None = None,
    turns: Sequence[Mapping[str, Any]] = (),
) -> TrialRecord:
    texts = [m for m in trajectory.messages[2:] if m.role is Role.ASSISTANT and m.content]
    user_turns = sum(
        1 for m in trajectory.messages if m.role is Role.USER and (m.content or not m.tool_calls)
    )
    user_tool_calls = sum(len(m.tool_calls) for m in trajectory.messages if m.role is Role.USER)
    tool_calls = sum(len(m.tool_calls) for m in trajectory.messages if m.role is Role.ASSISTANT)
    return TrialRecord(
        domain=unit.domain,
        task_id=unit.task_id,
        persona=unit.persona,
        trial=unit.trial,
        seed=unit.seed,
        reward=evaluation.reward,
        failure=evaluation.failure.value,
        termination=trajectory.termination.value,
        components=evaluation.components,
        agent_turns=len(texts),
        user_turns=user_turns,
        questions=sum(1 for m in texts if "?" in m.content or "？" in m.content),
        tool_calls=tool_calls,
        tool_errors=trajectory.tool_errors,
        user_tool_calls=user_tool_calls,
        policy_violations=sum(1 for v in trajectory.verdicts if v.violations),
        seconds=time.perf_counter() - started,
        participant_seconds=sum(t.seconds for t in trajectory.timings if t.actor != "tool"),
        participant_calls=sum(1 for t in trajectory.timings if t.actor != "tool"),
        diff=evaluation.diff,
        notes=evaluation.notes,
        error=trajectory.error,
        usage=trajectory.usage if usage is None else usage,
        trajectory=(
            replace(trajectory, message_records=tuple(turns)).to_dict()
            if spec.include_trajectory
            else None
        ),
        models=models,
        nl_assertions=tuple(v.to_dict() for v in nl),
        published_reward=evaluation.published_reward,
        published_criteria=evaluation.published,
        fingerprint=spec.fingerprint(),
    )


def run_unit(spec: RunSpec, unit: WorkUnit, agent_key: bytes | None = None) -> TrialRecord:
    """Run and judge one trial. Deterministic for a given (spec, unit, agent_key) with offline
    models. `agent_key` is the run's secret for the agent's seed (default: this process's own,
    `process_agent_key()`)."""
    started = time.perf_counter()
    key = process_agent_key() if agent_key is None else agent_key
    domain = get_domain(unit.domain)
    task = domain.task(unit.task_id)
    persona = parse_persona(unit.persona)
    world = domain.fresh_world(task.world_seed)
    try:
        agent = agent_factory(spec.agent)(
            domain=domain, params=spec.agent_params, seed=agent_seed(key, unit.seed)
        )
        user = user_factory(spec.user)(
            domain=domain,
            scenario=task.scenario,
            persona=persona,
            params={**spec.user_params, "solo": True} if spec.solo else spec.user_params,
            seed=unit.seed,
        )
    except InfrastructureError as exc:
        return TrialRecord(
            domain=unit.domain,
            task_id=unit.task_id,
            persona=unit.persona,
            trial=unit.trial,
            seed=unit.seed,
            reward=0.0,
            failure=FailureClass.INFRASTRUCTURE.value,
            termination=TerminationReason.INFRASTRUCTURE_ERROR.value,
            error=repr(exc),
            seconds=time.perf_counter() - started,
            models={"agent": spec.agent, "user": spec.user},
            fingerprint=spec.fingerprint(),
        )
    agent, user = Timed(agent), Timed(user)
    trajectory = Orchestrator(
        domain=domain,
        world=world,
        agent=agent,
        user=user,
        guard=PolicyGuard(domain.rules, spec.guard_mode),
        limits=spec.limits,
        task=task,
        solo=spec.solo,
    ).run()
    evaluation = evaluate(domain, task, trajectory, world)
    if evaluation.failure is FailureClass.SIMULATOR_ERROR:
        # The oracle found the customer declining exactly what its scenario wants.
        trajectory = replace(
            trajectory,
            termination=TerminationReason.SIMULATOR_ERROR,
            error="; ".join(evaluation.notes),
        )
    models = {"agent": _resolved(agent, spec.agent), "user": _resolved(user, spec.user)}
    evaluation, trajectory, nl, usage = with_judgement(spec, unit, task, evaluation, trajectory)
    if spec.judge_model and task.judged_in_prose:
        models["judge"] = spec.judge_model
    turns = message_records(trajectory.messages, opening_length(task), agent, user)
    return _record(spec, unit, trajectory, evaluation, started, models, nl, usage, turns)


def with_judgement(
    spec: RunSpec, unit: WorkUnit, task: Task, evaluation: Evaluation, trajectory: Trajectory
) -> tuple[Evaluation, Trajectory, tuple[NLVerdict, ...], Mapping[str, float]]:
    """The oracle's `evaluation` with the judge's verdicts on the task's prose assertions,
    the trajectory (marked an infrastructure error when the judge failed), the verdicts, and
    the usage with the judge's calls."""
    nl, usage, judge_error = judge_trial(spec, unit, task.judged_in_prose, trajectory)
    if judge_error:
        # The judge failed: not the agent's outcome. Excluded, counted, re-run by resume.
        evaluation = Evaluation(0.0, {}, FailureClass.INFRASTRUCTURE, notes=(judge_error,))
        trajectory = replace(
            trajectory, termination=TerminationReason.INFRASTRUCTURE_ERROR, error=judge_error
        )
        return evaluation, trajectory, nl, usage
    return with_nl_verdicts(evaluation, nl), trajectory, nl, usage


def judge_trial(
    spec: RunSpec, unit: WorkUnit, assertions: Sequence[str], trajectory: Trajectory
) -> tuple[tuple[NLVerdict, ...], Mapping[str, float], str]:
    """The natural-language verdicts of one trial (not judged without a judge model, or when
    the trial already ended in an error), the usage with the judge's calls added, and the
    judge's error ("" when it answered properly)."""
    usage = dict(trajectory.usage)
    counted = trajectory.termination not in (
        TerminationReason.INFRASTRUCTURE_ERROR,
        TerminationReason.SIMULATOR_ERROR,
    )
    if not assertions or not spec.judge_model or not counted:
        return not_judged(assertions), usage, ""
    judge = make_judge(spec.judge_model, spec.judge_params)
    error = ""
    try:
        verdicts = judge.judge(assertions, trajectory, trial_id=unit.key)
    except InfrastructureError as exc:
        verdicts, error = not_judged(assertions), f"JudgeError: {exc}"
    usage.update({f"judge.{k}": float(v) for k, v in judge.usage().items()})
    return verdicts, usage, error


def _pending(spec: RunSpec, sink: Sink, resume: bool) -> list[WorkUnit]:
    """Units to run: all, or (resuming) those without a record that counts — units whose
    latest record is an infrastructure or simulator error are run again."""
    units = plan(spec)
    if not resume:
        return units
    done = sink.finished_keys()
    return [u for u in units if u.key not in done]


def execute_units(
    spec: RunSpec, units: Sequence[WorkUnit], workers: int, agent_key: bytes
) -> Iterator[TrialRecord]:
    """Each unit's record as it finishes: inline, or on a bounded thread pool."""
    if workers <= 1:
        for unit in units:
            yield run_unit(spec, unit, agent_key)
        return
    # A bounded window of in-flight futures keeps memory flat however long the run is.
    window = workers * 4
    it = iter(units)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="evals") as pool:
        inflight: set[Future[TrialRecord]] = set()
        for unit in it:
            inflight.add(pool.submit(run_unit, spec, unit, agent_key))
            if len(inflight) >= window:
                finished, inflight = wait(inflight, return_when=FIRST_COMPLETED)
                for f in finished:
                    yield f.result()
        for f in inflight:
            yield f.result()


def run(
    spec: RunSpec,
    sink: Sink,
    *,
    workers: int = 1,
    processes: int = 1,
    on_progress: Progress | None = None,
    resume: bool = True,
    ks: Sequence[int] = (1,),
    previous: Iterable[TrialRecord] = (),
    agent_key: bytes | None = None,
) -> Report:
    """Run every unit not already in `sink` (when `resume`), append each record as it
    finishes, and return the report over `previous` records (pass what the sink already holds
    to report on the whole run) plus the new ones. A re-run unit's new record replaces its
    earlier infrastructure or simulator error in the report.

    `workers` threads run trials concurrently; with `processes` > 1 the units are split
    over that many worker processes sharing the `workers` threads between them (see
    `runner.processes`), for LLM-backed runs whose CPU one interpreter cannot carry.

    `agent_key` is the run's secret for the agent's seeds: pass the one kept with the run
    (`RunFile.agent_key`, the Run row) so a resume gives its agents the seeds the first part
    of the run would have; without it the run draws its own, which it does not keep."""
    if processes < 1 or workers < 1:
        raise EngineError("workers and processes must be at least 1")
    key = new_agent_key() if agent_key is None else agent_key
    agg = Aggregator()
    for record in previous:
        agg.add(record)
    pending = _pending(spec, sink, resume)
    total = len(pending)
    records = (
        execute_in_processes(spec, pending, workers, processes, key)
        if processes > 1 and len(pending) > 1
        else execute_units(spec, pending, workers, key)
    )
    for done, record in enumerate(records, start=1):
        sink.append(record)
        agg.add(record)
        if on_progress is not None:
            on_progress(record, done, total)
    return agg.report([k for k in ks if k <= spec.trials] or [1], seed=spec.seed)
