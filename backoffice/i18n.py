"""Translation catalogues without GNU gettext: read .po files, compile them to .mo, and list
the msgids the sources ask for.

`make run` and `make test` compile locale/*/LC_MESSAGES/*.po here, in Python, so a fresh
machine needs no gettext tools. Updating the .po from the sources (`make messages`) uses
Django's makemessages, which does need them; `source_msgids` extracts the same msgids in pure
Python so a test can tell, on any machine, when the .po and the sources drift apart.
"""

from __future__ import annotations

import array
import ast
import re
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.utils.translation.template import templatize

# Where makemessages and source_msgids look: everything but these (the engine and the
# domains are pure Python without gettext; tests and benchmarks speak to developers).
IGNORE = (".venv/*", "var/*", "tests/*", "bench/*", "evals/engine/*", "evals/domains/*", "docs/*")
TEMPLATE_SUFFIXES = (".html", ".txt")
LOCALES = ("zh_Hans",)
DOMAIN = "django"

# A msgid as gettext keys it: (context, singular, plural).
Key = tuple[str, str, str]


@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str = ""
    msgctxt: str = ""
    msgstr: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False

    @property
    def key(self) -> Key:
        return (self.msgctxt, self.msgid, self.msgid_plural)

    @property
    def translated(self) -> bool:
        return bool(self.msgstr) and all(self.msgstr) and "fuzzy" not in self.flags


def _unquote(text: str) -> str:
    value = ast.literal_eval(text.strip())
    if not isinstance(value, str):
        raise ValueError(f"not a PO string: {text!r}")
    return value


def parse_po(text: str) -> list[Entry]:
    """The entries of a PO file, header included (msgid ""), obsolete ones marked."""
    entries: list[Entry] = []
    entry = Entry()
    target: tuple[str, int] | None = None
    started = False

    def finish() -> None:
        nonlocal entry, started, target
        if started:
            entries.append(entry)
        entry, started, target = Entry(), False, None

    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            finish()
            continue
        if line.startswith("#~"):
            entry.obsolete = True
            line = line[2:].strip()
            if not line:
                continue
        elif line.startswith("#,"):
            if started and target is not None and target[0] == "msgstr":
                finish()
            entry.flags.update(f.strip() for f in line[2:].split(","))
            continue
        elif line.startswith("#"):
            continue
        if line.startswith("msgctxt "):
            if started and target is not None and target[0] == "msgstr":
                finish()
            entry.msgctxt, target, started = _unquote(line[8:]), ("msgctxt", 0), True
        elif line.startswith("msgid_plural "):
            entry.msgid_plural, target = _unquote(line[13:]), ("msgid_plural", 0)
        elif line.startswith("msgid "):
            if started and target is not None and target[0] == "msgstr":
                finish()
            entry.msgid, target, started = _unquote(line[6:]), ("msgid", 0), True
        elif line.startswith("msgstr["):
            index = int(line[7 : line.index("]")])
            while len(entry.msgstr) <= index:
                entry.msgstr.append("")
            entry.msgstr[index] = _unquote(line[line.index("]") + 1 :])
            target = ("msgstr", index)
        elif line.startswith("msgstr "):
            entry.msgstr, target = [_unquote(line[7:])], ("msgstr", 0)
        elif line.startswith('"') and target is not None:
            name, index = target
            value = _unquote(line)
            if name == "msgstr":
                entry.msgstr[index] += value
            else:
                setattr(entry, name, getattr(entry, name) + value)
        else:
            raise ValueError(f"cannot read PO line: {raw!r}")
    finish()
    return entries


def compile_mo(entries: Iterable[Entry]) -> bytes:
    """GNU .mo bytes for the translated, non-obsolete entries (and the header), as msgfmt
    writes them: keys sorted, no hash table."""
    catalogue: dict[bytes, bytes] = {}
    for entry in entries:
        if entry.obsolete or not (entry.translated or entry.msgid == ""):
            continue
        key = entry.msgid
        if entry.msgid_plural:
            key += "\0" + entry.msgid_plural
        if entry.msgctxt:
            key = entry.msgctxt + "\x04" + key
        catalogue[key.encode()] = "\0".join(entry.msgstr).encode()
    keys = sorted(catalogue)
    ids = strs = b""
    offsets: list[int] = []
    for raw in keys:
        offsets += [len(ids), len(raw), len(strs), len(catalogue[raw])]
        ids += raw + b"\0"
        strs += catalogue[raw] + b"\0"
    count = len(keys)
    key_start = 7 * 4 + 16 * count
    value_start = key_start + len(ids)
    table: list[int] = []
    for i in range(count):
        table += [offsets[4 * i + 1], offsets[4 * i] + key_start]
    for i in range(count):
        table += [offsets[4 * i + 3], offsets[4 * i + 2] + value_start]
    header = struct.pack("Iiiiiii", 0x950412DE, 0, count, 7 * 4, 7 * 4 + count * 8, 0, 0)
    return header + array.array("i", table).tobytes() + ids + strs


