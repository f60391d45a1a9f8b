"""Run fingerprints: what a run measures, hashed, so a resume never mixes two runs' trials.

The fingerprinted fields are the agent and the user simulator (model names and parameters),
the judge (likewise), the domains, split, task ids, the sample size, personas, seed, trials per task, guard
mode, limits and the code version (`source_digest`); for a `python:module:function` agent or
user, the digest of its module's source file too (`python_code_digest`), so a team that edits
its own agent and reruns with the same output file is not resumed into the old code's trials. Parameters are stored and hashed with
their secrets removed (`without_secrets`): an API key never reaches a fingerprint, a record,
a run file or a database row, and changing it changes nothing that was measured.

`fingerprint_of` is the sha256 of the fields' canonical JSON (sorted keys, no spaces, UTF-8);
`difference` says in words which fields two runs disagree on.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# A parameter whose name contains one of these is a credential, dropped wherever the
# parameters are fingerprinted ("Authorization", "extra_headers", "aws_secret_access_key").
SECRET_MARKERS = (
    "api_key",
    "apikey",
    "token",
    "secret",
    "password",
    "passwd",
    "authorization",
    "header",
    "credential",
)
# Token counts are settings, not credentials: `max_tokens` changes what the model says.
_TOKEN_COUNT = re.compile(r"^(max|min)_(\w+_)?tokens$")

# The packages whose source decides what a trial does: the engine and the domains (their
# tools, rules, tasks and the policy text the agent reads).
_SOURCE_ROOTS = ("engine", "domains")

# The fields in the order a difference names them, with the words that name them.
LABELS: dict[str, str] = {
    "agent": "agent",
    "agent_params": "agent parameters",
    "agent_code": "agent's code",
    "user": "user simulator",
    "user_params": "user simulator parameters",
    "user_code": "user simulator's code",
    "judge": "judge model",
    "judge_params": "judge parameters",
    "domains": "domains",
    "split": "split",
    "task_ids": "tasks",
    "num_tasks": "tasks sampled",
    "personas": "personas",
    "seed": "seed",
    "trials": "trials per task",
    "guard_mode": "guard mode",
    "solo": "solo mode (the agent holds the customer's tools)",
    "limits": "limits",
    "code": "code version",
}
_PLURAL = frozenset({"domains", "task_ids", "personas", "limits"})


def is_secret(name: str) -> bool:
    """A parameter name that holds a credential (see SECRET_MARKERS)."""
    lowered = name.lower()
    if _TOKEN_COUNT.match(lowered):
        return False
    return any(marker in lowered for marker in SECRET_MARKERS)


def without_secrets(value: Any) -> Any:
    """`value` with every mapping entry named like a credential removed, at any depth."""
    if isinstance(value, Mapping):
        return {str(k): without_secrets(v) for k, v in value.items() if not is_secret(str(k))}
    if isinstance(value, list | tuple):
        return [without_secrets(v) for v in value]
    return value


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def fingerprint_of(fields: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical_json(fields).encode()).hexdigest()


def json_native(value: Any) -> Any:
    """`value` as JSON gives it back (tuples become lists): fields read back from a file or a
    database row compare equal to freshly computed ones."""
    return json.loads(canonical_json(value))


@functools.cache
def source_digest() -> str:
    """sha256 over the relative path and bytes of every source file under evals/engine and
    evals/domains (bytecode caches and dotfiles left out), computed once per process: cheap
    (a few MB) and the same wherever the same code is installed, unlike `git describe`."""
    base = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for root in _SOURCE_ROOTS:
        files = sorted(
            p
            for p in (base / root).rglob("*")
            if p.is_file()
            and p.suffix not in (".pyc", ".pyo")
            and not any(part == "__pycache__" or part.startswith(".") for part in p.parts)
        )
        for path in files:
            data = path.read_bytes()
            name = path.relative_to(base).as_posix().encode()
            digest.update(b"%d:%s%d:" % (len(name), name, len(data)))
            digest.update(data)
    return digest.hexdigest()


def python_code_digest(name: str) -> str:
    """sha256 of the source file of a `python:module:function` name's module, found as the
    registry would import it (`importlib.util.find_spec`, which runs no more than the parent
    packages' imports); "" for any other name, or a module with no source file to read (the
    run then fails on resolving the name)."""
    if not name.startswith("python:"):
        return ""
    module = name.removeprefix("python:").partition(":")[0]
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return ""
    origin = Path(spec.origin) if spec is not None and spec.origin else None
    if origin is None or not origin.is_file():
        return ""
    return hashlib.sha256(origin.read_bytes()).hexdigest()


def _shown(name: str, value: Any) -> str:
    if name in ("code", "agent_code", "user_code") and isinstance(value, str) and value:
        return value[:12]
    if name == "task_ids" and not value:
        return "all of the split"
    if name == "num_tasks" and not value:
        return "all"
    if isinstance(value, list):
        return ",".join(str(v) for v in value) if value else "none"
    if isinstance(value, Mapping):
        return canonical_json(value) if value else "none"
    if value == "" or value is None:
        return "none"
    return str(value)


def differing(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The names of the fields on which `old` and `new` differ, in LABELS order."""
    names = list(LABELS) + sorted((set(old) | set(new)) - set(LABELS))
    return [n for n in names if (n in old or n in new) and old.get(n) != new.get(n)]


def difference(old: Mapping[str, Any], new: Mapping[str, Any], *, now: str = "this run's") -> str:
    """E.g. "agent sandbox/reference, this run's agent is sandbox/fault:do_nothing" — one
    clause per differing field, joined by "; " ("" when they agree)."""
    clauses = []
    for name in differing(old, new):
        label = LABELS.get(name, name)
        verb = "are" if name in _PLURAL or label.endswith("parameters") else "is"
        clauses.append(
            f"{label} {_shown(name, old.get(name))}, {now} {label} {verb} "
            f"{_shown(name, new.get(name))}"
        )
    return "; ".join(clauses)
