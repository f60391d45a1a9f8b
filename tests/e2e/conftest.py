"""Browser tests in headless Chromium (Debian's package) driven by Playwright's sync API.

Shared fixtures for every app's browser tests:
  browser                 one Chromium for the whole session
  page                    a fresh browser context and page, base URL = the live server
  logged_in_page(op)      a page signed in through the real login form (password + TOTP)

The whole package is skipped, with the reason, when /usr/bin/chromium or Playwright is
missing (`.ci/run` installs Chromium with apt-get).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

# Playwright's sync API runs an asyncio loop in this thread; Django's ORM would otherwise
# refuse to run "from async context" in fixtures and in the live server's shared connection.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
E2E_DIR = Path(__file__).resolve().parent


def _skip_reason() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"browser tests need Chromium at {CHROMIUM} (apt-get install chromium)"
    if importlib.util.find_spec("playwright") is None:
        return "browser tests need Playwright for Python (pip install -e '.[test]')"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = _skip_reason()
    for item in items:
        if Path(str(item.fspath)).resolve().is_relative_to(E2E_DIR):
            item.add_marker(pytest.mark.e2e)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    chromium = playwright.chromium.launch(
        executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
    )
    try:
        yield chromium
    finally:
        chromium.close()
        playwright.stop()


@pytest.fixture
def page(browser: Any, live_server: Any) -> Iterator[Any]:
    # English unless a test asks otherwise: Chromium's own Accept-Language follows the
    # machine's locale, and the pages answer in Simplified Chinese to a zh browser.
    context = browser.new_context(base_url=live_server.url, locale="en-US")
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


def current_code(device: TOTPDevice) -> str:
    value = totp(device.bin_key, device.step, device.t0, device.digits, device.drift)
    return f"{value:0{device.digits}d}"


@pytest.fixture
def logged_in_page(page: Any) -> Callable[..., Any]:
    from tests.conftest import PASSWORD

    def login(operator: Any, password: str = PASSWORD) -> Any:
        device = TOTPDevice.objects.get(user=operator, confirmed=True)
        # A code is accepted once per 30 s period; a test signing in twice acts as if the
        # next period had started.
        TOTPDevice.objects.filter(pk=device.pk).update(last_t=-1)
        page.goto("/login/")
        page.fill("#id_username", operator.get_username())
        page.fill("#id_password", password)
        page.click("main button[type=submit]")
        page.wait_for_url("**/login/verify/**")
        page.fill("#id_code", current_code(device))
        page.click("main button[type=submit]")
        page.wait_for_url(lambda url: "/login/" not in url)
        return page

    return login


# A person's browser, at a desk and on a phone: the widths every page is looked at in, where
# screenshots go (E2E_SCREENSHOTS, to be opened and looked at), and how long a person pauses
# to read before acting. The pause stays on by default, whatever it costs: it is the time in
# which a real browser's automatic requests (favicon, prefetches, polls) land between reading
# and acting, which is how the first-login enrolment bug (a favicon request that re-keyed the
# QR code on screen) showed itself; a test without it acts faster than any person.
WIDTHS = {"desk": (1400, 900), "phone": (390, 844)}
SCREENSHOTS = Path(os.environ.get("E2E_SCREENSHOTS", "/tmp/e2e-screenshots"))
READING_MS = int(os.environ.get("E2E_READING_MS", "400"))


@pytest.fixture(params=list(WIDTHS))
def person_page(request: pytest.FixtureRequest, browser: Any, live_server: Any) -> Iterator[Any]:
    """A page as a person's browser opens it, at a desk's and at a phone's width: favicon and
    every other automatic request allowed (nothing is routed or blocked)."""
    width, height = WIDTHS[request.param]
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": height}
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.width_name = request.param
    try:
        yield page
    finally:
        context.close()


def read(page: Any) -> None:
    """Pause as a person does to read the page before acting on it."""
    page.wait_for_load_state("load")
    page.wait_for_timeout(READING_MS)


def screenshot(page: Any, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}-{getattr(page, 'width_name', 'page')}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def sign_in(page: Any, operator: Any, password: str) -> Any:
    """Sign in through the login form as a person does: password, then the code their
    authenticator app shows now."""
    device = TOTPDevice.objects.get(user=operator, confirmed=True)
    TOTPDevice.objects.filter(pk=device.pk).update(last_t=-1)
    page.goto("/login/")
    read(page)
    page.fill("#id_username", operator.get_username())
    page.fill("#id_password", password)
    page.click("main button[type=submit]")
    page.wait_for_url("**/login/verify/**")
    read(page)
    page.fill("#id_code", current_code(device))
    page.click("main button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)
    read(page)
    return page
