"""The go-live REST API: list, read, start and resume runs.

Humans call it with their verified session and are judged by role (evals.access); CI
service principals call it with a bearer token and are judged by scope: `evals:run` starts
runs and reads them, `evals:read` only reads. Starting a run takes an Idempotency-Key, so a
CI retry never starts a second run. The run executes in the background (Celery workers when
a broker is configured, else a thread of the server); poll the detail until `status` is
`completed` or `error`, then read `verdict` (pass / fail / error).

Resuming an interrupted run is refused (409, the one-line reason in `error.message`) when
what would run now differs from what the run measured so far: its fingerprint (agent, user,
judge, domains, tasks, personas, seed, trials, guard, limits, code version). A resume may name
the agent, user, trials, domains or personas it expects, and is refused when they differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework import status as http
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice.errors import ValidationFailed
from backoffice.idempotency import idempotent
from backoffice.pagination import StandardPagination
from backoffice.request_operator import request_operator
from evals import access, selectors, services
from evals.models import DeadlineStep, EvalRun
from identity.authentication import allowed

IDEMPOTENCY_SCOPE = "evals"


READ = allowed(human=access.can_view_runs, scopes=("evals:run", "evals:read"))
START = allowed(human=access.can_start_runs, scopes=("evals:run",))


class RunIn(serializers.Serializer):
    suite = serializers.CharField(max_length=100)
    agent = serializers.CharField(max_length=200, required=False, allow_blank=True)
    user = serializers.CharField(max_length=200, required=False, allow_blank=True)
    trials = serializers.IntegerField(required=False, min_value=1, max_value=64)
    domains = serializers.ListField(child=serializers.CharField(max_length=64), required=False)
    personas = serializers.ListField(child=serializers.CharField(max_length=200), required=False)


class RunResumeIn(serializers.Serializer):
    """What the caller expects the run to measure; omitted fields are the run's own."""

    agent = serializers.CharField(max_length=200, required=False, allow_blank=True)
    user = serializers.CharField(max_length=200, required=False, allow_blank=True)
    trials = serializers.IntegerField(required=False, min_value=1, max_value=64)
    domains = serializers.ListField(child=serializers.CharField(max_length=64), required=False)
    personas = serializers.ListField(child=serializers.CharField(max_length=200), required=False)


class RunOut(serializers.ModelSerializer):
    started_by = serializers.CharField(source="started_by.username")
    report_url = serializers.SerializerMethodField()
    cost_micros = serializers.IntegerField()

    class Meta:
        model = EvalRun
        fields = [
            "id",
            "suite_name",
            "suite_hash",
            "code_version",
            "agent_model",
            "user_model",
            "seed",
            "fingerprint",
            "trials_per_task",
            "total_units",
            "executor",
            "status",
            "verdict",
            "verdict_reasons",
            "error_message",
            "agent_tokens_in",
            "agent_tokens_out",
            "agent_cost_micros",
            "user_tokens_in",
            "user_tokens_out",
            "user_cost_micros",
            "cost_micros",
            "started_by",
            "created_at",
            "started_at",
            "finished_at",
            "report_url",
        ]

    def get_report_url(self, run: EvalRun) -> str:
        from django.urls import reverse

        request = self.context.get("request")
        path = reverse("evals:run_detail", args=[run.pk])
        return request.build_absolute_uri(path) if request else path


class RunDeadlineOut(serializers.Serializer):
    """Set while the run is `running`, null otherwise. `at`: when the run counts as stalled
    if no further trial is stored (every stored trial moves it on by EVALS_RUN_STALL_SECONDS).
    `then`: what the watchdog does at `at` — `redispatch` sends the missing units to the
    workers again, once, and sets a new deadline; `end` ends the run `failed`, resumable
    (POST .../resume), finished trials kept."""

    at = serializers.DateTimeField()
    then = serializers.ChoiceField(choices=DeadlineStep.choices)


