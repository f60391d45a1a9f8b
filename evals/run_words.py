"""Why a go-live run stopped, in the reader's language.

A run that fails or cannot complete stores a key of ERRORS and its values
(`EvalRun.error_key`, `error_params`), worded when the run page shows it (see
backoffice.phrases); `error_message` keeps the English (the API, the command line). A run
stored before runs had keys shows its `error_message` as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils import translation
from django.utils.html import escape
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from backoffice.phrases import Catalogue, Phrase, render, render_html
from evals import gate_words

ERRORS: Catalogue = {
    "deadline": Phrase(
        _(
            "Could not complete by its deadline: %(missing)d of %(expected)d trials never "
            "reported. %(resume)s"
        )
    ),
    "deadline_resent": Phrase(
        _(
            "Could not complete by its deadline: %(missing)d of %(expected)d trials never "
            "reported (sent again once). %(resume)s"
        )
    ),
    "missing": Phrase(_("%(missing)d of %(expected)d trials are missing; resume the run.")),
    "not_judged": Phrase(_("could not complete: %(check)s")),
    "rerun": Phrase(_("Re-running %(n)d error trial(s).")),
    "fingerprint": Phrase(
        _(
            "A worker's fingerprint for %(domain)s is %(worker)s, the run's is %(run)s: "
            "its code or settings differ."
        )
    ),
    "crashed": Phrase(_("The run stopped: %(error)s")),
}
RESUME = _(
    "Resume it (finished trials are kept): the Resume button on the run's page, "
    "`python manage.py golive run --resume %(run)s`, or `POST /api/v1/evals/runs/%(run)s/resume`."
)


def _params(key: str, params: Mapping[str, Any]) -> dict[str, Any]:
    values = dict(params)
    if key.startswith("deadline"):
        values["resume"] = str(RESUME) % {"run": values.get("run", "")}
    if key == "not_judged" and isinstance(values.get("check"), Mapping):
        # The gate's first failing check, worded as the verdict panel words it.
        values["check"] = gate_words.check_words(values["check"])
    return values


def error_words(key: str, params: Mapping[str, Any] | None, legacy: str) -> str:
    return render(ERRORS, key, _params(key, params or {}), legacy) if key else legacy


def error_english(key: str, params: Mapping[str, Any]) -> str:
    """The English copy a run keeps as its `error_message`."""
    with translation.override("en"):
        return error_words(key, params, "")


def error_html(key: str, params: Mapping[str, Any] | None, legacy: str) -> SafeString:
    """error_words() for a page: the values escaped, the commands set as code."""
    if not key:
        return escape(legacy)
    values = _params(key, params or {})
    return render_html(ERRORS, key, values, legacy, code=frozenset({"worker", "run", "error"}))


__all__ = ["ERRORS", "error_english", "error_html", "error_words"]
