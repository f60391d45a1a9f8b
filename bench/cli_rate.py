"""The engine's command line as a user runs it, three figures in one run (issue 17):

    flock /work/notes/bench.lock .venv/bin/python bench/cli_rate.py   # ~4 min on a quiet 2-core machine

1. CPU per LLM call of the whole `python -m evals.engine run` process (LiteLLM included,
   trajectories written) at 1, 8 and 64 trials in flight against the local stub answering at
   once, scripted like a real τ² conversation (`tests.evals_tau2.tau2_conversation`: the
   agent calls tools with valid arguments, the customer ends the conversation). Each row
   gives the CPU per call with startup and after it (the CPU of a one-trial run of the same
   command taken off, and its calls). Beside them, LiteLLM's own cost measured in this run:
   the very requests a trial makes (captured from trials run in this process through the
   model client on its LiteLLM path), replayed through bare `litellm.completion` against the
   same stub, CPU of this process per call (LiteLLM's logging thread included, as the CLI's
   figure includes it); and the same requests through the engine's direct path alone
   (`evals.engine.llm.direct`), which is what the CLI runs for these unpriced models, so
   `above_direct_ms` is the harness's own cost outside the model call.
2. Ratio to the ideal rate at 64 and 256 trials in flight, the stub answering after 500 ms,
   with the default settings (`--workers N` and nothing else). The ideal is what a perfect
   scheduler could do with the trials' measured call counts (`ideal_trial_wall_s`); the
   runner's own order of whole trials (`runner_schedule_wall_s`) is given too. Next to it,
   the CPU ceiling of this machine: cores / (harness + server CPU per call) calls/s; where
   the ideal rate is above it, the row says `cpu_bound`: a machine limit, not a harness one.
3. Startup of `python -m evals.engine run` to the first trial: the time of the first model
   call of the first trial (its trajectory's first per-message record) minus the time the
   process was started.

The machine may be shared: CPU figures are what load affects little; the 1-minute load
average is given with every row. Prints one JSON object (each row to stderr as it comes).
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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# bench/ is not a package: its scripts import each other from their own directory.
from latency import (  # noqa: E402
    TAU2_HANDLER,
    ideal_trial_wall_s,
    process_cpu_s,
    runner_schedule_wall_s,
    start_server,
    stop_server,
)

from evals.engine.llm.runtime import litellm_module  # noqa: E402


def load() -> float:
    return round(os.getloadavg()[0], 2)


def cli_run(url: str, out: Path, trials: int, workers: int, *extra: str) -> dict[str, Any]:
    """One CLI process as a user runs it: CPU (its own and its worker processes'), wall,
    LLM calls from the records, and the trial timeline from the trajectories."""
    args = json.dumps({"api_base": url, "api_key": "bench"})
    command = [
        sys.executable, "-m", "evals.engine", "run", "--domain", "tau2_mock",
        "--trials", str(trials), "--ks", "1", "--workers", str(workers),
        "--agent", "openai/tau2-agent", "--agent-args", args,
        "--user", "openai/tau2-user", "--user-args", args, "--out", str(out), *extra,
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started_at, started = time.time(), time.perf_counter()
    subprocess.run(
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
    calls = [r["usage"].get("agent.calls", 0) + r["usage"].get("user.calls", 0) for r in records]
    # Each trial: its first model call's time and its end (first call + the trial's seconds
    # from then on are bounded by its last record's end).
    spans = []
    for r in records:
        turns = r["trajectory"]["message_records"]
        first = min(t["at"] for t in turns)
        spans.append((first, max(t["at"] + t["seconds"] for t in turns)))
    return {
        "workers": workers,
        "trials": len(records),
        "llm_calls": int(sum(calls)),
        "calls_per_trial": [int(c) for c in calls],
        "cpu_s": round(cpu, 3),
        "wall_s": round(wall, 3),
        "first_trial_after_s": round(min(s for s, _ in spans) - started_at, 3),
        "trials_wall_s": round(max(e for _, e in spans) - min(s for s, _ in spans), 3),
        "load_average_1m": load(),
    }


def litellm_alone(url: str, trials: int, repeats: int) -> dict[str, Any]:
    """LiteLLM's own CPU per call on the requests the harness makes: `trials` trials run in
    this process through a model client on the LiteLLM path (`direct=False`) with
    `litellm.completion` wrapped to keep each call's arguments, then every kept call replayed
    through the bare function. Beside it, the same requests through the engine's direct path
    alone (`evals.engine.llm.direct`: the request's JSON, the HTTP exchange, the answer read),
    which is what the CLI runs for these unpriced models."""
    from evals.engine.llm import ModelClient, direct
    from evals.engine.llm.shared import set_default_client
    from evals.engine.runner import MemorySink, RunSpec, run

    litellm = litellm_module()
    bare = litellm.completion
    kept: list[dict[str, Any]] = []

    def keeping(**kwargs: Any) -> Any:
        kept.append({**kwargs, "messages": list(kwargs["messages"])})
        return bare(**kwargs)

    params = {"api_base": url, "api_key": "bench"}
    spec = RunSpec(
        domains=("tau2_mock",),
        personas=("baseline",),
        trials=trials,
        agent="openai/tau2-agent",
        user="openai/tau2-user",
        agent_params=params,
        user_params=params,
    )
    set_default_client(ModelClient(direct=False))
    litellm.completion = keeping
    try:
        run(spec, MemorySink(), workers=1)
    finally:
        litellm.completion = bare
        set_default_client(None)
    for kwargs in kept[:20]:  # warm-up
        bare(**kwargs)
    started = time.process_time()
    for _ in range(repeats):
        for kwargs in kept:
            bare(**kwargs)
    per_call = (time.process_time() - started) / (repeats * len(kept)) * 1000
    engine_keys = {"model", "timeout", "num_retries", "max_retries", "api_base", "api_key"}
    engine_keys |= {"messages", "tools", "input_cost_per_token", "output_cost_per_token"}
    routed = []
    for kwargs in kept:
        route = direct.direct_route(
            model=kwargs["model"],
            provider="openai",
            api_base=kwargs["api_base"],
            api_key=kwargs["api_key"],
            params={k: v for k, v in kwargs.items() if k not in engine_keys},
            priced=False,
            timeout_s=kwargs["timeout"],
        )
        assert route is not None, "the bench's models take the direct path"
        routed.append((route, kwargs["messages"], kwargs.get("tools")))
    for route, messages, tools in routed[:20]:  # warm-up
        direct.send(litellm, route, direct.request_bytes(route, messages, tools))
    started = time.process_time()
    for _ in range(repeats):
        for route, messages, tools in routed:
            direct.send(litellm, route, direct.request_bytes(route, messages, tools))
    direct_per_call = (time.process_time() - started) / (repeats * len(routed)) * 1000
    return {
        "litellm_alone_cpu_ms_per_call": round(per_call, 3),
        "direct_alone_cpu_ms_per_call": round(direct_per_call, 3),
        "replayed_calls": repeats * len(kept),
        "load_average_1m": load(),
    }


def main() -> None:
    cores = os.cpu_count() or 1
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=10, help="trials per task, CPU rows")
    parser.add_argument("--workers", default="1,8,64", help="trials in flight, CPU rows")
    parser.add_argument("--rate-levels", default="64,256", help="trials in flight, 500 ms rows")
    # How long the 500 ms rows run, in trials per slot. At 2, a run is about two rounds of whole
    # trials and its last round is the figure: 130 trials on 64 slots leave two slots a third
    # trial, ~8 s alone (ratio 0.78 at 64 and 256 on a quiet machine, 1.11 to the runner's own
    # schedule). At 8 the rows measure the steady rate a suite of thousands of trials runs at
    # (0.96 at both).
    parser.add_argument("--trials-per-worker", type=float, default=8.0)
    parser.add_argument("--delay", type=float, default=0.5)
    args = parser.parse_args()
    figures: dict[str, Any] = {"cpus": cores}
    instant, url = start_server(0.0, "--handler", TAU2_HANDLER)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            fixed = cli_run(url, Path(tmp) / "fixed.jsonl", 1, 1, "--num-tasks", "1")
            fixed["kind"] = "fixed cost (startup + 1 trial)"
            print(json.dumps(fixed), file=sys.stderr, flush=True)
            cpu_rows = []
            for workers in [int(w) for w in args.workers.split(",")]:
                server_cpu = process_cpu_s(instant.pid)
                row = cli_run(url, Path(tmp) / f"cpu-{workers}.jsonl", args.trials, workers)
                calls = row["llm_calls"]
                row["cpu_ms_per_call"] = round(row["cpu_s"] / calls * 1000, 3)
                row["cpu_ms_per_call_after_startup"] = round(
                    (row["cpu_s"] - fixed["cpu_s"]) / (calls - fixed["llm_calls"]) * 1000, 3
                )
                row["server_cpu_ms_per_call"] = round(
                    (process_cpu_s(instant.pid) - server_cpu) / calls * 1000, 3
                )
                del row["calls_per_trial"]
                cpu_rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
            alone = litellm_alone(url, trials=2, repeats=2)
            print(json.dumps(alone), file=sys.stderr, flush=True)
    finally:
        stop_server(instant)
    base = alone["litellm_alone_cpu_ms_per_call"]
    floor = alone["direct_alone_cpu_ms_per_call"]
    for row in cpu_rows:
        row["above_litellm_ms"] = round(row["cpu_ms_per_call_after_startup"] - base, 3)
        row["above_direct_ms"] = round(row["cpu_ms_per_call_after_startup"] - floor, 3)
    figures["cpu_per_call"] = {"rows": cpu_rows, **alone}

    rate_rows = []
    slow, slow_url = start_server(args.delay, "--handler", TAU2_HANDLER)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for workers in [int(w) for w in args.rate_levels.split(",")]:
                # Whole rounds of the 10 tasks, at least `trials_per_worker` trials a worker.
                trials = max(1, round(workers * args.trials_per_worker / 10))
                server_cpu = process_cpu_s(slow.pid)
                row = cli_run(slow_url, Path(tmp) / f"rate-{workers}.jsonl", trials, workers)
                calls = row.pop("calls_per_trial")
                harness = row["cpu_s"] / row["llm_calls"] * 1000
                server = (process_cpu_s(slow.pid) - server_cpu) / row["llm_calls"] * 1000
                ideal = ideal_trial_wall_s(calls, workers, args.delay)
                processes = min(cores, workers)  # the CLI's default for an LLM run
                schedule = runner_schedule_wall_s(calls, workers, processes, args.delay)
                ideal_rate = workers / args.delay
                ceiling = cores / (harness + server) * 1000
                row.update(
                    delay_s=args.delay,
                    cpu_ms_per_call=round(harness, 3),
                    server_cpu_ms_per_call=round(server, 3),
                    ideal_wall_s=round(ideal, 3),
                    ratio_to_ideal=round(ideal / row["trials_wall_s"], 3),
                    ratio_to_runner_schedule=round(schedule / row["trials_wall_s"], 3),
                    ideal_calls_per_s=round(ideal_rate, 1),
                    calls_per_s=round(row["llm_calls"] / row["trials_wall_s"], 1),
                    cpu_ceiling_calls_per_s=round(ceiling, 1),
                    cpu_bound=ideal_rate > ceiling,
                )
                if row["cpu_bound"]:
                    row["note"] = (
                        f"the ideal {ideal_rate:.0f} calls/s is above what {cores} cores serve "
                        f"at this CPU per call ({ceiling:.0f}/s): a machine limit"
                    )
                rate_rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
    finally:
        stop_server(slow)
    figures["rate_500ms_default_settings"] = rate_rows
    figures["startup"] = {
        "first_trial_after_s": fixed["first_trial_after_s"],
        "first_trial_after_s_runs": [r["first_trial_after_s"] for r in cpu_rows],
        "fixed_run_cpu_s": fixed["cpu_s"],
        "fixed_run_wall_s": fixed["wall_s"],
        "load_average_1m": fixed["load_average_1m"],
    }
    figures["load_average_1m"] = load()
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
