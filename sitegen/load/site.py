"""Read a site repository from disk: settings, leagues, match files, players.

Everything is read in a sorted, deterministic order and every record remembers
the file it came from, so later stages can report problems by file and line.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitegen.rating import collector, limits
from sitegen.load import fasttoml
from sitegen.load.cache import Cache
from sitegen.load.files import entries, link_problem, outside_link, rel, walk
from sitegen.load.locate import Locator, _line_of, _scan, _string_end, locate  # noqa: F401 - names.py takes locate from here
from sitegen.load.problems import Problems

LEAGUE_SLUG = re.compile(r"[a-z0-9][a-z0-9-]*\Z")


@dataclass(frozen=True, slots=True)
class TomlFile:
    """A parsed TOML file with its text kept for locating lines."""

    path: Path
    rel: str                      # relative to the site root, '/'-separated
    text: str
    data: dict[str, Any]
    # The text's index for locating lines, built on the first question (one per file, so that
    # thousands of problems in it cost one pass over the text, not one each).
    _lines: list[Locator] = field(default_factory=list, init=False, repr=False, compare=False)

    def _locator(self) -> Locator:
        if not self._lines:
            self._lines.append(Locator(self.text))
        return self._lines[0]

    def table_lines(self, name: str) -> list[int]:
        """First line of each [[name]] table, in order (empty if written inline)."""
        return self._locator().table_lines(name)

    def locate(self, *path: str | int, table: tuple[str, int] | None = None) -> int | None:
        """Best-effort 1-based line of a value, e.g. locate("players", 1, "goals", table=("match", 2))."""
        return self._locator().locate(path, table)


@dataclass(frozen=True, slots=True)
class MatchFile:
    """A league's match file, found but not yet read: checking reads and parses each in turn
    (``read``) and lets its tables go once its matches are made, so a long league's raw TOML is
    never held at once (2.4 GB of a million matches), and a forked half reads its own files."""

    path: Path
    rel: str                      # relative to the site root, '/'-separated
    size: int                     # bytes, to cut a league's files in halves of equal work
    cache: Cache | None = field(default=None, compare=False, repr=False)

    def read(self, problems: Problems) -> TomlFile | None:
        """The parsed file; None, with the problem recorded, where it cannot be read.

        Its parse is not kept in the cache (``cache`` keeps its checked matches, load/validate.py):
        a file read again has changed, or the league's other inputs did, and reading a kept parse
        back costs nearly what parsing does, where writing it cost a cold build 3 ms a file."""
        return parse_toml_file(self.path, self.rel, problems)


@dataclass(frozen=True, slots=True)
class LeagueSource:
    slug: str
    folder: Path
    config: TomlFile | None
    match_files: tuple[MatchFile, ...]
    # The system a league.toml that is not valid TOML names on a line of its own: its
    # match files are still checked, so one syntax error does not hide their problems.
    salvaged_system: str | None = None


@dataclass(frozen=True, slots=True)
class SiteSource:
    root: Path
    settings: dict[str, Any]
    settings_file: str
    players: TomlFile | None
    leagues: tuple[LeagueSource, ...]


def read_toml(root: Path, path: Path, problems: Problems, cache: Cache | None = None) -> TomlFile | None:
    """Parse one TOML file; on failure record the problem (with its line) and return None."""
    name = rel(root, path)
    if link_problem(root, path, problems):
        return None
    return parse_toml_file(path, name, problems, cache=cache)


def parse_toml_file(path: Path, name: str, problems: Problems, *, kind: str = "a file",
                    advice: str = ": split it into several files", cache: Cache | None = None) -> TomlFile | None:
    """Read and parse ``path``, reporting under ``name``: its size, encoding, nesting and syntax
    checked, a syntax error explained. ``kind`` and ``advice`` word the size limit.

    With a ``cache`` (load/cache.py), a file read before with the same bytes is not parsed again;
    only files that parsed cleanly are stored, so a problem is always found and worded afresh."""
    try:
        size = path.stat().st_size
        if size > limits.MAX_FILE_BYTES:
            problems.add(name, f"is {size / 2**20:,.0f} MiB; {kind} may hold at most "
                               f"{limits.MAX_FILE_BYTES // 2**20} MiB{advice}")
            return None
        raw = path.read_bytes()
        key = hashlib.sha256(raw).hexdigest() if cache is not None else ""
        hit = cache.get("toml", key) if cache is not None else None
        if isinstance(hit, tuple) and len(hit) == 2 and isinstance(hit[0], str) and isinstance(hit[1], dict):
            return TomlFile(path, name, hit[0], hit[1])
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.add(name, f"is not valid UTF-8 (byte {exc.start}); save the file as UTF-8",
                     line=exc.object.count(b"\n", 0, exc.start) + 1)
        return None
    except OSError as exc:
        problems.add(name, f"cannot be read: {exc.strerror or exc}")
        return None
    text = text.removeprefix("\ufeff")     # a byte order mark, as some Windows editors write
    too_deep = deep_dotted_key(text)
    if too_deep is not None:
        problems.add(name, NESTING, line=too_deep)
        return None
    # The compiled parser reads a clean file; tomllib reads what it refuses, and words the error.
    data = fasttoml.loads(text)
    try:
        if data is None:
            data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, message = explain_syntax_error(text, str(exc))
        problems.add(name, f"invalid TOML: {message}; {READING_STOPS}", line=line)
        return None
    except RecursionError:
        problems.add(name, NESTING, line=deep_bracket(text))
        return None
    if nesting(data) > limits.MAX_NESTING:
        problems.add(name, NESTING, line=deep_bracket(text))
        return None
    if cache is not None:
        cache.put("toml", key, (text, data))
    return TomlFile(path, name, text, data)


NESTING = (f"is nested more than {limits.MAX_NESTING} levels deep (lists or tables inside one another, or "
           "the parts of a dotted key): a match file needs four; flatten it")


def nesting(data: Any) -> int:
    """How deep lists and tables sit inside one another, without recursion."""
    # Level by level: every list and table one level down from the ones of this level.
    deepest = 1
    level = [data] if isinstance(data, (dict, list)) else []
    while deepest <= limits.MAX_NESTING:
        level = [child for value in level for child in (value.values() if isinstance(value, dict) else value)
                 if isinstance(child, (dict, list))]
        if not level:
            break
        deepest += 1
    return deepest


def deep_bracket(text: str) -> int | None:
    """The line where brackets first open more than MAX_NESTING deep (only looked for on a problem)."""
    for j, c, depth in _scan(text, 0, len(text)):
        if c in "[{" and depth >= limits.MAX_NESTING:
            return _line_of(text, j)
    return None


# MAX_NESTING dots on one line. Searched from its first dot, not from every line start: a
# pattern anchored at line starts is tried at every character of the text (0.7 s a 100,000 matches).
_KEY_DOTS = re.compile(r"\.(?:[^\n.]*\.){%d}" % (limits.MAX_NESTING - 1))


def deep_dotted_key(text: str) -> int | None:
    """The line of a dotted key or table header of more than MAX_NESTING parts, if there is one.

    TOML's parser takes time quadratic in a key's parts (minutes for one 100 KB key), so this
    is looked for before parsing. A key is on one line: only a line with that many dots is
    scanned, outside strings and comments, up to its '=' (or the end of its header).
    """
    found = _KEY_DOTS.search(text)
    while found is not None:
        start = text.rfind("\n", 0, found.start()) + 1       # the line holding those dots
        end = text.find("\n", start)
        key_end = next((j for j, c, _ in _scan(text, start, len(text) if end < 0 else end) if c == "="),
                       len(text) if end < 0 else end)
        if _dots_outside_strings(text, start, key_end) >= limits.MAX_NESTING and not _inside_string(text, start):
            return _line_of(text, start)
        found = None if end < 0 else _KEY_DOTS.search(text, end + 1)
    return None


def _dots_outside_strings(text: str, start: int, end: int) -> int:
    dots, i = 0, start
    while i < end:
        c = text[i]
        if c in "\"'":
            i = _string_end(text, i)[0]
            continue
        if c == "#":
            break
        dots += c == "."
        i += 1
    return dots


def _inside_string(text: str, pos: int) -> bool:
    """Whether ``pos`` falls inside a multi-line string (a scan from the top, on this rare path)."""
    i = 0
    while i < pos:
        c = text[i]
        if c in "\"'":
            end = _string_end(text, i)[0]
            if end > pos:
                return True
            i = end
            continue
        if c == "#":
            nl = text.find("\n", i)
            i = len(text) if nl < 0 else nl
            continue
        i += 1
    return False


def load_site(root: Path, problems: Problems, cache: Cache | None = None) -> SiteSource:
    """Read everything a build needs from ``root``; problems are collected, not raised. Match
    files, players.toml and league.toml are parsed through ``cache`` when one is given."""
    # Its objects live on: frozen as reading ends, inside a build (collector.kept).
    with collector.kept():
        return _load_site(root, problems, cache)


def _load_site(root: Path, problems: Problems, cache: Cache | None) -> SiteSource:
    settings: dict[str, Any] = {}
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        parsed = read_toml(root, pyproject, problems)
        if parsed is not None:
            tool = parsed.data.get("tool", {})
            raw = tool.get("sitegen", {}) if isinstance(tool, dict) else {}
            if isinstance(raw, dict):
                settings = raw
            else:
                problems.add(parsed.rel, "[tool.sitegen] must be a table")

    matches = root / "matches"
    players = None
    leagues: list[LeagueSource] = []
    if not matches.is_dir():
        problems.add("matches", f"folder not found: a site needs a matches/ folder with one folder per league; "
                                f"{where_to_run(root)}")
    elif not link_problem(root, matches, problems):
        folders, strays = entries(root, matches, problems)
        if matches / "players.toml" in strays:
            players = read_toml(root, matches / "players.toml", problems, cache)
        with_config = [p.name for p in folders if (p / "league.toml").is_file()]
        for folder in folders:
            if folder.name.endswith(".toml"):
                problems.add(rel(root, folder), "is a folder, but its name ends in .toml: a league folder is "
                                                "named by its slug; rename it")
            leagues.append(_load_league(root, folder, with_config, problems, cache))
        for stray in strays:
            if stray.name == "players.toml":
                continue
            if stray.name.endswith(".toml"):
                problems.add(rel(root, stray), "match files belong in a league folder: matches/<league>/...")
            elif _almost_toml(stray.name):
                problems.add(rel(root, stray), _not_read(stray.name))
    return SiteSource(root, settings, "pyproject.toml", players, tuple(leagues))


def where_to_run(root: Path) -> str:
    """How to point sitegen at the site: the folder above that holds matches/, if there is one."""
    advice = "run sitegen from the site's top folder (the one holding matches/) or pass --root DIR"
    try:
        above = next((p for p in root.resolve().parents if (p / "matches").is_dir()), None)
    except OSError:
        above = None
    if above is None:
        return advice
    try:
        shown = os.path.relpath(above)
    except ValueError:          # another drive
        shown = str(above)
    return f"{advice}; {shown} holds matches/ (--root {shown})"


def _almost_toml(name: str) -> bool:
    """A name meant as a match file that is not read: .TOML, .Toml, 04-april.toml.txt."""
    lower = name.lower()
    return (lower.endswith(".toml") and not name.endswith(".toml")) or ".toml." in lower


def _not_read(name: str) -> str:
    cut = name.lower().index(".toml")
    return (f"is not read: match files must end in .toml (lower case); rename it to {name[:cut]}.toml "
            "if it holds matches")


def _load_league(root: Path, folder: Path, leagues: list[str], problems: Problems,
                 cache: Cache | None = None) -> LeagueSource:
    slug = folder.name
    if not LEAGUE_SLUG.match(slug):
        problems.add(rel(root, folder),
                     f"league folder name {slug!r} is not a valid slug: use lower-case letters, digits "
                     "and '-', starting with a letter or digit")
    config_path = folder / "league.toml"
    config = None
    salvaged = None
    if config_path.is_file() or config_path.is_symlink():
        config = read_toml(root, config_path, problems, cache)
        if config is None and outside_link(root, config_path) is None:
            salvaged = _salvage_system(config_path)
    else:
        near = difflib.get_close_matches(slug, [name for name in leagues if name != slug], n=1, cutoff=0.75)
        hint = f"; did you mean matches/{near[0]}/?" if near else ""
        problems.add(rel(root, folder), "league.toml not found: every league folder needs one (name and "
                                        f"system), and its match files are not checked without it{hint}")
    files: list[Path] = []
    for p in walk(root, folder, problems, suffix=".toml"):
        if p.name == "league.toml":
            continue
        if p.name.endswith(".toml"):
            files.append(p)
        elif _almost_toml(p.name):
            problems.add(rel(root, p), _not_read(p.name))
    # History order compares paths relative to the league folder as strings.
    files.sort(key=lambda p: p.relative_to(folder).as_posix())
    found = tuple(MatchFile(p, rel(root, p), _size(p), cache) for p in files if not link_problem(root, p, problems))
    return LeagueSource(slug, folder, config, found, salvaged)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:         # reading it says what is wrong
        return 0


def _salvage_system(path: Path) -> str | None:
    """`system = "..."` on a line of its own before any table, in a league.toml TOML cannot read."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    # Lines that start outside strings and brackets, up to the first table header.
    starts = [0] + [j + 1 for j, c, depth in _scan(text, 0, len(text)) if c == "\n" and depth == 0]
    for start in starts:
        end = text.find("\n", start)
        line = text[start:len(text) if end < 0 else end].rstrip("\r")
        if line.lstrip().startswith("["):
            return None
        if re.match(r"[ \t]*system[ \t]*=", line):
            try:
                value = tomllib.loads(line).get("system")
            except (tomllib.TOMLDecodeError, RecursionError):     # `system = [[[[...` 1,000 deep
                return None
            return value if isinstance(value, str) else None
    return None


