"""The τ²-bench `tau2_mock` workload through our harness: 9 tasks x 20 trials = 180 trials,
LiteLLM agent and LiteLLM user (`openai/tau2-agent`, `openai/tau2-user`) answered instantly
by the local OpenAI-compatible test server, running in a child process with the scripted
handler `tests.support.tau2_script:handler` (the agent plays each task's gold actions).

    .venv/bin/python bench/tau2_harness.py [--trials 20] [--workers 32]

Prints one JSON object: trials per second, LLM calls per trial, rewards, CPU per call.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import evals.engine.adapters  # noqa: E402, F401  (register before worker threads look up)
from evals.engine.llm import ModelClient, ProviderLimits  # noqa: E402
from evals.engine.llm.client import litellm_module  # noqa: E402
from evals.engine.llm.shared import set_default_client  # noqa: E402
from evals.engine.runner import MemorySink, RunSpec, run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--workers", type=int, default=32)
    args = parser.parse_args()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.support.openai_server",
            "--handler",
            "tests.support.tau2_script:handler",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
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
        c0, w0 = time.process_time(), time.perf_counter()
        run(spec, sink, workers=args.workers, ks=(1,))
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    finally:
        proc.kill()
    records = sink.records
    calls = sum(r.usage.get("agent.calls", 0) + r.usage.get("user.calls", 0) for r in records)
    print(
        json.dumps(
            {
                "trials": len(records),
                "workers": args.workers,
                "seconds": round(wall, 3),
                "trials_per_s": round(len(records) / wall, 2),
                "llm_calls_per_trial": round(calls / len(records), 2),
                "harness_cpu_ms_per_llm_call": round(cpu / calls * 1000, 3),
                "mean_reward": round(sum(r.reward for r in records) / len(records), 3),
                "infrastructure_errors": sum(r.infrastructure for r in records),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
