"""Agents written to cheat the go-live verdict, run the way a user runs them: each one through
`python -m evals.engine run` (one whole process, trajectories written), and through
`python manage.py golive run --suite default --agent ...` on a throw-away SQLite database for
the verdict and exit code the CI gate would see.

    .venv/bin/python bench/adversaries.py [--domains retail,membership,tau2_mock,tau2_retail]
        [--trials 4] [--personas baseline,impatient,skeptical,confused] [--no-golive]
        [--markdown] [--root PATH]

For every adversary and domain it prints pass^1 and pass^4 as the engine reports them, and the
same pass^k recomputed here from the trial lines with every excluded trial (infrastructure,
simulator error, not judged) counted as a failure — an independent figure, so the table can be
taken on an old checkout too: `--root PATH` runs every command in another checkout (its
code on PYTHONPATH, this interpreter), e.g. a `git worktree` of the commit before a change.
"resume" runs the reference agent into a file, then the do-nothing agent with the same --out:
what a resumed run reports. The verdict is `golive run --suite default` over the same
domains, personas and trials (one gate over all the offline domains).

`tau2_retail` has no offline customer: its runs (baseline persona only) talk to the scripted
τ² customer of tests/support/tau2_script.py (`openai/tau2-user`) on a local
OpenAI-compatible server this script starts; the resume case's first agent is that module's
scripted agent (`openai/tau2-agent`), and the adversaries that wrap a domain's reference
agent do not apply (the domain has none). Its prose assertions have no judge here, so its
tasks judged in prose are planned and reported `not judged`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
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
WRAPPERS = ("sandbox/adversary:transfer_proposer", "sandbox/adversary:sometimes_stop")
LLM_DOMAINS = ("tau2_retail",)  # no offline customer: the scripted τ² customer over HTTP
TAU2_USER, TAU2_AGENT = "openai/tau2-user", "openai/tau2-agent"


def _env(args: argparse.Namespace, **extra: str) -> dict[str, str]:
    env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True", DEBUG="0")
    env["PYTHONPATH"] = str(args.root)
    if args.api_base:
        env.update(OPENAI_API_BASE=args.api_base, OPENAI_API_KEY="bench")
    env.update(extra)
    return env


@dataclass
class Group:
    """Domains run together in one engine process, with their customer."""

    domains: list[str]
    user: str
    personas: str
    reference: str  # the first agent of the resume case


def engine_run(
    agent: str, out: Path, group: Group, args: argparse.Namespace
) -> tuple[dict[str, Any] | None, str]:
    """The engine's JSON report (None when the command refused to run) and its stderr's
    last line."""
    cmd = [PY, "-m", "evals.engine", "run", "--domain", ",".join(group.domains)]
    cmd += ["--trials", str(args.trials), "--user", group.user]
    cmd += ["--personas", group.personas, "--agent", agent, "--out", str(out), "--json"]
    cmd += ["--seed", str(args.seed), "--ks", f"1,{args.k}"]
    done = subprocess.run(cmd, cwd=args.root, env=_env(args), capture_output=True, text=True)
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


def golive(agent: str, db: Path, group: Group, args: argparse.Namespace) -> str:
    out = db.with_suffix(".json")
    cmd = [PY, "manage.py", "golive", "run", "--suite", "default", "--agent", agent]
    cmd += ["--domains", ",".join(group.domains), "--personas", group.personas]
    cmd += ["--trials", str(args.trials), "--user", group.user]
    cmd += ["--no-progress", "--json", str(out)]
    env = _env(args, DATABASE_URL=f"sqlite:///{db}", SECRET_KEY="bench-adversaries", DEBUG="1")
    done = subprocess.run(cmd, cwd=args.root, env=env, capture_output=True, text=True)
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


def _server() -> tuple[subprocess.Popen[str], str]:
    """The local OpenAI-compatible server answering as tests/support/tau2_script.py."""
    cmd = [PY, "-m", "tests.support.openai_server", "--asyncio"]
    cmd += ["--handler", "tests.support.tau2_script:handler"]
    env = dict(os.environ, PYTHONPATH=str(ROOT), DEBUG="0")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip().rstrip("/") + "/v1"


def _groups(args: argparse.Namespace) -> list[Group]:
    domains = [d for d in args.domains.split(",") if d]
    offline = [d for d in domains if d not in LLM_DOMAINS]
    llm = [d for d in domains if d in LLM_DOMAINS]
    groups = []
    if offline:
        groups.append(Group(offline, "sandbox/scripted", args.personas, "sandbox/reference"))
    if llm:
        groups.append(Group(llm, TAU2_USER, "baseline", TAU2_AGENT))
    return groups


def _markdown(rows: list[dict[str, Any]]) -> str:
    head = list(rows[0])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(r[h]) for h in head) + " |" for r in rows]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--domains", default="retail,membership")
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--personas", default="baseline,impatient,skeptical,confused")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--no-golive", action="store_true", help="skip the verdict column")
    parser.add_argument("--markdown", action="store_true", help="a markdown table, not JSON")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to run")
    args = parser.parse_args()
    args.root = args.root.resolve()
    args.api_base = ""
    groups = _groups(args)
    server = None
    if any(g.user == TAU2_USER for g in groups):
        server, args.api_base = _server()
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "golive.sqlite3"
            if not args.no_golive:
                env = _env(args, DATABASE_URL=f"sqlite:///{db}", SECRET_KEY="bench-adversaries")
                subprocess.run(
                    [PY, "manage.py", "migrate", "--no-input", "-v", "0"],
                    cwd=args.root,
                    env=env,
                    check=True,
                )
            for group in groups:
                rows += _group_rows(group, Path(tmp), db, args)
    finally:
        if server is not None:
            server.terminate()
            server.wait()
    if args.markdown:
        print(_markdown(rows))
    else:
        print(json.dumps(rows, indent=1))
    print(f"{time.perf_counter() - started:.0f} s, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    return 0


def _group_rows(
    group: Group, tmp: Path, db: Path, args: argparse.Namespace
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    cases = [(a, a) for a in ADVERSARIES] + [("resume", "sandbox/fault:do_nothing")]
    for name, agent in cases:
        if agent in WRAPPERS and group.user == TAU2_USER:
            continue  # wraps a reference agent the domain does not have
        out = tmp / f"{group.domains[0]}-{name.replace('/', '_')}.jsonl"
        note = ""
        if name == "resume":
            engine_run(group.reference, out, group, args)
        report, last = engine_run(agent, out, group, args)
        if report is None:
            note = last
        strict = counted_as_failure(out, args.k) if out.exists() else {}
        verdict = "" if args.no_golive or name == "resume" else golive(agent, db, group, args)
        for domain in group.domains:
            rows.append(
                {
                    "agent": name.removeprefix("sandbox/"),
                    "domain": domain,
                    "pass^1": _figure(report, domain, 1),
                    f"pass^{args.k}": _figure(report, domain, args.k),
                    f"pass^{args.k} excluded as failures": (
                        f"{strict[domain]:.3f}" if domain in strict else "n/a"
                    ),
                    "verdict": verdict,
                    "note": note.replace("|", "/")[:160],
                }
            )
    return rows


if __name__ == "__main__":
    raise SystemExit(main())
