"""The start-a-run form: a suite from suites/ with the common overrides."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy

from evals.services import (
    Suite,
    SuiteError,
    suite_check_web_models,
    suite_list,
    suite_load,
    suite_models_probe,
    suite_override,
)


class StartRunForm(forms.Form):
    suite = forms.ChoiceField()
    agent = forms.CharField(
        required=False, max_length=200, help_text=gettext_lazy("Blank: the suite's agent.")
    )
    trials = forms.IntegerField(required=False, min_value=1, max_value=64)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        names = [s.name for s in suite_list() if isinstance(s, Suite)]
        suite_field = self.fields["suite"]
        if isinstance(suite_field, forms.ChoiceField):  # always; narrows Field for mypy
            suite_field.choices = [(n, n) for n in names]
        self.resolved: Suite | None = None

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if self.errors:
            return data
        try:
            suite = suite_load(name=data["suite"])
            self.resolved = suite_check_web_models(
                suite=suite_override(
                    suite=suite, agent=data.get("agent") or None, trials=data.get("trials")
                )
            )
        except SuiteError as exc:
            raise forms.ValidationError(str(exc)) from exc
        # The models exist and answer (one call per LLM role) before any trial is queued.
        for role, problem in suite_models_probe(suite=self.resolved).items():
            self.add_error("agent" if role == "agent" else None, problem)
        return data
