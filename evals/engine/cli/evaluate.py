"""`python -m evals.engine evaluate RUN.jsonl`: the report of a stored run, graded again by
the oracle (and by the judge, with --judge-model) from its trajectories, without calling the
agent or the user simulator (see evals.engine.runner.regrade)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evals.engine.cli.args import CommandError, json_object, ks_list
from evals.engine.metrics import render_table, summarise
from evals.engine.runner import JsonlSink, read_records
from evals.engine.runner.regrade import regrade
from evals.engine.runner.runfile import read_run_file, run_file_path


def add_parser(sub: Any) -> None:
    e = sub.add_parser(
        "evaluate",
        help="re-grade a stored run's trajectories and print its report (no model is called)",
    )
    e.add_argument("run_file", metavar="RUN.jsonl", help="the trial lines of a run")
    e.add_argument(
        "--judge-model",
        default="",
        help="LiteLLM model judging natural-language assertions (the only model called)",
    )
    e.add_argument("--judge-args", type=json_object("--judge-args"), default={})
    e.add_argument("--ks", type=ks_list, default=[1, 2, 4], help="k values for pass^k")
    e.add_argument("--out", default="", help="also write the re-graded trials here (a new file)")
    e.add_argument("--json", action="store_true", help="print the report as JSON")


def command(args: argparse.Namespace) -> int:
    path = Path(args.run_file)
    if not path.is_file():
        raise CommandError(f"{path} is not a file")
    records = list(read_records(path))
    if not records:
        raise CommandError(f"{path} holds no trial")
    stored = read_run_file(run_file_path(path))
    fields = stored.fields if stored is not None else {}
    # The run's bootstrap seed and trials per task, so the report is the run's own.
    seed = int(fields.get("seed", 0))
    trials = int(fields.get("trials", max(r.trial for r in records) + 1))
    out = Path(args.out) if args.out else None
    if out is not None and out.exists():
        raise CommandError(f"{out} exists: --out writes a new file")
    regraded = list(regrade(records, judge_model=args.judge_model, judge_params=args.judge_args))
    if out is not None:
        with JsonlSink(out) as sink:
            for record in regraded:
                sink.append(record)
    report = summarise(regraded, [k for k in args.ks if k <= trials] or [1], seed=seed)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(render_table(report))
        print(f"re-graded {len(regraded)} trial lines of {path}", file=sys.stderr)
    return 0
