"""The engine's command line as a user runs it: CPU per LLM call of the whole process.

    .venv/bin/python bench/cli_calls.py [--trials 20] [--workers 1,8] [--repeats 2]

Starts the local OpenAI-compatible test server (asyncio mode, its own process, answering
instantly, scripted like a real τ² conversation by `tests.evals_tau2.tau2_conversation`),
then runs `python -m evals.engine run --domain tau2_mock` in a subprocess with the LiteLLM
agent and customer pointed at it through --agent-args / --user-args (no environment
variables), trajectories written to a JSON-lines file as a user's run writes them. For each
run: the process's CPU (user + system, from the kernel's accounting of the finished child),
its wall time, the LLM calls it made (from the records' usage) and so the CPU per call,
startup included; then the same process with --trials 1 --num-tasks 1 gives the fixed cost
(startup, imports, plan, one trial). The server's CPU is read from /proc and given apart.
Prints one JSON object; the 1-minute load average is given with every row.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# bench/ is not a package: its scripts import each other from their own directory.
from latency import TAU2_HANDLER, process_cpu_s, start_server, stop_server  # noqa: E402


def cli_run(url: str, out: Path, trials: int, workers: int, *extra: str) -> dict:
    args = json.dumps({"api_base": url, "api_key": "bench"})
    command = [
        sys.executable, "-m", "evals.engine", "run", "--domain", "tau2_mock",
        "--trials", str(trials), "--ks", "1", "--workers", str(workers),
        "--agent", "openai/tau2-agent", "--agent-args", args,
        "--user", "openai/tau2-user", "--user-args", args, "--out", str(out), *extra,
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        command,
        cwd=ROOT,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    calls = sum(r["usage"].get("agent.calls", 0) + r["usage"].get("user.calls", 0) for r in records)
    assert done.returncode == 0
    return {
        "trials": len(records),
        "workers": workers,
        "llm_calls": int(calls),
        "cpu_s": round(cpu, 3),
        "wall_s": round(wall, 3),
        "cpu_ms_per_call": round(cpu / calls * 1000, 3) if calls else None,
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=20, help="trials per task")
    parser.add_argument("--workers", default="1,8")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    server, url = start_server(0.0, "--handler", TAU2_HANDLER)
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for n in range(args.repeats):
                fixed = cli_run(url, Path(tmp) / f"fixed-{n}.jsonl", 1, 1, "--num-tasks", "1")
                fixed["kind"] = "fixed cost (startup + 1 trial)"
                rows.append(fixed)
                print(json.dumps(fixed), file=sys.stderr, flush=True)
                for workers in [int(w) for w in args.workers.split(",")]:
                    server_cpu = process_cpu_s(server.pid)
                    row = cli_run(url, Path(tmp) / f"run-{n}-{workers}.jsonl", args.trials, workers)
                    row["server_cpu_ms_per_call"] = round(
                        (process_cpu_s(server.pid) - server_cpu) / row["llm_calls"] * 1000, 3
                    )
                    row["cpu_ms_per_call_after_fixed"] = round(
                        (row["cpu_s"] - fixed["cpu_s"]) / row["llm_calls"] * 1000, 3
                    )
                    row["kind"] = "run"
                    rows.append(row)
                    print(json.dumps(row), file=sys.stderr, flush=True)
    finally:
        stop_server(server)
    print(json.dumps({"rows": rows}, indent=2))


if __name__ == "__main__":
    main()