# --- explaining TOML syntax errors -----------------------------------------------
#
# tomllib stops at the first error and says what its parser expected ("Invalid
# value (at end of document)"), not what the curator got wrong. The tokenizer above
# finds the usual causes: a quote or bracket never closed, a date TOML cannot read.

READING_STOPS = "reading stops at the first syntax error, so this file's other problems show once it is fixed"
_AT = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)\Z")
_STRING_ERRORS = re.compile(r"(Illegal character|Found invalid character) '\\[nr]'|Unterminated string|Expected \"'")
_HEADER_ERRORS = ("Expected ']'", "Expected ']]'")
_BARE_WORD = re.compile(r"[A-Za-z_][\w.-]*")
DATE_TOKEN = re.compile(r"""
    (?P<a>\d{1,4})(?P<sep>[-/.])(?P<b>\d{1,2})(?P=sep)(?P<c>\d{1,4})
    (?:[Tt ](?P<h>\d{1,2}):(?P<mi>\d{1,2})(?::(?P<s>\d{1,2})(?P<frac>\.\d+)?)?
       (?P<off>[Zz]|[+-]\d{1,2}:?\d{2})?)?
  | (?P<lone>\d{1,2}:\d{1,2}(?::\d{1,2})?)""", re.X)
DATE_FORMS = ("a date-time with seconds and the UTC offset, such as 2026-03-14T20:05:00+01:00, "
              "or a date, such as 2026-03-14 (year-month-day)")


