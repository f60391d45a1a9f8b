"""τ²-bench's own reward (database, communicate, assertions) stored with each trial of a
backoffice run and shown next to ours — by `golive run` and on the run page — so results stay
comparable with published τ² numbers; a domain with no published reward shows no such line."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evals.models import EXCLUDED_OUTCOMES, EvalRun, TrialResult
from tests.conftest import verified_client
from tests.evals.conftest import golive

pytestmark = pytest.mark.django_db


def test_a_tau2_run_stores_taus_reward_per_trial_and_prints_and_shows_it(suite_file, rita) -> None:
    path = suite_file(trials=1, domains=[{"name": "tau2_mock"}])
    _, out, err = golive("run", "--suite", path)
    run = EvalRun.objects.get()
    trials = list(TrialResult.objects.filter(run=run))
    assert all(t.published_reward is not None for t in trials), (out, err)
    # The report's mean is over the evaluated trials (a prose task's trial awaits a judge).
    rewarded = [t.published_reward or 0.0 for t in trials if t.outcome not in EXCLUDED_OUTCOMES]
    assert 0 < len(rewarded) < len(trials)
    with_db = [t for t in trials if "DB" in t.published_criteria]
    assert with_db and all(t.published_criteria["DB"] in (0.0, 1.0) for t in with_db)

    report = run.summary["report"]
    mean = sum(rewarded) / len(rewarded)
    assert report["published_trials"] == len(rewarded)
    assert report["published_mean_reward"] == pytest.approx(mean)
    assert "DB" in report["published_criteria"]

    line = next(x for x in out.splitlines() if "τ²-bench's own reward" in x)
    assert f"mean {mean:.3f} over {len(rewarded)} trials" in line
    assert 0 < line.index("database") < line.index("communicate")

    html = verified_client(rita).get(reverse("evals:run_detail", args=[run.pk])).content.decode()
    assert 'data-testid="published-reward"' in html
    assert f"{mean:.3f}" in html and "database" in html


def test_a_retail_run_has_no_published_reward_line(suite_file, rita) -> None:
    path = suite_file(trials=1, domains=[{"name": "retail", "split": "smoke"}])
    _, out, _ = golive("run", "--suite", path)
    run = EvalRun.objects.get()
    assert not TrialResult.objects.filter(run=run, published_reward__isnull=False).exists()
    assert run.summary["report"]["published_trials"] == 0
    assert "τ²-bench" not in out
    html = verified_client(rita).get(reverse("evals:run_detail", args=[run.pk])).content.decode()
    assert 'data-testid="published-reward"' not in html
