"""Read a site repository from disk: settings, leagues, match files, players.

Everything is read in a sorted, deterministic order and every record remembers
the file it came from, so later stages can report problems by file and line.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .problems import Problems

LEAGUE_SLUG = re.compile(r"[a-z0-9][a-z0-9-]*\Z")


@dataclass(frozen=True, slots=True)
class TomlFile:
    """A parsed TOML file with its text kept for locating lines."""

    path: Path
    rel: str                      # relative to the site root, '/'-separated
    text: str
    data: dict[str, Any]

    def table_lines(self, name: str) -> list[int]:
        """First line of each [[name]] table, in order (empty if written inline)."""
        return [_line_of(self.text, start) for start, _ in _table_spans(self.text, name, 0, len(self.text))]

    def locate(self, *path: str | int, table: tuple[str, int] | None = None) -> int | None:
        """Best-effort 1-based line of a value, e.g. locate("players", 1, "goals", table=("match", 2))."""
        return locate(self.text, path, table)


@dataclass(frozen=True, slots=True)
class LeagueSource:
    slug: str
    folder: Path
    config: TomlFile | None
    match_files: tuple[TomlFile, ...]


@dataclass(frozen=True, slots=True)
class SiteSource:
    root: Path
    settings: dict[str, Any]
    settings_file: str
    players: TomlFile | None
    leagues: tuple[LeagueSource, ...]


def rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def read_toml(root: Path, path: Path, problems: Problems) -> TomlFile | None:
    """Parse one TOML file; on failure record the problem (with its line) and return None."""
    name = rel(root, path)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.add(name, f"is not valid UTF-8 (byte {exc.start}); save the file as UTF-8")
        return None
    except OSError as exc:
        problems.add(name, f"cannot be read: {exc.strerror}")
        return None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        line = int(m.group(1)) if m else None
        if m:
            msg = msg[: m.start()].rstrip()
        problems.add(name, f"invalid TOML: {msg}", line=line)
        return None
    return TomlFile(path, name, text, data)


def load_site(root: Path, problems: Problems) -> SiteSource:
    """Read everything a build needs from ``root``; problems are collected, not raised."""
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
        problems.add("matches", "folder not found: a site needs a matches/ folder with one folder per league")
    else:
        if (matches / "players.toml").is_file():
            players = read_toml(root, matches / "players.toml", problems)
        for folder in sorted(p for p in matches.iterdir() if p.is_dir()):
            if folder.name.startswith("."):
                continue
            leagues.append(_load_league(root, folder, problems))
        for stray in sorted(p for p in matches.iterdir() if p.is_file() and p.suffix == ".toml"):
            if stray.name != "players.toml":
                problems.add(rel(root, stray), "match files belong in a league folder: matches/<league>/...")
    return SiteSource(root, settings, "pyproject.toml", players, tuple(leagues))


def _load_league(root: Path, folder: Path, problems: Problems) -> LeagueSource:
    slug = folder.name
    if not LEAGUE_SLUG.match(slug):
        problems.add(rel(root, folder),
                     f"league folder name {slug!r} is not a valid slug: use lower-case letters, digits "
                     "and '-', starting with a letter or digit")
    config_path = folder / "league.toml"
    config = None
    if config_path.is_file():
        config = read_toml(root, config_path, problems)
    else:
        problems.add(rel(root, folder), "league.toml not found: every league folder needs one")
    # History order compares paths relative to the league folder as strings.
    files = sorted(
        (p for p in folder.rglob("*.toml")
         if p.is_file() and p.name != "league.toml" and not _hidden(p.relative_to(folder))),
        key=lambda p: p.relative_to(folder).as_posix(),
    )
    parsed = tuple(f for f in (read_toml(root, p, problems) for p in files) if f is not None)
    return LeagueSource(slug, folder, config, parsed)


def _hidden(relpath: Path) -> bool:
    return any(part.startswith(".") for part in relpath.parts)


# --- locating lines in TOML text -------------------------------------------------
#
# tomllib gives values but not positions. Curators need the line, so we scan the
# text with a small tokenizer that understands strings, comments and brackets:
# enough to find a key inside a [[table]] and the n-th element of an array.

_HEADER = re.compile(r"^[ \t]*\[\[?[ \t]*([A-Za-z0-9_.\"' -]+?)[ \t]*\]\]?[ \t]*(?:#.*)?$", re.M)


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _skip_string(text: str, i: int) -> int:
    """Given text[i] is a quote, return the index just after the string."""
    q = text[i]
    if text.startswith(q * 3, i):
        end = text.find(q * 3, i + 3)
        if end < 0:
            return len(text)
        end += 3
        while end < len(text) and text[end] == q:  # """a"""" style endings
            end += 1
        return end
    j = i + 1
    while j < len(text) and text[j] != "\n":
        if q == '"' and text[j] == "\\":
            j += 2
            continue
        if text[j] == q:
            return j + 1
        j += 1
    return j


def _scan(text: str, start: int, end: int):
    """Yield (index, char, depth) for structural characters outside strings and comments."""
    depth = 0
    i = start
    while i < end:
        c = text[i]
        if c in "\"'":
            i = _skip_string(text, i)
            continue
        if c == "#":
            nl = text.find("\n", i)
            i = end if nl < 0 else nl
            continue
        if c in "[{":
            yield i, c, depth
            depth += 1
        elif c in "]}":
            depth -= 1
            yield i, c, depth
        elif c in ",=\n":
            yield i, c, depth
        i += 1


def _value_span(text: str, eq: int, end: int) -> tuple[int, int]:
    """Span of the value after '=' at index eq (to the end of a bracketed value or line)."""
    i = eq + 1
    while i < end and text[i] in " \t":
        i += 1
    if i < end and text[i] in "[{":
        for j, c, depth in _scan(text, i, end):
            if c in "]}" and depth == 0:
                return i, j + 1
        return i, end
    nl = text.find("\n", i)
    return i, end if nl < 0 or nl > end else nl


def _find_key(text: str, key: str, start: int, end: int) -> int | None:
    """Index of '=' of `key = ...` at the top level of [start, end)."""
    pat = re.compile(r'(?:^|[{,])[ \t]*(?:' + re.escape(key) + r'|"' + re.escape(key) + r'")[ \t]*=', re.M)
    base = None
    for m in pat.finditer(text, start, end):
        eq = m.end() - 1
        # Only keys at the shallowest bracket level of the span count.
        d = _depth_before(text, start, eq)
        if base is None:
            base = _depth_before(text, start, start)
        if d == base:
            return eq
    return None


def _depth_before(text: str, start: int, pos: int) -> int:
    depth = 0
    for j, c, _ in _scan(text, start, pos):
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
    return depth


def _nth_element(text: str, n: int, start: int, end: int) -> tuple[int, int] | None:
    """Span of the n-th (0-based) element of the inline array in [start, end)."""
    begin = None
    count = 0
    for j, c, depth in _scan(text, start, end):
        if depth == 0 and c == "[" and begin is None:
            begin = j + 1
            elem_start = begin
            continue
        if begin is None:
            continue
        if (c == "," and depth == 1) or (c == "]" and depth == 0):
            if count == n:
                s = elem_start
                while s < j:    # skip blanks and whole comments: the element starts after them
                    if text[s] in " \t\r\n":
                        s += 1
                    elif text[s] == "#":
                        nl = text.find("\n", s, j)
                        s = j if nl < 0 else nl + 1
                    else:
                        break
                return s, j
            count += 1
            elem_start = j + 1
    return None


def _table_spans(text: str, name: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of every [[name]] array-of-tables entry between start and end."""
    heads = [m for m in _HEADER.finditer(text, start, end)]
    spans = []
    for k, m in enumerate(heads):
        if m.group(0).lstrip().startswith("[[") and m.group(1).replace(" ", "") == name:
            nxt = end
            for later in heads[k + 1:]:
                inner = later.group(1).replace(" ", "")
                if not inner.startswith(name + "."):
                    nxt = later.start()
                    break
            spans.append((m.start(), nxt))
    return spans


