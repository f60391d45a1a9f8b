"""The language follows the browser, the header switch overrides it, and the operator's choice
follows them to any browser they sign in from."""

from __future__ import annotations

from django.conf import settings
from django.test import Client

from identity.models import AuditEvent, Operator
from tests.conftest import PASSWORD, verified_client


def test_a_chinese_browser_gets_the_login_page_in_chinese() -> None:
    response = Client(HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9,en;q=0.5").get("/login/")
    html = response.content.decode()
    assert '<html lang="zh-hans">' in html
    assert "登录" in html and "Sign in" not in html
    assert ">English</button>" in html, "each language is offered in its own name"
    assert response["Content-Language"] == "zh-hans"


def test_an_english_browser_gets_english_and_is_offered_chinese() -> None:
    html = Client(HTTP_ACCEPT_LANGUAGE="en-GB").get("/login/").content.decode()
    assert '<html lang="en">' in html and "Sign in" in html
    assert 'name="language" value="zh-hans"' in html and ">简体中文</button>" in html


def test_the_switch_sets_the_cookie_for_a_visitor_and_returns_to_the_page(db: None) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    response = client.post("/language/", {"language": "zh-hans", "next": "/login/?next=/"})
    assert response.status_code == 302 and response["Location"] == "/login/?next=/"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    assert "登录" in client.get("/login/").content.decode()


def test_the_switch_refuses_an_unknown_language_and_a_foreign_next(db: None) -> None:
    client = Client()
    assert client.post("/language/", {"language": "xx", "next": "/"}).status_code == 400
    response = client.post("/language/", {"language": "zh-hans", "next": "https://evil.test/"})
    assert response["Location"] == "/"


def test_the_switch_needs_the_csrf_token(db: None) -> None:
    client = Client(enforce_csrf_checks=True)
    assert client.post("/language/", {"language": "zh-hans"}).status_code == 403


def test_an_operators_choice_follows_them_to_another_browser(alice: Operator) -> None:
    verified_client(alice).post("/language/", {"language": "zh-hans", "next": "/"})
    alice.refresh_from_db()
    assert alice.language == "zh-hans"
    event = AuditEvent.objects.get(action="operator.language_set")
    assert (event.before, event.after) == ({"language": ""}, {"language": "zh-hans"})
    # A browser that never saw the switch, asking for English.
    other = verified_client(alice)
    other.defaults["HTTP_ACCEPT_LANGUAGE"] = "en-US"
    html = other.get("/tickets/").content.decode()
    assert "收件箱" in html and ">Inbox<" not in html
    # Switching back is remembered the same way.
    other.post("/language/", {"language": "en", "next": "/"})
    alice.refresh_from_db()
    assert alice.language == "en"
    assert ">Inbox<" in verified_client(alice).get("/tickets/").content.decode()


def test_the_stored_choice_applies_from_the_first_page_after_login(alice: Operator) -> None:
    Operator.objects.filter(pk=alice.pk).update(language="zh-hans")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    response = client.post("/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    # The second factor's page, after the password, already speaks the operator's language.
    assert "验证" in client.get(response["Location"]).content.decode()


def test_flash_messages_and_api_errors_speak_the_operators_language(alice: Operator) -> None:
    client = verified_client(alice)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "zh-CN"
    html = client.post("/tickets/duty/", {"on_duty": ""}, follow=True).content.decode()
    assert "您已离岗；新工单将不再分配给您。" in html
    api = verified_client(alice, api=True)
    response = api.get("/api/v1/tickets/999999", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "没有这个工单。"
    english = api.get("/api/v1/tickets/999999", HTTP_ACCEPT_LANGUAGE="en")
    assert english.json()["error"]["message"] == "No such ticket."


def test_a_password_only_session_gets_the_cookie_but_does_not_write_the_operator(
    alice: Operator,
) -> None:
    client = Client()
    client.force_login(alice)  # second factor not given yet: the switch is public
    response = client.post("/language/", {"language": "zh-hans", "next": "/"})
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    alice.refresh_from_db()
    assert alice.language != "zh-hans"
    assert not AuditEvent.objects.filter(action="operator.language_set").exists()


def test_an_email_subject_is_in_the_recipients_language(alice: Operator, bob: Operator) -> None:
    from django.core import mail
    from django.utils import translation

    from backoffice.mail import send_mail_to_operator

    Operator.objects.filter(pk=alice.pk).update(language="zh-hans")
    alice.refresh_from_db()
    with translation.override("en"):  # the sender's request or worker speaks English
        send_mail_to_operator(operator=alice, subject="#7", body="")
        send_mail_to_operator(operator=bob, subject="#7", body="")
    assert [m.subject for m in mail.outbox] == ["[后台] #7", "[Backoffice] #7"]
