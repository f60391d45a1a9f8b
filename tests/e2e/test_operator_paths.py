"""The paths a new operator walks in a real browser (issue 15, "Broken today"), each at a
desk's and at a phone's width, with the favicon and every automatic request allowed:
first-login enrolment, each demo role's landing page and navigation, and a step-up that
keeps the approval it interrupted."""

from __future__ import annotations

import base64
import time
from io import StringIO
from typing import Any

import pytest
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.core.management import call_command
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

from identity.demo import DEMO_PASSWORD
from identity.models import Operator
from identity.stepup import mark_verified
from payments_sandbox.domain import Money
from payments_sandbox.models import Refund, RefundStatus
from payments_sandbox.services import payment_capture, refund_request
from tests.conftest import PASSWORD
from tests.e2e.conftest import current_code, read, screenshot, sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def _code_from_screen(page: Any) -> tuple[str, str]:
    """What the operator's authenticator app shows after they type the secret on screen."""
    secret = page.inner_text("[data-testid=totp-secret]").strip()
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    return secret, f"{totp(key):06d}"


def test_a_new_operator_enrols_while_the_browser_fetches_the_favicon_and_after_a_typo(
    person_page: Any, make_operator: Any
) -> None:
    make_operator("fresh", ["agent"], totp=False)
    page = person_page
    page.goto("/login/")
    read(page)
    page.fill("#id_username", "fresh")
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url("**/login/enroll/**")
    read(page)
    secret, _ = _code_from_screen(page)
    screenshot(page, "enrol")

    # The browser asks for the favicon on its own (a tab, a bookmark, the history do too);
    # it is an icon, and asking for it changes nothing on screen.
    favicon = page.evaluate(
        "fetch('/favicon.ico').then(r => [r.status, r.headers.get('content-type'), r.url])"
    )
    assert favicon[0] == 200 and favicon[1] == "image/x-icon"
    assert favicon[2].endswith("/favicon.ico")  # served, not redirected into the login steps
    # A person who reloads the page before scanning still sees the secret they may have
    # typed into their app already.
    page.reload()
    read(page)
    assert _code_from_screen(page)[0] == secret

    # A typo first, then the right code at once: the right code is accepted.
    secret, code = _code_from_screen(page)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    page.fill("#id_code", wrong)
    page.click("main form.stack button[type=submit]")
    page.wait_for_selector("[role=alert]")
    assert _code_from_screen(page)[0] == secret
    page.fill("#id_code", _code_from_screen(page)[1])
    page.click("main form.stack button[type=submit]")
    page.wait_for_selector("[data-testid=backup-codes]")
    read(page)
    screenshot(page, "enrol-backup-codes")
    assert page.locator("[data-testid=backup-codes] li").count() == 10
    page.click("text=Continue")
    page.wait_for_url("**/tickets/")  # an agent starts in the inbox
    assert TOTPDevice.objects.filter(user__username="fresh", confirmed=True).count() == 1


def test_asking_for_a_new_secret_is_the_only_way_to_change_it(
    person_page: Any, make_operator: Any
) -> None:
    make_operator("fresh", ["agent"], totp=False)
    page = person_page
    page.goto("/login/")
    page.fill("#id_username", "fresh")
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url("**/login/enroll/**")
    first, _ = _code_from_screen(page)
    page.click("[data-testid=new-secret]")
    page.wait_for_url("**/login/enroll/**")
    read(page)
    second, code = _code_from_screen(page)
    assert second != first
    page.fill("#id_code", code)
    page.click("main form.stack button[type=submit]")
    page.wait_for_selector("[data-testid=backup-codes]")


# What each demo role lands on after login, and the menu it sees: every entry opens.
ROLES = {
    "alice": ("/tickets/", ["Home", "Inbox", "Approvals", "Payments", "My security"]),
    "bob": ("/payments/approvals/", ["Home", "Approvals", "Payments", "My security"]),
    "sam": ("/tickets/", ["Home", "Inbox", "Queues", "Approvals", "Payments", "My security"]),
    "ada": ("/operators/", ["Home", "Queues", "Operators", "My security"]),
    "audrey": (
        "/audit/",
        ["Home", "Approvals", "Payments", "Go-live", "Audit", "My security"],
    ),
    "rita": ("/evals/", ["Home", "Inbox", "Go-live", "My security"]),
}


