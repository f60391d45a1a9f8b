"""python manage.py golive run|selftest|import|list|show|compare — see docs/golive.md."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evals import selectors
from evals.management import cli
from evals.models import EvalRun


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


class Command(BaseCommand):
    help = "Go-live acceptance suites: run, selftest, list, show, compare."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        run = sub.add_parser(
            "run", help="Run a suite and judge the gate (exit 0 pass, 1 fail, 2 error)."
        )
        run.add_argument(
            "--suite", default="default", help="a name in suites/ or a path to a .toml"
        )
        run.add_argument("--agent", help="agent model (overrides the suite)")
        run.add_argument("--user", help="user-simulator model (overrides the suite)")
        run.add_argument("--trials", type=int, help="trials per task")
        run.add_argument("--domains", type=_csv, help="comma-separated domains")
        run.add_argument("--personas", type=_csv, help="comma-separated personas")
        run.add_argument("--workers", type=int, help="threads (in-process) for concurrent trials")
        run.add_argument("--resume", type=int, metavar="RUN_ID", help="complete an interrupted run")
        run.add_argument(
            "--json", dest="json_path", metavar="PATH", help="write the result as JSON"
        )
        run.add_argument(
            "--plan", action="store_true", help="print trials and LLM estimate; run nothing"
        )
        run.add_argument("--as", dest="as_user", metavar="USERNAME", help="accountable operator")
        run.add_argument(
            "--executor", choices=["inline", "celery"], help="default: celery when a broker is set"
        )
        run.add_argument("--base-url", default="http://127.0.0.1:8000", help="for the report URL")
        run.add_argument(
            "--timeout", type=float, default=3600.0, help="seconds to wait for Celery workers"
        )
        run.add_argument("--no-progress", action="store_true", help="no progress bar")
        selftest = sub.add_parser("selftest", help="How many injected faults the oracle catches.")
        selftest.add_argument(
            "--domains", type=_csv, help="comma-separated (default: the default suite's)"
        )
        selftest.add_argument("--split", default="all")
        selftest.add_argument("--as", dest="as_user", metavar="USERNAME")
        selftest.add_argument("--json", dest="json_path", metavar="PATH")
        imported = sub.add_parser(
            "import", help="Import a JSON-lines run of `python -m evals.engine run`."
        )
        imported.add_argument("file", help="the .jsonl file the engine wrote (--out)")
        imported.add_argument("--as", dest="as_user", metavar="USERNAME")
        imported.add_argument("--base-url", default="http://127.0.0.1:8000")
        listing = sub.add_parser("list", help="Recent runs.")
        listing.add_argument("--limit", type=int, default=20)
        show = sub.add_parser("show", help="One run's verdict and figures.")
        show.add_argument("run_id", type=int)
        show.add_argument("--json", action="store_true", help="print JSON")
        show.add_argument(
            "--format",
            choices=["text", "json", "md", "html"],
            default="text",
            help="md: a Markdown summary for a CI comment; html: the report as one "
            "self-contained HTML file (in LANGUAGE_CODE, or --language)",
        )
        show.add_argument("--base-url", default="http://127.0.0.1:8000")
        show.add_argument("--language", default="", help="html: e.g. zh-hans")
        compare = sub.add_parser("compare", help="Paired per-task differences, regressions first.")
        compare.add_argument("run_a", type=int)
        compare.add_argument("run_b", type=int)
        compare.add_argument("--limit", type=int, default=30)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            code = getattr(self, f"_{options['action']}")(options)
        except cli.Abort as exc:
            raise CommandError(f"golive: {exc}", returncode=cli.EXIT_ERROR) from None
        if code:
            sys.exit(code)

    def _out(self, line: str) -> None:
        self.stdout.write(line)

    def _run(self, o: dict[str, Any]) -> int:
        return cli.golive_run(
            suite_name=o["suite"],
            agent=o["agent"],
            user=o["user"],
            trials=o["trials"],
            domains=o["domains"],
            personas=o["personas"],
            workers=o["workers"],
            resume=o["resume"],
            json_path=o["json_path"],
            plan_only=o["plan"],
            as_user=o["as_user"],
            executor=o["executor"],
            base_url=o["base_url"],
            timeout=o["timeout"],
            progress=not o["no_progress"] and sys.stderr.isatty(),
            out=self._out,
            err=sys.stderr,
        )

    def _selftest(self, o: dict[str, Any]) -> int:
        from evals.services import eval_selftest_run, suite_load

        operator = cli.resolve_operator(o["as_user"])
        domains = o["domains"] or list(suite_load(name="default").domains)
        self._out(f"Selftest on {', '.join(domains)} (split {o['split']}) …")
        try:
            selftest = eval_selftest_run(actor=operator, domains=domains, split=o["split"])
        except Exception as exc:  # a bad domain name or split: one line, exit 2
            raise cli.Abort(str(exc)) from None
        code = cli.print_selftest(selftest, self._out)
        self._out(
            f"Stored as selftest #{selftest.pk} at code {selftest.code_version} "
            f"({selftest.seconds:.1f} s), every miss included; the report pages show it."
        )
        if o["json_path"]:
            with open(o["json_path"], "w", encoding="utf-8") as handle:
                json.dump({"id": selftest.pk, "results": selftest.results}, handle, indent=2)
        return code

    def _import(self, o: dict[str, Any]) -> int:
        from backoffice.errors import DomainError
        from evals.services.imports import eval_run_import

        operator = cli.resolve_operator(o["as_user"])
        try:
            with open(o["file"], "rb") as handle:
                run = eval_run_import(actor=operator, name=o["file"], lines=handle)
        except OSError as exc:
            raise cli.Abort(f"{o['file']}: {exc.strerror or exc}") from None
        except DomainError as exc:
            raise cli.Abort(f"{o['file']}: {exc.message}") from None
        self._out(
            f"Imported {run.total_units} trials from {o['file']} as run #{run.pk} "
            f"({', '.join(d['name'] for d in run.suite_snapshot['domains'])}; not judged by a gate)"
        )
        self._out(f"Report: {cli.report_url(run, o['base_url'])}")
        return 0

    def _list(self, o: dict[str, Any]) -> int:
        for run in selectors.run_list()[: o["limit"]]:
            self._out(
                f"#{run.pk:<5} {run.created_at:%Y-%m-%d %H:%M}  {run.suite_name:<12} {run.status:<10}"
                f" {run.verdict or '-':<6} {run.total_units:>6} trials  {run.agent_model}  by {run.started_by.username}"
            )
        return 0

    def _get(self, run_id: int) -> EvalRun:
        run = EvalRun.objects.select_related("started_by").filter(pk=run_id).first()
        if run is None:
            raise cli.Abort(f"no run #{run_id}")
        return run

    def _show(self, o: dict[str, Any]) -> int:
        run = self._get(o["run_id"])
        if o["format"] == "md":
            from evals.exports import report_markdown

            self._out(report_markdown(run, cli.report_url(run, o["base_url"])).rstrip("\n"))
            return 0
        if o["format"] == "html":
            from django.utils import translation

            from evals.report_file import report_html

            with translation.override(o["language"] or settings.LANGUAGE_CODE):
                self._out(report_html(run, cli.report_url(run, o["base_url"])).rstrip("\n"))
            return 0
        if o["json"] or o["format"] == "json":
            self._out(json.dumps(cli.run_json(run, o["base_url"]), indent=2, default=str))
            return 0
        self._out(
            f"Run #{run.pk} {run.suite_name} ({run.suite_hash[:12]}), code {run.code_version}, "
            f"seed {run.seed}, by {run.started_by.username}"
        )
        self._out(f"Models: {cli.models_line(run)}")
        differing = selectors.run_trials_with_other_models(run=run)
        for trial in differing[:10]:
            self._out(
                f"  trial {trial.key}: agent {trial.agent_model or '?'}, "
                f"user {trial.user_model or '?'}"
            )
        if len(differing) > 10:
            self._out(f"  … {len(differing) - 10} more trial(s) with other models")
        self._out(
            f"Status {run.get_status_display()}{': ' + run.error_message if run.error_message else ''}"
        )
        cli.print_verdict(run, self._out, o["base_url"])
        failures = (run.summary or {}).get("report", {}).get("failures", {})
        if failures:
            self._out("Failures: " + ", ".join(f"{k} {v}" for k, v in failures.items()))
        return 0

    def _compare(self, o: dict[str, Any]) -> int:
        from evals.comparison import run_comparison

        self._get(o["run_a"])
        self._get(o["run_b"])
        c = run_comparison(run_a=o["run_a"], run_b=o["run_b"])
        self._out(
            f"Run #{c.a.pk} ({c.a.agent_model}, {c.a.verdict or c.a.status}) → run #{c.b.pk} "
            f"({c.b.agent_model}, {c.b.verdict or c.b.status}): {c.shared} shared cells, "
            f"{c.regressions} pass → fail, {c.fixes} fail → pass"
        )
        for title, rows in (
            ("overall", c.overall),
            ("per domain", c.by_domain),
            ("per persona", c.by_persona),
        ):
            self._out(f"{title}:")
            for r in rows:
                mark = " WORSE" if r.worse else " better" if r.better else ""
                self._out(
                    f"  {r.label:<22} pass^{r.k} {r.a.value:.3f} [{r.a.low:.3f}, {r.a.high:.3f}]"
                    f" → {r.b.value:.3f} [{r.b.low:.3f}, {r.b.high:.3f}]  {r.delta:+.3f}{mark}"
                )
        for flip in c.flips[: o["limit"]]:
            kind = "REGRESSION" if flip.regression else "fixed     "
            self._out(f"  {kind} {flip.key}: {flip.a_rate:.2f} → {flip.b_rate:.2f}")
        if c.only_a or c.only_b:
            self._out(f"  not paired: {c.only_a} only in #{c.a.pk}, {c.only_b} only in #{c.b.pk}")
        return 0