_ANY_HEADER = re.compile(r"^[ \t]*(\[\[?)([^\n]*?)\]\]?[ \t]*(?:#[^\n]*)?$", re.M)


def _header_keys(inner: str) -> tuple[str, ...] | None:
    """The key path of a table header's inside (`players."Zoë"` -> ("players", "Zoë"))."""
    try:
        data = tomllib.loads(f"{inner} = 0")
    except tomllib.TOMLDecodeError:
        return None
    keys: list[str] = []
    while isinstance(data, dict) and len(data) == 1:
        key, data = next(iter(data.items()))
        keys.append(key)
    return tuple(keys) if data == 0 else None


def _standard_table(text: str, keys: tuple[str, ...]) -> tuple[int, int, int] | None:
    """(header start, body start, body end) of the standard table ``[a.b]`` with these keys."""
    line_starts = {0} | {j + 1 for j, c, depth in _scan(text, 0, len(text)) if c == "\n" and depth == 0}
    heads = [m for m in _ANY_HEADER.finditer(text) if m.start() in line_starts]
    for k, m in enumerate(heads):
        if m.group(1) == "[" and _header_keys(m.group(2)) == keys:
            end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
            return m.start(), m.end(), end
    return None


def locate(text: str, path: tuple[str | int, ...], table: tuple[str, int] | None = None) -> int | None:
    """Best-effort line of ``path`` inside the n-th ``[[table]]`` (or the whole file)."""
    start, end = 0, len(text)
    prefix = ""
    if table is None:
        # Keys under a standard table header: [params] k = ..., [players."ann"] aliases = ...
        lead = 0
        while lead < len(path) and isinstance(path[lead], str):
            lead += 1
        for n in range(lead, 0, -1):
            found = _standard_table(text, tuple(path[:n]))     # type: ignore[arg-type]
            if found is not None:
                head, body, end = found
                if n == len(path):
                    return _line_of(text, head)
                start, path = body, path[n:]
                break
    if table is not None:
        name, index = table
        spans = _table_spans(text, name, 0, len(text))
        if index < len(spans):
            start, end = spans[index]
        else:
            eq = _find_key(text, name, 0, len(text))
            if eq is None:
                return None
            vs, ve = _value_span(text, eq, len(text))
            elem = _nth_element(text, index, vs, ve)
            if elem is None:
                return _line_of(text, eq)
            start, end = elem
            if text[start] == "{":
                start += 1
        prefix = name
    line = _line_of(text, start)
    for k, seg in enumerate(path):
        if isinstance(seg, int):
            continue
        # Sub-tables written as [[match.players]] headers.
        dotted = f"{prefix}.{seg}" if prefix else seg
        subs = _table_spans(text, dotted, start, end)
        nxt = path[k + 1] if k + 1 < len(path) else None
        if subs:
            idx = nxt if isinstance(nxt, int) else 0
            if idx < len(subs):
                start, end = subs[idx]
                line = _line_of(text, start)
                prefix = dotted
                continue
        eq = _find_key(text, seg, start, end)
        if eq is None:
            return line
        line = _line_of(text, eq)
        vs, ve = _value_span(text, eq, end)
        if isinstance(nxt, int):
            elem = _nth_element(text, nxt, vs, ve)
            if elem is None:
                return line
            start, end = elem
            line = _line_of(text, start)
            if text[start] == "{":
                start += 1
        else:
            start, end = vs, ve
            if text[start:start + 1] == "{":
                start += 1
        prefix = ""
    return line
