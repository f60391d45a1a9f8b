"""The persona-effect table: what each persona dimension does to the reference agent.

For every dimension, the persona at its high and low setting (over the background that lets
its mechanism show, as in tests/evals_engine/test_persona_effects.py) is run with the
reference agent on retail and membership; printed per side: mean agent turns, the share of
trials the customer abandoned, and pass^1. docs/evals-engine.md ("Personas") explains each
mechanism and quotes this table.

    .venv/bin/python bench/personas.py [--domains retail,membership] [--trials 4] [--seed 7]
        [--markdown]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from statistics import mean

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from evals.engine.messages import TerminationReason  # noqa: E402
from evals.engine.metrics import summarise  # noqa: E402
from evals.engine.runner import MemorySink, RunSpec, run  # noqa: E402

# Long conversations (typos, why-questions, read-backs): where budgets and tolerances bite.
LONG = "incoherence=high,skepticism=high,trust=low"
# dimension -> (high, low) persona specs.
DIMENSIONS: dict[str, tuple[str, str]] = {
    "impatience": (f"{LONG},impatience=high", f"{LONG},impatience=low"),
    "urgency": (f"{LONG},impatience=high,urgency=high", f"{LONG},impatience=high,urgency=low"),
    "skepticism": ("skepticism=high", "skepticism=low"),
    "confusion": ("confusion=high", "confusion=low"),
    "incoherence": ("incoherence=high", "incoherence=low"),
    "anxiety": ("emotion=anxiety:high", "emotion=none"),
    "distrust (trust low vs high)": ("trust=low", "trust=high"),
    "emotion (anger vs sadness)": (
        "incoherence=high,emotion=anger:high,politeness=low",
        "incoherence=high,emotion=sadness:high,politeness=low",
    ),
    "rudeness (politeness low vs high)": (
        "incoherence=high,emotion=anger:high,politeness=low",
        "incoherence=high,emotion=anger:high,politeness=high",
    ),
}


def measure(domains: tuple[str, ...], persona: str, trials: int, seed: int) -> tuple[float, ...]:
    """(mean agent turns, abandonment rate, pass^1) of the reference agent."""
    sink = MemorySink()
    spec = RunSpec(
        domains=domains, personas=(persona,), trials=trials, seed=seed, include_trajectory=False
    )
    run(spec, sink, ks=(1,))
    records = sink.records
    abandoned = sum(r.termination == TerminationReason.USER_ABANDON for r in records)
    pass1 = summarise(records, ks=(1,), seed=seed).pass_hat[1].value
    return mean(r.agent_turns for r in records), abandoned / len(records), pass1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domains", default="retail,membership")
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    domains = tuple(d for d in args.domains.split(",") if d)
    header = ["dimension", "side", "persona", "turns", "abandoned", "pass^1"]
    rows = []
    for dimension, sides in DIMENSIONS.items():
        for side, persona in zip(("high", "low"), sides, strict=True):
            turns, abandoned, pass1 = measure(domains, persona, args.trials, args.seed)
            rows.append(
                [dimension, side, persona, f"{turns:.2f}", f"{abandoned:.3f}", f"{pass1:.3f}"]
            )
            print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"reference agent, {'+'.join(domains)}, {args.trials} trials, seed {args.seed}")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))


if __name__ == "__main__":
    main()
