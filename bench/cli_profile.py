"""A cProfile of `python -m evals.engine run` as a user runs it (issue 17), on the stub that
bench/cli_rate.py uses, one trial at a time (`--workers 1` runs the trials on the main thread,
so cProfile sees all of them):

    flock /work/notes/bench.lock .venv/bin/python bench/cli_profile.py [--trials 3] [--top 25]

Prints where the process's CPU time goes (cProfile on the CPU clock): startup (imports) apart from the trials, the share of
the trials' time inside the model call (`litellm.completion` or the direct path's `send`)
and the functions with the most cumulative and own time. Set EVALS_LLM_DIRECT=0 to profile
the LiteLLM path.
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from latency import TAU2_HANDLER, start_server, stop_server  # noqa: E402

# Where a model call's time is spent, whichever path takes it.
CALLS = (
    ("litellm/main.py", "completion"),
    ("evals/engine/llm/direct.py", "send"),
)


# `python -m cProfile` times the wall clock: a model call would count its wait for the
# server. This profiles the CLI on the process's CPU clock instead.
PROFILED = """
import cProfile, runpy, sys, time
out = sys.argv[1]
sys.argv = ["evals.engine", *sys.argv[2:]]
profile = cProfile.Profile(time.process_time)
profile.enable()
try:
    runpy.run_module("evals.engine", run_name="__main__", alter_sys=True)
except SystemExit as exit:
    if exit.code:
        raise
finally:
    profile.disable()
    profile.dump_stats(out)
"""


def cumulative(stats: pstats.Stats, file_end: str, name: str) -> float:
    table = stats.stats  # type: ignore[attr-defined]
    return sum(
        row[3] for (path, _, func), row in table.items() if path.endswith(file_end) and func == name
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=3, help="trials per task")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    server, url = start_server(0.0, "--handler", TAU2_HANDLER)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            out, prof = Path(tmp) / "run.jsonl", Path(tmp) / "run.prof"
            params = json.dumps({"api_base": url, "api_key": "bench"})
            command = [
                sys.executable, "-c", PROFILED, str(prof), "run", "--domain", "tau2_mock", "--trials", str(args.trials), "--ks", "1",
                "--workers", "1", "--agent", "openai/tau2-agent", "--agent-args", params,
                "--user", "openai/tau2-user", "--user-args", params, "--out", str(out),
            ]  # fmt: skip
            subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
            if os.environ.get("KEEP_PROF"):
                import shutil

                shutil.copy(prof, os.environ["KEEP_PROF"])
            records = [json.loads(line) for line in out.read_text().splitlines()]
            calls = sum(
                r["usage"].get("agent.calls", 0) + r["usage"].get("user.calls", 0) for r in records
            )
            stats = pstats.Stats(str(prof))
    finally:
        stop_server(server)
    total = stats.total_tt  # type: ignore[attr-defined]
    trials = cumulative(stats, "evals/engine/runner/execute.py", "run")
    model = sum(cumulative(stats, f, n) for f, n in CALLS)
    print(
        json.dumps(
            {
                "trials": len(records),
                "llm_calls": calls,
                "profiled_total_s": round(total, 3),
                "trials_s": round(trials, 3),
                "outside_trials_s": round(total - trials, 3),
                "model_calls_s": round(model, 3),
                "model_call_share_of_trials": round(model / trials, 3) if trials else None,
                "profiled_ms_per_call_in_trials": round(trials / calls * 1000, 3),
                "load_average_1m": round(os.getloadavg()[0], 2),
                "direct": os.environ.get("EVALS_LLM_DIRECT", "1") != "0",
            },
            indent=2,
        )
    )
    stats.sort_stats("cumulative").print_stats(args.top)
    stats.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
