"""The wall times bench/latency.py rates trial throughput against."""

import importlib

# Imported by name, not statically: bench/ is scripts, not a package, and mypy checks
# bench/latency.py as the top-level module `latency` (a static import would check it twice).
latency = importlib.import_module("bench.latency")
ideal_trial_wall_s = latency.ideal_trial_wall_s
runner_schedule_wall_s = latency.runner_schedule_wall_s


def test_it_spreads_the_total_call_time_over_the_workers() -> None:
    # 8 trials of 10 calls at 0.5 s on 4 workers: two rounds of 5 s.
    assert ideal_trial_wall_s([10] * 8, workers=4, delay=0.5) == 10.0


def test_it_counts_only_the_trials_there_are_when_workers_outnumber_them() -> None:
    # 3 trials cannot keep 64 workers busy: the run lasts one trial, not 3/64 of one.
    assert ideal_trial_wall_s([10, 10, 10], workers=64, delay=2.0) == 20.0


def test_it_never_ends_before_the_longest_trial() -> None:
    # The total spread over 4 workers would be 4.5 s, but one trial alone takes 12 s.
    assert ideal_trial_wall_s([12, 2, 2, 2], workers=4, delay=1.0) == 12.0


def test_an_empty_run_takes_no_time() -> None:
    assert ideal_trial_wall_s([], workers=16, delay=2.0) == 0.0


def test_the_runner_schedule_runs_a_part_empty_last_round() -> None:
    # 6 equal trials on 4 threads: two rounds, where the ideal spreads them over 1.5.
    calls = [10] * 6
    assert runner_schedule_wall_s(calls, workers=4, processes=1, delay=1.0) == 20.0
    assert ideal_trial_wall_s(calls, workers=4, delay=1.0) == 15.0


def test_the_runner_schedule_deals_units_round_robin_to_each_shards_threads() -> None:
    # Shard 0 gets [12, 12] and shard 1 [2, 2], one thread each: shard 0 alone takes 24.
    calls = [12, 2, 12, 2]
    assert runner_schedule_wall_s(calls, workers=2, processes=2, delay=1.0) == 24.0
    assert ideal_trial_wall_s(calls, workers=2, delay=1.0) == 14.0


def test_the_runner_schedule_takes_each_shards_units_first_come_first_served() -> None:
    # Two threads, in order 5, 5, 10: the 10 starts when the first thread frees at 5.
    assert runner_schedule_wall_s([5, 5, 10], workers=2, processes=1, delay=1.0) == 15.0
