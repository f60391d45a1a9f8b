"""Agents written to cheat the go-live verdict, run the way a user runs them: each one through
`python -m evals.engine run` (one whole process, trajectories written), and through
`python manage.py golive run --suite default --agent ...` on a throw-away SQLite database for
the verdict and exit code the CI gate would see.

    .venv/bin/python bench/adversaries.py [--domains retail,membership] [--trials 4]
        [--personas baseline,impatient,skeptical,confused] [--no-golive] [--markdown]

For every adversary and domain it prints pass^1 and pass^4 as the engine reports them, and the
same pass^k recomputed here from the trial lines with every excluded trial (infrastructure,
simulator error, not judged) counted as a failure — an independent figure, so the table can be
taken on an old checkout too. "resume" runs the reference agent into a file, then the
do-nothing agent with the same --out: what a resumed run reports.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from math import comb
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
ADVERSARIES = [
    "sandbox/fault:do_nothing",
    "sandbox/adversary:stall",
    "sandbox/adversary:blanket_refuser",
    "sandbox/adversary:transfer_proposer",
    "sandbox/adversary:sometimes_stop",
]
EXCLUDED = ("infrastructure_error", "simulator_error")


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True", DEBUG="0")
    env.update(extra)
    return env


def engine_run(
    agent: str, out: Path, args: argparse.Namespace
) -> tuple[dict[str, Any] | None, str]:
    """The engine's JSON report (None when the command refused to run) and its stderr's
    last line."""
    cmd = [PY, "-m", "evals.engine", "run", "--domain", args.domains, "--trials", str(args.trials)]
    cmd += ["--personas", args.personas, "--agent", agent, "--out", str(out), "--json"]
    cmd += ["--seed", str(args.seed), "--ks", f"1,{args.k}"]
    done = subprocess.run(cmd, cwd=ROOT, env=_env(), capture_output=True, text=True)
    last = (done.stderr.strip().splitlines() or [""])[-1]
    if done.returncode != 0:
        return None, last
    return json.loads(done.stdout), last


def counted_as_failure(path: Path, k: int) -> dict[str, float]:
    """pass^k per domain over the latest line of each unit, excluded trials as failures."""
    latest: dict[str, dict[str, Any]] = {}
    with path.open() as handle:
        for line in handle:
            try:
                d = json.loads(line)
            except ValueError:
                continue
            latest[f"{d['domain']}/{d['task_id']}/{d['persona']}/{d['trial']}"] = d
    cells: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for d in latest.values():
        cell = cells[(d["domain"], d["task_id"], d["persona"])]
        cell[0] += 1
        counted = d["termination"] not in EXCLUDED and d.get("failure") != "not_judged"
        cell[1] += int(counted and d["reward"] >= 1.0)
    by_domain: dict[str, list[float]] = defaultdict(list)
    for (domain, _, _), (n, c) in cells.items():
        if n >= k:
            by_domain[domain].append(comb(c, k) / comb(n, k))
    return {d: sum(v) / len(v) for d, v in sorted(by_domain.items())}


def golive(agent: str, db: Path, args: argparse.Namespace) -> str:
    out = db.with_suffix(".json")
    cmd = [PY, "manage.py", "golive", "run", "--suite", "default", "--agent", agent]
    cmd += ["--no-progress", "--json", str(out)]
    env = _env(DATABASE_URL=f"sqlite:///{db}", SECRET_KEY="bench-adversaries")
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if out.exists():
        verdict = json.loads(out.read_text()).get("verdict") or "none"
        out.unlink()
    else:
        verdict = (done.stderr.strip().splitlines() or ["?"])[-1][:80]
    return f"{verdict} (exit {done.returncode})"


def _figure(report: dict[str, Any] | None, domain: str, k: int) -> str:
    if report is None:
        return "refused"
    est = report.get("by_domain", {}).get(domain, {}).get(str(k))
    return "n/a" if est is None else f"{est['value']:.3f}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--domains", default="retail,membership")
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--personas", default="baseline,impatient,skeptical,confused")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--no-golive", action="store_true", help="skip the verdict column")
    args = parser.parse_args()
    domains = [d for d in args.domains.split(",") if d]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "golive.sqlite3"
        if not args.no_golive:
            env = _env(DATABASE_URL=f"sqlite:///{db}", SECRET_KEY="bench-adversaries")
            subprocess.run(
                [PY, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=env, check=True
            )
        cases = [(a, a) for a in ADVERSARIES] + [("resume", "sandbox/fault:do_nothing")]
        for name, agent in cases:
            out = Path(tmp) / f"{len(rows)}.jsonl"
            note = ""
            if name == "resume":
                engine_run("sandbox/reference", out, args)
            report, last = engine_run(agent, out, args)
            if report is None:
                note = last
            strict = counted_as_failure(out, args.k) if out.exists() else {}
            verdict = "" if args.no_golive or name == "resume" else golive(agent, db, args)
            for domain in domains:
                rows.append(
                    {
                        "agent": name,
                        "domain": domain,
                        "pass^1": _figure(report, domain, 1),
                        f"pass^{args.k}": _figure(report, domain, args.k),
                        f"pass^{args.k} excluded as failures": (
                            f"{strict[domain]:.3f}" if domain in strict else "n/a"
                        ),
                        "verdict": verdict,
                        "note": note,
                    }
                )
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