def explain_syntax_error(text: str, error: str) -> tuple[int | None, str]:
    """The line and a curator's words for tomllib's ``error`` in ``text``; tomllib's own as the fallback."""
    m = _AT.search(error)
    message = error[: m.start()] if m else error
    line = int(m.group(1)) if m and m.group(1) else None
    pos = len(text)
    if m is not None and line is not None:
        pos = _line_start(text, line) + int(m.group(2)) - 1
    if message.startswith(_HEADER_ERRORS):
        return line, message                    # a table header: tomllib says it well
    kind, at = _unbalanced(text)
    if kind == "string" and at <= pos and _STRING_ERRORS.match(message):
        opened = _line_of(text, at)
        quote = text[at] * 3 if text.startswith(text[at] * 3, at) else text[at]
        if len(quote) == 3:
            return opened, f"the text opened with {quote} on line {opened} is never closed; end it with {quote}"
        end = text.find("\n", at)
        start = text[at:len(text) if end < 0 else end].rstrip("\r")
        shown = start if len(start) <= 16 else start[:15] + "…"
        return opened, (f"the quoted text on line {opened} has no closing quote (it starts {shown}); add the "
                        f"closing {quote} where the text ends, on the same line")
    if kind == "open" and at <= pos:
        opened = _line_of(text, at)
        return opened, f"the {text[at]!r} opened on line {opened} is never closed; close it after its last value"
    if kind == "close" and at <= pos:
        return _line_of(text, at), (f"the {text[at]!r} on line {_line_of(text, at)} closes nothing: a "
                                    f"{'[' if text[at] == ']' else '{'!r} is missing before it, or it is one too many")
    if kind != "string" and line is not None:
        brace = _multiline_brace(text, pos)
        if brace is not None:
            opened, closed = _line_of(text, brace[0]), _line_of(text, brace[1])
            return opened, (f"a table in braces {{ ... }} must be on one line: the '{{' on line {opened} "
                            f"closes on line {closed}")
        hint = _value_hint(text, line, pos)
        if hint:
            return line, hint
    return line, message


