"""Go-live runs and their trials, stored around the pure-Python engine (evals.engine).

An EvalRun freezes the suite it ran (snapshot + sha256) so a report can always be traced to
exactly what was measured. Each TrialResult is unique on (run, domain, task, persona,
trial): the unique constraint is what makes a re-delivered Celery task, a resumed run and a
thread that races another harmless — the second insert loses and nothing is counted twice.
Costs are integer micro-dollars (LiteLLM prices are USD per token, far below a cent).
"""

from __future__ import annotations

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils.translation import gettext_lazy


class RunStatus(models.TextChoices):
    QUEUED = "queued", gettext_lazy("Queued")
    RUNNING = "running", gettext_lazy("Running")
    COMPLETED = "completed", gettext_lazy("Completed")
    # Execution stopped before every unit finished (crash, killed worker, interruption):
    # `golive run --resume` or the Resume button completes it.
    FAILED = "failed", gettext_lazy("Failed (resumable)")
    # The run could not be judged: too many infrastructure errors or a bad configuration.
    ERROR = "error", gettext_lazy("Could not complete")


class Verdict(models.TextChoices):
    PENDING = "", gettext_lazy("Pending")
    PASS = "pass", gettext_lazy("Gate passes")
    FAIL = "fail", gettext_lazy("Gate fails")
    ERROR = "error", gettext_lazy("Could not judge")


class Executor(models.TextChoices):
    INLINE = "inline", gettext_lazy("In-process")
    CELERY = "celery", gettext_lazy("Celery workers")


class DeadlineStep(models.TextChoices):
    """What the watchdog does with a running run whose deadline passed without progress."""

    REDISPATCH = "redispatch", gettext_lazy("send the missing trials again")
    END = "end", gettext_lazy("end the run, resumable")


class TrialOutcome(models.TextChoices):
    PASS = "pass", gettext_lazy("Pass")
    FAIL = "fail", gettext_lazy("Fail")
    INFRASTRUCTURE = "infrastructure", gettext_lazy("Infrastructure error")
    # The simulated customer broke its scenario (invented a fact, stopped before the agent's
    # last write): not the agent's outcome either, but the measuring instrument's, so it is
    # counted and gated apart from infrastructure errors.
    SIMULATOR = "simulator", gettext_lazy("Simulator error")
    # Passed every deterministic check, but success depends on natural-language assertions
    # and the run had no judge: neither a pass nor a failure, and a gate cannot pass it.
    NOT_JUDGED = "not_judged", gettext_lazy("Not judged")


# Outcomes that are not the agent's: excluded from pass^k, re-run by resume.
ERROR_OUTCOMES = (TrialOutcome.INFRASTRUCTURE, TrialOutcome.SIMULATOR)
# Every outcome left out of n and c (a re-run without a judge would not judge it either).
EXCLUDED_OUTCOMES = (*ERROR_OUTCOMES, TrialOutcome.NOT_JUDGED)


