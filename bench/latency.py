"""LLM-call throughput and harness overhead against a local server with a fixed delay.

    .venv/bin/python bench/latency.py [--delays 0.5,2.0] [--levels 1,16,64,256] [--seconds 6]
        [--modes threads,async] [--processes 1,2] [--trial-levels 16,64]

The local OpenAI-compatible test server runs in its own process in its asyncio mode (one
event loop, listen backlog 4096, answer bytes rendered once) and answers every call after
the delay; its CPU time is read from /proc and reported per call, apart from ours. At each
delay and concurrency level, that many workers each make back-to-back calls through the
model client (a worker stands for one trial in flight). Ideal rate = concurrency / delay.

The CPU ceiling is printed next to each rate: cores / (harness CPU + server CPU per call) is
the most calls per second this machine can serve whatever the concurrency; where the ideal
rate is above it, the level is CPU-bound, not harness-bound. At 500 ms and 256 in flight the
ideal is 512 calls/s, which needs more than two cores at ~4 ms per call; `--delays` also
runs a delay like a real tool-calling LLM call's (1-5 s) where the ideal fits the machine.

CPU per call is measured in this process (the server is elsewhere): once through the model
client, once through bare `litellm.completion` with the same arguments, sequentially against
an instant server. Memory per trial in flight is the peak RSS growth during a level divided
by its concurrency. Prints one JSON object (and each row to stderr as it is measured).

Modes, side by side at each level: `threads` — one thread per worker through
`ModelClient.complete` (what the engine's thread pool does); `async` — one asyncio event loop
in one thread, each worker a coroutine awaiting `ModelClient.acomplete`. `--processes N`
splits each level's workers over N processes (scale-out past one GIL).

Trials: `--trial-levels` runs the `tau2_mock` tasks through the real runner (LiteLLM agent
and LiteLLM user, scripted by `tests.support.tau2_script`) against a server answering after
the first delay; ideal trials/s = workers / (LLM calls per trial x delay).
"""

from __future__ import annotations

import argparse
import asyncio
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


