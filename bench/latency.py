"""LLM-call throughput and harness overhead against a local server with a fixed delay.

    .venv/bin/python bench/latency.py [--delays 0.5,2.0] [--levels 1,16,64,256] [--seconds 6]
        [--modes threads,async] [--processes 1,2] [--trial-levels 1,16,64,256]
        [--trial-processes N] [--trials-per-worker 3] [--trial-repeats 0]

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
in one thread, each worker a coroutine awaiting `ModelClient.acomplete`; `loop` — one thread
per worker through `ModelClient(event_loop=True).complete`, every call run on the process's
one model-client loop (the engine's threads with the calls off them; `--modes
threads,async,loop`). `--processes N` splits each level's workers over N processes
(scale-out past one GIL). `--trial-event-loop` runs the trial part that way too.

Trials: at each delay and each of `--trial-levels` (trials in flight), the `tau2_mock` tasks
run through the real runner (`run(spec, sink, workers=N, processes=P)`, P = min(N,
`--trial-processes`), default one process per core), the LiteLLM agent and the LiteLLM user
answered by the server after the delay, scripted like a real τ² conversation by
`tests.evals_tau2.tau2_conversation` (~10 LLM calls a trial, reward 1 on every task). A
level runs whole rounds of the tasks until every worker has at least `--trials-per-worker`
trials (or `--trial-repeats` per task), after one warm-up round against an instant server.
The ideal is what a perfect scheduler could do with the trials' measured call counts
(`ideal_trial_wall_s`); whole trials cannot be split, so with a few trials per worker even
the runner's own order of work, timed with nothing but the delays
(`runner_schedule_wall_s`), stays below it, and the row gives the ratio to both. The
steady-state ratio takes the finite run's ramp-up and last round out: by Little's law, while
all workers are busy trials finish at workers / mean trial time, so (calls per trial x
delay) / mean trial time is the harness's own overhead per trial at that load. Each row:
trials/s and its ratio to the ideal and to the runner's schedule, LLM calls per trial
(from the records' usage), harness CPU per LLM call including the engine (this process and
the shard processes, not the server, whose CPU per call is given apart), the CPU ceiling in
trials/s and whether the ideal is above it, mean reward, infrastructure errors and memory
per trial in flight (summed PSS growth of the harness processes, see `trial_level`; it
includes each shard process's fixed cost, so it reads high where few trials are in flight).
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import json
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import evals.engine.adapters  # noqa: E402, F401  (registers the LiteLLM agent and user)
from evals.engine.llm import (  # noqa: E402
    CallRole,
    ModelClient,
    ModelSpec,
    ProviderLimits,
    TrialAccounting,
)
from evals.engine.llm.runtime import litellm_module  # noqa: E402
from evals.engine.llm.shared import set_default_client  # noqa: E402
from evals.engine.runner import MemorySink, RunSpec, plan, run  # noqa: E402

# Scripted like a real τ² conversation (~10 LLM calls a trial, reward 1 on every task).
TAU2_HANDLER = "tests.evals_tau2.tau2_conversation:handler"

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


def stop_server(proc: subprocess.Popen[str]) -> None:
    """Kill and reap: a server reaped later (say, when its Popen is collected) would add its
    CPU to RUSAGE_CHILDREN in the middle of a trial level's measurement."""
    proc.kill()
    proc.wait()


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
    client = ModelClient(
        limits=ProviderLimits(default=max(1, args.concurrency)), event_loop=args.child == "loop"
    )
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


def ideal_trial_wall_s(calls_per_trial: Sequence[float], workers: int, delay: float) -> float:
    """The shortest wall time in which `workers` trials in flight can finish trials with these
    LLM-call counts when every call takes exactly `delay` and nothing else takes any time.

    A perfect scheduler keeps min(workers, trials) trials in flight from start to end, so the
    run lasts at least the total call time divided by that; and no run ends before its
    longest trial, whose calls are sequential. Dividing by `workers` alone (the old ideal)
    ignored both: with fewer trials than workers, or a last round of long trials, that ideal
    cannot be reached by construction."""
    if not calls_per_trial:
        return 0.0
    in_flight = min(workers, len(calls_per_trial))
    return max(sum(calls_per_trial) * delay / in_flight, max(calls_per_trial) * delay)


