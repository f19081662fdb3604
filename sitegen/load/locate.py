"""Find the line of a value in TOML text.

tomllib gives values but not positions; every problem a curator sees carries a
line, found here from the text itself. A file with thousands of problems is
answered from one index of its text (``Locator``), built on the first question:
without it every problem rescanned the whole file, and a converted history with
one systematic mistake took hours to report.
"""

from __future__ import annotations

import re
import tomllib
from bisect import bisect_left
from functools import lru_cache
from itertools import compress


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
    return _string_end(text, i)[0]


def _string_end(text: str, i: int) -> tuple[int, bool]:
    """Given text[i] is a quote: the index just after the string, and whether it is closed.

    An unclosed one-line string ends at its line's end, an unclosed multi-line one at the end.
    """
    q = text[i]
    if text.startswith(q * 3, i):
        j = i + 3
        while True:
            end = text.find(q * 3, j)
            if end < 0:
                return len(text), False
            if q == '"' and _escaped(text, i + 3, end):
                j = end + 1
                continue
            end += 3
            while end < len(text) and text[end] == q:  # """a"""" style endings
                end += 1
            return end, True
    j = i + 1
    while j < len(text) and text[j] != "\n":
        if q == '"' and text[j] == "\\" and text[j + 1:j + 2] != "\n":
            j += 2
            continue
        if text[j] == q:
            return j + 1, True
        j += 1
    return j, False


def _escaped(text: str, start: int, pos: int) -> bool:
    """Whether text[pos] follows an odd number of backslashes (after start)."""
    n = 0
    while pos - n - 1 >= start and text[pos - n - 1] == "\\":
        n += 1
    return n % 2 == 1


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


