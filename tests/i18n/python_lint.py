"""Finds person-read strings in the Django apps' Python that bypass gettext.

An AST scan for the places where a literal reaches a person: flash messages, the domain
errors the views and the API show (their message and per-field messages), form and model
labels and help texts, form ValidationErrors, and the labels of TextChoices. A literal there
must be wrapped in gettext/gettext_lazy/ngettext (imported under any of the usual names).
Identifiers (error codes, field names used as dict keys, choice values) are not prose and are
left alone.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.i18n.template_lint import Finding

GETTEXT_NAMES = frozenset(
    {
        "_",
        "gettext",
        "gettext_lazy",
        "ngettext",
        "ngettext_lazy",
        "pgettext",
        "pgettext_lazy",
        "npgettext",
        "format_lazy",
    }
)
# The header's navigation (backoffice.context.NAV) is checked by its own test.
# Exceptions whose message a person reads: backoffice.errors and the apps' own refusals.
PERSON_READ_ERRORS = frozenset(
    {
        "DomainError",
        "ValidationFailed",
        "NotFound",
        "Forbidden",
        "Conflict",
        "Unprocessable",
        "StepUpRequired",
        "ValidationError",
        "LoginRefused",
        "OtpRefused",
    }
)
NOT_PROSE_CALLS = frozenset({"reverse", "reverse_lazy", "urlencode"})
FLASH_LEVELS = frozenset({"debug", "info", "success", "warning", "error", "add_message"})
LABEL_KEYWORDS = frozenset(
    {"verbose_name", "verbose_name_plural", "help_text", "label", "empty_label"}
)
NOT_PROSE_KEYWORDS = frozenset({"code", "params", "status", "field", "name"})
APPS = ("backoffice", "identity", "tickets", "payments_sandbox", "evals")
# Pure Python (no Django, so no gettext); migrations freeze the labels of their day.
EXCLUDED_PARTS = frozenset({"engine", "domains", "migrations", "management"})


def _callee(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _is_prose(value: str) -> bool:
    return any(ch.isalpha() for ch in value)


class _Scanner(ast.NodeVisitor):
    def __init__(self, path: Path) -> None:
        self.path = path
        self.findings: list[Finding] = []

    def _literals(self, node: ast.AST) -> None:
        """Report the literal prose in `node`, outside gettext calls and dict keys."""
        if isinstance(node, ast.Call) and _callee(node) in GETTEXT_NAMES | NOT_PROSE_CALLS:
            return
        if isinstance(node, ast.Subscript):  # counts["mine"]: a key, not prose
            self._literals(node.value)
            return
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _is_prose(node.value):
                self.findings.append(Finding(self.path, node.lineno, node.value))
            return
        if isinstance(node, ast.JoinedStr):
            text = "".join(
                str(v.value) if isinstance(v, ast.Constant) else "{…}" for v in node.values
            )
            if _is_prose(text.replace("{…}", "")):
                self.findings.append(Finding(self.path, node.lineno, text))
            return
        if isinstance(node, ast.Dict):
            for value in node.values:
                self._literals(value)
            return
        if isinstance(node, ast.Call):
            # str.format / .join on a literal: the literal is still untranslated prose.
            if isinstance(node.func, ast.Attribute):
                self._literals(node.func.value)
            for arg in node.args:
                self._literals(arg)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self._literals(child)

    def visit_Call(self, node: ast.Call) -> None:
        name = _callee(node)
        func = node.func
        is_flash = (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "messages"
            and name in FLASH_LEVELS
        )
        if is_flash:
            for arg in node.args[1:]:
                self._literals(arg)
        elif name in PERSON_READ_ERRORS:
            for arg in node.args:
                self._literals(arg)
            for kw in node.keywords:
                if kw.arg not in NOT_PROSE_KEYWORDS:
                    self._literals(kw.value)
        elif name == "Panel":  # a home-page panel: everything but its link is read
            for arg in node.args:
                self._literals(arg)
            for kw in node.keywords:
                if kw.arg != "url":
                    self._literals(kw.value)
        for kw in node.keywords:
            if kw.arg in LABEL_KEYWORDS:
                self._literals(kw.value)
        self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        # makemessages (xgettext) never looks inside an f-string: a gettext call there is
        # silently left out of the catalogue and stays English.
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call) and _callee(inner) in GETTEXT_NAMES:
                self.findings.append(Finding(self.path, inner.lineno, "gettext in an f-string"))
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        bases = {
            b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases
        }
        if bases & {"TextChoices", "IntegerChoices", "Choices"}:
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Tuple):
                    for label in stmt.value.elts[1:]:
                        self._literals(label)
        self.generic_visit(node)


def scan_python(path: Path) -> list[Finding]:
    scanner = _Scanner(path)
    scanner.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return scanner.findings


def python_files(base_dir: Path) -> list[Path]:
    return sorted(
        p
        for app in APPS
        for p in (base_dir / app).rglob("*.py")
        if not EXCLUDED_PARTS.intersection(p.relative_to(base_dir / app).parts)
    )
