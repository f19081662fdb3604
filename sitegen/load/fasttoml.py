"""TOML read by a compiled parser (toml-rs), with tomllib as the reference it must agree with.

tomllib, pure Python, took most of the time of loading a long history (about 27 us a match).
toml-rs reads TOML 1.0 (``toml_version="1.0.0"``: its default, 1.1, accepts what tomllib
rejects, such as tables in braces over several lines) into the same Python values as
tomllib: the same types, time zones, floats (inf and nan included) and strings
(tests/test_toml_fast.py compares the two on generated match files and on edge cases).

Only a clean read is taken from it. Whatever it refuses is read again by tomllib, so that a
syntax error is reported with tomllib's message and line, worded as always (load/site.py).

One guard: toml-rs recurses on brackets and overflows the C stack on a value nested some
thousands deep (a crash, not an error). It is given only texts whose brackets nest at most
MAX_NESTING deep, counted outside strings and comments; the others go to tomllib, whose
deep values are refused as too deeply nested all the same. Dotted keys it reads without
recursion.
"""

from __future__ import annotations

import re
from typing import Any

import toml_rs

from sitegen.rating import limits

# Every string and comment, matched as TOML reads them from the left: a multi-line string
# (its closing quotes may be followed by up to two more of its content), a one-line string
# with its escapes, a comment. Where a text is not valid TOML the two may part ways, but only
# after the point where the parser stops with its error; up to there the brackets left are
# exactly the parser's.
_QUOTED = re.compile(r'''"""(?:[^"\\]|\\.|"{1,2}(?!"))*"{3,5}'''
                     r"""|'''(?:[^']|'{1,2}(?!'))*'{3,5}"""
                     r'''|"(?:[^"\\\n]|\\.)*"'''
                     r"""|'[^'\n]*'"""
                     r"""|\#[^\n]*""", re.S)
# Without quotes of ''' or """, apostrophes, backslashes and '#', every string is "..." on one
# line: this simpler pattern finds the same strings, in half the time.
_PLAIN = re.compile(r'"[^"\n]*"')
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")


def brackets_nest_within(text: str, most: int = limits.MAX_NESTING) -> bool:
    """Whether the brackets of ``text`` outside strings and comments nest at most ``most`` deep
    and close in order; False also for brackets that do not pair up (the text is then left to
    tomllib, which words the error)."""
    plain = "'" not in text and "\\" not in text and "#" not in text and '"""' not in text
    outside = (_PLAIN if plain else _QUOTED).sub("", text)
    marks = outside.encode("utf-8").translate(None, _NOT_BRACKETS)
    # Each pass removes the innermost pairs: n passes empty brackets nested n deep.
    for _ in range(most):
        if not marks:
            return True
        inner_removed = marks.replace(b"[]", b"").replace(b"{}", b"")
        if len(inner_removed) == len(marks):
            return False
        marks = inner_removed
    return not marks


def loads(text: str) -> dict[str, Any] | None:
    """The values of ``text`` as tomllib reads them, or None when toml-rs does not read it cleanly
    (the caller then asks tomllib, which reports the error)."""
    # toml-rs skips a byte order mark, which tomllib refuses (load/site.py removes one before this).
    if text.startswith("\ufeff") or not brackets_nest_within(text):
        return None
    try:
        return toml_rs.loads(text, toml_version="1.0.0")
    except Exception:       # noqa: BLE001 - any refusal: tomllib reads it and words the problem
        return None
    except BaseException as exc:
        # A panic inside the parser reaches Python as pyo3's PanicException, a BaseException.
        if type(exc).__name__ == "PanicException":
            return None
        raise
