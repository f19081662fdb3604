"""Math in markdown: LaTeX between dollars, turned into MathML by latex2mathml.

Apart from the markdown renderer (sitegen.load.markup) so that `sitegen check` can check the
math of plain text without loading python-markdown (sitegen.load.markcheck).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

from latex2mathml.converter import convert_to_element

from sitegen.load.markcheck import MarkupError

__all__ = ["MATH", "latex_to_mathml"]


# latex2mathml keeps characters as literal "&#x...;" text; these are the only
# escapes to undo after serialising (see latex_to_mathml).
_CHAR_REF = re.compile(r"&amp;(#x[0-9A-Fa-f]+|#[0-9]+);")
# \href and \style would let math carry links and styling into the page.
_UNSAFE_MATH_ATTRIBUTES = frozenset({"href", "style", "src", "xlink:href"})


def latex_to_mathml(tex: str, *, display: bool = False) -> str:
    """Convert one LaTeX expression to a MathML string; MarkupError if invalid."""
    shown = f"$${tex.strip()}$$" if display else f"${tex}$"
    _check_braces(tex, shown)
    try:
        root = convert_to_element(tex, display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises assorted exception types
        # Its exceptions often carry no message; the class name says enough.
        name = type(exc).__name__.removesuffix("Error")
        detail = str(exc) or re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()
        raise MarkupError(f"invalid LaTeX in math {shown}: {detail}") from None
    for el in root.iter():
        for name in [n for n in el.attrib if n in _UNSAFE_MATH_ATTRIBUTES or n.startswith("on")]:
            del el.attrib[name]
        # latex2mathml shows a command it does not know as its own name, silently.
        if el.tag != "mtext" and el.text and el.text.startswith("\\"):
            raise MarkupError(f"invalid LaTeX in math {shown}: unknown command {el.text}")
    if display:
        # A display formula scrolls sideways on a narrow screen: keyboard users must reach it too.
        root.set("tabindex", "0")
    # Serialise ourselves: latex2mathml's convert() unescapes all of the output,
    # which would let \text{<script>} through as a real tag.
    return _CHAR_REF.sub(r"&\1;", etree.tostring(root, encoding="unicode"))


def _check_braces(tex: str, shown: str) -> None:
    # latex2mathml quietly accepts "\frac{1}{2" and a stray "}".
    depth = 0
    chars = iter(tex)
    for ch in chars:
        if ch == "\\":
            next(chars, None)  # \{ \} \\ are not group braces
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                break
    if depth:
        raise MarkupError(f"invalid LaTeX in math {shown}: unbalanced braces")


# Alternatives, tried left to right at each position:
#   bs      an even run of backslashes before "$": escaped backslashes, so the
#           "$" still opens math (as python-markdown does for backticks);
#   display $$...$$, may span lines;
#   inline  $...$: the opening "$" is not followed by whitespace, the closing
#           one not preceded by whitespace nor followed by a digit, so prices
#           ("$5 and $6") stay text. A "$" preceded by one backslash is literal.
# \x02 and \x03 delimit python-markdown placeholders (e.g. a code span): math
# never spans one.
_MATH_RE = (
    r"(?<!\\)(?P<bs>(?:\\\\)+)(?=\$)"
    r"|(?<!\\)\$\$(?P<display>(?:[^$\\\x02\x03]|\\[^\x02\x03])+?)\$\$"
    r"|(?<!\\)\$(?![\s$])(?P<inline>(?:[^$\\\x02\x03]|\\[^\x02\x03])+?)(?<!\s)\$(?!\d)"
)
MATH = re.compile(_MATH_RE)
