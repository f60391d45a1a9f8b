"""The words of payments' notifications and of the notes its decisions leave on a ticket's
conversation, stored as a key and parameters on the inbox's
notification rows and worded when shown or e-mailed, in the reader's language (see
tickets.phrases). Registered with the inbox in PaymentsSandboxConfig.ready()."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from backoffice.phrases import Catalogue, Phrase

NOTIFICATIONS: Catalogue = {
    "refund.approved": Phrase(_("Refund #%(refund)s of %(amount)s approved by %(actor)s")),
    "refund.rejected": Phrase(_("Refund #%(refund)s of %(amount)s rejected by %(actor)s")),
}

# The note on the ticket a refund was requested from, with the decision's reason if any.
NOTES: Catalogue = {
    "refund.approved": Phrase(_("Refund #%(refund)s of %(amount)s approved by %(actor)s.")),
    "refund.rejected": Phrase(_("Refund #%(refund)s of %(amount)s rejected by %(actor)s.")),
    "refund.approved_because": Phrase(
        _("Refund #%(refund)s of %(amount)s approved by %(actor)s: %(reason)s")
    ),
    "refund.rejected_because": Phrase(
        _("Refund #%(refund)s of %(amount)s rejected by %(actor)s: %(reason)s")
    ),
}

__all__ = ["NOTES", "NOTIFICATIONS"]
