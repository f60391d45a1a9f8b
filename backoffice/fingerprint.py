"""Request fingerprints for the Idempotency-Key protocol (`backoffice.idempotency`).

Pure Python: a canonical form of (method, path, body, principal) and its SHA-256, so two
requests that differ only in JSON key order or whitespace are the same request, and a number
is never confused with the same digits sent as a string.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any


def _canonical(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    if isinstance(value, Decimal):
        # Keep JSON numbers exact: 10.10 and 10.1 are the same number, and neither is a float.
        return {"$decimal": str(value.normalize()) if value == value else "NaN"}
    if value is None or isinstance(value, bool | int | str):
        return value
    return str(value)


def canonical_body(body: bytes | str | Mapping[str, Any] | None) -> Any:
    """A JSON-comparable form of a request body: JSON is parsed (so key order and whitespace
    do not matter), anything else is identified by the SHA-256 of its bytes."""
    if body is None:
        return None
    if isinstance(body, Mapping):
        return _canonical(body)
    raw = body.encode() if isinstance(body, str) else bytes(body)
    if not raw.strip():
        return None
    try:
        parsed = json.loads(raw, parse_float=Decimal, parse_constant=Decimal)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {"$sha256": hashlib.sha256(raw).hexdigest()}
    return _canonical(parsed)


def request_fingerprint(
    *, method: str, path: str, body: bytes | str | Mapping[str, Any] | None, principal: str
) -> str:
    """SHA-256 of a canonical form of (method, path, body, principal).

    Two requests with the same Idempotency-Key are "the same request" exactly when their
    fingerprints match; a mismatch means the client reused a key for something else.
    """
    document = {
        "method": method.upper(),
        "path": path,
        "principal": principal,
        "body": canonical_body(body),
    }
    encoded = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(encoded.encode()).hexdigest()
