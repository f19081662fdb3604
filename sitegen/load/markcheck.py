"""Checking markdown without rendering it: what `sitegen check` asks of a page or a description.

Rendering (sitegen/load/markup.py) can fail in three ways only: markdown nested too deep, invalid
LaTeX in math, an unknown shortcode. Nesting is checked here by a scan of the text. Math needs
a "$" and a shortcode "{{<": text with neither cannot fail, so it is never parsed and the check
loads no markdown library. Plain text with math (no code, HTML, shortcode or block markup, see
``_PLAIN``) is one paragraph per blank-line-separated chunk to the parser too, with math the first
inline pattern applied, so its formulas are found here by the parser's own pattern and checked by
latex2mathml alone. Any other text is rendered by sitegen.load.markup (imported then, not before),
since only the parser knows what is math and what is code or raw HTML; so is plain text whose
math is invalid, for the parser's own message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable


class MarkupError(ValueError):
    """Markdown that cannot be rendered: invalid LaTeX or an unknown shortcode."""


# Python-Markdown takes time quadratic in nested brackets ("[[[[...") and recurses once per
# level of quotes and lists; no page needs more than a few levels.
MAX_MARKDOWN_NESTING = 32
_DEEP_LINE = re.compile(r"^(?:[ \t]*(?:[-*+>]|\d{1,9}[.)])(?=[ \t>]|$)[ \t]*){%d}" % (MAX_MARKDOWN_NESTING + 1), re.M)
_DEEP_INDENT = re.compile(r"^[ \t]{%d}" % (4 * MAX_MARKDOWN_NESTING + 4), re.M)


def too_deep(text: str) -> str | None:
    """Why markdown is nested past MAX_MARKDOWN_NESTING, or None."""
    depth = deepest = 0
    for c in re.findall(r"[\[\]]", text):
        depth = depth + 1 if c == "[" else max(0, depth - 1)
        deepest = max(deepest, depth)
    if deepest > MAX_MARKDOWN_NESTING:
        return (f"has brackets [ ] nested more than {MAX_MARKDOWN_NESTING} deep; close them, or write a "
                "bracket as \\[")
    if _DEEP_LINE.search(text) or _DEEP_INDENT.search(text):
        return f"has quotes or lists nested more than {MAX_MARKDOWN_NESTING} levels deep; flatten it"
    return None


def check_markdown(text: str, *, shortcodes: Iterable[str] = (), allow_html: bool = True) -> None:
    """MarkupError with what rendering ``text`` would report, or nothing; the same verdict as
    render_markdown with these shortcode names, parsing only text that holds math or a shortcode."""
    deep = too_deep(text)
    if deep:
        raise MarkupError(deep)
    if "$" not in text and "{{<" not in text:
        return
    if _plain_math_is_valid(text):
        return
    from sitegen.load.markup import render_markdown

    # The shortcodes' HTML is the generator's own and cannot fail: only their names matter.
    render_markdown(text, shortcodes=dict.fromkeys(shortcodes, ""), allow_html=allow_html)


# What makes the parser's view of a text differ from its blank-line-separated chunks, or run
# an inline pattern before math: code (backticks, fences, indented lines), HTML, tables,
# shortcodes, and a line opening a quote, heading, list, rule or setext underline.
_PLAIN = re.compile(r"[`<|~]|\{\{<|^(?:[ ]{4}|[ ]{0,3}\t|[ ]{0,3}(?:[>#]|[*+-](?:[ \t]|$)|\d+[.)](?:[ \t]|$)"
                    r"|[=-]+[ \t]*$|(?:[-*_][ \t]*){3,}$))", re.M)


def _plain_math_is_valid(text: str) -> bool:
    """Whether ``text`` is plain (see _PLAIN) and every formula in it converts: then rendering
    cannot fail. False means "ask the parser", never "invalid"."""
    if _PLAIN.search(text):
        return False
    from sitegen.load.mathml import MATH, latex_to_mathml

    for chunk in re.split(r"\n[ \t]*\n", text):
        for m in MATH.finditer(chunk):
            if m.group("bs") is not None:
                continue
            display = m.group("display") is not None
            try:
                latex_to_mathml(m.group("display") if display else m.group("inline"), display=display)
            except MarkupError:
                return False
    return True
