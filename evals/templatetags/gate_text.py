"""{{ check|check_words }}: a stored go-live check's message in the reader's language (HTML:
its values escaped, identifiers set as code)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template
from django.utils.safestring import SafeString

from evals import gate_words

register = template.Library()


@register.filter
def check_words(check: Mapping[str, Any]) -> SafeString:
    return gate_words.check_html(check)
