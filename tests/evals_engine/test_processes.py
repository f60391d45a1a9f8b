"""The runner's process mode: the same records as a threaded run, one writer, resume, and a
worker process that fails or dies stops the run with a clear error."""

import os

import pytest

from evals.engine.errors import EngineError
from evals.engine.llm import ModelClient, ProviderLimits, shared
from evals.engine.runner import JsonlSink, MemorySink, RunSpec, plan, read_records, run
from evals.engine.runner import execute as execute_module
from evals.engine.runner import processes as processes_module
from evals.engine.runner.processes import _fresh_model_client, shards, split_workers

SPEC = RunSpec(
    domains=("retail",),
    personas=("baseline", "impatient"),
    trials=2,
    split="smoke",
    include_trajectory=False,
)


def _strip(records):
    return sorted((r.key, r.reward, r.failure, r.agent_turns, r.tool_calls) for r in records)


def test_processes_give_the_same_records_as_threads():
    threaded, forked = MemorySink(), MemorySink()
    run(SPEC, threaded, workers=4)
    report = run(SPEC, forked, workers=4, processes=2)
    assert len(forked.records) == len(plan(SPEC)) > 2
    assert _strip(forked.records) == _strip(threaded.records)
    assert report.trials == len(plan(SPEC))


def test_shards_are_round_robin_and_cover_every_unit_once():
    units = plan(SPEC)
    parts = shards(units, 3)
    assert sorted(u.key for part in parts for u in part) == sorted(u.key for u in units)
    assert [u.key for u in parts[0]] == [u.key for u in units[0::3]]
    assert shards(units[:1], 4) == [[units[0]]]  # no empty process


def test_the_parent_alone_writes_the_sink_and_resume_skips_finished_units(tmp_path):
    out = tmp_path / "run.jsonl"
    half = RunSpec.from_dict({**SPEC.to_dict(), "trials": 1})
    with JsonlSink(out) as sink:
        run(half, sink, workers=2, processes=2)
    first = {r.key for r in read_records(out)}
    with JsonlSink(out) as sink:
        run(SPEC, sink, workers=2, processes=2)
    lines = out.read_bytes().splitlines()
    keys = [r.key for r in read_records(out, dedupe=False)]
    assert len(lines) == len(keys) == len(plan(SPEC))  # whole lines, none twice
    assert first < set(keys)


def test_a_failing_worker_process_stops_the_run_with_its_traceback(monkeypatch):
    def boom(spec, units, workers, agent_key):
        raise RuntimeError("shard exploded")
        yield  # pragma: no cover

    monkeypatch.setattr(execute_module, "execute_units", boom)  # inherited by the fork
    with pytest.raises(EngineError, match="shard exploded"):
        run(SPEC, MemorySink(), workers=2, processes=2)


def test_a_worker_process_that_dies_is_reported(monkeypatch):
    def die(spec, units, workers, agent_key):
        os._exit(7)
        yield  # pragma: no cover

    monkeypatch.setattr(execute_module, "execute_units", die)
    with pytest.raises(EngineError, match="exit code 7"):
        run(SPEC, MemorySink(), workers=2, processes=2)


def test_bad_worker_counts_are_refused():
    with pytest.raises(EngineError):
        run(SPEC, MemorySink(), processes=0)


def test_a_forked_child_gets_its_own_client_with_its_share_of_the_limits():
    parent = ModelClient(
        limits=ProviderLimits({"openai": 10}, default=64), event_loop=True, direct=False
    )
    shared.set_default_client(parent)
    try:
        _fresh_model_client(2)
        child = shared.default_client()
        assert child is not parent
        assert child.limits.default == 32 and child.limits.limit_for("openai") == 5
        assert child.retry is parent.retry and child.event_loop
        assert child.direct is False  # a parent kept on LiteLLM keeps its children there
    finally:
        shared.set_default_client(None)


def test_workers_are_shared_out_so_no_more_trials_are_in_flight_than_asked():
    assert split_workers(5, 2) == [3, 2]
    assert split_workers(64, 2) == [32, 32]
    assert split_workers(3, 3) == [1, 1, 1]
    # (the caller never asks for more processes than workers; see the next test)


def test_a_run_starts_no_more_threads_in_all_than_its_workers(monkeypatch):
    # One worker over two processes used to start two processes of one thread each: two
    # trials in flight, twice what was asked (and twice the provider's load).
    real = processes_module._context()
    started: list[int] = []

    class Counting:
        def __getattr__(self, name):
            return getattr(real, name)

        def Process(self, *, target, args, **kwargs):
            started.append(args[2])  # the child's thread count
            return real.Process(target=target, args=args, **kwargs)

    monkeypatch.setattr(processes_module, "_context", Counting)
    report = run(SPEC, MemorySink(), workers=1, processes=2)
    assert report.trials == len(plan(SPEC))
    assert started == [1]
    started.clear()
    run(SPEC, MemorySink(), workers=3, processes=2)
    assert sorted(started) == [1, 2]
