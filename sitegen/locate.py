"""Find the line of a value in TOML text.

tomllib gives values but not positions; every problem a curator sees carries a
line, found here from the text itself.
"""

from __future__ import annotations

import re
import tomllib


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
