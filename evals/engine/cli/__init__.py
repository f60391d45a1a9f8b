"""`python -m evals.engine run|evaluate|list`: the engine alone, without Django.

Bad input (an unknown domain, a persona the offline customer cannot speak, a malformed flag)
is one line on stderr and exit status 2, never a traceback: `CommandError` and the engine's
own `EngineError` are the errors a person can fix from the command line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evals.domains import domain_names, get_domain
from evals.engine.cli import evaluate as evaluate_command
from evals.engine.cli.args import CommandError, Parser, at_least, csv, json_object, ks_list
from evals.engine.errors import EngineError
from evals.engine.llm import CallRole
from evals.engine.llm.probe import model_problem
from evals.engine.llm.runtime import litellm_module
from evals.engine.llm.shared import client_for_run, current_client, set_default_client
from evals.engine.messages import GuardMode
from evals.engine.metrics import render_table
from evals.engine.orchestrator import Limits
from evals.engine.registry import agent_names, name_prefix, user_names
from evals.engine.runner import (
    JsonlSink,
    ResumeRefused,
    RunSpec,
    TrialRecord,
    default_out,
    open_run,
    plan,
    read_records,
    run,
)


def _personas(text: str) -> tuple[str, ...]:
    """Persona specs separated by ';' when they contain '=' (compositions use commas),
    otherwise by ','."""
    return tuple(p.strip() for p in text.split(";" if "=" in text else ",") if p.strip())


def _add_selection(r: argparse.ArgumentParser) -> None:
    """What to run: domains, tasks, personas, trials."""
    r.add_argument("--domain", required=True, help="domain name(s), comma-separated")
    r.add_argument("--trials", type=int, default=4)
    r.add_argument(
        "--personas",
        default="baseline",
        help="presets, comma-separated; compositions ';'-separated",
    )
    r.add_argument("--split", default="all")
    r.add_argument(
        "--tasks", default="", help="task ids, comma-separated (default: the whole split)"
    )


def _add_models(r: argparse.ArgumentParser) -> None:
    """Who talks: the agent, the customer, the judge, and their model parameters."""
    r.add_argument("--agent", default="sandbox/reference")
    r.add_argument("--user", default="sandbox/scripted")
    r.add_argument(
        "--judge-model",
        default="",
        help="LiteLLM model judging natural-language assertions (default: none, not judged)",
    )
    models = r.add_argument_group(
        "model parameters",
        "JSON objects, the keys of a suite's params: api_base, api_key or api_key_env, "
        "timeout_s, retries, retry_delay_s, and what goes to the provider (temperature, "
        "seed, max_tokens, ...). Credentials are used, never stored.",
    )
    models.add_argument("--agent-args", type=json_object("--agent-args"), default={})
    models.add_argument("--user-args", type=json_object("--user-args"), default={})
    models.add_argument("--judge-args", type=json_object("--judge-args"), default={})


def _add_limits(r: argparse.ArgumentParser) -> None:
    """Run limits and retries: a trial's turns, tool errors and time, the task sample, and
    the model calls' retries."""
    defaults = Limits()
    limits = r.add_argument_group("limits and retries (all part of the run's fingerprint)")
    limits.add_argument(
        "--max-turns",
        type=at_least(1, int),
        default=defaults.max_turns,
        help="messages with text, agent's and customer's, before the trial ends as a failure",
    )
    limits.add_argument(
        "--max-tool-errors",
        type=at_least(0, int),
        default=defaults.max_tool_errors,
        help="failed tool calls tolerated; one more ends the trial as a failure",
    )
    limits.add_argument(
        "--wall-time",
        type=at_least(0.001, float),
        default=defaults.wall_time_s,
        help="seconds per trial before it ends as a failure",
    )
    limits.add_argument(
        "--num-tasks",
        type=at_least(0, int),
        default=0,
        help="run a sample of this many tasks per domain, drawn from --seed (0: all)",
    )
    limits.add_argument(
        "--retries",
        type=at_least(0, int),
        default=None,
        help="retries of a failed model call (rate limit, provider error); default 4",
    )
    limits.add_argument(
        "--retry-delay",
        type=at_least(0, float),
        default=None,
        help="seconds before the first retry, doubling after (default 0.5)",
    )


def _add_execution(r: argparse.ArgumentParser) -> None:
    """How the trials run: seed, concurrency, the policy guard, the solo ablation."""
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--workers", type=int, default=1, help="trials in flight (threads)")
    r.add_argument(
        "--processes",
        type=at_least(1, int),
        default=None,
        help="worker processes sharing --workers (default: one per core, at most --workers, "
        "when the agent or the customer is an LLM; else 1)",
    )
    r.add_argument("--guard", choices=[m.value for m in GuardMode], default="enforce")
    r.add_argument(
        "--solo",
        action="store_true",
        help="no-customer ablation of a dual-control domain: the agent holds the customer's "
        "tools too and the customer only states its request (docs/domains.md)",
    )


def _add_output(r: argparse.ArgumentParser) -> None:
    """What comes out: the k values, the trial lines, the report's form."""
    r.add_argument("--ks", type=ks_list, default=[1, 2, 4], help="k values for pass^k")
    r.add_argument(
        "--out",
        default="",
        help="JSON-lines file (appended; rerun the same run to resume; default "
        "var/evals/<domains>-<seed>-<fingerprint[:12]>.jsonl)",
    )
    r.add_argument("--no-trajectory", action="store_true", help="store records without messages")
    r.add_argument(
        "--no-probe",
        action="store_true",
        help="start without first checking that each LLM model answers (one call per model)",
    )
    r.add_argument("--json", action="store_true", help="print the report as JSON")


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="python -m evals.engine")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    # `run`'s options by section; the order of the calls is the order of `--help`.
    r = sub.add_parser("run", help="run trials and print the pass^k table")
    _add_selection(r)
    _add_models(r)
    _add_limits(r)
    _add_execution(r)
    _add_output(r)
    evaluate_command.add_parser(sub)
    sub.add_parser("list", help="domains, splits, task counts and models")
    return parser


