"""The τ²-bench `tau2_mock` workload through our harness: 9 tasks x 20 trials = 180 trials,
the LiteLLM agent (`openai/tau2-agent`) and the LiteLLM user simulator (`openai/tau2-user`)
both answered instantly by the local OpenAI-compatible test server, in a child process (its
CPU is not ours), scripted by `tests.evals_tau2.tau2_conversation:handler` like a real τ²
conversation: the customer opens (after its own reads on a dual-control task), the agent
asks for the details, the customer gives them, the agent reads, summarises each write and
waits for a yes, writes one tool call per LLM turn, reads again, confirms; the customer does
its own writes where the task has them and closes with ###STOP###.

    .venv/bin/python bench/tau2_harness.py [--trials 20] [--workers 32] [--processes 2]
        [--asyncio-server]

Prints one JSON object: trials per second (wall), LLM calls per trial as measured by the
model client's accounting (agent + user, not assumed), the customer's own tool calls per
trial, mean reward from the oracle on each trial's real final world, the harness's CPU per
trial and per LLM call (the harness's processes — the engine, LiteLLM and the HTTP client —
not the server's), and the load
average (wall-clock rates mean little on a busy machine; CPU per trial does not depend on it).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import evals.engine.adapters  # noqa: E402, F401  (register before worker threads look up)
from evals.engine.llm import ModelClient, ProviderLimits  # noqa: E402
from evals.engine.llm.runtime import litellm_module  # noqa: E402
from evals.engine.llm.shared import set_default_client  # noqa: E402
from evals.engine.runner import MemorySink, RunSpec, run  # noqa: E402

HANDLER = "tests.evals_tau2.tau2_conversation:handler"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--workers", type=int, default=32, help="trials in flight, in all")
    parser.add_argument(
        "--processes",
        type=int,
        default=os.cpu_count() or 1,
        help="harness processes (default: one per core; 1 = threads only)",
    )
    parser.add_argument("--asyncio-server", action="store_true", help="the server's asyncio mode")
    args = parser.parse_args()
    command = [sys.executable, "-m", "tests.support.openai_server", "--handler", HANDLER]
    if args.asyncio_server:
        command.append("--asyncio")
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    try:
        litellm_module()
        set_default_client(ModelClient(limits=ProviderLimits(default=max(64, args.workers))))
        params = {"api_base": url, "api_key": "bench"}
        spec = RunSpec(
            domains=("tau2_mock",),
            trials=args.trials,
            agent="openai/tau2-agent",
            agent_params=params,
            user="openai/tau2-user",
            user_params=params,
            include_trajectory=False,
        )
        # Warm-up: imports, the server's task table, LiteLLM's first-call setup.
        run(RunSpec.from_dict({**spec.to_dict(), "trials": 1}), MemorySink(), workers=2)
        sink = MemorySink()
        load_before = os.getloadavg()
        c0, k0, w0 = time.process_time(), _children_cpu(), time.perf_counter()
        report = run(spec, sink, workers=args.workers, processes=args.processes, ks=(1,))
        wall = time.perf_counter() - w0
        # The shard processes have been joined by now; the server (also a child) has not,
        # so RUSAGE_CHILDREN holds the harness's children only.
        cpu = time.process_time() - c0 + _children_cpu() - k0
        load_after = os.getloadavg()
    finally:
        proc.kill()
        proc.wait()
    records = sink.records
    n = len(records)
    agent_calls = sum(r.usage.get("agent.calls", 0) for r in records)
    user_calls = sum(r.usage.get("user.calls", 0) for r in records)
    calls = agent_calls + user_calls
    per_task: dict[str, float] = {}
    for r in records:
        calls_here = r.usage.get("agent.calls", 0) + r.usage.get("user.calls", 0)
        per_task[r.task_id] = per_task.get(r.task_id, 0.0) + calls_here
    print(
        json.dumps(
            {
                "trials": n,
                "tasks": len(per_task),
                "workers": args.workers,
                "processes": args.processes,
                "seconds": round(wall, 3),
                "trials_per_s": round(n / wall, 2),
                "llm_calls_per_trial": round(calls / n, 2),
                "agent_calls_per_trial": round(agent_calls / n, 2),
                "user_calls_per_trial": round(user_calls / n, 2),
                "llm_calls_per_trial_by_task": {
                    t: round(c / args.trials, 2) for t, c in sorted(per_task.items())
                },
                "user_tool_calls_per_trial": round(sum(r.user_tool_calls for r in records) / n, 2),
                "mean_reward": round(sum(r.reward for r in records) / n, 3),
                "pass_hat_1": round(report.pass_hat[1].value, 3) if 1 in report.pass_hat else None,
                "failures": dict(report.failures),
                "infrastructure_errors": report.infrastructure_errors,
                "simulator_errors": report.simulator_errors,
                "harness_cpu_ms_per_trial": round(cpu / n * 1000, 3),
                "harness_cpu_ms_per_llm_call": round(cpu / calls * 1000, 3),
                "load_average_1m_before_after": [round(load_before[0], 2), round(load_after[0], 2)],
                "cpus": os.cpu_count(),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