def runner_schedule_wall_s(
    calls_in_plan_order: Sequence[float], workers: int, processes: int, delay: float
) -> float:
    """The wall time of the runner's own order of work if every call took exactly `delay`
    and nothing else took any time: the units dealt round-robin to `processes` shards
    (`runner.processes.shards`), each shard's `workers // shards` threads taking its units
    first come first served (`execute_units`). Whole trials cannot be split, so where the
    trials do not divide evenly the last round runs part-empty and even this schedule takes
    longer than `ideal_trial_wall_s`; this wall over the measured one leaves that out and
    rates the harness's own overhead alone."""
    n = len(calls_in_plan_order)
    parts = [list(calls_in_plan_order[i::processes]) for i in range(min(processes, n))]
    per_shard = max(1, workers // max(1, len(parts)))
    wall = 0.0
    for part in parts:
        free_at = [0.0] * min(per_shard, len(part))  # when each thread is next free
        for calls in part:
            heapq.heapreplace(free_at, free_at[0] + calls * delay)
        wall = max(wall, *free_at)
    return wall


def children_cpu_s() -> float:
    """CPU seconds of this process's children that have been waited for (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def child_pids() -> set[int]:
    """This process's children now (from /proc: the shard processes have no other list)."""
    me = os.getpid()
    pids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == me:
                        pids.add(int(entry))
            except (OSError, IndexError, ValueError):
                continue  # gone meanwhile
    return pids


def pss_bytes(pid: int | str) -> int:
    """Proportional set size: each page shared between processes (a forked child's
    copy-on-write pages) is split between them, so the PSS of processes adds up."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass  # exited meanwhile
    return 0


class MemorySampler:
    """Peak of the summed PSS of this process and its children started after `__init__`
    (the servers, already running, are not counted), sampled every `interval` seconds in a
    thread whose own CPU time is kept in `cpu_s`, so it can be left out of the harness's."""

    def __init__(self, interval: float = 0.25) -> None:
        self.interval = interval
        self.existing = child_pids()
        self.base = pss_bytes("self")
        self.peak = self.base
        self.cpu_s = 0.0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.wait(self.interval):
            total = pss_bytes("self") + sum(pss_bytes(p) for p in child_pids() - self.existing)
            self.peak = max(self.peak, total)
        self.cpu_s = time.thread_time()

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()


def trial_level(
    spec: RunSpec,
    workers: int,
    processes: int,
    delay: float,
    server_pid: int,
    cores: int,
    event_loop: bool = False,
) -> dict:
    """One level: `spec`'s trials through `run` with `workers` trials in flight over
    `processes` processes, every LLM call answered after `delay` by the server `server_pid`.

    CPU: this process's (minus the memory sampler's) plus its children's — the forked shard
    processes are joined by `run` before it returns, so `RUSAGE_CHILDREN` holds them; the
    server, also a child, is still running and so not in it, and its CPU is read from /proc.
    Memory per trial in flight: the peak of the summed PSS of this process and the shard
    processes during the level, less this process's PSS before it, divided by the trials in
    flight (min(workers, trials)). PSS rather than RSS: a forked child's RSS counts every
    page it still shares with its parent, so summing RSS would charge each shard the whole
    parent image again."""
    # A trial has one call in flight at a time (agent and user take turns), so a limit of
    # `workers` never queues a call; `run` divides it between the shard processes.
    set_default_client(ModelClient(limits=ProviderLimits(default=workers), event_loop=event_loop))
    sink = MemorySink()
    try:
        with MemorySampler() as memory:
            server0, c0, k0 = process_cpu_s(server_pid), time.process_time(), children_cpu_s()
            w0 = time.perf_counter()
            run(spec, sink, workers=workers, processes=processes)
            wall = time.perf_counter() - w0
            harness = time.process_time() - c0 + children_cpu_s() - k0
            server = process_cpu_s(server_pid) - server0
        harness -= memory.cpu_s
    finally:
        set_default_client(None)
    records = sink.records
    n = len(records)
    per_trial = [r.usage.get("agent.calls", 0) + r.usage.get("user.calls", 0) for r in records]
    by_key = dict(zip((r.key for r in records), per_trial, strict=True))
    scheduled = runner_schedule_wall_s(
        [by_key[u.key] for u in plan(spec) if u.key in by_key], workers, processes, delay
    )
    calls = max(1.0, sum(per_trial))
    in_flight = max(1, min(workers, n))
    # Steady state, by Little's law: while every worker holds a trial, trials finish at
    # workers / (mean time a trial takes), and ideally a trial takes its calls x the delay.
    # So the ratio below is the harness's own overhead per trial under this load (GIL,
    # threads, the engine, LiteLLM), without the ramp-up and the last round's idle workers
    # that a finite run of whole trials adds to the wall-clock figures.
    trial_seconds = sum(r.seconds for r in records)
    steady = in_flight * n / trial_seconds if trial_seconds else float("nan")
    steady_ratio = calls * delay / trial_seconds if trial_seconds and delay else None
    ideal = n / ideal_trial_wall_s(per_trial, workers, delay) if delay and n else float("nan")
    # What this machine can serve at the CPU a trial cost here: all cores for the harness
    # and the server, and one core (one GIL) per harness process.
    per_trial_cpu = (harness + server) / max(1, n)
    ceiling = min(cores / per_trial_cpu, processes / (harness / max(1, n)))
    return {
        "delay_s": delay,
        "workers": workers,
        "processes": processes,
        "event_loop": event_loop,
        "trials": n,
        "llm_calls_per_trial": round(calls / max(1, n), 2),
        "seconds": round(wall, 2),
        "trials_per_s": round(n / wall, 3),
        "ideal_trials_per_s": round(ideal, 3),
        "ratio_to_ideal": round(n / wall / ideal, 3) if delay and n else None,
        "ratio_to_runner_schedule": round(scheduled / wall, 3),
        "steady_state_trials_per_s": round(steady, 3),
        "steady_state_ratio_to_ideal": round(steady_ratio, 3) if steady_ratio else None,
        "cpu_ms_per_llm_call_incl_engine": round(harness / calls * 1000, 3),
        "server_cpu_ms_per_llm_call": round(server / calls * 1000, 3),
        "cpu_ceiling_trials_per_s": round(ceiling, 2),
        "cpu_bound": ideal > ceiling,
        "mean_reward": round(sum(r.reward for r in records) / max(1, n), 3),
        "infrastructure_errors": sum(1 for r in records if r.infrastructure),
        "mb_per_trial_in_flight": round((memory.peak - memory.base) / 2**20 / in_flight, 3),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def trial_throughput(
    delay: float,
    levels: list[int],
    processes: int,
    per_worker: int,
    repeats: int,
    cores: int,
    event_loop: bool = False,
) -> list[dict]:
    """Every level of trials at one delay, against one server scripted like τ² (see
    `bench/tau2_harness.py`). A level runs `repeats` trials of each task or, when that is 0,
    whole rounds of the tasks until every worker has at least `per_worker` trials."""

    def spec(url: str, trials: int) -> RunSpec:
        params = {"api_base": url, "api_key": "bench"}
        return RunSpec(
            domains=("tau2_mock",), trials=trials, agent="openai/tau2-agent",
            agent_params=params, user="openai/tau2-user", user_params=params,
            include_trajectory=False,
        )  # fmt: skip

    # Warm-up, against an instant server: imports, the server's task table, LiteLLM's
    # first-call setup (the shard processes fork from this warmed process).
    warm, warm_url = start_server(0.0, "--handler", TAU2_HANDLER)
    try:
        tasks = len(plan(spec(warm_url, 1)))
        set_default_client(ModelClient(limits=ProviderLimits(default=tasks)))
        run(spec(warm_url, 1), MemorySink(), workers=tasks)
    finally:
        set_default_client(None)
        stop_server(warm)
    rows = []
    server, url = start_server(delay, "--handler", TAU2_HANDLER)
    try:
        for workers in levels:
            trials = repeats or -(-per_worker * workers // tasks)
            row = trial_level(
                spec(url, trials),
                workers,
                min(processes, workers),
                delay,
                server.pid,
                cores,
                event_loop,
            )
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    finally:
        stop_server(server)
    return rows


def main() -> None:
    cores = os.cpu_count() or 1
    parser = argparse.ArgumentParser()
    parser.add_argument("--delays", default="0.5,2.0", help="server delays in seconds")
    parser.add_argument("--levels", default="1,16,64,256")
    parser.add_argument(
        "--trial-event-loop",
        action="store_true",
        help="trials' LLM calls on one event loop per process (ModelClient(event_loop=True))",
    )
    parser.add_argument(
        "--seconds", type=float, default=6.0, help="run time per level (at least 3 delays + 3 s)"
    )
    parser.add_argument("--model", default="openai/bench-agent")
    parser.add_argument("--cpu-calls", type=int, default=300)
    parser.add_argument("--modes", default="threads,async")
    parser.add_argument("--processes", default="1,2", help="process counts to compare")
    parser.add_argument(
        "--trial-levels", default="1,16,64,256", help="trials in flight ('' = skip trials)"
    )
    parser.add_argument(
        "--trial-processes",
        type=int,
        default=cores,
        help="harness processes for trials (default: one per core; at most the trials in flight)",
    )
    parser.add_argument(
        "--trials-per-worker", type=int, default=3, help="at least this many trials per worker"
    )
    parser.add_argument(
        "--trial-repeats", type=int, default=0, help="trials per task (0: from --trials-per-worker)"
    )
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
    trial_levels = [int(x) for x in args.trial_levels.split(",") if x]
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
                stop_server(slow)
        figures["levels"] = rows
        figures["trials"] = [
            row
            for delay in delays
            if trial_levels
            for row in trial_throughput(
                delay,
                trial_levels,
                args.trial_processes,
                args.trials_per_worker,
                args.trial_repeats,
                cores,
                args.trial_event_loop,
            )
        ]
        figures["load_average_1m"] = os.getloadavg()[0]
        print(json.dumps(figures, indent=2))
        print(table(rows), file=sys.stderr)
        if figures["trials"]:
            print(trial_table(figures["trials"]), file=sys.stderr)
    finally:
        stop_server(instant)


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


def trial_table(rows: list[dict]) -> str:
    """The trial rows as a Markdown table, one line per delay and level."""
    out = [
        "| delay | workers | processes | trials | calls/trial "
        "| trials/s (ideal, ratio; ratio to runner's schedule; steady-state ratio) "
        "| CPU ms/call (+server) | MB/trial in flight | reward | errors |",
        "|---" * 10 + "|",
    ]
    for r in rows:
        out.append(
            f"| {r['delay_s']:g} s | {r['workers']} | {r['processes']} | {r['trials']} "
            f"| {r['llm_calls_per_trial']:g} "
            f"| {r['trials_per_s']:g} ({r['ideal_trials_per_s']:g}, {r['ratio_to_ideal']}; "
            f"{r['ratio_to_runner_schedule']}; {r['steady_state_ratio_to_ideal']}) "
            + ("CPU-bound " if r["cpu_bound"] else "")
            + f"| {r['cpu_ms_per_llm_call_incl_engine']:.2f} "
            f"(+{r['server_cpu_ms_per_llm_call']:.2f}) | {r['mb_per_trial_in_flight']:g} "
            f"| {r['mean_reward']:g} | {r['infrastructure_errors']} |"
        )
    return "\n".join(out)


if __name__ == "__main__":
    main()
