"""What each persona dimension does to the reference agent, and the default suite per persona.

Two tables, each printed with the command's settings:

- the persona-effect table (default): for every dimension, the persona at its high and low
  setting is run with the reference agent on retail and membership; per side the mean agent
  turns, the share of trials the customer abandoned, and pass^1. docs/golive.md ("Persona
  mechanisms") explains each mechanism and quotes this table.
- `--suite default`: the suite's domains, personas, trials, seed and limits, with pass^1 and
  pass^4 per domain and persona (what the gate sees, cell by cell).

    .venv/bin/python bench/personas.py [--domains retail,membership] [--trials 4] [--seed 7]
    .venv/bin/python bench/personas.py --suite default [--agent-params phrasing=zh]
"""

from __future__ import annotations

import argparse
import os
import sys
import tomllib
from pathlib import Path
from statistics import mean
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from evals.engine.messages import GuardMode, TerminationReason  # noqa: E402
from evals.engine.metrics import summarise  # noqa: E402
from evals.engine.orchestrator import Limits  # noqa: E402
from evals.engine.runner import MemorySink, RunSpec, run  # noqa: E402

# dimension -> (high, low) persona specs; each side differs from the other in that dimension
# only, over a background that lets its mechanism show.
LONG = "incoherence=high,skepticism=high,trust=low"
DIMENSIONS: dict[str, tuple[str, str]] = {
    "impatience": ("impatience=high", "impatience=low"),
    "urgency": ("impatience=high,urgency=high", "impatience=high,urgency=low"),
    # Long conversations (typos, why-questions, read-backs): where the budgets bite.
    "impatience (long conversations)": (f"{LONG},impatience=high", f"{LONG},impatience=low"),
    "urgency (long conversations)": (
        f"{LONG},impatience=high,urgency=high",
        f"{LONG},impatience=high,urgency=low",
    ),
    "skepticism": ("skepticism=high", "skepticism=low"),
    "confusion": ("confusion=high", "confusion=low"),
    "incoherence": ("incoherence=high", "incoherence=low"),
    "anxiety": ("emotion=anxiety:high", "emotion=none"),
    "distrust (trust low vs high)": ("trust=low", "trust=high"),
    "hostility (anger vs sadness, impolite)": (
        "emotion=anger:high,politeness=low",
        "emotion=sadness:high,politeness=low",
    ),
    "rudeness (politeness low vs high, angry)": (
        "emotion=anger:high,politeness=low",
        "emotion=anger:high,politeness=high",
    ),
}


def _params(pairs: str) -> dict[str, Any]:
    return dict(p.split("=", 1) for p in pairs.split(",") if p)


def _records(spec: RunSpec, ks: tuple[int, ...]) -> list[Any]:
    sink = MemorySink()
    run(spec, sink, ks=ks)
    return list(sink.records)


def measure(
    domains: tuple[str, ...], persona: str, trials: int, seed: int, agent_params: dict[str, Any]
) -> tuple[float, float, float]:
    """(mean agent turns, abandonment rate, pass^1) of the reference agent."""
    spec = RunSpec(
        domains=domains,
        personas=(persona,),
        trials=trials,
        seed=seed,
        agent_params=agent_params,
        include_trajectory=False,
    )
    records = _records(spec, (1,))
    abandoned = sum(r.termination == TerminationReason.USER_ABANDON for r in records)
    pass1 = summarise(records, ks=(1,), seed=seed).pass_hat[1].value
    return mean(r.agent_turns for r in records), abandoned / len(records), pass1


def _print(header: list[str], rows: list[list[str]]) -> None:
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


def effect_table(args: argparse.Namespace) -> None:
    domains = tuple(d for d in args.domains.split(",") if d)
    params = _params(args.agent_params)
    rows = []
    for dimension, sides in DIMENSIONS.items():
        if args.only and args.only not in dimension:
            continue
        for side, persona in zip(("high", "low"), sides, strict=True):
            turns, abandoned, pass1 = measure(domains, persona, args.trials, args.seed, params)
            rows.append(
                [dimension, side, persona, f"{turns:.2f}", f"{abandoned:.3f}", f"{pass1:.3f}"]
            )
            print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(
        f"reference agent {params or ''}, {'+'.join(domains)}, {args.trials} trials, "
        f"seed {args.seed}"
    )
    _print(["dimension", "side", "persona", "turns", "abandoned", "pass^1"], rows)


def suite_table(args: argparse.Namespace) -> None:
    path = ROOT / "suites" / f"{args.suite}.toml"
    suite = tomllib.loads(path.read_text())
    limits = suite.get("limits", {})
    domains = tuple(d["name"] for d in suite["domains"])
    params = {**suite.get("agent", {}).get("params", {}), **_params(args.agent_params)}
    rows = []
    for domain in domains:
        for persona in suite["personas"]:
            spec = RunSpec(
                domains=(domain,),
                personas=(persona,),
                trials=suite["trials"],
                seed=suite["seed"],
                agent_params=params,
                guard_mode=GuardMode(suite.get("guard_mode", "enforce")),
                limits=Limits(**limits),
                include_trajectory=False,
            )
            records = _records(spec, (1, 4))
            report = summarise(records, ks=(1, 4), seed=suite["seed"])
            abandoned = sum(r.termination == TerminationReason.USER_ABANDON for r in records)
            rows.append(
                [
                    domain,
                    persona,
                    str(len(records)),
                    f"{report.pass_hat[1].value:.3f}",
                    f"{report.pass_hat[4].value:.3f} (low {report.pass_hat[4].low:.3f})",
                    str(abandoned),
                    f"{mean(r.agent_turns for r in records):.2f}",
                ]
            )
            print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"suite {args.suite}, agent params {params or '{}'}, seed {suite['seed']}")
    _print(["domain", "persona", "trials", "pass^1", "pass^4", "abandoned", "turns"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--domains", default="retail,membership")
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--agent-params", default="", help="e.g. phrasing=zh")
    parser.add_argument("--suite", default="", help="a suite in suites/: pass^k per cell")
    parser.add_argument("--only", default="", help="the dimensions whose name contains this")
    args = parser.parse_args()
    if args.suite:
        suite_table(args)
    else:
        effect_table(args)


if __name__ == "__main__":
    main()
