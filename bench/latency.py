"""LLM-call throughput and harness overhead against a local server with a fixed delay.

    .venv/bin/python bench/latency.py [--delay 0.5] [--levels 1,16,64,256] [--calls 4]

The local OpenAI-compatible test server runs in a child process and answers every call after
`--delay` seconds. At each concurrency level, that many workers each make `--calls`
sequential calls through the model client (a worker stands for one trial in flight).
Ideal rate = concurrency / delay; the ratio shows what the harness loses.

CPU per call is measured in this process only (the server is elsewhere): once through the
model client, once through bare `litellm.completion` with the same arguments, sequentially
against an instant server. Memory per call in flight is the peak RSS growth at the largest
level divided by its concurrency. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from evals.engine.llm import (  # noqa: E402
    CallRole,
    ModelClient,
    ModelSpec,
    ProviderLimits,
    TrialAccounting,
)
from evals.engine.llm.client import litellm_module  # noqa: E402

MESSAGES = [
    {"role": "system", "content": "You are a customer-service agent. " * 40},
    {"role": "user", "content": "Hi, I want to return an item from order #W1234567."},
]


def start_server(delay: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.openai_server", "--delay", str(delay)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def cpu_per_call(fn: Callable[[], object], n: int) -> float:
    for _ in range(20):
        fn()
    c0 = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - c0) / n * 1000


def run_level(
    client: ModelClient, spec: ModelSpec, concurrency: int, seconds: float, delay: float
) -> dict:
    """`concurrency` workers call back to back for `seconds`; their starts are spread over
    one delay (real trials are not in lockstep). Throughput is counted in the steady-state
    window that excludes the first and the last delay-plus-a-second."""
    start = time.perf_counter() + 0.2
    stop = start + seconds
    finished: list[float] = []
    errors: list[BaseException] = []
    peak = [rss_bytes()]
    done = threading.Event()

    def worker(i: int) -> None:
        acc = TrialAccounting(f"bench-{concurrency}-{i}")
        time.sleep(max(0.0, start + delay * i / concurrency - time.perf_counter()))
        try:
            while time.perf_counter() < stop:
                client.complete(spec, MESSAGES, role=CallRole.AGENT, accounting=acc)
                finished.append(time.perf_counter())
                acc.records.clear()
        except BaseException as exc:
            errors.append(exc)

    def sampler() -> None:
        while not done.wait(0.05):
            peak[0] = max(peak[0], rss_bytes())

    base_rss = rss_bytes()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(concurrency)]
    sampling = threading.Thread(target=sampler)
    sampling.start()
    c0 = time.process_time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cpu = time.process_time() - c0
    done.set()
    sampling.join()
    lo, hi = start + delay + 1.0, stop - 1.0
    window = [t for t in finished if lo <= t < hi]
    return {
        "concurrency": concurrency,
        "calls": len(finished),
        "errors": len(errors),
        "calls_per_s": round(len(window) / (hi - lo), 2),
        "cpu_ms_per_call": round(cpu / max(1, len(finished)) * 1000, 3),
        "rss_growth_mb": round((peak[0] - base_rss) / 2**20, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--levels", default="1,16,64,256")
    parser.add_argument("--seconds", type=float, default=6.0, help="run time per level")
    parser.add_argument("--model", default="openai/bench-agent")
    parser.add_argument("--cpu-calls", type=int, default=300)
    parser.add_argument("--switch-interval", type=float, default=None)
    args = parser.parse_args()
    if args.switch_interval:
        sys.setswitchinterval(args.switch_interval)
    levels = [int(x) for x in args.levels.split(",")]
    litellm = litellm_module()

    instant, instant_url = start_server(0.0)
    slow, slow_url = start_server(args.delay)
    try:
        client = ModelClient(limits=ProviderLimits(default=max(levels)))
        figures: dict = {"delay_s": args.delay, "model": args.model, "cpus": os.cpu_count()}

        # CPU per call: client vs bare LiteLLM, sequential, instant answers.
        for model in (args.model, "openai/gpt-4o-mini"):
            spec = ModelSpec(model, api_base=instant_url, api_key="bench")
            acc = TrialAccounting("cpu")
            kwargs = {"model": model, "api_base": instant_url, "api_key": "bench",
                      "num_retries": 0, "max_retries": 0, "timeout": 60}  # fmt: skip

            def via_client(spec: ModelSpec = spec, acc: TrialAccounting = acc) -> object:
                acc.records.clear()
                return client.complete(spec, MESSAGES, role=CallRole.AGENT, accounting=acc)

            def bare(kwargs: dict = kwargs) -> object:
                return litellm.completion(messages=MESSAGES, **kwargs)

            priced = "priced" if model.endswith("gpt-4o-mini") else "unpriced"
            figures[f"cpu_ms_per_call_client_{priced}"] = round(
                cpu_per_call(via_client, args.cpu_calls), 3
            )
            figures[f"cpu_ms_per_call_litellm_alone_{priced}"] = round(
                cpu_per_call(bare, args.cpu_calls), 3
            )

        spec = ModelSpec(args.model, api_base=slow_url, api_key="bench", timeout_s=60)
        rows = []
        for level in levels:
            row = run_level(client, spec, level, args.seconds, args.delay)
            ideal = level / args.delay
            row["ideal_calls_per_s"] = round(ideal, 2)
            row["ratio_to_ideal"] = round(row["calls_per_s"] / ideal, 3)
            row["mb_per_call_in_flight"] = round(row["rss_growth_mb"] / level, 3)
            rows.append(row)
        figures["levels"] = rows
        print(json.dumps(figures, indent=2))
    finally:
        instant.kill()
        slow.kill()


if __name__ == "__main__":
    main()
