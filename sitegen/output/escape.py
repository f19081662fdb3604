"""Input text shown where it could do harm: a terminal or a job log, and GitHub's Markdown.

Names, ids and file names come from curators and may hold anything. The same two rules
serve `sitegen diff` and the check's annotations and job summary.
"""

from __future__ import annotations

import re

# C0 and C1 controls (an ESC recolours a terminal or a log), bidirectional overrides (they
# reorder the rest of the line) and lone surrogates (undecodable bytes of a file name).
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_UNSAFE_BUT_BREAKS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

# GitHub renders a job summary's Markdown, HTML included: every character that could start
# markup in running text or a table cell (a link or image needs '[', a heading's closing
# sequence '#', math '$') is written as a character reference, shown literally by both.
# A reference also splits the text GitHub scans for bare links: "https:" and "www." stay text.
_MD_SPECIAL = re.compile(r"[\\`*_\[\]<>#|~&$:]|(?<=www)\.", re.I)


def _code(m: re.Match) -> str:
    return f"\\u{ord(m.group()):04x}"


def visible(text: str, *, keep_breaks: bool = False) -> str:
    """The unsafe characters written as ``\\u001b`` escapes; tab, CR and LF kept with ``keep_breaks``
    (for a workflow command, whose own escaping encodes line breaks)."""
    return (_UNSAFE_BUT_BREAKS if keep_breaks else _UNSAFE).sub(_code, text)


def markdown(text: str) -> str:
    """Text shown literally in GitHub-flavoured Markdown, in running text or a table cell."""
    return _MD_SPECIAL.sub(lambda m: f"&#{ord(m.group())};", visible(text))
