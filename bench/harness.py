"""Offline harness figures for any registered domain with sandbox models.

    .venv/bin/python bench/harness.py [--domains retail,membership] [--workers 4]
                                      [--memory-trials 10000]

Prints JSON: trials/s and harness overhead per turn (time not spent inside agent.respond or
user.respond, including tool execution, the guard, world copies and the oracle) at
4 trials x 7 personas, single-threaded and on a thread pool; peak RSS sampled as a long run
grows (trials streamed to a JSON-lines file, aggregated incrementally); and the reference
agent's pass^1 and pass^4 per persona.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evals.domains import domain_names, get_domain
from evals.engine.persona import PRESETS
from evals.engine.runner import JsonlSink, MemorySink, RunSpec, plan, run

PERSONAS = tuple(PRESETS)


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _throughput(domain: str, workers: int) -> dict[str, object]:
    spec = RunSpec(domains=(domain,), personas=PERSONAS, trials=4, seed=1, include_trajectory=False)
    plan(spec)  # load the domain and its tasks outside the timing
    sink = MemorySink()
    started, cpu_started = time.perf_counter(), time.process_time()
    report = run(spec, sink, workers=workers, ks=(1, 4))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    records = sink.records
    harness = sum(r.seconds - r.participant_seconds for r in records)
    calls = sum(r.participant_calls for r in records)
    return {
        "trials": len(records),
        "workers": workers,
        "wall_s": round(wall, 3),
        "trials_per_s": round(len(records) / wall, 1),
        # CPU time of this process: the figure that does not depend on other load on the box.
        "trials_per_cpu_s": round(len(records) / cpu, 1),
        "turns": calls,
        "overhead_ms_per_turn": round(1000 * harness / max(calls, 1), 4),
        "participant_ms_per_turn": round(
            1000 * sum(r.participant_seconds for r in records) / max(calls, 1), 4
        ),
        "pass_hat": {
            persona: {f"pass^{k}": round(e.value, 3) for k, e in ests.items()}
            for persona, ests in report.by_persona.items()
        },
        "pass_hat_all": {f"pass^{k}": round(e.value, 3) for k, e in report.pass_hat.items()},
        "failures": dict(report.failures),
    }


def _memory(domain: str, trials: int, workers: int) -> dict[str, object]:
    n_units = len(plan(RunSpec(domains=(domain,), personas=PERSONAS, trials=1)))
    per_cell = max(1, -(-trials // n_units))  # at least `trials` in total
    spec = RunSpec(domains=(domain,), personas=PERSONAS, trials=per_cell, seed=2)
    samples: list[tuple[int, float]] = []
    step = max(1, (n_units * per_cell) // 10)

    def progress(_record: object, done: int, total: int) -> None:
        if done % step == 0 or done == total:
            samples.append((done, round(_rss_mb(), 1)))

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trials.jsonl"
        started = time.perf_counter()
        with JsonlSink(path) as sink:
            run(spec, sink, workers=workers, on_progress=progress, ks=(1,))
        wall = time.perf_counter() - started
        size = path.stat().st_size
        lines = sum(1 for _ in path.open("rb"))
    return {
        "trials": lines,
        "with_trajectories": True,
        "wall_s": round(wall, 1),
        "trials_per_s": round(lines / wall, 1),
        "jsonl_mb": round(size / 2**20, 1),
        "peak_rss_mb_as_run_grows": " ".join(f"{n}:{mb}" for n, mb in samples),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--domains", default="")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--memory-trials", type=int, default=10_000)
    args = parser.parse_args()
    names = [d for d in args.domains.split(",") if d] or [
        n for n in domain_names() if not n.startswith("tau2")
    ]
    figures: dict[str, object] = {"rss_mb_at_start": round(_rss_mb(), 1)}
    for name in names:
        domain = get_domain(name)
        if domain.reference_agent is None or domain.scripted_user is None:
            continue
        figures[name] = {
            "single_thread": _throughput(name, 1),
            "thread_pool": _throughput(name, args.workers),
        }
    if args.memory_trials:
        figures["memory"] = _memory(names[0], args.memory_trials, 1)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