class EvalRun(models.Model):
    suite_name = models.CharField(max_length=100)
    suite_snapshot = models.JSONField()
    suite_hash = models.CharField(max_length=64)
    code_version = models.CharField(max_length=100)
    agent_model = models.CharField(max_length=200)
    agent_params = models.JSONField(default=dict)
    user_model = models.CharField(max_length=200)
    user_params = models.JSONField(default=dict)
    # The models that answered, as resolved by the adapters (a provider may serve an alias
    # as a dated snapshot); comma-separated when trials differ. Set when the run finishes.
    agent_model_resolved = models.CharField(max_length=500, blank=True)
    user_model_resolved = models.CharField(max_length=500, blank=True)
    seed = models.BigIntegerField()
    # What the run measures, per domain: the engine's fingerprinted fields (secret-free; see
    # evals.engine.runner.fingerprint) frozen at creation, and their sha256. A resume whose
    # suite or code gives other fields is refused, naming what differs; blank on runs
    # created before fingerprints, which cannot be resumed.
    fingerprint = models.CharField(max_length=64, blank=True)
    fingerprint_fields = models.JSONField(default=dict)
    # The run's secret for its agents' seeds (hex of 32 random bytes): drawn at creation,
    # read by whatever executes a trial (a thread here, a Celery worker), never shown, never
    # in a trial row or the API.
    agent_seed_key = models.CharField(max_length=64, blank=True, editable=False)
    trials_per_task = models.PositiveIntegerField()
    total_units = models.PositiveIntegerField(default=0)
    executor = models.CharField(max_length=16, choices=Executor.choices, default=Executor.INLINE)
    workers = models.PositiveIntegerField(default=1)
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED)
    verdict = models.CharField(
        max_length=8, choices=Verdict.choices, default=Verdict.PENDING, blank=True
    )
    verdict_reasons = models.JSONField(default=list)
    summary = models.JSONField(default=dict)
    error_message = models.TextField(blank=True)
    # Why it stopped, as a key of evals.run_words.ERRORS and its values, worded when shown in
    # the reader's language; error_message keeps the English (the API, the command line).
    error_key = models.CharField(max_length=20, blank=True, default="")
    error_params = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    agent_tokens_in = models.BigIntegerField(default=0)
    agent_tokens_out = models.BigIntegerField(default=0)
    agent_cost_micros = models.BigIntegerField(default=0)
    user_tokens_in = models.BigIntegerField(default=0)
    user_tokens_out = models.BigIntegerField(default=0)
    user_cost_micros = models.BigIntegerField(default=0)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="eval_runs"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # A running run must show progress (a stored trial) by this time, or the watchdog
    # (evals.services.watchdog) re-dispatches its missing units once, then ends it as
    # resumable. Moved on by every start, resume and re-dispatch.
    deadline_at = models.DateTimeField(null=True, blank=True)
    redispatches = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "created_at"])]
        permissions = [
            ("start_evalrun", "Can start, resume and compare go-live runs"),
            ("ticket_trialresult", "Can turn a failing trial into an inbox ticket"),
        ]

    def __str__(self) -> str:
        return f"run #{self.pk} {self.suite_name} ({self.status})"

    @property
    def seconds(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()

    @property
    def cost_micros(self) -> int:
        return self.agent_cost_micros + self.user_cost_micros


class TrialResult(models.Model):
    run = models.ForeignKey(EvalRun, on_delete=models.CASCADE, related_name="trials")
    domain = models.CharField(max_length=64)
    task_id = models.CharField(max_length=200)
    persona = models.CharField(max_length=200)
    trial = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    outcome = models.CharField(max_length=16, choices=TrialOutcome.choices)
    reward = models.FloatField()
    components = models.JSONField(default=dict)
    failure_class = models.CharField(max_length=40, blank=True)
    termination = models.CharField(max_length=40)
    trajectory = models.JSONField(null=True, blank=True)
    diff = models.JSONField(default=list)
    notes = models.JSONField(default=list)
    error = models.TextField(blank=True)
    policy_violations = models.PositiveIntegerField(default=0)
    tool_calls = models.PositiveIntegerField(default=0)
    agent_turns = models.PositiveIntegerField(default=0)
    questions = models.PositiveIntegerField(default=0)
    agent_tokens_in = models.BigIntegerField(default=0)
    agent_tokens_out = models.BigIntegerField(default=0)
    agent_cost_micros = models.BigIntegerField(default=0)
    user_tokens_in = models.BigIntegerField(default=0)
    user_tokens_out = models.BigIntegerField(default=0)
    user_cost_micros = models.BigIntegerField(default=0)
    seconds = models.FloatField(default=0.0)
    # True only for an infrastructure error; a simulator error is `outcome == simulator`.
    infrastructure = models.BooleanField(default=False)
    agent_model = models.CharField(max_length=200, blank=True)
    user_model = models.CharField(max_length=200, blank=True)
    # The fingerprint of the spec that produced the trial (its domain's): a row whose
    # fingerprint is not the run's was produced by other code or settings.
    fingerprint = models.CharField(max_length=64, blank=True)
    # τ²-bench's own reward by its definition (None: the domain has none, or a criterion
    # awaits a judge) and its criteria ("DB", "COMMUNICATE", "ENV_ASSERTION", ...), kept
    # beside ours so results stay comparable with published τ² numbers.
    published_reward = models.FloatField(null=True, blank=True)
    published_criteria = models.JSONField(default=dict, blank=True)
    ticket = models.OneToOneField(
        "tickets.Ticket",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="eval_trial",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["domain", "task_id", "persona", "trial"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "domain", "task_id", "persona", "trial"],
                name="evals_trial_unique_unit",
            )
        ]
        indexes = [
            models.Index(fields=["run", "outcome"]),
            # The run's failing trials in the order the run page lists them
            # (evals.selectors.FAILING_ORDER): its first page is read from here, not sorted
            # out of ~6,600 failures at 10,000 trials.
            models.Index(
                fields=["run", "failure_class", "domain", "task_id", "persona", "trial", "id"],
                condition=~models.Q(outcome=TrialOutcome.PASS),
                name="evals_trial_failing",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.outcome})"

    @property
    def key(self) -> str:
        return f"{self.domain}/{self.task_id}/{self.persona}/{self.trial}"

    @property
    def cost_micros(self) -> int:
        return self.agent_cost_micros + self.user_cost_micros

    @property
    def errored(self) -> bool:
        return self.outcome in ERROR_OUTCOMES


class EvalSelftest(models.Model):
    """The instrument's own sensitivity: the share of injected faults the oracle caught."""

    domains = models.JSONField(default=list)
    split = models.CharField(max_length=64, default="all")
    results = models.JSONField(default=dict)
    code_version = models.CharField(max_length=100)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="eval_selftests"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    seconds = models.FloatField(default=0.0)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"selftest #{self.pk} {', '.join(self.domains)}"