def _line_start(text: str, line: int) -> int:
    pos = 0
    for _ in range(line - 1):
        nl = text.find("\n", pos)
        if nl < 0:
            return len(text)
        pos = nl + 1
    return pos


def _unbalanced(text: str) -> tuple[str | None, int]:
    """The first quote or bracket left open, or bracket closing nothing: (kind, index).

    kind is "string" (a quote never closed), "open" (a '[' or '{' never closed) or
    "close" (a ']' or '}' without its opener); (None, -1) when all are balanced.
    """
    stack: list[int] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c in "\"'":
            end, closed = _string_end(text, i)
            if not closed:
                return "string", i
            i = end
            continue
        if c == "#":
            nl = text.find("\n", i)
            i = len(text) if nl < 0 else nl
            continue
        if c in "[{":
            stack.append(i)
        elif c in "]}":
            if not stack:
                return "close", i
            opener = stack.pop()
            if "[{".index(text[opener]) != "]}".index(c):
                return "open", opener
        i += 1
    if stack:
        return "open", stack[-1]        # the innermost: it is the first to close
    return None, -1


def _multiline_brace(text: str, pos: int) -> tuple[int, int] | None:
    """The '{' and '}' of an inline table around ``pos`` that spans lines (TOML 1.0 forbids it)."""
    stack: list[int] = []
    for j, c, _ in _scan(text, 0, len(text)):
        if c in "[{":
            stack.append(j)
        elif c in "]}" and stack:
            opener = stack.pop()
            if c == "}" and text[opener] == "{" and opener < pos <= j and "\n" in text[opener:j]:
                return opener, j
    return None


