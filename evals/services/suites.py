"""Suites as data: `suites/<name>.toml`, validated into a frozen `Suite`.

A suite names what is measured (domains and their task splits, personas, trials per task),
who is measured (the agent under test and the user simulator, with their parameters), how
(policy-guard mode, limits, seed) and what "good enough to go live" means (the gate). Every
mistake in the file becomes one `SuiteError` line naming the field, which the command turns
into exit code 2.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from evals.domains import domain_names
from evals.engine.errors import EngineError
from evals.engine.messages import GuardMode
from evals.engine.orchestrator import Limits
from evals.engine.persona import expand_personas, parse_persona
from evals.engine.runner import RunSpec

SUITES_DIR = Path(settings.BASE_DIR) / "suites"


class SuiteError(ValueError):
    """A suite that cannot run, with a one-line reason."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DomainEntry(_Strict):
    name: str
    split: str = "all"
    tasks: tuple[str, ...] = ()


class ModelEntry(_Strict):
    model: str
    params: dict[str, Any] = Field(default_factory=dict)


class LimitsEntry(_Strict):
    max_turns: int = Field(default=40, ge=2)
    max_tool_errors: int = Field(default=8, ge=0)
    wall_time_s: float = Field(default=300.0, gt=0)
    max_steps_per_turn: int = Field(default=12, ge=1)