def _elements(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Span of every element of the inline array in [start, end), in order."""
    out: list[tuple[int, int]] = []
    begin = None
    for j, c, depth in _scan(text, start, end):
        if depth == 0 and c == "[" and begin is None:
            begin = j + 1
            elem_start = begin
            continue
        if begin is None:
            continue
        if (c == "," and depth == 1) or (c == "]" and depth == 0):
            s = elem_start
            while s < j:    # skip blanks and whole comments: the element starts after them
                if text[s] in " \t\r\n":
                    s += 1
                elif text[s] == "#":
                    nl = text.find("\n", s, j)
                    s = j if nl < 0 else nl + 1
                else:
                    break
            out.append((s, j))
            elem_start = j + 1
    return out


Header = tuple[int, bool, str]      # a header line's start, whether it is [[...]], its name without spaces


def _headers(text: str, start: int, end: int) -> list[Header]:
    """Every table header line between start and end."""
    return [(m.start(), m.group(0).lstrip().startswith("[["), m.group(1).replace(" ", ""))
            for m in _HEADER.finditer(text, start, end)]


def _table_spans(text: str, name: str, start: int, end: int,
                 heads: list[Header] | None = None) -> list[tuple[int, int]]:
    """Spans of every [[name]] array-of-tables entry between start and end (``heads``: its headers)."""
    if heads is None:
        heads = _headers(text, start, end)
    spans = []
    for k, (at, array, inner) in enumerate(heads):
        if array and inner == name:
            nxt = end
            for j in range(k + 1, len(heads)):      # its sub-tables, [[name.x]], belong to it
                if not heads[j][2].startswith(name + "."):
                    nxt = heads[j][0]
                    break
            spans.append((at, nxt))
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


# --- the index: every question about one text answered from one pass over it ----------

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+\Z")
# Every `key =` that _find_key's pattern finds for some bare key, in one pass: at a line start
# or after '{' or ',', written bare or in double quotes.
_ANY_KEY = re.compile(r'(?:^|[{,])[ \t]*(?:([A-Za-z0-9_-]+)|"([A-Za-z0-9_-]+)")[ \t]*=', re.M)


class Locator:
    """The positions ``locate`` needs in one text, each found once and kept.

    Built lazily: the line starts and table headers on the first question, the rest per
    span (a [[match]] table, a value) when a question first needs it. Answers are those
    of the scanning functions above; only the work is not repeated, so locating every
    problem of a file costs about one pass over it plus the tables that have problems.
    """

    __slots__ = ("text", "_newlines", "_heads", "_head_starts", "_tables", "_spans", "_keys", "_values",
                 "_elements", "_standard")

    def __init__(self, text: str) -> None:
        self.text = text
        self._newlines: list[int] | None = None
        self._heads: list[Header] | None = None         # every header line of the text ...
        self._head_starts: list[int] = []               # ... and where each starts
        self._tables: set[tuple[int, int]] = set()      # [[table]] spans found from those headers
        self._spans: dict[tuple[str, int, int], list[tuple[int, int]]] = {}
        self._keys: dict[tuple[int, int], dict[str, int]] = {}
        self._values: dict[tuple[int, int], tuple[int, int]] = {}
        self._elements: dict[tuple[int, int], list[tuple[int, int]]] = {}
        self._standard: dict[tuple[str, ...], tuple[int, int, int]] | None = None

    def line(self, pos: int) -> int:
        """1-based line of index ``pos`` (as _line_of, by binary search)."""
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        return bisect_left(self._newlines, pos) + 1

    def table_spans(self, name: str, start: int, end: int) -> list[tuple[int, int]]:
        """As _table_spans. In the whole text or a [[table]] found in it, from the text's one list
        of headers: those spans start and end at line starts, so the header lines in them are
        the same as a search of the span finds."""
        key = (name, start, end)
        spans = self._spans.get(key)
        if spans is None:
            if (start, end) == (0, len(self.text)) or (start, end) in self._tables:
                if self._heads is None:
                    self._heads = _headers(self.text, 0, len(self.text))
                    self._head_starts = [at for at, _, _ in self._heads]
                heads = self._heads[bisect_left(self._head_starts, start):bisect_left(self._head_starts, end)]
                spans = _table_spans(self.text, name, start, end, heads)
                self._tables.update(spans)
            else:
                spans = _table_spans(self.text, name, start, end)
            self._spans[key] = spans
        return spans

    def table_lines(self, name: str) -> list[int]:
        """First line of each [[name]] table, in order (empty if written inline).

        The lines of the spans ``table_spans(name, 0, len(text))`` starts, found from the same
        headers in one pass, each counting the newlines since the one before: asked of every
        match file, where locating anything else is asked only of a file with a problem."""
        text = self.text
        quick = _bare_table_lines(text, name) if _BARE_KEY.match(name) else None
        if quick is not None:
            return quick
        count = text.count
        lines: list[int] = []
        line, last = 1, 0
        for m in _HEADER.finditer(text):
            inner = m.group(1)
            if inner != name and inner.replace(" ", "") != name:
                continue
            at = m.start()
            if text.startswith("[[", at) or m.group(0).lstrip().startswith("[["):
                line += count("\n", last, at)
                last = at
                lines.append(line)
        return lines

    def find_key(self, key: str, start: int, end: int) -> int | None:
        """As _find_key; a bare key from one index of the span's keys."""
        if not _BARE_KEY.match(key):
            return _find_key(self.text, key, start, end)
        keys = self._keys.get((start, end))
        if keys is None:
            keys = self._keys[(start, end)] = _span_keys(self.text, start, end)
        return keys.get(key)

    def value_span(self, eq: int, end: int) -> tuple[int, int]:
        span = self._values.get((eq, end))
        if span is None:
            span = self._values[(eq, end)] = _value_span(self.text, eq, end)
        return span

    def nth_element(self, n: int, start: int, end: int) -> tuple[int, int] | None:
        elements = self._elements.get((start, end))
        if elements is None:
            elements = self._elements[(start, end)] = _elements(self.text, start, end)
        return elements[n] if 0 <= n < len(elements) else None

    def standard_table(self, keys: tuple[str, ...]) -> tuple[int, int, int] | None:
        if self._standard is None:
            self._standard = _standard_tables(self.text)
        return self._standard.get(keys)

    def locate(self, path: tuple[str | int, ...], table: tuple[str, int] | None = None) -> int | None:
        """Best-effort line of ``path`` inside the n-th ``[[table]]`` (or the whole file)."""
        text = self.text
        start, end = 0, len(text)
        prefix = ""
        if table is None:
            # Keys under a standard table header: [params] k = ..., [players."ann"] aliases = ...
            lead = 0
            while lead < len(path) and isinstance(path[lead], str):
                lead += 1
            for n in range(lead, 0, -1):
                found = self.standard_table(tuple(path[:n]))     # type: ignore[arg-type]
                if found is not None:
                    head, body, end = found
                    if n == len(path):
                        return self.line(head)
                    start, path = body, path[n:]
                    break
        if table is not None:
            name, index = table
            spans = self.table_spans(name, 0, len(text))
            if index < len(spans):
                start, end = spans[index]
            else:
                eq = self.find_key(name, 0, len(text))
                if eq is None:
                    return None
                vs, ve = self.value_span(eq, len(text))
                elem = self.nth_element(index, vs, ve)
                if elem is None:
                    return self.line(eq)
                start, end = elem
                if text[start] == "{":
                    start += 1
            prefix = name
        line = self.line(start)
        for k, seg in enumerate(path):
            if isinstance(seg, int):
                continue
            # Sub-tables written as [[match.players]] headers.
            dotted = f"{prefix}.{seg}" if prefix else seg
            subs = self.table_spans(dotted, start, end)
            nxt = path[k + 1] if k + 1 < len(path) else None
            if subs:
                idx = nxt if isinstance(nxt, int) else 0
                if idx < len(subs):
                    start, end = subs[idx]
                    line = self.line(start)
                    prefix = dotted
                    continue
            eq = self.find_key(seg, start, end)
            if eq is None:
                return line
            line = self.line(eq)
            vs, ve = self.value_span(eq, end)
            if isinstance(nxt, int):
                elem = self.nth_element(nxt, vs, ve)
                if elem is None:
                    return line
                start, end = elem
                line = self.line(start)
                if text[start] == "{":
                    start += 1
            else:
                start, end = vs, ve
                if text[start:start + 1] == "{":
                    start += 1
            prefix = ""
        return line


_OPENS_LINE = re.compile(r"\n[ \t]*\[")       # a line that may be a header, after the first
_OPENS_TEXT = re.compile(r"[ \t]*\[")


def _bare_table_lines(text: str, name: str) -> list[int] | None:
    """``table_lines`` of a text whose every line that may be a header (``_HEADER`` matches only
    lines starting with '[' after blanks) is exactly ``[[name]]``: those lines, found without a
    match object each. None for any other text."""
    head = f"[[{name}]]"
    lines = text.split("\n")
    if lines.count(head) != len(_OPENS_LINE.findall(text)) + (_OPENS_TEXT.match(text) is not None):
        return None
    return list(compress(range(1, len(lines) + 1), map(head.__eq__, lines)))


def _span_keys(text: str, start: int, end: int) -> dict[str, int]:
    """The '=' of the first ``key =`` of every bare key at the top level of [start, end).

    The same answer as _find_key for each key: its pattern's matches, for a bare key, are
    this pattern's matches naming that key (neither can start inside the other's), and a
    match counts when no bracket opened after ``start`` is still open before it.
    """
    found: dict[str, int] = {}
    structure = _scan(text, start, end)
    depth = 0
    pending = next(structure, None)
    for m in _ANY_KEY.finditer(text, start, end):
        eq = m.end() - 1
        while pending is not None and pending[0] < eq:
            c = pending[1]
            if c in "[{":
                depth += 1
            elif c in "]}":
                depth -= 1
            pending = next(structure, None)
        key = m.group(1) or m.group(2)
        if depth == 0 and key not in found:
            found[key] = eq
    return found


def _standard_tables(text: str) -> dict[tuple[str, ...], tuple[int, int, int]]:
    """(header start, body start, body end) of the first standard table ``[a.b]`` of each key path."""
    line_starts = {0} | {j + 1 for j, c, depth in _scan(text, 0, len(text)) if c == "\n" and depth == 0}
    heads = [m for m in _ANY_HEADER.finditer(text) if m.start() in line_starts]
    found: dict[tuple[str, ...], tuple[int, int, int]] = {}
    for k, m in enumerate(heads):
        if m.group(1) != "[":
            continue
        keys = _header_keys(m.group(2))
        if keys is not None and keys not in found:
            end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
            found[keys] = (m.start(), m.end(), end)
    return found


@lru_cache(maxsize=16)
def locator(text: str) -> Locator:
    """The index of a text located in without its TomlFile (a few files at a time)."""
    return Locator(text)


def locate(text: str, path: tuple[str | int, ...], table: tuple[str, int] | None = None) -> int | None:
    """Best-effort line of ``path`` inside the n-th ``[[table]]`` (or the whole file)."""
    return locator(text).locate(path, table)
