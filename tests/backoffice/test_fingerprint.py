"""Request fingerprints of the Idempotency-Key protocol: the same request in another spelling
is the same request; any change that matters is a different one. No database."""

from __future__ import annotations

from backoffice.fingerprint import request_fingerprint


def fp(body: object, **overrides: str) -> str:
    args = {"method": "POST", "path": "/api/v1/refunds", "principal": "operator:1"}
    args.update(overrides)
    return request_fingerprint(body=body, **args)  # type: ignore[arg-type]


def test_fingerprints_ignore_json_key_order_and_whitespace() -> None:
    assert fp(b'{"a": 1, "b": "x"}') == fp(b'{\n "b":"x","a":1}') == fp({"b": "x", "a": 1})


def test_fingerprints_differ_on_body_path_method_and_principal() -> None:
    base = fp(b'{"a": 1}')
    assert fp(b'{"a": 2}') != base
    assert fp(b'{"a": 1}', path="/api/v1/other") != base
    assert fp(b'{"a": 1}', method="PUT") != base
    assert fp(b'{"a": 1}', principal="operator:2") != base


def test_fingerprints_do_not_confuse_numbers_and_strings() -> None:
    assert fp(b'{"amount": 10.5}') != fp(b'{"amount": "10.5"}')


def test_non_json_bodies_are_fingerprinted_by_their_bytes() -> None:
    assert fp(b"amount=1&x=2") == fp(b"amount=1&x=2")
    assert fp(b"amount=1&x=2") != fp(b"x=2&amount=1")
    assert fp(b"") == fp(None)