def _with_retries(params: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """A role's parameters with --retries / --retry-delay added, unless they set their own."""
    out = dict(params)
    if args.retries is not None:
        out.setdefault("retries", args.retries)
    if args.retry_delay is not None:
        out.setdefault("retry_delay_s", args.retry_delay)
    return out


def _calls_llm(spec: RunSpec) -> bool:
    """The agent or the customer is a LiteLLM model (the resolver of any other name)."""
    return name_prefix(spec.agent) == "" or name_prefix(spec.user, user=True) == ""


def _processes(args: argparse.Namespace, spec: RunSpec) -> int:
    """--processes, or its default: an LLM run's CPU is LiteLLM's, under one interpreter lock
    per process, so one process tops out at one core whatever --workers says; offline models
    cost so little a trial that forking would cost more than it saves."""
    if args.processes is not None:
        return int(args.processes)
    if args.workers <= 1 or not _calls_llm(spec):
        return 1
    return max(1, min(os.cpu_count() or 1, args.workers))


def _probe(spec: RunSpec) -> None:
    """Refuse to start a run whose agent, customer or judge would not answer: an unknown name
    or a model the provider refuses would otherwise make every trial the same error."""
    roles = [
        ("agent", CallRole.AGENT, spec.agent, spec.agent_params),
        ("user", CallRole.USER, spec.user, spec.user_params),
    ]
    if spec.judge_model:
        roles.append(("judge", CallRole.AGENT, spec.judge_model, spec.judge_params))
    problems = [
        f"{label} {name!r}: {problem.english()}"
        for label, role, name, params in roles
        if (problem := model_problem(role, name, params)) is not None
    ]
    if problems:
        raise CommandError("; ".join(problems) + " (--no-probe starts anyway)")


def _run(args: argparse.Namespace) -> int:
    spec = RunSpec(
        domains=csv(args.domain),
        personas=_personas(args.personas),
        trials=args.trials,
        seed=args.seed,
        split=args.split,
        task_ids=csv(args.tasks),
        agent=args.agent,
        user=args.user,
        guard_mode=GuardMode(args.guard),
        include_trajectory=not args.no_trajectory,
        judge_model=args.judge_model,
        agent_params=_with_retries(args.agent_args, args),
        user_params=_with_retries(args.user_args, args),
        judge_params=_with_retries(args.judge_args, args),
        limits=Limits(
            max_turns=args.max_turns,
            max_tool_errors=args.max_tool_errors,
            wall_time_s=args.wall_time,
        ),
        num_tasks=args.num_tasks,
        solo=args.solo,
    )
    out = Path(args.out) if args.out else default_out(spec)
    keys = {u.key for u in plan(spec)}
    if not args.no_probe:
        _probe(spec)
    existing = list(read_records(out))
    try:
        run_file = open_run(out, spec, existing)
    except ResumeRefused as exc:
        print(f"{exc}: choose another --out or remove the file", file=sys.stderr)
        return 2
    previous: list[TrialRecord] = [r for r in existing if r.key in keys]
    total = len(keys)

    def progress(record: TrialRecord, done: int, pending: int) -> None:
        if done % 50 == 0 or done == pending:
            print(f"\r{done + len(previous)}/{total} trials", end="", file=sys.stderr, flush=True)

    processes = _processes(args, spec)
    if processes > 1 and _calls_llm(spec):
        # Imported once here, before the worker processes are forked, rather than once in
        # each of them: the import is most of the CLI's start-up CPU (the probe imports it
        # too, but --no-probe skips the probe).
        litellm_module()
    # A model client sized for this run, unless the program calling `main` installed its own
    # (kept as it is); ours is dropped when the run ends.
    ours = _calls_llm(spec) and current_client() is None
    if ours:
        set_default_client(
            client_for_run(in_flight=args.workers, per_process=-(-args.workers // processes))
        )
    try:
        with JsonlSink(out) as sink:
            report = run(
                spec,
                sink,
                workers=args.workers,
                processes=processes,
                on_progress=progress,
                ks=args.ks,
                previous=previous,
                agent_key=run_file.agent_key,
            )
    finally:
        print(file=sys.stderr)  # ends the progress line, before a report or an error
        if ours:
            client = current_client()
            set_default_client(None)
            if client is not None:
                client.close()
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(render_table(report))
        print(f"trial lines: {out}")
    return 0


def _list() -> int:
    for name in domain_names():
        try:
            domain = get_domain(name)
        except Exception as exc:  # a domain being written must not hide the others
            print(f"{name}: unavailable ({exc!r})")
            continue
        splits = ", ".join(f"{s} ({len(domain.tasks(s))})" for s in domain.splits())
        print(f"{name}: {splits}")
        for task in domain.tasks():
            for note in task.notes:
                print(f"  note: task {task.id}: {note}")
    print("agents: " + ", ".join(agent_names()))
    print("users: " + ", ".join(user_names()))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            return _run(args)
        if args.command == "evaluate":
            return evaluate_command.command(args)
        return _list()
    except (CommandError, EngineError) as exc:
        print(f"python -m evals.engine {args.command}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # an --out that cannot be written, a file that cannot be read
        print(f"python -m evals.engine {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"python -m evals.engine {args.command}: interrupted (finished trials are kept; "
            "the same command resumes)",
            file=sys.stderr,
        )
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
