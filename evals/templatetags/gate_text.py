"""{{ check|check_words }}: a stored go-live check's message in the reader's language (HTML:
its values escaped, identifiers set as code); {{ run|run_error }}: why a run stopped, the
same way. {{ code|breaks_at_underscores }}: a check's code that may wrap after its
underscores, and only there."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from evals import gate_words, run_words
from evals.models import EvalRun

register = template.Library()


@register.filter
def check_words(check: Mapping[str, Any]) -> SafeString:
    return gate_words.check_html(check)


@register.filter
def run_error(run: EvalRun) -> SafeString:
    return run_words.error_html(run.error_key, run.error_params, run.error_message)


@register.filter
def breaks_at_underscores(code: object) -> SafeString:
    """A narrow column wraps `infrastructure_error_rate` as "infrastructure_ / error_ / rate"
    rather than a few letters a line (the Chinese run page at 390 px: its wider words left
    the code column a dozen pixels)."""
    return mark_safe(escape(code).replace("_", "_<wbr>"))  # noqa: S308  # escaped above