def _value_hint(text: str, line: int, pos: int) -> str | None:
    """A date TOML cannot read, or text without quotes, as the value at the error."""
    start = _line_start(text, line)
    end = text.find("\n", start)
    row = text[start:len(text) if end < 0 else end]
    for eq in re.finditer(r"=[ \t]*", row):
        value_at = start + eq.end()
        if value_at > pos:
            break
        rest = row[eq.end():]
        date = DATE_TOKEN.match(rest)
        if date and not reads_as_toml(date.group(0)):
            return date_advice(date)
        word = _BARE_WORD.match(rest)
        if word and value_at == pos and word.group(0) not in ("true", "false", "inf", "nan"):
            return (f"{word.group(0)} is not a TOML value: text is written in quotes, "
                    f"\"{word.group(0)}\"")
    return None


def reads_as_toml(value: str) -> bool:
    try:
        tomllib.loads(f"v = {value}")
    except tomllib.TOMLDecodeError:
        return False
    return True


def date_advice(found: re.Match) -> str:
    """What is wrong with a date-like value TOML cannot read, and how to write it."""
    token = found.group(0)
    if found.group("lone"):
        return f"{token} is not a value TOML can read: a time needs a date before it; write {DATE_FORMS}"
    why, fix = date_fix(found)
    reason = f" ({'; '.join(why)})" if why else ""
    if fix is None:
        return f"{token} is not a date TOML can read{reason}; write {DATE_FORMS}"
    if "T" not in fix:
        return (f"{token} is not a date TOML can read{reason}; write {fix} (or with the time, seconds "
                f"included, such as {fix}T20:05:00+01:00)")
    if not re.search(r"(Z|[+-]\d\d:\d\d)\Z", fix):
        # Without an offset TOML's time is local, which a site takes as UTC (docs/curators).
        return (f"{token} is not a date TOML can read{reason}; write {fix}+01:00, with the UTC offset of the "
                f"time's zone (Z for UTC), or the date alone, {fix[:10]}")
    return f"{token} is not a date TOML can read{reason}; write {fix} (or the date alone, {fix[:10]})"


