"""Markdown rendering for content pages and league descriptions.

On top of python-markdown (tables, fenced code, heading ids) this adds:

* math: ``$...$`` inline and ``$$...$$`` display, turned into MathML at build
  time with latex2mathml, so pages need no JavaScript to show formulas;
* shortcodes: a paragraph holding only ``{{< name >}}`` is replaced by HTML the
  generator supplies (for instance the table of a league's parameters);
* the first level-1 heading is taken out of the body and becomes the title.

This module depends on nothing else in the package but sitegen.load.markcheck, which checks
markdown without rendering it (what `sitegen check` does), and sitegen.load.mathml, the math.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as etree
from collections.abc import Mapping
from dataclasses import dataclass

import markdown
from markdown import util
from markdown.blockprocessors import BlockProcessor
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.blockparser import BlockParser
from markdown.postprocessors import Postprocessor, RawHtmlPostprocessor
from markdown.serializers import to_html_string
from markdown.treeprocessors import Treeprocessor

from sitegen.load.markcheck import MarkupError, too_deep
from sitegen.load.mathml import _MATH_RE, latex_to_mathml

__all__ = ["MarkupError", "Rendered", "latex_to_mathml", "render_markdown"]


@dataclass(frozen=True, slots=True)
class Rendered:
    """A rendered page: body HTML and the plain-text title (first ``# heading``)."""

    html: str
    title: str | None
    shortcodes: frozenset[str] = frozenset()   # the shortcodes the page used


# --- math ---------------------------------------------------------------------

_ESCAPED_BACKSLASH = util.STX + str(ord("\\")) + util.ETX  # as EscapeInlineProcessor writes it


class _MathInlineProcessor(InlineProcessor):
    # Runs after code spans (190), so math in code stays literal, and before
    # every other pattern, so emphasis and escapes never touch the LaTeX.
    PRIORITY = 185

    def __init__(self, md: markdown.Markdown, ext: _SitegenExtension) -> None:
        super().__init__(_MATH_RE, md)
        self.ext = ext

    def handleMatch(self, m: re.Match[str], data: str) -> tuple[str, int, int]:  # noqa: N802
        if m.group("bs") is not None:
            return _ESCAPED_BACKSLASH * (len(m.group("bs")) // 2), m.start(0), m.end(0)
        display = m.group("display") is not None
        tex = m.group("display") if display else m.group("inline")
        # The stash keeps the MathML away from the rest of markdown's processing.
        placeholder = self.md.htmlStash.store(latex_to_mathml(tex, display=display))
        self.ext.tex_of[placeholder] = tex.strip()
        return placeholder, m.start(0), m.end(0)


class _RawHtmlPostprocessor(RawHtmlPostprocessor):
    """Keeps the paragraph around inline math that stands alone in it."""

    def isblocklevel(self, html: str) -> bool:  # noqa: N802
        # python-markdown counts <math> as block-level and would unwrap
        # "<p>$x$</p>"; only display math stands on its own.
        if html.startswith("<math"):
            return 'display="block"' in html.split(">", 1)[0]
        return super().isblocklevel(html)


# --- shortcodes -------------------------------------------------------------

_SHORTCODE_RE = re.compile(r"\{\{<\s*([^<>{}]*?)\s*>\}\}")


class _ShortcodeProcessor(BlockProcessor):
    # Below indented code (80): a shortcode in a code block stays literal.
    # Fenced code is stashed by a preprocessor before blocks are parsed.
    PRIORITY = 77

    def __init__(self, parser: BlockParser, shortcodes: Mapping[str, str], used: set[str]) -> None:
        super().__init__(parser)
        self.shortcodes = shortcodes
        self.used = used

    def test(self, parent: etree.Element, block: str) -> bool:
        return _SHORTCODE_RE.fullmatch(block.strip()) is not None

    def run(self, parent: etree.Element, blocks: list[str]) -> None:
        match = _SHORTCODE_RE.fullmatch(blocks.pop(0).strip())
        assert match is not None  # test() checked it
        name = " ".join(match.group(1).split())    # "example  elo" is "example elo"
        if name not in self.shortcodes:
            raise MarkupError(_unknown_shortcode(name, self.shortcodes))
        self.used.add(name)
        # A paragraph holding only a stashed block-level fragment is unwrapped
        # by the raw_html postprocessor; strip() so a leading newline keeps it so.
        p = etree.SubElement(parent, "p")
        p.text = util.AtomicString(self.parser.md.htmlStash.store(self.shortcodes[name].strip()))


def _unknown_shortcode(name: str, shortcodes: Mapping[str, str]) -> str:
    """What is wrong with ``{{< name >}}`` and what is allowed; a shortcode that takes an argument
    ({{< example elo >}}) lists the arguments it takes."""
    head = name.split(" ", 1)[0]
    takes = sorted(k.split(" ", 1)[1] for k in shortcodes if k.startswith(head + " "))
    if takes:
        return (f"unknown shortcode {{{{< {name} >}}}}: {{{{< {head} NAME >}}}} takes one of: "
                f"{', '.join(takes)}")
    known = ", ".join(sorted({k.split(" ", 1)[0] + " NAME" if " " in k else k for k in shortcodes})) or "none"
    return f"unknown shortcode {{{{< {name} >}}}} (known: {known})"


# --- tree clean-up ----------------------------------------------------------

_ESCAPE_PLACEHOLDER = re.compile(f"{util.STX}([0-9]+){util.ETX}")
_TAG = re.compile(r"<[^>]*>")
_SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")


class _TitleTreeprocessor(Treeprocessor):
    # After inline (20) so the heading's text is final; before toc (5) so the
    # title is not listed in a table of contents.
    PRIORITY = 15

    def __init__(self, md: markdown.Markdown, ext: _SitegenExtension) -> None:
        super().__init__(md)
        self.ext = ext

    def run(self, root: etree.Element) -> None:
        for el in root:  # top level only: a heading in a quote or list is no page title
            if el.tag == "h1":
                self.ext.title = self._plain_text(el)
                root.remove(el)
                return

    def _plain_text(self, el: etree.Element) -> str:
        # Serialise and strip tags: code spans hold escaped text, the stash raw HTML.
        inner = (el.text or "") + "".join(
            to_html_string(child) for child in el
        )

        def stashed(m: re.Match[str]) -> str:
            if m.group(0) in self.ext.tex_of:
                return html.escape(self.ext.tex_of[m.group(0)])
            return str(self.md.htmlStash.rawHtmlBlocks[int(m.group(1))])

        inner = util.HTML_PLACEHOLDER_RE.sub(stashed, inner)
        inner = _ESCAPE_PLACEHOLDER.sub(lambda m: html.escape(chr(int(m.group(1)))), inner)
        inner = inner.replace(util.AMP_SUBSTITUTE, "&")
        return " ".join(html.unescape(_TAG.sub("", inner)).split())


class _TableTreeprocessor(Treeprocessor):
    """Tables that assistive technology and keyboards can use.

    * A table scrolls sideways on a narrow screen (site.css): it takes the
      keyboard focus so that it can be scrolled without a mouse.
    * An empty header cell (the corner of a table with row labels) heads
      nothing: it becomes a data cell, since an empty header names no column.
    * A header holding only a formula (``| $K$ |``) is named by the formula's
      text: browsers give MathML no text of its own to name a column with.
    """

    # After inline (20): cells hold their final text and math placeholders.
    PRIORITY = 10

    def run(self, root: etree.Element) -> None:
        stash = self.md.htmlStash.rawHtmlBlocks
        for table in root.iter("table"):
            table.set("tabindex", "0")
            for head in table.iter("thead"):
                for cell in head.iter("th"):
                    text = (cell.text or "").strip()
                    if not text and not len(cell):
                        cell.tag = "td"
                        continue
                    placeholder = util.HTML_PLACEHOLDER_RE.fullmatch(text)
                    if placeholder and not len(cell) and str(stash[int(placeholder.group(1))]).startswith("<math"):
                        index = int(placeholder.group(1))
                        stash[index] = _labelled_math(str(stash[index]))


class _ScrollFocusPostprocessor(Postprocessor):
    """Code blocks and the shortcodes' wrapped tables scroll sideways on a narrow screen
    (site.css): they take the keyboard focus so that they can be scrolled without a mouse.

    A postprocessor, since fenced code and shortcode HTML reach the page through the stash."""

    # After the stash is pasted back (raw_html, 30).
    PRIORITY = 25
    _SCROLLER = re.compile(r'<(pre|div class="table-wrap")(?=[\s>])(?![^>]*\btabindex=)')

    def run(self, text: str) -> str:
        return self._SCROLLER.sub(r'<\1 tabindex="0"', text)


def _labelled_math(mathml: str) -> str:
    """The MathML with an aria-label holding its text ("K", "R′")."""
    label = "".join(etree.fromstring(mathml).itertext())
    return mathml.replace("<math", f'<math aria-label="{html.escape(label)}"', 1)


class _SafeAttributesTreeprocessor(Treeprocessor):
    """Keeps stashed HTML out of attributes and drops script-capable URLs."""

    # Last before python-markdown's own unescape (0).
    PRIORITY = 1

    def __init__(self, md: markdown.Markdown, ext: _SitegenExtension) -> None:
        super().__init__(md)
        self.ext = ext

    def run(self, root: etree.Element) -> None:
        for el in root.iter():
            for name, value in list(el.items()):
                if value is None:
                    continue
                # Math in link text or an image's alt would otherwise be pasted
                # into the attribute as raw markup by the raw_html postprocessor.
                value = util.HTML_PLACEHOLDER_RE.sub(self._stashed_text, value)
                if name in ("href", "src") and not _is_safe_url(value):
                    del el.attrib[name]
                else:
                    el.set(name, value)

    def _stashed_text(self, m: re.Match[str]) -> str:
        if m.group(0) in self.ext.tex_of:
            return self.ext.tex_of[m.group(0)]
        raw = str(self.md.htmlStash.rawHtmlBlocks[int(m.group(1))])
        return html.unescape(_TAG.sub("", raw))


def _is_safe_url(url: str) -> bool:
    """True for relative URLs and http(s)/mailto ones, judged as a browser reads them."""
    url = _ESCAPE_PLACEHOLDER.sub(lambda m: chr(int(m.group(1))), url)
    url = html.unescape(url.replace(util.AMP_SUBSTITUTE, "&"))
    # Browsers ignore control characters and spaces inside "java\tscript:".
    url = re.sub(r"[\x00-\x20\x7f]", "", url)
    scheme = _SCHEME.match(url)
    return scheme is None or scheme.group(1).lower() in _SAFE_SCHEMES


# --- the extension ----------------------------------------------------------


class _SitegenExtension(Extension):
    """Math, shortcodes, title extraction and safe output; one per conversion."""

    def __init__(self, shortcodes: Mapping[str, str], allow_html: bool) -> None:
        super().__init__()
        self.shortcodes = shortcodes
        self.allow_html = allow_html
        self.tex_of: dict[str, str] = {}  # stash placeholder -> TeX, for plain text
        self.title: str | None = None
        self.used: set[str] = set()

    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802
        md.ESCAPED_CHARS.append("$")
        md.inlinePatterns.register(
            _MathInlineProcessor(md, self), "math", _MathInlineProcessor.PRIORITY
        )
        md.parser.blockprocessors.register(
            _ShortcodeProcessor(md.parser, self.shortcodes, self.used), "shortcode", _ShortcodeProcessor.PRIORITY
        )
        md.treeprocessors.register(_TitleTreeprocessor(md, self), "title", _TitleTreeprocessor.PRIORITY)
        md.treeprocessors.register(_TableTreeprocessor(md), "tables", _TableTreeprocessor.PRIORITY)
        md.treeprocessors.register(
            _SafeAttributesTreeprocessor(md, self), "safe_attributes", _SafeAttributesTreeprocessor.PRIORITY
        )
        md.postprocessors.register(_RawHtmlPostprocessor(md), "raw_html", 30)
        md.postprocessors.register(_ScrollFocusPostprocessor(md), "scroll_focus", _ScrollFocusPostprocessor.PRIORITY)
        if not self.allow_html:
            # Without these, "<script>" is ordinary text and gets escaped.
            md.preprocessors.deregister("html_block")
            md.inlinePatterns.deregister("html")


def render_markdown(
    text: str,
    *,
    shortcodes: Mapping[str, str] | None = None,
    allow_html: bool = True,
) -> Rendered:
    """Render markdown to HTML; MarkupError for invalid math or an unknown shortcode.

    ``shortcodes`` maps names to trusted HTML. With ``allow_html=False`` (text
    written by curators) raw HTML is shown as text, never passed through.
    """
    ext = _SitegenExtension(shortcodes or {}, allow_html)
    # A fresh instance per call: no state (footnotes, heading ids, stash) leaks
    # between pages, so the same input always gives the same bytes.
    md = markdown.Markdown(
        extensions=["tables", "fenced_code", "toc", ext],
        output_format="html",
    )
    deep = too_deep(text)
    if deep:
        raise MarkupError(deep)
    try:
        body = md.convert(text)
    except RecursionError:
        # Python-Markdown recurses once per level of quotes and lists ("> > > ...").
        raise MarkupError("is nested too deeply (quotes or lists inside one another, hundreds of levels); "
                          "flatten it") from None
    return Rendered(html=body, title=ext.title, shortcodes=frozenset(ext.used))
