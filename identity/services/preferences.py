"""An operator's own preferences: the interface language."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from backoffice.errors import ValidationFailed
from identity.audit import audit_record
from identity.models import Operator


def operator_language_set(*, actor: Operator, language: str) -> Operator:
    """Remember the interface language `actor` chose ("" = follow the browser)."""
    if language and language not in dict(settings.LANGUAGES):
        raise ValidationFailed(
            _("Unknown language."), fields={"language": [_("Choose a listed language.")]}
        )
    with transaction.atomic():
        operator = Operator.objects.select_for_update().get(pk=actor.pk)
        if operator.language == language:
            return operator
        before = {"language": operator.language}
        operator.language = language
        operator.save(update_fields=["language"])
        audit_record(
            actor=actor,
            action="operator.language_set",
            target=operator,
            before=before,
            after={"language": language},
        )
    actor.language = language
    return operator