class Gate(_Strict):
    """Thresholds. `pass_hat_k_lower` applies per domain to the lower end of the 95 %
    bootstrap interval of pass^k with k = `k` (default: trials per task)."""

    k: int | None = Field(default=None, ge=1)
    pass_hat_k_lower: float = Field(default=0.0, ge=0.0, le=1.0)
    pass_hat_1: float = Field(default=0.0, ge=0.0, le=1.0)
    max_policy_violations: int = Field(default=0, ge=0)
    # Above this share of infrastructure errors the run measured the provider, not the
    # agent: the run "could not complete" (exit 2), whatever the other figures say.
    max_infrastructure_error_rate: float = Field(default=0.02, ge=0.0, le=1.0)
    # Above this share of simulator errors (the simulated customer invented a fact or stopped
    # before the agent's last write) the run measured the simulator: exit 2 as well.
    max_simulator_error_rate: float = Field(default=0.02, ge=0.0, le=1.0)
    # Floors on the point estimate of pass^k (k as above) per persona (over every domain)
    # and per domain x persona cell (`[gate.cell_floors.membership] impatient = 0.8`): a
    # domain's bound can pass while one kind of customer is failed, and these forbid that.
    persona_floors: dict[str, float] = Field(default_factory=dict)
    cell_floors: dict[str, dict[str, float]] = Field(default_factory=dict)

    @field_validator("persona_floors")
    @classmethod
    def _persona_floors(cls, value: dict[str, float]) -> dict[str, float]:
        for name, floor in value.items():
            _check_floor(f"persona_floors.{name}", floor)
        return value

    @field_validator("cell_floors")
    @classmethod
    def _cell_floors(cls, value: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        for domain, personas in value.items():
            for name, floor in personas.items():
                _check_floor(f"cell_floors.{domain}.{name}", floor)
        return value

    def floor_for(self, domain: str, persona: str) -> float | None:
        """The floor a domain x persona cell is held to: its own, else its persona's."""
        cell = self.cell_floors.get(domain, {}).get(persona)
        return cell if cell is not None else self.persona_floors.get(persona)


def _check_floor(where: str, floor: float) -> None:
    if not 0.0 <= floor <= 1.0:
        raise ValueError(f"{where} must be between 0 and 1, not {floor}")


class SuiteFile(_Strict):
    name: str
    description: str = ""
    seed: int = 0
    trials: int = Field(ge=1, le=64)
    domains: tuple[DomainEntry, ...] = Field(min_length=1)
    personas: tuple[str, ...] = Field(min_length=1)
    agent: ModelEntry = ModelEntry(model="sandbox/reference")
    user: ModelEntry = ModelEntry(model="sandbox/scripted")
    guard_mode: GuardMode = GuardMode.ENFORCE
    # The no-customer ablation (docs/domains.md, "Solo runs"); dual-control domains only.
    solo: bool = False
    limits: LimitsEntry = LimitsEntry()
    gate: Gate = Gate()
    workers: int = Field(default=2, ge=1, le=64)

    @field_validator("domains", mode="before")
    @classmethod
    def _domains(cls, value: Any) -> Any:
        # `domains = ["retail"]` is shorthand for `[[domains]] name = "retail"`.
        if isinstance(value, list):
            return [{"name": v} if isinstance(v, str) else v for v in value]
        return value


@dataclass(frozen=True)
class Suite:
    data: SuiteFile

    @property
    def name(self) -> str:
        return self.data.name

    @property
    def domains(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.data.domains)

    @property
    def gate_k(self) -> int:
        return min(self.data.gate.k or self.data.trials, self.data.trials)

    @property
    def ks(self) -> tuple[int, ...]:
        return tuple(range(1, self.data.trials + 1))

    def snapshot(self) -> dict[str, Any]:
        data = self.data.model_dump(mode="json")
        # Suites without floors keep the snapshot (and digest) they had before floors existed.
        for key in ("persona_floors", "cell_floors"):
            if not data["gate"][key]:
                del data["gate"][key]
        return data

    def digest(self) -> str:
        canonical = json.dumps(self.snapshot(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()

    def specs(self) -> list[RunSpec]:
        """One engine RunSpec per domain (each domain has its own split or task list); seeds
        are derived from (seed, domain, task, persona, trial), so splitting changes none."""
        d = self.data
        return [
            RunSpec(
                domains=(entry.name,),
                personas=d.personas,
                trials=d.trials,
                seed=d.seed,
                split=entry.split,
                task_ids=entry.tasks,
                agent=d.agent.model,
                agent_params=dict(d.agent.params),
                user=d.user.model,
                user_params=dict(d.user.params),
                guard_mode=d.guard_mode,
                limits=Limits(**d.limits.model_dump()),
                solo=d.solo,
            )
            for entry in d.domains
        ]

    def spec_for(self, domain: str) -> RunSpec:
        for spec in self.specs():
            if spec.domains == (domain,):
                return spec
        raise SuiteError(f"suite {self.name!r} has no domain {domain!r}")


def _one_line(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "suite"
    more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
    return f"{where}: {err['msg']}{more}"


def suite_from_mapping(raw: Mapping[str, Any], *, source: str = "suite") -> Suite:
    try:
        data = SuiteFile.model_validate(dict(raw))
    except ValidationError as exc:
        raise SuiteError(f"{source}: {_one_line(exc)}") from None
    available = set(domain_names())
    for entry in data.domains:
        if entry.name not in available:
            raise SuiteError(
                f"{source}: domain {entry.name!r} is not available "
                f"(available: {', '.join(sorted(available))})"
            )
    try:
        personas = expand_personas(data.personas, data.seed)
    except EngineError as exc:
        raise SuiteError(f"{source}: personas: {exc}") from None
    for persona in personas:
        try:
            parse_persona(persona)
        except EngineError as exc:
            raise SuiteError(f"{source}: persona {persona!r}: {exc}") from None
    _check_floor_names(data, personas, source)
    if len(set(data.personas)) != len(data.personas):
        raise SuiteError(f"{source}: personas are listed twice")
    if len({d.name for d in data.domains}) != len(data.domains):
        raise SuiteError(f"{source}: a domain is listed twice")
    return Suite(data)


def _check_floor_names(data: SuiteFile, personas: Sequence[str], source: str) -> None:
    """A floor on a persona or a domain the suite does not run would never be checked:
    refused, naming it, rather than silently vouching for nothing."""
    domains = {d.name for d in data.domains}
    known = set(personas) | set(data.personas)
    for persona in data.gate.persona_floors:
        if persona not in known:
            raise SuiteError(
                f"{source}: gate.persona_floors: {persona!r} is not one of the suite's "
                f"personas ({', '.join(sorted(known))})"
            )
    for domain, floors in data.gate.cell_floors.items():
        if domain not in domains:
            raise SuiteError(
                f"{source}: gate.cell_floors: {domain!r} is not one of the suite's domains "
                f"({', '.join(sorted(domains))})"
            )
        for persona in floors:
            if persona not in known:
                raise SuiteError(
                    f"{source}: gate.cell_floors.{domain}: {persona!r} is not one of the "
                    f"suite's personas ({', '.join(sorted(known))})"
                )


NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,99}$")


def suite_path(name: str, *, allow_path: bool = False) -> Path:
    candidate = Path(name)
    if allow_path and candidate.suffix == ".toml":
        return candidate
    if not NAME_RE.match(name) or name.endswith(".toml"):
        raise SuiteError(f"{name!r} is not a suite name (lower-case letters, digits, - _ .)")
    return SUITES_DIR / f"{name}.toml"


def suite_load(*, name: str, allow_path: bool = False) -> Suite:
    """`name` is a file in suites/ (without .toml); with `allow_path` (the command line)
    also a path to any .toml file."""
    path = suite_path(name, allow_path=allow_path)
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in SUITES_DIR.glob("*.toml")))
        raise SuiteError(f"no suite {name!r} (known: {known or 'none'})")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SuiteError(f"{path.name}: not valid TOML: {exc}") from None
    suite = suite_from_mapping(raw, source=path.name)
    if path.parent.resolve() == SUITES_DIR.resolve() and suite.name != path.stem:
        raise SuiteError(f"{path.name}: name {suite.name!r} must match the file name {path.stem!r}")
    return suite


def suite_override(
    *,
    suite: Suite,
    agent: str | None = None,
    user: str | None = None,
    trials: int | None = None,
    domains: Sequence[str] | None = None,
    personas: Sequence[str] | None = None,
) -> Suite:
    """The suite with command-line overrides applied (validated again as a whole)."""
    raw = suite.snapshot()
    if agent:
        raw["agent"] = {
            "model": agent,
            "params": raw["agent"]["params"] if agent == raw["agent"]["model"] else {},
        }
    if user:
        raw["user"] = {
            "model": user,
            "params": raw["user"]["params"] if user == raw["user"]["model"] else {},
        }
    if trials is not None:
        raw["trials"] = trials
    if domains:
        known = {d["name"]: d for d in raw["domains"]}
        raw["domains"] = [known.get(name, {"name": name}) for name in domains]
    if personas:
        raw["personas"] = list(personas)
    _prune_floors(raw)
    return suite_from_mapping(raw, source=suite.name)


def _prune_floors(raw: dict[str, Any]) -> None:
    """Floors on the personas and domains an override leaves out go with them (the file's
    own names were checked when it was loaded)."""
    gate = raw.get("gate", {})
    personas = set(raw["personas"])
    domains = {d["name"] for d in raw["domains"]}
    if gate.get("persona_floors"):
        gate["persona_floors"] = {p: f for p, f in gate["persona_floors"].items() if p in personas}
    if gate.get("cell_floors"):
        gate["cell_floors"] = {
            d: {p: f for p, f in floors.items() if p in personas}
            for d, floors in gate["cell_floors"].items()
            if d in domains
        }


# A name the engine resolves by importing code (evals.engine.adapters registers the prefix).
CODE_AGENT_PREFIX = "python:"


class SuiteCodeRefused(SuiteError):
    """A `python:` agent or user asked for from the web or the API and not on the allow-list;
    `field` names which one."""

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


def suite_check_web_models(*, suite: Suite) -> Suite:
    """Refuse a suite started or resumed from the web or the API whose agent or user is
    Python code (`python:module:function`) not listed in EVALS_WEB_PYTHON_AGENTS.

    A `python:` name imports a module and calls a function inside the web process, so from
    a form or a token it would be code execution; registered models and LiteLLM model names
    are data. Arbitrary `python:` names stay a command-line option (`manage.py golive`).
    The check runs on the whole suite as it would run, so a suite file or a resumed run that
    names code is refused too, not only an override. Returns the suite unchanged."""
    allowed = set(getattr(settings, "EVALS_WEB_PYTHON_AGENTS", ()))
    for field, model in (("agent", suite.data.agent.model), ("user", suite.data.user.model)):
        # Stricter than the registry's prefix match: case and leading spaces do not hide it.
        if model.lstrip().lower().startswith(CODE_AGENT_PREFIX) and model not in allowed:
            raise SuiteCodeRefused(
                _(
                    "%(field)s %(model)r: Python code can be chosen from the web or the API "
                    "only when it is listed in EVALS_WEB_PYTHON_AGENTS; run it from the "
                    "command line (manage.py golive) instead."
                )
                % {"field": field, "model": model},
                field=field,
            )
    return suite


def suite_list() -> list[Suite | SuiteError]:
    out: list[Suite | SuiteError] = []
    for path in sorted(SUITES_DIR.glob("*.toml")):
        try:
            out.append(suite_load(name=path.stem))
        except SuiteError as exc:
            out.append(exc)
    return out
