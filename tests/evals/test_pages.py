"""Report pages render real runs; who sees and does what, per role persona."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evals import services
from evals.models import EvalRun, EvalSelftest, TrialOutcome, TrialResult
from identity.models import AuditEvent
from tests.conftest import verified_client
from tests.tickets.conftest import join
from tickets.models import Queue, Ticket

pytestmark = pytest.mark.django_db


@pytest.fixture
def failing_run(rita, make_suite) -> EvalRun:
    """A run whose agent skips the customer's confirmation: real failures to look at."""
    suite = make_suite(agent={"model": "sandbox/fault:skip_confirmation"}, guard_mode="observe")
    run = services.eval_run_create(actor=rita, suite=suite)
    return services.eval_run_execute(actor=rita, run_id=run.pk)


@pytest.fixture
def passing_run(rita, make_suite) -> EvalRun:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    return services.eval_run_execute(actor=rita, run_id=run.pk)


def test_the_run_page_shows_verdict_reasons_charts_heatmap_failures_usage_and_slowest(
    rita, failing_run
) -> None:
    page = verified_client(rita).get(reverse("evals:run_detail", args=[failing_run.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-verdict="fail"' in html
    assert "policy violation(s)" in html  # the failed check, explained
    assert html.count("<svg") >= 3  # pass^k chart, persona chart, heatmap (+ failure bars)
    assert "pass^k for k = 1..2 with 95% confidence bands" in html
    assert 'data-cell="retail|impatient"' in html
    assert "policy_violation" in html
    assert 'data-testid="usage"' in html and 'data-testid="slowest"' in html
    failing = TrialResult.objects.filter(run=failing_run).exclude(outcome=TrialOutcome.PASS).first()
    assert failing is not None
    assert reverse("evals:trial_detail", args=[failing_run.pk, failing.pk]) in html


def test_the_trial_page_shows_the_conversation_tool_calls_results_verdicts_and_diff(
    rita, failing_run
) -> None:
    trial = TrialResult.objects.filter(run=failing_run, policy_violations__gt=0).first()
    assert trial is not None
    page = verified_client(rita).get(reverse("evals:trial_detail", args=[failing_run.pk, trial.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert trial.trajectory is not None
    first_call = next(m for m in trial.trajectory["messages"] if m.get("tool_calls"))["tool_calls"][
        0
    ]
    assert first_call["name"] in html
    assert 'data-testid="verdict"' in html and "verdict-bad" in html
    assert 'data-testid="diff"' in html
    assert 'data-testid="create-ticket"' in html


def test_a_release_manager_turns_a_failing_trial_into_a_ticket_linked_both_ways(
    rita, failing_run
) -> None:
    trial = TrialResult.objects.filter(run=failing_run).exclude(outcome=TrialOutcome.PASS).first()
    assert trial is not None
    client = verified_client(rita)
    response = client.post(reverse("evals:trial_ticket", args=[failing_run.pk, trial.pk]))
    assert response.status_code == 302
    trial.refresh_from_db()
    ticket = trial.ticket
    assert ticket is not None
    assert ticket.eval_trial == trial
    assert ticket.queue.slug == "go-live"
    opening = ticket.messages.first()
    assert opening is not None
    assert reverse("evals:trial_detail", args=[failing_run.pk, trial.pk]) in opening.body
    assert (
        AuditEvent.objects.filter(
            action="evals.trial.ticket_create", target_id=str(trial.pk)
        ).count()
        == 1
    )
    page = client.get(
        reverse("evals:trial_detail", args=[failing_run.pk, trial.pk])
    ).content.decode()
    assert 'data-testid="ticket-link"' in page and 'data-testid="create-ticket"' not in page
    # A second ticket for the same trial is refused.
    client.post(reverse("evals:trial_ticket", args=[failing_run.pk, trial.pk]))
    assert Ticket.objects.count() == 1


def test_a_trial_ticket_goes_to_whoever_works_the_go_live_queue(rita, alice, failing_run) -> None:
    queue = Queue.objects.create(name="Go-live findings", slug="go-live")
    join(alice, queue, on_duty=True)
    trial = TrialResult.objects.filter(run=failing_run).exclude(outcome=TrialOutcome.PASS).first()
    assert trial is not None
    ticket = services.eval_trial_ticket_create(actor=rita, trial_id=trial.pk)
    ticket.refresh_from_db()
    assert ticket.assignee == alice and not ticket.unrouted
    assert list(ticket.events.order_by("version").values_list("kind", flat=True)) == [
        "created",
        "assignee",
    ]


def test_a_passing_trial_cannot_become_a_ticket(rita, passing_run) -> None:
    trial = TrialResult.objects.filter(run=passing_run).first()
    assert trial is not None
    with pytest.raises(Exception, match="failing trial"):
        services.eval_trial_ticket_create(actor=rita, trial_id=trial.pk)


def test_a_release_manager_starts_a_run_from_the_form(
    rita, settings, django_capture_on_commit_callbacks
) -> None:
    settings.EVALS_UI_INLINE = True
    client = verified_client(rita)
    assert 'data-testid="start-run"' in client.get(reverse("evals:run_list")).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("evals:run_start"), {"suite": "smoke", "trials": "2"})
    run = EvalRun.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse(
        "evals:run_detail", args=[run.pk]
    )
    run.refresh_from_db()
    assert run.started_by == rita and run.status == "completed" and run.verdict == "pass"


@pytest.mark.parametrize(
    ("persona", "sees", "starts", "tickets"),
    [
        ("rita", True, True, True),
        ("audrey", True, False, False),
        ("alice", False, False, False),
        ("bob", False, False, False),
        ("sam", False, False, False),
        ("ada", False, False, False),
        ("olga", False, False, False),
    ],
)
def test_permissions_per_role(request, persona, sees, starts, tickets, failing_run) -> None:
    operator = request.getfixturevalue(persona)
    client = verified_client(operator)
    trial = TrialResult.objects.filter(run=failing_run).exclude(outcome=TrialOutcome.PASS).first()
    assert trial is not None
    pages = [
        reverse("evals:run_list"),
        reverse("evals:run_detail", args=[failing_run.pk]),
        reverse("evals:trial_detail", args=[failing_run.pk, trial.pk]),
        reverse("evals:compare") + f"?a={failing_run.pk}&b={failing_run.pk}",
    ]
    for url in pages:
        assert client.get(url).status_code == (200 if sees else 404), url
    listing = client.get(pages[0]).content.decode() if sees else ""
    assert ('data-testid="start-run"' in listing) is starts
    start = client.post(reverse("evals:run_start"), {"suite": "smoke"})
    assert (start.status_code == 302) is starts
    assert EvalRun.objects.count() == (2 if starts else 1)
    ticket = client.post(reverse("evals:trial_ticket", args=[failing_run.pk, trial.pk]))
    assert ticket.status_code == (302 if tickets else 404)
    trial.refresh_from_db()
    assert (trial.ticket_id is not None) is tickets


def test_anonymous_visitors_are_sent_to_login(client, passing_run) -> None:
    response = client.get(reverse("evals:run_detail", args=[passing_run.pk]))
    assert response.status_code in (302, 404)
    assert b"pass^k" not in response.content


def test_the_run_page_shows_infrastructure_and_simulator_errors_apart_with_thresholds(
    rita, passing_run
) -> None:
    trial = TrialResult.objects.filter(run=passing_run).first()
    assert trial is not None
    TrialResult.objects.filter(pk=trial.pk).update(outcome=TrialOutcome.SIMULATOR)
    EvalRun.objects.filter(pk=passing_run.pk).update(status="running")
    run = services.eval_run_finalise(run_id=passing_run.pk)
    html = verified_client(rita).get(reverse("evals:run_detail", args=[run.pk])).content.decode()
    table = html[html.index('data-testid="error-rates"') :]
    table = table[: table.index("</table>")]
    assert "Infrastructure errors</td><td>0</td><td>0.00 %</td><td>0.00 %" in table
    assert "Simulator errors</td><td>1</td><td>5.00 %</td><td>2.00 %" in table
    assert 'class="check-bad"><td>Simulator errors' in table


def test_the_run_and_trial_pages_show_the_models_as_resolved(rita, passing_run) -> None:
    EvalRun.objects.filter(pk=passing_run.pk).update(
        agent_model_resolved="sandbox/reference, snapshot-2"
    )
    odd = TrialResult.objects.filter(run=passing_run).first()
    assert odd is not None
    TrialResult.objects.filter(pk=odd.pk).update(agent_model="snapshot-2")
    client = verified_client(rita)
    html = client.get(reverse("evals:run_detail", args=[passing_run.pk])).content.decode()
    assert 'resolved <span class="mono">sandbox/reference, snapshot-2</span>' in html
    others = html[html.index('data-testid="other-models"') :]
    assert odd.key in others[: others.index("</table>")]
    trial = client.get(reverse("evals:trial_detail", args=[passing_run.pk, odd.pk]))
    assert "agent snapshot-2, user sandbox/scripted" in trial.content.decode()


def test_a_release_manager_runs_the_missing_selftest_from_the_run_page(
    rita, audrey, passing_run
) -> None:
    EvalSelftest.objects.all().delete()  # the one the run was judged with is gone
    url = reverse("evals:run_detail", args=[passing_run.pk])
    assert 'data-testid="run-selftest"' not in verified_client(audrey).get(url).content.decode()
    assert (
        verified_client(audrey)
        .post(reverse("evals:run_selftest", args=[passing_run.pk]))
        .status_code
        == 404
    )
    client = verified_client(rita)
    assert 'data-testid="run-selftest"' in client.get(url).content.decode()

    response = client.post(reverse("evals:run_selftest", args=[passing_run.pk]))

    assert response.status_code == 302
    selftest = EvalSelftest.objects.get()
    assert selftest.domains == ["retail"] and selftest.started_by == rita
    assert AuditEvent.objects.filter(action="evals.selftest.run", actor_id=rita.pk).exists()
    html = client.get(url).content.decode()
    assert 'data-testid="selftest"' in html and 'data-testid="run-selftest"' not in html