def start_server(delay: float, *extra: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.support.openai_server",
            "--asyncio",
            "--delay",
            str(delay),
            *extra,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of another process (from /proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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


def run_async_level(
    client: ModelClient, spec: ModelSpec, concurrency: int, seconds: float, delay: float
) -> dict:
    """`concurrency` coroutines on one event loop, back-to-back `ModelClient.acomplete`."""
    finished: list[float] = []
    errors: list[BaseException] = []
    peak = [rss_bytes()]
    bounds: list[float] = []

    async def main() -> None:
        start = time.perf_counter() + 0.2
        stop = start + seconds

        async def worker(i: int) -> None:
            acc = TrialAccounting(f"bench-{concurrency}-{i}")
            await asyncio.sleep(max(0.0, start + delay * i / concurrency - time.perf_counter()))
            try:
                while time.perf_counter() < stop:
                    await client.acomplete(spec, MESSAGES, role=CallRole.AGENT, accounting=acc)
                    finished.append(time.perf_counter())
                    acc.records.clear()
            except BaseException as exc:
                errors.append(exc)

        async def sampler() -> None:
            while time.perf_counter() < stop:
                peak[0] = max(peak[0], rss_bytes())
                await asyncio.sleep(0.05)

        await asyncio.gather(sampler(), *(worker(i) for i in range(concurrency)))
        bounds.extend([start + delay + 1.0, stop - 1.0])

    base_rss = rss_bytes()
    c0 = time.process_time()
    asyncio.run(main())
    cpu = time.process_time() - c0
    lo, hi = bounds
    window = [t for t in finished if lo <= t < hi]
    return {
        "concurrency": concurrency,
        "calls": len(finished),
        "errors": len(errors),
        "first_error": repr(errors[0])[:200] if errors else "",
        "calls_per_s": round(len(window) / (hi - lo), 2),
        "cpu_ms_per_call": round(cpu / max(1, len(finished)) * 1000, 3),
        "rss_growth_mb": round((peak[0] - base_rss) / 2**20, 2),
    }


def child(args: argparse.Namespace) -> None:
    """One process's share of a level (`--child`): warms up, says `ready`, waits for the
    common start time on stdin, then prints its row as JSON."""
    client = ModelClient(limits=ProviderLimits(default=max(1, args.concurrency)))
    spec = ModelSpec(args.model, api_base=args.url, api_key="bench", timeout_s=60)
    acc = TrialAccounting("warm-up")
    if args.child == "async":

        async def warm() -> None:
            for _ in range(5):
                await client.acomplete(spec, MESSAGES, role=CallRole.AGENT, accounting=acc)

        asyncio.run(warm())
    else:
        for _ in range(5):
            client.complete(spec, MESSAGES, role=CallRole.AGENT, accounting=acc)
    print("ready", flush=True)
    start_at = float(sys.stdin.readline())
    time.sleep(max(0.0, start_at - time.time()))
    level = run_async_level if args.child == "async" else run_level
    row = level(client, spec, args.concurrency, args.seconds, args.delay)
    print(json.dumps(row), flush=True)


def run_processes(
    mode: str,
    model: str,
    server: subprocess.Popen[str],
    url: str,
    level: int,
    processes: int,
    seconds: float,
    delay: float,
) -> dict:
    share = [level // processes + (1 if i < level % processes else 0) for i in range(processes)]
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--child",
                mode,
                "--model",
                model,
                "--url",
                url,
                "--concurrency",
                str(n),
                "--seconds",
                str(seconds),
                "--delay",
                str(delay),
            ],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in share
        if n
    ]
    for p in procs:  # every child has imported LiteLLM and warmed its client
        assert p.stdout is not None
        line = p.stdout.readline().strip()
        assert line == "ready", f"child failed: {line!r}"
    start_at = time.time() + 0.5
    server_cpu0 = process_cpu_s(server.pid)
    outs = [p.communicate(f"{start_at}\n")[0] for p in procs]
    server_cpu = process_cpu_s(server.pid) - server_cpu0
    rows = [json.loads(out.strip().splitlines()[-1]) for out in outs]
    calls = sum(r["calls"] for r in rows)
    return {
        "concurrency": level,
        "processes": len(rows),
        "calls": calls,
        "errors": sum(r["errors"] for r in rows),
        "calls_per_s": round(sum(r["calls_per_s"] for r in rows), 2),
        "cpu_ms_per_call": round(
            sum(r["cpu_ms_per_call"] * r["calls"] for r in rows) / max(1, calls), 3
        ),
        "server_cpu_ms_per_call": round(server_cpu / max(1, calls) * 1000, 3),
        "rss_growth_mb": round(sum(r["rss_growth_mb"] for r in rows), 2),
    }


def trial_throughput(workers: int, delay: float, trials: int) -> dict:
    """tau2_mock through the runner, LiteLLM agent + user, server answering after `delay`."""
    import evals.engine.adapters  # noqa: F401
    from evals.engine.llm.shared import set_default_client
    from evals.engine.runner import MemorySink, RunSpec, run

    proc, url = start_server(delay, "--handler", "tests.support.tau2_script:handler")
    set_default_client(ModelClient(limits=ProviderLimits(default=max(64, workers))))
    try:
        params = {"api_base": url, "api_key": "bench"}
        spec = RunSpec(
            domains=("tau2_mock",), trials=trials, agent="openai/tau2-agent",
            agent_params=params, user="openai/tau2-user", user_params=params,
            include_trajectory=False,
        )  # fmt: skip
        sink = MemorySink()
        w0, c0 = time.perf_counter(), time.process_time()
        run(spec, sink, workers=workers)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    finally:
        set_default_client(None)
        proc.kill()
    n = len(sink.records)
    calls = sum(r.usage.get("agent.calls", 0) + r.usage.get("user.calls", 0) for r in sink.records)
    per_trial = calls / max(1, n)
    ideal = workers / (per_trial * delay) if delay else float("nan")
    return {
        "workers": workers,
        "trials": n,
        "llm_calls_per_trial": round(per_trial, 2),
        "trials_per_s": round(n / wall, 2),
        "ideal_trials_per_s": round(ideal, 2),
        "ratio_to_ideal": round(n / wall / ideal, 3) if delay else None,
        "cpu_ms_per_llm_call_incl_engine": round(cpu / max(1, calls) * 1000, 3),
        "mean_reward": round(sum(r.reward for r in sink.records) / max(1, n), 3),
        "errors": sum(1 for r in sink.records if r.infrastructure),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delays", default="0.5,2.0", help="server delays in seconds")
    parser.add_argument("--levels", default="1,16,64,256")
    parser.add_argument(
        "--seconds", type=float, default=6.0, help="run time per level (at least 3 delays + 3 s)"
    )
    parser.add_argument("--model", default="openai/bench-agent")
    parser.add_argument("--cpu-calls", type=int, default=300)
    parser.add_argument("--modes", default="threads,async")
    parser.add_argument("--processes", default="1,2", help="process counts to compare")
    parser.add_argument("--trial-levels", default="16,64", help="runner workers ('' = skip)")
    parser.add_argument("--trial-repeats", type=int, default=4, help="trials per mock task")
    # internal: one process's share of a level
    parser.add_argument("--child", default="")
    parser.add_argument("--url", default="")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--delay", type=float, default=0.5)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    levels = [int(x) for x in args.levels.split(",")]
    delays = [float(x) for x in args.delays.split(",")]
    cores = os.cpu_count() or 1
    litellm = litellm_module()

    instant, instant_url = start_server(0.0)
    try:
        client = ModelClient(limits=ProviderLimits(default=max(levels)))
        figures: dict = {"model": args.model, "cpus": cores, "delays_s": delays}

        # CPU per call: client vs bare LiteLLM, sequential, instant answers.
        server_cpu0, n_calls = process_cpu_s(instant.pid), 0
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
            n_calls += 2 * (args.cpu_calls + 20)
        figures["server_cpu_ms_per_call_sequential"] = round(
            (process_cpu_s(instant.pid) - server_cpu0) / n_calls * 1000, 3
        )
        per_call = figures["cpu_ms_per_call_client_unpriced"]
        per_call += figures["server_cpu_ms_per_call_sequential"]
        # The most calls/s two cores can serve at the sequential CPU cost (client + server).
        figures["cpu_ceiling_calls_per_s"] = round(cores / per_call * 1000, 1)
        print(json.dumps(figures), file=sys.stderr, flush=True)

        rows = []
        for delay in delays:
            seconds = max(args.seconds, 3 * delay + 3)
            slow, slow_url = start_server(delay)
            try:
                for mode in args.modes.split(","):
                    for processes in [int(x) for x in args.processes.split(",")]:
                        for level in levels:
                            if processes > level:
                                continue
                            row = run_processes(
                                mode, args.model, slow, slow_url, level, processes, seconds, delay
                            )
                            ideal = level / delay
                            # What this machine can serve at the CPU this level cost per
                            # call: all cores for client + server, and one core (one GIL)
                            # per client process.
                            ceiling = min(
                                cores / (row["cpu_ms_per_call"] + row["server_cpu_ms_per_call"]),
                                row["processes"] / row["cpu_ms_per_call"],
                            )
                            row["delay_s"] = delay
                            row["mode"] = mode
                            row["ideal_calls_per_s"] = round(ideal, 2)
                            row["ratio_to_ideal"] = round(row["calls_per_s"] / ideal, 3)
                            row["cpu_ceiling_calls_per_s"] = round(ceiling * 1000, 1)
                            row["cpu_bound"] = ideal > ceiling * 1000
                            row["mb_per_trial_in_flight"] = round(row["rss_growth_mb"] / level, 3)
                            row["load_average_1m"] = round(os.getloadavg()[0], 2)
                            rows.append(row)
                            print(json.dumps(row), file=sys.stderr, flush=True)
            finally:
                slow.kill()
        figures["levels"] = rows
        figures["trials"] = [
            trial_throughput(int(w), delays[0], args.trial_repeats)
            for w in args.trial_levels.split(",")
            if w
        ]
        figures["load_average_1m"] = os.getloadavg()[0]
        print(json.dumps(figures, indent=2))
        print(table(rows), file=sys.stderr)
    finally:
        instant.kill()


def table(rows: list[dict]) -> str:
    """The rows as a Markdown table: calls/s (ratio to ideal) per level, per delay/mode/procs."""
    levels = sorted({r["concurrency"] for r in rows})
    out = [
        "| delay, mode, processes | " + " | ".join(f"c={c}" for c in levels) + " |",
        "|---" * (len(levels) + 1) + "|",
    ]
    keys = dict.fromkeys((r["delay_s"], r["mode"], r["processes"]) for r in rows)
    for delay, mode, procs in keys:
        cells = []
        for c in levels:
            r = next(
                (r for r in rows if (r["delay_s"], r["mode"], r["processes"], r["concurrency"])
                 == (delay, mode, procs, c)),
                None,
            )  # fmt: skip
            cells.append(
                "-"
                if r is None
                else f"{r['calls_per_s']:g} ({r['ratio_to_ideal']:.2f}), "
                f"{r['cpu_ms_per_call']:.1f}+{r['server_cpu_ms_per_call']:.1f} ms"
                + (" CPU-bound" if r["cpu_bound"] else "")
            )
        out.append(f"| {delay:g} s, {mode}, {procs} | " + " | ".join(cells) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    main()