def date_fix(found: re.Match) -> tuple[list[str], str | None]:
    """The reasons a date-like value fails, and the value TOML reads, when it is unambiguous."""
    why: list[str] = []
    a, b, c, sep = found.group("a"), found.group("b"), found.group("c"), found.group("sep")
    ymd: tuple[int, int, int] | None = None
    if len(a) == 4 and sep == "-":
        y, m, d = int(a), int(b), int(c)
        if m > 12 and d <= 12:
            why.append(f"there is no month {m}: dates are year-month-day")
            m, d = d, m
        ymd = (y, m, d)
    else:
        why.append("dates are written year-month-day, with '-'")
        if len(c) == 4:
            first, second = int(a), int(b)
            if first > 12 >= second:
                ymd = (int(c), second, first)
            elif second > 12 >= first:
                ymd = (int(c), first, second)
        elif len(a) == 4:
            ymd = (int(a), int(b), int(c))
    if ymd is not None and (len(b) < 2 or len(c) < 2) and sep == "-" and len(a) == 4:
        why.append("month and day have two digits")
    fix = None
    if ymd is not None:
        y, m, d = ymd
        fix = f"{y:04d}-{m:02d}-{d:02d}"
        if not reads_as_toml(fix):
            why.append("there is no such day")
            fix = None
    if found.group("h") is not None:
        h, mi = int(found.group("h")), int(found.group("mi"))
        s = found.group("s")
        if s is None:
            why.append("the time needs seconds")
        if h > 23 or mi > 59 or (s is not None and int(s) > 60):
            why.append("the time is not a time of day")
            fix = None
        off = found.group("off") or ""
        if off and off not in "Zz":
            sign, digits = off[0], off[1:].replace(":", "")
            if ":" not in off:
                why.append("the UTC offset is written with ':', such as +01:00")
            off = f"{sign}{int(digits[:-2]):02d}:{digits[-2:]}"
        if fix is not None:
            fix += f"T{h:02d}:{mi:02d}:{int(s or 0):02d}{found.group('frac') or ''}{off}"
    if fix is not None and not reads_as_toml(fix):
        fix = None
    return why, fix
