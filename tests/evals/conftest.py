"""Fixtures for the go-live app: small suites (the retail smoke split runs in well under a
second), a provider that is always down, and helpers to run the command and read its exit."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Mapping, Sequence
from contextlib import redirect_stderr
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from evals.domains import domain_names
from evals.engine.errors import EngineError, InfrastructureError, SimulatorError
from evals.engine.faults import EXPECTED
from evals.engine.messages import Message
from evals.engine.registry import agent_factory, register_agent, register_user
from evals.models import EvalSelftest
from evals.services import Suite, code_version
from evals.services.suites import suite_from_mapping
from identity.models import Operator, OperatorKind

DOWN = "test/provider-down"
BROKEN_USER = "test/simulator-breaks"
SNAPSHOT_AGENT = "test/alias-agent"
SNAPSHOT = "acme-1-2025-06-01"


class ProviderDown:
    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        raise InfrastructureError("503 from the provider after retries")


class BrokenSimulator:
    """A user simulator that gives up on its scenario (what the LiteLLM user does when its
    re-samples keep inventing facts)."""

    def respond(self, messages: Sequence[Message]) -> Message:
        raise SimulatorError("the simulated customer stated facts absent from its scenario")


class AliasAgent:
    """The reference agent behind an alias the provider resolves to a dated snapshot."""

    def __init__(self, **kwargs: Any) -> None:
        self.inner = agent_factory("sandbox/reference")(**kwargs)

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        return self.inner.respond(messages, tools)

    def resolved_models(self) -> list[str]:
        return [SNAPSHOT]


# Registered once per process (this module may be imported again under another name).
with contextlib.suppress(EngineError):
    register_agent(DOWN, lambda *, domain, params, seed: ProviderDown())
with contextlib.suppress(EngineError):
    register_user(BROKEN_USER, lambda **kwargs: BrokenSimulator())
with contextlib.suppress(EngineError):
    register_agent(SNAPSHOT_AGENT, lambda **kwargs: AliasAgent(**kwargs))


def store_selftest(caught: Mapping[tuple[str, str], tuple[int, int]] | None = None) -> EvalSelftest:
    """A self-test at this code version on every domain, each fault caught on its one
    applicable task unless `caught` says otherwise ({(domain, fault): (caught, applicable)})."""
    caught = caught or {}
    principal, _ = Operator.objects.get_or_create(
        username="selftest-fixture", defaults={"kind": OperatorKind.SERVICE}
    )
    domains = domain_names()
    results: dict[str, dict[str, dict[str, Any]]] = {
        domain: {
            fault: {
                "expected": expected.value,
                "tasks": 1,
                "applicable": caught.get((domain, fault), (1, 1))[1],
                "caught": caught.get((domain, fault), (1, 1))[0],
                "named": caught.get((domain, fault), (1, 1))[0],
                "sensitivity": None,
                "classes": {},
                "missed": [],
            }
            for fault, expected in EXPECTED.items()
        }
        for domain in domains
    }
    return EvalSelftest.objects.create(
        domains=domains,
        split="all",
        results=results,
        code_version=code_version(),
        started_by=principal,
    )


@pytest.fixture(autouse=True)
def selftest_passed(db: None) -> EvalSelftest:
    """The gate reads the oracle's self-test: runs in these tests are judged as if one at
    this code version caught every fault. The tests of that check (and of the self-test
    itself) delete it or store their own."""
    return store_selftest()


def suite_dict(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "t",
        "seed": 7,
        "trials": 2,
        "workers": 1,
        "personas": ["baseline", "impatient"],
        "domains": [{"name": "retail", "split": "smoke"}],
        "gate": {
            "pass_hat_k_lower": 0.5,
            "pass_hat_1": 0.8,
            "max_policy_violations": 0,
            "max_infrastructure_error_rate": 0.0,
        },
    }
    data.update(overrides)
    return data


@pytest.fixture
def make_suite() -> Callable[..., Suite]:
    def make(**overrides: Any) -> Suite:
        return suite_from_mapping(suite_dict(**overrides))

    return make


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    return repr(value)


@pytest.fixture
def suite_file(tmp_path: Path) -> Callable[..., str]:
    """Write a suite as TOML and return its path (what `--suite` accepts)."""

    def write(**overrides: Any) -> str:
        data = suite_dict(**overrides)
        lines = [f"{k} = {_toml_value(v)}" for k, v in data.items()]
        path = tmp_path / f"{data['name']}.toml"
        path.write_text("\n".join(lines) + "\n")
        return str(path)

    return write


def golive(*args: str) -> tuple[int, str, str]:
    """Run `manage.py golive ...`; returns (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with redirect_stderr(err):
            call_command("golive", *args, stdout=out, stderr=err)
    except SystemExit as exc:
        return int(exc.code or 0), out.getvalue(), err.getvalue()
    except CommandError as exc:
        return exc.returncode, out.getvalue(), str(exc)
    return 0, out.getvalue(), err.getvalue()
