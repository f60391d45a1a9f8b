"""The oracle's sensitivity: per domain and injected fault, the share of the tasks the fault
applies to (`evals.engine.faults.APPLIES`, decided from the task and the domain alone) on
which the oracle failed the faulty agent's trial.

Each task runs once with the domain's reference agent and scripted customer (baseline
persona, guard enforcing), then once per applicable fault with that fault injected. A domain
without offline models of its own (τ² retail) runs the self-test's gold replay and the
customer that says yes instead (`evals.engine.selftest.replay`).

Caught: the trial counts against the agent (reward below 1 and a failure class that is the
agent's — a simulator or infrastructure error is left out of pass^k, so a fault that ends in
one escaped). A task whose reference trial does not pass is a miss for every fault that
applies to it: there the self-test cannot tell the fault from the reference's own failure.
The deterministic oracle is what is measured: natural-language assertions (for a judge) are
left out of the reward, and tasks judged by nothing else are not run.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from typing import Any

from evals.domains import get_domain
from evals.engine import faults
from evals.engine.domain import Domain
from evals.engine.messages import GuardMode
from evals.engine.oracle import Evaluation, FailureClass, evaluate
from evals.engine.orchestrator import Orchestrator
from evals.engine.persona import parse_persona
from evals.engine.policy import PolicyGuard
from evals.engine.protocols import Agent, UserSimulator
from evals.engine.runner.spec import derive_seed
from evals.engine.selftest.replay import GoldReplayAgent, YesCustomer
from evals.engine.task import Task

SEED = 20240601
PERSONA = "baseline"
NOT_THE_AGENTS = frozenset(
    {
        FailureClass.NONE,
        FailureClass.INFRASTRUCTURE,
        FailureClass.SIMULATOR_ERROR,
        FailureClass.NOT_JUDGED,
    }
)
REFERENCE_FAILS = "reference_fails"


def replays_gold(domain: Domain) -> bool:
    """Whether the domain's self-test runs the gold replay (no reference agent and scripted
    customer of its own)."""
    return domain.reference_agent is None or domain.scripted_user is None


def _participants(domain: Domain, task: Task, fault: str) -> tuple[Agent, UserSimulator]:
    seed = derive_seed(SEED, domain.name, task.id, PERSONA, 0)
    agent_seed = derive_seed(seed, "agent")
    if replays_gold(domain):
        agent: Agent = (
            faults.DoNothingAgent()
            if fault == faults.DO_NOTHING
            else GoldReplayAgent(domain=domain, task=task, fault=fault, seed=agent_seed)
        )
        return agent, YesCustomer(task=task)
    assert domain.reference_agent is not None and domain.scripted_user is not None
    if fault:
        agent = faults.faulty_agent(fault, domain=domain, params={}, seed=agent_seed)
    else:
        agent = domain.reference_agent(domain=domain, params={}, seed=agent_seed)
    user = domain.scripted_user(
        domain=domain,
        scenario=task.scenario,
        persona=parse_persona(PERSONA),
        params={},
        seed=seed,
    )
    return agent, user


def trial(domain: Domain, task: Task, fault: str = "") -> Evaluation:
    """One self-test trial (`fault` "" = the reference), judged by the deterministic oracle."""
    agent, user = _participants(domain, task, fault)
    world = domain.fresh_world(task.world_seed)
    trajectory = Orchestrator(
        domain=domain,
        world=world,
        agent=agent,
        user=user,
        guard=PolicyGuard(domain.rules, GuardMode.ENFORCE),
        task=task,
    ).run()
    deterministic = dataclasses.replace(
        task, reward_basis=tuple(c for c in task.reward_basis if c != "nl_assertions")
    )
    return evaluate(domain, deterministic, trajectory, world)


def caught(evaluation: Evaluation) -> bool:
    return evaluation.reward < 1.0 and evaluation.failure not in NOT_THE_AGENTS


def selftest_domain(
    name: str, *, split: str = "all", on_fault: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """{fault: {expected, tasks, applicable, caught, named, sensitivity, classes, missed}}:
    `missed` lists every applicable task the oracle let pass, with the failure class it
    gave (or `reference_fails`); `classes` counts the classes of the caught trials."""
    domain = get_domain(name)
    tasks = [t for t in domain.tasks(split) if not t.needs_judge]
    reference = {t.id: trial(domain, t) for t in tasks}
    out: dict[str, Any] = {}
    for fault, expected in faults.EXPECTED.items():
        applies = faults.APPLIES[fault]
        applicable = [t for t in tasks if applies(domain, t)]
        classes: Counter[str] = Counter()
        missed: list[dict[str, str]] = []
        for task in applicable:
            if reference[task.id].reward < 1.0:
                missed.append({"task": task.id, "failure": REFERENCE_FAILS})
                continue
            evaluation = trial(domain, task, fault)
            if caught(evaluation):
                classes[evaluation.failure.value] += 1
            else:
                missed.append({"task": task.id, "failure": evaluation.failure.value})
        hits = sum(classes.values())
        out[fault] = {
            "expected": expected.value,
            "tasks": len(tasks),
            "applicable": len(applicable),
            "caught": hits,
            "named": classes[expected.value],
            "sensitivity": hits / len(applicable) if applicable else None,
            "classes": dict(classes.most_common()),
            "missed": missed,
        }
        if on_fault is not None:
            on_fault(fault)
    return out
