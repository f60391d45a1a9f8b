"""The gate sees cells, not only domains: a suite's floors per persona and per domain x
persona cell, on pass^k's point estimate. The cheat they stop: an agent whose domain bounds
pass while one kind of customer in one domain is failed (membership x impatient at 0.79)."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from evals.engine.errors import EngineError
from evals.engine.messages import Message, Role
from evals.engine.registry import agent_factory, register_agent
from evals.models import EvalRun
from evals.services import SuiteError, code_version
from evals.services.gate import Row, gate_evaluate, summarise_rows, weakest_cells
from evals.services.selftest import selftest_evidence
from evals.services.suites import suite_from_mapping, suite_override
from tests.evals.conftest import golive, suite_dict

TOUCHY_IN_MEMBERSHIP = "test/short-with-impatient-members"
PRESSING = ("come on", "hurry")
BRUSH_OFF = "Please be patient; I will get to your request when I can."


class ShortWithTheImpatient:
    """The reference agent, except in membership, where a customer who presses ("come on",
    "hurry up") is brushed off: a patient member is served, an impatient one is not."""

    def __init__(self, *, domain: Any, params: Mapping[str, Any], seed: int) -> None:
        self.inner = agent_factory("sandbox/reference")(domain=domain, params=params, seed=seed)
        self.touchy = getattr(domain, "name", domain) == "membership"

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        pressed = any(
            m.role is Role.USER and any(w in m.content.lower() for w in PRESSING) for m in messages
        )
        if self.touchy and pressed:
            return Message.assistant(BRUSH_OFF)
        return self.inner.respond(messages, tools)


with contextlib.suppress(EngineError):
    register_agent(TOUCHY_IN_MEMBERSHIP, lambda **kwargs: ShortWithTheImpatient(**kwargs))


def _rows(cell_passing: int) -> list[Row]:
    """retail and membership x baseline and impatient, 100 tasks of 4 trials each; every
    trial passes except in membership x impatient, where only `cell_passing` tasks pass all
    four (the others fail all four)."""
    rows = []
    n = 0
    for domain in ("retail", "membership"):
        for persona in ("baseline", "impatient"):
            for task in range(100):
                ok = not (domain == "membership" and persona == "impatient") or task < cell_passing
                for trial in range(4):
                    n += 1
                    rows.append(
                        Row(
                            id=n,
                            domain=domain,
                            task_id=f"{domain}-{task:03d}",
                            persona=persona,
                            trial=trial,
                            reward=1.0 if ok else 0.0,
                            failure="" if ok else "user_abandoned",
                            infrastructure=False,
                            agent_turns=3,
                            questions=0,
                            policy_violations=0,
                            seconds=0.01,
                            agent_tokens_in=0,
                            agent_tokens_out=0,
                            agent_cost_micros=0,
                            user_tokens_in=0,
                            user_tokens_out=0,
                            user_cost_micros=0,
                            outcome="pass" if ok else "fail",
                            agent_model="a",
                            user_model="u",
                            termination="user_stop" if ok else "user_abandon",
                        )
                    )
    return rows


def _suite(**gate: Any) -> Any:
    return suite_from_mapping(
        suite_dict(
            trials=4,
            domains=["retail", "membership"],
            gate={"pass_hat_k_lower": 0.8, "pass_hat_1": 0.9, **gate},
        )
    )


def _judge(suite: Any, rows: list[Row]) -> tuple[str, dict[str, Any]]:
    report, extra = summarise_rows(rows, suite)
    extra["selftest"] = selftest_evidence(domains=suite.domains, code_version=code_version())
    verdict, checks = gate_evaluate(suite, report, extra)
    return verdict, {c.check: c for c in checks} | {"_extra": extra}


@pytest.mark.django_db
def test_a_pass_with_membership_x_impatient_at_pass4_079_is_forbidden_by_a_cell_floor() -> None:
    rows = _rows(cell_passing=79)
    # Without a floor: every domain's bound and pass^1 clear the gate — a PASS.
    verdict, checks = _judge(_suite(), rows)
    assert checks["_extra"]["heatmap"]["cells"]["membership|impatient"]["passk"] == pytest.approx(
        0.79
    )
    assert verdict == "pass"
    # The cell floor forbids it, naming the cell and its figure.
    verdict, checks = _judge(_suite(cell_floors={"membership": {"impatient": 0.8}}), rows)
    assert verdict == "fail"
    cell = checks["pass^4 floor · membership x impatient"]
    assert not cell.ok and cell.observed == pytest.approx(0.79) and cell.threshold == 0.8
    assert "0.790" in cell.english()
    # Every other check still passes: the floor alone turned it.
    assert [name for name, c in checks.items() if name != "_extra" and not c.ok] == [
        "pass^4 floor · membership x impatient"
    ]
    # At 0.80 the same floor passes (a floor is "at least").
    verdict, _ = _judge(_suite(cell_floors={"membership": {"impatient": 0.8}}), _rows(80))
    assert verdict == "pass"


@pytest.mark.django_db
def test_a_persona_floor_holds_the_persona_across_every_domain() -> None:
    rows = _rows(cell_passing=79)  # impatient over both domains: (100 + 79) / 200
    verdict, checks = _judge(_suite(persona_floors={"impatient": 0.9}), rows)
    assert verdict == "fail"
    check = checks["pass^4 floor · impatient"]
    assert not check.ok and check.observed == pytest.approx(0.895)
    verdict, checks = _judge(_suite(persona_floors={"impatient": 0.89, "baseline": 1.0}), rows)
    assert verdict == "pass"
    assert checks["pass^4 floor · baseline"].ok


def test_the_weakest_cells_come_first_below_their_floor_first() -> None:
    heatmap = {
        "cells": {
            "retail|baseline": {"pass1": 1.0, "passk": 1.0, "tasks": 3},
            "retail|impatient": {"pass1": 0.7, "passk": 0.6, "tasks": 3},
            "membership|baseline": {"pass1": 0.95, "passk": 0.9, "tasks": 3},
            "membership|impatient": {"pass1": 0.9, "passk": 0.79, "tasks": 3},
        }
    }
    gate = {"cell_floors": {"membership": {"impatient": 0.8}}, "persona_floors": {"baseline": 0.95}}
    order = [(c["domain"], c["persona"], c["below"]) for c in weakest_cells(heatmap, gate)]
    assert order == [
        ("membership", "baseline", True),  # 0.05 below its persona floor
        ("membership", "impatient", True),  # 0.01 below its cell floor
        ("retail", "impatient", False),  # no floor, the lowest figure
        ("retail", "baseline", False),
    ]


@pytest.mark.parametrize(
    ("gate", "says"),
    [
        (
            {"cell_floors": {"billing": {"impatient": 0.8}}},
            "'billing' is not one of the suite's domains",
        ),
        ({"cell_floors": {"retail": {"angry": 0.8}}}, "'angry' is not one of the suite's personas"),
        ({"persona_floors": {"impatiant": 0.8}}, "'impatiant' is not one of the suite's personas"),
        ({"persona_floors": {"impatient": 1.2}}, "must be between 0 and 1"),
        ({"cell_floors": {"retail": {"impatient": -0.1}}}, "must be between 0 and 1"),
    ],
)
def test_a_floor_that_would_never_be_checked_is_refused(gate: dict[str, Any], says: str) -> None:
    with pytest.raises(SuiteError, match=says):
        suite_from_mapping(suite_dict(gate=gate))


def test_floors_follow_an_override_and_leave_old_digests_alone() -> None:
    plain = suite_from_mapping(suite_dict())
    assert "cell_floors" not in plain.snapshot()["gate"]  # digest of floor-less suites unchanged
    floored = suite_from_mapping(
        suite_dict(
            gate={
                "cell_floors": {"retail": {"impatient": 0.9}},
                "persona_floors": {"impatient": 0.9},
            }
        )
    )
    assert floored.digest() != plain.digest()
    narrowed = suite_override(suite=floored, personas=["baseline"])
    assert narrowed.data.gate.cell_floors == {"retail": {}}
    assert narrowed.data.gate.persona_floors == {}


@pytest.mark.django_db
def test_an_agent_that_fails_one_cell_passes_without_a_floor_and_fails_with_one(
    suite_file: Any,
) -> None:
    """Through `golive run`: the agent loses only impatient members."""
    common = {
        "agent": {"model": TOUCHY_IN_MEMBERSHIP},
        "domains": [{"name": "retail", "split": "smoke"}, {"name": "membership", "split": "smoke"}],
        "personas": ["baseline", "impatient"],
    }
    gate = {"pass_hat_k_lower": 0.0, "pass_hat_1": 0.5, "max_infrastructure_error_rate": 0.0}
    code, out, err = golive("run", "--suite", suite_file(**common, gate=gate))
    run = EvalRun.objects.latest("id")
    cells = run.summary["heatmap"]["cells"]
    assert cells["membership|impatient"]["passk"] < 0.8, cells
    assert {c: v["passk"] for c, v in cells.items() if c != "membership|impatient"} == {
        "retail|baseline": 1.0,
        "retail|impatient": 1.0,
        "membership|baseline": 1.0,
    }, cells
    assert (code, run.verdict) == (0, "pass"), out + err

    floors = {**gate, "cell_floors": {"membership": {"impatient": 0.8}}}
    code, out, err = golive("run", "--suite", suite_file(**common, name="t2", gate=floors))
    run = EvalRun.objects.latest("id")
    assert (code, run.verdict) == (1, "fail"), out + err
    failed = [c["check"] for c in run.verdict_reasons if not c["ok"]]
    assert failed == ["pass^2 floor · membership x impatient"]
    assert "membership x impatient" in out
