"""The notification serializers: an operator's notifications, and marking them read."""

from __future__ import annotations

from django.utils.translation import gettext_lazy
from rest_framework import serializers

from tickets.models import Notification


class NotificationSerializer(serializers.ModelSerializer):
    title = serializers.CharField(
        source="title_text", help_text=gettext_lazy("In the request's language.")
    )

    class Meta:
        model = Notification
        fields = [
            "id",
            "kind",
            "title",
            "title_key",
            "title_params",
            "body",
            "url",
            "created_at",
            "read_at",
        ]


class MarkReadInput(serializers.Serializer):
    ids = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text=gettext_lazy("Omit to mark all read."),
    )


class MarkReadOutput(serializers.Serializer):
    marked = serializers.IntegerField()
