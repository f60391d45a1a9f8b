"""API token format and hashing: `bo_<prefix>_<secret>`. The prefix finds the row; the
SHA-256 of the whole token is compared in constant time. Tokens carry 256 bits of entropy,
so a fast hash is enough (a slow KDF protects low-entropy passwords, not random keys)."""

from __future__ import annotations

import hashlib
import hmac
import secrets

PREFIX_LEN = 10


def generate() -> tuple[str, str, str]:
    """Return (token, prefix, token_hash)."""
    prefix = secrets.token_hex(PREFIX_LEN // 2)
    token = f"bo_{prefix}_{secrets.token_urlsafe(32)}"
    return token, prefix, hash_token(token)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse_prefix(token: str) -> str | None:
    parts = token.split("_", 2)
    if len(parts) != 3 or parts[0] != "bo" or len(parts[1]) != PREFIX_LEN:
        return None
    return parts[1]


def matches(token: str, token_hash: str) -> bool:
    return hmac.compare_digest(hash_token(token), token_hash)
