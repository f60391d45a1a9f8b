"""Running a plan's units across worker processes, each with its own thread pool.

LLM-backed trials spend most of their CPU inside LiteLLM and the HTTP client, under one
interpreter lock per process: a single process tops out at one core however many threads
wait on the network. `run(..., processes=N)` shards the units round-robin over N processes
and streams their records back to the parent, which alone writes the sink (one writer, the
same JSONL and resume semantics as a threaded run).

Children are forked where the platform allows (they inherit the imported domains and
LiteLLM instead of importing them again) and spawned elsewhere. A forked child must not
share its parent's sockets or semaphores, so it starts by replacing the process-wide model
client with a fresh one of the same configuration and, when LiteLLM's HTTP pool is the one
the model client installed, a fresh pool. The per-provider concurrency limit is divided
between the processes, so the run as a whole keeps the configured limit.
"""

from __future__ import annotations

import multiprocessing
import queue as queue_module
import traceback
from collections.abc import Iterator, Sequence
from typing import Any

from evals.engine.errors import EngineError
from evals.engine.runner.records import TrialRecord
from evals.engine.runner.spec import RunSpec, WorkUnit

_POLL_S = 0.5


def shards(units: Sequence[WorkUnit], processes: int) -> list[list[WorkUnit]]:
    """Round-robin, so every process gets a mix of tasks (tasks differ in length)."""
    return [list(units[i::processes]) for i in range(processes) if units[i::processes]]


def split_workers(workers: int, processes: int) -> list[int]:
    """`workers` threads shared out over `processes` (as evenly as whole threads allow, at
    least one each): the run as a whole has `workers` trials in flight, not more."""
    base, extra = divmod(max(workers, processes), processes)
    return [base + (1 if i < extra else 0) for i in range(processes)]


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _fresh_model_client(share: int) -> None:
    """After fork: a model client and HTTP pool of this process's own (see module doc)."""
    from evals.engine.llm import client as client_module
    from evals.engine.llm import shared
    from evals.engine.llm.limits import ProviderLimits
    from evals.engine.llm.runtime import reset_http_pool_after_fork

    parent = shared.current_client()
    if parent is not None:
        limits = ProviderLimits(
            {k: max(1, v // share) for k, v in parent.limits.limits.items()},
            default=max(1, parent.limits.default // share),
        )
        shared.set_default_client(
            client_module.ModelClient(
                retry=parent.retry,
                limits=limits,
                cache=parent.cache,
                event_loop=parent.event_loop,
                direct=parent.direct,
            )
        )
    reset_http_pool_after_fork()


def _child(
    spec: RunSpec, units: list[WorkUnit], workers: int, share: int, out: Any, agent_key: bytes
) -> None:
    from evals.engine.runner.execute import execute_units

    try:
        _fresh_model_client(share)
        for record in execute_units(spec, units, workers, agent_key):
            out.put(("record", record.to_json_line()))
        out.put(("done", None))
    except BaseException:  # reported to the parent, which raises it
        out.put(("error", traceback.format_exc()))


def execute_in_processes(
    spec: RunSpec, units: Sequence[WorkUnit], workers: int, processes: int, agent_key: bytes
) -> Iterator[TrialRecord]:
    """Yield each unit's record as some process finishes it. A child that fails or dies
    stops the run with an EngineError naming it; records already yielded stay written.
    Each child receives the run's agent-seed key the way it receives the spec: as a process
    argument (inherited when forked, pickled through the spawn pipe otherwise)."""
    # Never more processes than workers: each process runs at least one trial at a time,
    # so more of them would put more trials in flight than the caller asked for.
    parts = shards(units, min(processes, max(1, workers)))
    if not parts:
        return
    ctx = _context()
    out = ctx.Queue()
    children = [
        ctx.Process(
            target=_child,
            args=(spec, part, threads, len(parts), out, agent_key),
            name=f"evals-shard-{i}",
            daemon=True,
        )
        for i, (part, threads) in enumerate(
            zip(parts, split_workers(workers, len(parts)), strict=True)
        )
    ]
    for child in children:
        child.start()
    running = len(children)
    try:
        while running:
            try:
                kind, payload = out.get(timeout=_POLL_S)
            except queue_module.Empty:
                dead = [c for c in children if c.exitcode not in (None, 0)]
                if dead:
                    raise EngineError(
                        f"worker process {dead[0].name} died (exit code {dead[0].exitcode})"
                    ) from None
                continue
            if kind == "record":
                yield TrialRecord.from_json_line(payload)
            elif kind == "done":
                running -= 1
            else:
                raise EngineError(f"a worker process failed:\n{payload}")
    finally:
        for child in children:
            if child.is_alive():
                child.terminate()
        for child in children:
            child.join(timeout=5)
        out.close()