def test_each_demo_role_lands_on_its_own_page_and_every_menu_entry_opens(
    person_page: Any,
) -> None:
    call_command("seed_demo", stdout=StringIO())
    page = person_page
    for username, (landing, menu) in ROLES.items():
        operator = Operator.objects.get(username=username)
        sign_in(page, operator, DEMO_PASSWORD)
        assert page.url.endswith(landing), (username, page.url)
        screenshot(page, f"landing-{username}")
        labels = [label.strip() for label in page.locator("nav.mainnav a").all_inner_texts()]
        assert labels == menu, username
        hrefs = page.locator("nav.mainnav a").evaluate_all("links => links.map(a => a.href)")
        for href in hrefs:
            response = page.goto(href)
            assert response is not None and response.status == 200, (username, href)
            assert "No inbox" not in page.content()
        if "Inbox" not in menu:
            # An old link to the inbox sends them to their own work, with the reason.
            page.goto("/tickets/")
            read(page)
            assert page.url.endswith(landing), (username, page.url)
            assert "no inbox" in page.inner_text(".flash")
        page.click("text=Log out")
        page.wait_for_url("**/login/")


def _age_step_up(page: Any) -> None:
    """Make the browser's session's last two-factor check older than STEP_UP_SECONDS."""
    key = next(
        c["value"] for c in page.context.cookies() if c["name"] == settings.SESSION_COOKIE_NAME
    )
    session = SessionStore(session_key=key)
    mark_verified(session, at=time.time() - settings.STEP_UP_SECONDS - 1)
    session.save()


def test_an_approver_asked_to_reverify_gets_the_refund_approved_with_the_note_kept(
    person_page: Any, alice: Operator, bob: Operator
) -> None:
    payment = payment_capture(actor=None, amount=Money.parse("50.00", "USD"))
    refund = refund_request(
        actor=alice, payment_id=payment.pk, amount="12.00", reason="Arrived broken"
    )
    page = sign_in(person_page, bob, PASSWORD)
    page.goto(f"/payments/refunds/{refund.pk}/")
    read(page)
    # The two-factor check of the login has gone stale by the time Bob decides: his session
    # says it was made longer ago than STEP_UP_SECONDS (rather than the test waiting that long).
    _age_step_up(page)
    page.fill("#approve-reason", "Photo shows the damage")
    page.click("text=Approve 12.00 USD")
    page.wait_for_url("**/security/verify/**")
    read(page)
    screenshot(page, "stepup")
    assert page.is_visible("[data-testid=action-waiting]")
    assert Refund.objects.get(pk=refund.pk).status == RefundStatus.PENDING_APPROVAL
    device = TOTPDevice.objects.get(user=bob)
    TOTPDevice.objects.filter(pk=device.pk).update(last_t=-1)  # the next 30 s period
    page.fill("#id_code", current_code(device))
    page.click("main button[type=submit]")
    page.wait_for_url(f"**/payments/refunds/{refund.pk}/")
    read(page)
    screenshot(page, "stepup-done")
    flash = page.inner_text(".flash")
    assert "Code accepted" in flash and "approved" in flash
    refund.refresh_from_db()
    assert refund.decided_by == bob
    assert refund.decision_reason == "Photo shows the damage"
    assert refund.status == RefundStatus.SUCCEEDED


def test_a_release_manager_sends_a_failing_trial_to_the_inbox_and_works_the_ticket(
    person_page: Any, rita: Operator
) -> None:
    from evals import services as evals_services
    from evals.services.suites import suite_from_mapping
    from tests.evals.conftest import suite_dict

    suite = suite_from_mapping(
        suite_dict(agent={"model": "sandbox/fault:skip_confirmation"}, guard_mode="observe")
    )
    run = evals_services.eval_run_create(actor=rita, suite=suite)
    run = evals_services.eval_run_execute(actor=rita, run_id=run.pk)
    page = sign_in(person_page, rita, PASSWORD)
    page.goto(f"/evals/{run.pk}/")
    read(page)
    page.click("[data-testid=failing] a >> nth=0")
    read(page)
    trial_url = page.url.removeprefix(page.url.split("/evals/")[0])
    page.click("[data-testid=create-ticket]")
    page.wait_for_selector("[data-testid=ticket-link]")
    page.click("[data-testid=ticket-link] a")
    page.wait_for_url("**/tickets/*/")
    read(page)
    screenshot(page, "finding-ticket")
    # Nobody works the go-live queue yet: Rita, who sent it, owns it and can open it.
    assert "Rita" in page.inner_text("[data-testid=ticket-owner]")
    assert "Reported by" in page.inner_text(".escalation")
    assert page.locator(".msg-customer").count() >= 1
    assert page.locator(".msg-ai_agent").count() >= 1
    assert page.locator(".msg-system", has_text="Tool call:").count() >= 1
    # The trial is a link, and it goes back to the trial.
    assert page.locator(f"a[href='{trial_url}']").count() == 1
    # A simulated customer reads nothing: internal notes only.
    assert page.locator(".reply-form").count() == 0
    assert page.is_visible("[data-testid=notes-only]")
    page.fill("#note-body", "The agent skipped the confirmation before the refund.")
    page.click("text=Add note")
    page.wait_for_selector(".msg-internal_note")
    read(page)
    page.click(f"a[href='{trial_url}']")
    page.wait_for_url(f"**{trial_url}")
    assert page.is_visible("[data-testid=ticket-link]")