class RunDetailOut(RunOut):
    summary = serializers.JSONField()
    suite_snapshot = serializers.JSONField()
    finished_units = serializers.SerializerMethodField()
    deadline = serializers.SerializerMethodField()

    class Meta(RunOut.Meta):
        fields = [*RunOut.Meta.fields, "summary", "suite_snapshot", "finished_units", "deadline"]

    def get_finished_units(self, run: EvalRun) -> int:
        return selectors.run_trials_done(run_id=run.pk)

    @extend_schema_field(RunDeadlineOut(allow_null=True))
    def get_deadline(self, run: EvalRun) -> dict[str, Any] | None:
        deadline = selectors.run_deadline(run=run)
        if deadline is None:
            return None
        return dict(RunDeadlineOut({"at": deadline.at, "then": deadline.then}).data)


def _overridden(suite: services.Suite, v: Mapping[str, Any]) -> services.Suite:
    """`suite` with the overrides a start or resume request gave (empty ones ignored),
    refused when it would run Python code that is not allow-listed for the web."""
    try:
        return services.suite_check_web_models(
            suite=services.suite_override(
                suite=suite,
                agent=v.get("agent") or None,
                user=v.get("user") or None,
                trials=v.get("trials"),
                domains=v.get("domains") or None,
                personas=v.get("personas") or None,
            )
        )
    except services.SuiteCodeRefused as exc:
        raise ValidationFailed(str(exc), fields={exc.field: [str(exc)]}) from exc


def _probed(suite: services.Suite) -> services.Suite:
    """The suite, once its agent and user simulator are known to exist and answer (one call
    per LLM role), as the start form and `golive run` check them; a 400 naming each role's
    problem otherwise, before anything is created."""
    problems = services.suite_models_probe(suite=suite)
    if problems:
        raise ValidationFailed(
            "; ".join(f"{role}: {problem}" for role, problem in problems.items()),
            fields={role: [problem] for role, problem in problems.items()},
        )
    return suite


class RunListApi(APIView):
    permission_classes = [IsAuthenticated, READ]

    @extend_schema(responses=RunOut(many=True))
    def get(self, request: Request) -> Response:
        qs = selectors.run_list(
            suite=request.query_params.get("suite", ""),
            status=request.query_params.get("status", ""),
        )
        paginator = StandardPagination()
        page = paginator.paginate_queryset(qs, request, view=self)
        return paginator.get_paginated_response(
            RunOut(page, many=True, context={"request": request}).data
        )


class RunDetailApi(APIView):
    permission_classes = [IsAuthenticated, READ]

    @extend_schema(responses=RunDetailOut)
    def get(self, request: Request, run_id: int) -> Response:
        run = selectors.run_get(run_id=run_id)
        return Response(RunDetailOut(run, context={"request": request}).data)


class RunCreateApi(APIView):
    permission_classes = [IsAuthenticated, START]

    @extend_schema(request=RunIn, responses={202: RunOut})
    @idempotent(scope=IDEMPOTENCY_SCOPE)
    def post(self, request: Request) -> Response:
        data = RunIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        try:
            suite = _overridden(services.suite_load(name=v["suite"]), v)
        except services.SuiteError as exc:
            raise ValidationFailed(str(exc), fields={"suite": [str(exc)]}) from exc
        suite = _probed(suite)
        run = services.eval_run_start_background(actor=request_operator(request), suite=suite)
        return Response(
            RunOut(run, context={"request": request}).data, status=http.HTTP_202_ACCEPTED
        )


class RunResumeApi(APIView):
    permission_classes = [IsAuthenticated, START]

    @extend_schema(request=RunResumeIn, responses={202: RunOut})
    @idempotent(scope=IDEMPOTENCY_SCOPE)
    def post(self, request: Request, run_id: int) -> Response:
        data = RunResumeIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        run = selectors.run_get(run_id=run_id)
        try:
            suite = _overridden(services.run_suite(run=run), v)
        except services.SuiteError as exc:
            raise ValidationFailed(str(exc)) from exc
        suite = _probed(suite)
        run = services.eval_run_resume_background(
            actor=request_operator(request), run_id=run.pk, suite=suite
        )
        return Response(
            RunOut(run, context={"request": request}).data, status=http.HTTP_202_ACCEPTED
        )
