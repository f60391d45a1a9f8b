"""Finds text in Django templates that a person reads but that no translation tag wraps.

Honest on purpose: it tokenises each template with Django's own lexer, blanks out template
tags, variables and comments (keeping line numbers), treats the body of {% translate %} and
{% blocktranslate %} as translated, then parses what is left as HTML and reports every text
node and every person-read attribute (title, placeholder, aria-label, alt, a submit input's
value) that still holds a letter outside a short list of technical tokens that read the same
in every language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from django.template.base import Lexer, TokenType

# Read the same in English and Chinese: product names, units and identifiers.
TECHNICAL_TOKENS = frozenset(
    {
        "API",
        "CSV",
        "JSON",
        "TOTP",
        "2FA",
        "ID",
        "URL",
        "SLA",
        "pass^k",
        "pass@k",
        "pass^1",
        "k",
        "n",
        "c",
        "p95",
        "ms",
        "s",
        "CI",
        "AI",
        "PSP",
        "OTP",
        "HTTP",
        "v",  # a version prefix: v3
    }
)
PERSON_READ_ATTRIBUTES = frozenset({"title", "placeholder", "aria-label", "alt"})
# Blanked-out template syntax: VAR stands for {{ ... }} (data), DONE for translated text,
# EDGE for any other tag (a block's edge separates the texts on either side of it).
VAR, DONE, EDGE = "\x00", "\x01", "\x02"
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9^@'\u2019._-]*")
LETTER = re.compile(r"[A-Za-z]")
# Not read as prose: scripts, styles, and commands or headers a person copies verbatim.
RAW_TEXT_TAGS = frozenset({"script", "style", "code", "kbd", "samp"})


@dataclass(frozen=True)
class Finding:
    path: Path
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text!r}"


def _untranslated(text: str) -> str | None:
    """The person-read words left in `text` once data, translations and technical tokens go."""
    plain = text.replace(VAR, " ").replace(DONE, " ").replace(EDGE, " ")
    words = [w.rstrip(".'\u2019_-") for w in WORD.findall(plain)]
    left = [w for w in words if LETTER.search(w) and w not in TECHNICAL_TOKENS]
    return " ".join(plain.split()) if left else None


def _blank(source: str) -> str:
    """The template with its tags replaced by markers of the same line count."""
    out: list[str] = []
    in_block_translate = False
    in_comment = False
    # {% block main_class %}page wide{% endblock %}: CSS class names, not text.
    in_class_block = False
    for token in Lexer(source).tokenize():
        raw = token.token_type
        content = token.contents
        newlines = "\n" * content.count("\n")
        if raw == TokenType.BLOCK:
            name = content.split(" ", 1)[0] if content else ""
            if name == "comment":
                in_comment = True
            elif name == "endcomment":
                in_comment = False
            elif name in {"blocktranslate", "blocktrans"}:
                in_block_translate = True
                out.append(DONE)
            elif name in {"endblocktranslate", "endblocktrans"}:
                in_block_translate = False
            elif name in {"translate", "trans"}:
                out.append(DONE)
            elif name == "block":
                in_class_block = content.split()[-1].endswith("_class")
                out.append(EDGE)
            else:
                in_class_block = False
                out.append(EDGE)
            out.append(newlines)
        elif raw in (TokenType.VAR,):
            out.append(("" if in_block_translate or in_comment else VAR) + newlines)
        elif raw == TokenType.COMMENT:
            out.append(newlines)
        elif in_comment or in_block_translate or in_class_block:
            out.append("\n" * content.count("\n"))
        else:
            out.append(content)
    return "".join(out)


class _Scanner(HTMLParser):
    def __init__(self, path: Path) -> None:
        super().__init__(convert_charrefs=True)
        self.path = path
        self.findings: list[Finding] = []
        self._raw_text: str | None = None

    def _report(self, text: str) -> None:
        line = self.getpos()[0]
        for part in text.split(EDGE):
            left = _untranslated(part)
            if left:
                leading = part[: len(part) - len(part.lstrip())]
                self.findings.append(Finding(self.path, line + leading.count("\n"), left))
            line += part.count("\n")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in RAW_TEXT_TAGS:
            self._raw_text = tag
        values = dict(attrs)
        for name, value in attrs:
            if value is None:
                continue
            person_read = name in PERSON_READ_ATTRIBUTES or (
                name == "value" and tag == "input" and values.get("type") in {"submit", "button"}
            )
            if person_read:
                self._report(value)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self._raw_text = None

    def handle_endtag(self, tag: str) -> None:
        if tag == self._raw_text:
            self._raw_text = None

    def handle_data(self, data: str) -> None:
        if self._raw_text is None:
            self._report(data)


# {{ value|default:"never" }}: a literal filter argument is text too ({{ x|default:_("never") }}
# is the translated form). Format strings (date:"Y-m-d") and the like are not prose.
LITERAL_ARGUMENT = re.compile(r"""\|(default|default_if_none|yesno):(?:"([^"]*)"|'([^']*)')""")


def _literal_arguments(path: Path, source: str) -> list[Finding]:
    findings = []
    for token in Lexer(source).tokenize():
        if token.token_type != TokenType.VAR:
            continue
        for match in LITERAL_ARGUMENT.finditer(token.contents):
            text = match.group(2) if match.group(2) is not None else match.group(3)
            if _untranslated(text):
                findings.append(Finding(path, token.lineno or 0, text))
    return findings


def scan_template(path: Path) -> list[Finding]:
    source = path.read_text(encoding="utf-8")
    scanner = _Scanner(path)
    scanner.feed(_blank(source))
    scanner.close()
    return sorted(scanner.findings + _literal_arguments(path, source), key=lambda f: f.line)


def template_files(base_dir: Path) -> list[Path]:
    skip = {".venv", "var", "node_modules", ".git"}
    return sorted(
        p
        for p in base_dir.rglob("templates/**/*.html")
        if not skip.intersection(p.relative_to(base_dir).parts)
    )
