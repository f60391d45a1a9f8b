"""{{ check|check_words }}: a stored go-live check's message in the reader's language (HTML:
its values escaped, identifiers set as code); {{ run|run_error }}: why a run stopped, the
same way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template
from django.utils.safestring import SafeString

from evals import gate_words, run_words
from evals.models import EvalRun

register = template.Library()


@register.filter
def check_words(check: Mapping[str, Any]) -> SafeString:
    return gate_words.check_html(check)


@register.filter
def run_error(run: EvalRun) -> SafeString:
    return run_words.error_html(run.error_key, run.error_params, run.error_message)
