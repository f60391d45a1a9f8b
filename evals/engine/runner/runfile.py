"""The run file beside a JSON-lines run: `<out>.run.json`, readable by its owner only (0600).

It holds what the trial lines must not: the run's fingerprinted fields (secret-free — what a
refusal names when another run would be appended) and the run's agent-seed key (hex), so a
resume gives the agents of the remaining units the seeds the first part would have given
them. It is written when a run starts on a file that holds no trials, and read back when a
run resumes one.

`open_run` refuses (`ResumeRefused`, a one-line reason) to append to a file that holds
trials of another run: another fingerprint, no fingerprint (lines written before
fingerprints existed), or trials whose run file is gone (their agents' seeds are lost).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.engine.errors import EngineError
from evals.engine.runner.fingerprint import difference, fingerprint_of
from evals.engine.runner.records import TrialRecord
from evals.engine.runner.spec import AGENT_KEY_BYTES, RunSpec, new_agent_key

RUN_FILE_SUFFIX = ".run.json"
DEFAULT_DIR = Path("var/evals")


class ResumeRefused(EngineError):
    """Appending would mix two runs' trials; `str()` is the one-line reason."""


@dataclass(frozen=True)
class RunFile:
    path: Path
    fields: Mapping[str, Any]
    agent_key: bytes = field(repr=False)

    @property
    def fingerprint(self) -> str:
        return fingerprint_of(self.fields)


def run_file_path(out: str | os.PathLike[str]) -> Path:
    out = Path(out)
    return out.with_name(out.name + RUN_FILE_SUFFIX)


def default_out(spec: RunSpec, directory: Path = DEFAULT_DIR) -> Path:
    """`<domains>-<seed>-<fingerprint[:12]>.jsonl`: a run of another agent (or anything else
    fingerprinted) lands in its own file instead of resuming this one."""
    return directory / f"{'-'.join(spec.domains)}-{spec.seed}-{spec.fingerprint()[:12]}.jsonl"


def _write(path: Path, fields: Mapping[str, Any], key: bytes) -> RunFile:
    """Write atomically (a temporary file renamed over the old one), 0600 from creation."""
    path.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps(
        {"fingerprint": fingerprint_of(fields), "fields": fields, "agent_key": key.hex()},
        indent=2,
        sort_keys=True,
    ).encode()
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # the mode given to open() is narrowed by umask only, never widened
        os.write(fd, body + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return RunFile(path, fields, key)


def read_run_file(path: Path) -> RunFile | None:
    """The run file at `path`, None when there is none; ResumeRefused when it is unreadable."""
    try:
        data = json.loads(path.read_bytes())
        key = bytes.fromhex(data["agent_key"])
        fields = data["fields"]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ResumeRefused(f"{path} is not a readable run file ({exc})") from None
    if len(key) != AGENT_KEY_BYTES or not isinstance(fields, dict):
        raise ResumeRefused(f"{path} is not a readable run file (bad key or fields)")
    return RunFile(path, fields, key)


def open_run(out: str | os.PathLike[str], spec: RunSpec, records: Iterable[TrialRecord]) -> RunFile:
    """The run file for appending `spec`'s trials to `out`, which holds `records`: a new one
    (a new key) when `out` holds no trials, the stored one when they are this very run's;
    ResumeRefused otherwise. Nothing is written when it refuses."""
    fields = spec.fingerprint_fields()
    path = run_file_path(out)
    fingerprints = {r.fingerprint for r in records}
    if not fingerprints:
        return _write(path, fields, new_agent_key())
    if "" in fingerprints:
        raise ResumeRefused(f"{out} holds trials that predate run fingerprints")
    stored = read_run_file(path)
    if stored is not None and stored.fields != fields:
        raise ResumeRefused(f"{out} holds trials of {difference(stored.fields, fields)}")
    # Trials of another fingerprint while the run file (if any) is this run's: lines appended
    # from elsewhere, or a run file replaced. Which fields differ is not known here.
    foreign = fingerprints - {fingerprint_of(fields)}
    if foreign:
        raise ResumeRefused(
            f"{out} holds trials of another run (fingerprint "
            f"{', '.join(sorted(fp[:12] for fp in foreign))}), this run's fingerprint is "
            f"{fingerprint_of(fields)[:12]}"
        )
    if stored is None:
        raise ResumeRefused(
            f"{out} holds trials of this run but not its run file {path.name}, which keeps "
            "their agents' seed key"
        )
    return stored
