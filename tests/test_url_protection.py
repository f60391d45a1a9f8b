"""Every URL in the URLconf — including pages added later by any app — must answer an
anonymous visitor and a password-only (not OTP-verified) session with a redirect to the
login or OTP page, or 401/403. Only the public names below are exempt."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve

from identity.models import Operator

PUBLIC = {
    "identity:login",
    "identity:otp_challenge",
    "identity:enroll",
    "identity:logout",
    "healthz",
    "favicon",
    # The header's language switch also serves the login page; it changes only a cookie for
    # an anonymous visitor (tests/i18n/test_language_switch.py).
    "identity:language",
}
CONVERTER_VALUES = {"int": "1", "str": "x", "slug": "x", "path": "x", "uuid": str(uuid.uuid4())}
ROUTE_PARAM = re.compile(r"<(?:(?P<conv>[^>:]+):)?(?P<name>\w+)>")
REGEX_GROUP = re.compile(r"\(\?P<(?P<name>\w+)>[^)]*\)")


def _route(pattern: object) -> str:
    text = str(pattern)
    if hasattr(pattern, "_route"):  # path(): fill converters with plausible values
        return ROUTE_PARAM.sub(lambda m: CONVERTER_VALUES.get(m["conv"] or "str", "1"), text)
    # re_path() (DRF routers, format suffixes): fill named groups, drop anchors.
    text = REGEX_GROUP.sub(lambda m: "json" if m["name"] == "format" else "1", text)
    text = text.lstrip("^").rstrip("$").replace("\\.", ".").replace("/?", "/")
    return text.replace("?", "")


def walk(resolver: URLResolver, prefix: str = "", namespace: str = "") -> Iterator[tuple[str, str]]:
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            ns = f"{namespace}:{entry.namespace}".strip(":") if entry.namespace else namespace
            yield from walk(entry, prefix + _route(entry.pattern), ns)
        elif isinstance(entry, URLPattern):
            name = f"{namespace}:{entry.name}".strip(":") if entry.name else ""
            yield "/" + prefix + _route(entry.pattern), name or entry.lookup_str


def all_urls() -> list[tuple[str, str]]:
    return sorted(set(walk(get_resolver())))


def refusal(response) -> bool:
    if response.status_code in (401, 403):
        return True
    if response.status_code == 302:
        return response["Location"].startswith(("/login/", "/login/verify/"))
    return False


@pytest.mark.django_db
def test_every_built_url_resolves_to_its_pattern() -> None:
    unresolved = []
    for url, name in all_urls():
        try:
            resolve(url)
        except Exception as exc:
            unresolved.append((url, name, type(exc).__name__))
    assert unresolved == []


@pytest.mark.django_db
def test_every_non_public_url_refuses_anonymous_and_unverified_sessions(
    alice: Operator,
) -> None:
    anonymous = Client()
    unverified = Client()
    unverified.force_login(alice)  # password only: no OTP device in the session
    urls = [(u, n) for u, n in all_urls() if n not in PUBLIC]
    assert len(urls) > 10
    leaks = []
    for url, name in urls:
        for who, client in (("anonymous", anonymous), ("unverified", unverified)):
            for method in ("get", "post"):
                response = getattr(client, method)(url)
                if not refusal(response):
                    leaks.append((who, method.upper(), url, name, response.status_code))
    assert leaks == []


@pytest.mark.django_db
def test_public_pages_answer_without_a_second_factor(alice: Operator) -> None:
    anonymous = Client()
    assert anonymous.get("/login/").status_code == 200
    assert anonymous.get("/healthz").status_code == 200
    assert anonymous.get("/login/verify/")["Location"].startswith("/login/")
    assert anonymous.get("/login/enroll/")["Location"].startswith("/login/")
    assert anonymous.get("/logout/").status_code == 405