def po_files(locale_dir: Path) -> list[Path]:
    return sorted(locale_dir.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def compile_catalogues(locale_dir: Path, *, force: bool = False) -> list[Path]:
    """Compile every locale_dir/*/LC_MESSAGES/django.po whose .mo is missing or older.
    Returns the .mo files written."""
    written = []
    for po in po_files(locale_dir):
        mo = po.with_suffix(".mo")
        if not force and mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        mo.write_bytes(compile_mo(parse_po(po.read_text(encoding="utf-8"))))
        written.append(mo)
    return written


def _ignored(path: Path, base_dir: Path) -> bool:
    relative = path.relative_to(base_dir).as_posix()
    if any(part.startswith(".") or part.endswith("~") for part in Path(relative).parts):
        return True  # makemessages' own default ignores
    return any(
        relative.startswith(pattern.rstrip("*")) or Path(relative).match(pattern)
        for pattern in IGNORE
    )


GETTEXT_CALLS = {
    "gettext": ("msgid",),
    "gettext_lazy": ("msgid",),
    "gettext_noop": ("msgid",),
    "_": ("msgid",),
    "ngettext": ("msgid", "plural"),
    "ngettext_lazy": ("msgid", "plural"),
    "pgettext": ("context", "msgid"),
    "pgettext_lazy": ("context", "msgid"),
    "npgettext": ("context", "msgid", "plural"),
    "npgettext_lazy": ("context", "msgid", "plural"),
}


def _calls_in_python(source: str, filename: str) -> Iterator[Key]:
    tree = ast.parse(source, filename=filename)
    # xgettext does not look inside f-strings: a gettext call there never reaches the .po.
    hidden = {id(n) for f in ast.walk(tree) if isinstance(f, ast.JoinedStr) for n in ast.walk(f)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or id(node) in hidden:
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        roles = GETTEXT_CALLS.get(name)
        if roles is None or len(node.args) < len(roles):
            continue
        values = {}
        for role, arg in zip(roles, node.args, strict=False):
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                break
            values[role] = arg.value
        else:
            if values["msgid"]:
                yield (values.get("context", ""), values["msgid"], values.get("plural", ""))


_STRING = r"""u?(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
_TEMPLATE_CALL = re.compile(
    rf" (_|gettext|ngettext|pgettext|npgettext)\(({_STRING}(?:, {_STRING})*)(?:, ?count)?\) ",
    re.S,
)


def _calls_in_template(source: str) -> Iterator[Key]:
    for match in _TEMPLATE_CALL.finditer(templatize(source)):
        name = match.group(1)
        strings = [ast.literal_eval(s) for s in re.findall(_STRING, match.group(2), re.S)]
        roles = GETTEXT_CALLS[name]
        values = dict(zip(roles, strings, strict=False))
        yield (values.get("context", ""), values["msgid"], values.get("plural", ""))


def source_msgids(base_dir: Path) -> set[Key]:
    """Every msgid makemessages would extract from base_dir (same files, same rules)."""
    keys: set[Key] = set()
    for path in base_dir.rglob("*"):
        if not path.is_file() or _ignored(path, base_dir):
            continue
        if path.suffix == ".py":
            keys.update(_calls_in_python(path.read_text(encoding="utf-8"), str(path)))
        elif path.suffix in TEMPLATE_SUFFIXES:
            keys.update(_calls_in_template(path.read_text(encoding="utf-8")))
    return keys


@dataclass(frozen=True)
class CatalogueReport:
    """How a .po file stands against the sources."""

    missing: list[Key]  # asked for by the sources, absent from the .po
    untranslated: list[Key]  # in the .po with an empty or fuzzy msgstr
    stale: list[Key]  # in the .po, no longer asked for

    @property
    def ok(self) -> bool:
        return not (self.missing or self.untranslated or self.stale)


def catalogue_report(po: Path, wanted: set[Key]) -> CatalogueReport:
    entries = [e for e in parse_po(po.read_text(encoding="utf-8")) if not e.obsolete and e.msgid]
    have = {e.key for e in entries}
    return CatalogueReport(
        missing=sorted(wanted - have),
        untranslated=sorted(e.key for e in entries if not e.translated),
        stale=sorted(have - wanted),
    )
