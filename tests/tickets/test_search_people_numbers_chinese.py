"""Search finds what operators type (issue 15, item 5): order and reference numbers, card
digits and any number in the text, customers by name and e-mail, Chinese by any two or more
characters — on SQLite and on PostgreSQL (run this file with DATABASE_URL set for the
latter) — across every ticket the operator may see, and "#17" opens ticket 17."""

from __future__ import annotations

from django.test import Client

from tests.conftest import verified_client
from tests.tickets.conftest import join
from tickets import search, selectors
from tickets.models import Customer, Status, Ticket


def found(operator, term: str) -> list[int]:
    tickets = selectors.ticket_list_for_inbox(
        operator=operator, view=selectors.SEARCH_VIEW, search=term
    )
    return sorted(t.pk for t in tickets)


def test_the_cjk_pairs_are_every_two_neighbouring_characters_of_each_run() -> None:
    assert search.cjk_bigrams("退款没有到账") == "退款 款没 没有 有到 到账"
    assert search.cjk_bigrams("order 退款 ok 到") == "退款"  # "到" alone makes no pair
    assert search.cjk_bigrams("no chinese") == ""
    assert search.fts5_query("退款 refund") == '"refund" "退款"'
    assert search.websearch_query("没有到账 W123") == 'W123 "没有 有到 到账"'


def test_chinese_text_is_found_by_any_substring_of_two_or_more_characters(
    sam, queue, make_ticket
) -> None:
    ticket = make_ticket(queue, subject="退款没有到账", customer_message="我的订单已经取消了三天")
    other = make_ticket(queue, subject="物流太慢", customer_message="包裹还没有送到")
    assert found(sam, "退款") == [ticket.pk]
    assert found(sam, "没有到账") == [ticket.pk]
    assert found(sam, "款没") == [ticket.pk]  # across what a reader calls two words
    assert found(sam, "取消了") == [ticket.pk]  # in a message, not the subject
    assert found(sam, "没有") == sorted([ticket.pk, other.pk])
    assert found(sam, "到账没有") == []  # the characters in that order, not merely all of them
    assert found(sam, "退款 取消") == [ticket.pk]  # two runs, both required
    assert found(sam, "退款 包裹") == []


def test_order_reference_and_card_numbers_and_any_number_in_the_text(
    sam, queue, make_ticket
) -> None:
    order = make_ticket(
        queue, subject="Where is my order", customer_message="Order #W2945188 never came"
    )
    reference = make_ticket(
        queue, subject="Refund", customer_message="Payment PAY-F52054FD9C was charged"
    )
    card = make_ticket(
        queue, subject="Card", customer_message="My card ending 4242 was charged twice"
    )
    assert found(sam, "#W2945188") == [order.pk]
    assert found(sam, "W2945188") == [order.pk]
    assert found(sam, "PAY-F52054FD9C") == [reference.pk]
    assert found(sam, "4242") == [card.pk]
    # A bare number is a number in the text as well as a ticket number.
    assert found(sam, str(card.pk)) == [card.pk]
    mentions = make_ticket(
        queue, subject="Follow-up", customer_message=f"See ticket {order.pk} first"
    )
    assert found(sam, str(order.pk)) == sorted([order.pk, mentions.pk])


def test_customers_are_found_by_name_and_email_and_follow_a_rename(sam, queue, make_ticket) -> None:
    lucas = make_ticket(
        queue, subject="Help", customer_name="Lucas Johnson", customer_email="lucas.j@shop.test"
    )
    make_ticket(queue, subject="Help", customer_name="Mia Wong", customer_email="mia@shop.test")
    assert found(sam, "lucas") == [lucas.pk]
    assert found(sam, "Lucas Johnson") == [lucas.pk]
    assert found(sam, "lucas.j@shop.test") == [lucas.pk]
    Customer.objects.filter(pk=lucas.customer_id).update(name="Lucas Jansen")
    assert found(sam, "jansen") == [lucas.pk] and found(sam, "johnson") == []


def test_a_search_covers_every_visible_ticket_in_every_status_but_no_hidden_one(
    alice, queue, other_queue, make_ticket
) -> None:
    join(alice, queue, on_duty=True)
    closed = make_ticket(queue, subject="Voucher not applied")
    Ticket.objects.filter(pk=closed.pk).update(status=Status.CLOSED)
    hidden = make_ticket(other_queue, subject="Voucher expired")
    assert found(alice, "voucher") == [closed.pk]
    assert hidden.pk not in found(alice, "voucher")


def test_hash_and_number_opens_the_ticket_and_a_hidden_one_is_only_searched(
    alice, queue, other_queue, make_ticket
) -> None:
    join(alice, queue, on_duty=True)
    mine = make_ticket(queue, subject="Lamp flickers")
    hidden = make_ticket(other_queue, subject="Secret")
    client: Client = verified_client(alice)
    response = client.get("/tickets/", {"q": f"#{mine.pk}"})
    assert response.status_code == 302 and response["Location"] == f"/tickets/{mine.pk}/"
    response = client.get("/tickets/", {"q": f"#{hidden.pk}"})
    assert response.status_code == 200 and f"/tickets/{hidden.pk}/" not in response.content.decode()
    page = client.get("/tickets/", {"q": "flickers", "view": "mine"}).content.decode()
    assert f"/tickets/{mine.pk}/" in page and 'data-testid="search-scope"' in page
