"""Markdown (a domain's policy, as the agent reads it) rendered as safe HTML for the pages.

CommonMark with raw HTML turned off: a `<script>` or `<img onerror=…>` in a policy is shown as
text, never parsed; markdown-it's link check refuses `javascript:`, `vbscript:`, `file:` and
non-image `data:` URLs. The text comes from the domain's files, but a team can add its own
domain, so it is treated as untrusted all the same.
"""

from __future__ import annotations

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
    "table"
)


def render_markdown(text: str) -> SafeString:
    return mark_safe(_MD.render(text or ""))  # noqa: S308 - html=False escapes every tag
