"""Tests for sitegen.load.markup: math, shortcodes, titles and untrusted markdown."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.rating import SYSTEMS
from sitegen.load.markup import MarkupError, Rendered, render_markdown

CONTENT = Path(__file__).resolve().parent.parent / "content"


def math_count(html: str) -> int:
    return html.count("<math")


# --- math -------------------------------------------------------------------


def test_inline_math_becomes_mathml():
    out = render_markdown(r"Half is $\frac{1}{2}$ here.").html
    assert out.startswith("<p>Half is <math")
    assert 'display="inline"' in out
    assert "<mfrac><mrow><mn>1</mn></mrow><mrow><mn>2</mn></mrow></mfrac>" in out
    assert "$" not in out


def test_inline_math_alone_keeps_its_paragraph():
    out = render_markdown("$x$").html
    assert out.startswith("<p><math") and out.endswith("</math></p>")


def test_display_math_spanning_lines_is_a_block():
    text = "Before.\n\n$$\nE_a = \\frac{1}{1 + 10^{(A_b - A_a)/400}}\n$$\n\nAfter."
    out = render_markdown(text).html
    assert math_count(out) == 1
    assert 'display="block"' in out
    assert "<msub><mi>E</mi><mi>a</mi></msub>" in out
    assert "<mn>400</mn>" in out
    # Display math standing alone is not wrapped in a paragraph.
    assert "<p><math" not in out
    assert out.startswith("<p>Before.</p>") and out.endswith("<p>After.</p>")


def test_sech_with_operatorname():
    out = render_markdown(r"$$A = R \cdot \operatorname{sech}\left(\frac{P}{I}\right)$$").html
    assert "<mo>sech</mo>" in out and "<mfrac>" in out


def test_math_is_not_touched_by_emphasis():
    out = render_markdown(r"$a * b * c$ and $x_i + y_i$").html
    assert "<em>" not in out
    assert math_count(out) == 2
    assert "<msub><mi>x</mi><mi>i</mi></msub>" in out


@pytest.mark.parametrize(
    "text",
    [
        "It costs $5.",
        "Between $5 and $6 per seat.",
        "Pay $ 5 or $ 6",
        "from $10 to $20, or $30",
        "a lone $ sign",
        "$x $ is not closed",
    ],
)
def test_dollars_in_prose_stay_literal(text):
    out = render_markdown(text).html
    assert "<math" not in out
    assert out == f"<p>{text}</p>"


def test_price_then_math_in_one_paragraph():
    out = render_markdown("It costs $5, or $x$ more.").html
    assert out.startswith("<p>It costs $5, or <math")
    assert math_count(out) == 1 and "<mi>x</mi>" in out


def test_escaped_dollar_is_a_literal_dollar():
    out = render_markdown(r"A \$5 fee and \$x\$ too").html
    assert out == "<p>A $5 fee and $x$ too</p>"


def test_escaped_backslash_before_math():
    out = render_markdown(r"path \\$x$").html
    assert out.startswith("<p>path \\<math")


def test_math_in_code_stays_literal():
    text = "Use `$x$` and `$$y$$`.\n\n    $z$\n\n```\n$$\\frac{1}{2}$$\n```"
    out = render_markdown(text).html
    assert "<math" not in out
    assert "<code>$x$</code>" in out
    assert "<code>$$y$$</code>" in out
    assert '<pre tabindex="0"><code>$z$\n</code></pre>' in out
    assert "$$\\frac{1}{2}$$" in out


def test_what_scrolls_sideways_takes_the_keyboard_focus():
    """Tables, display formulas, code blocks and wrapped shortcode tables scroll on a phone."""
    wrapped = '<div class="table-wrap"><table><tr><td>1</td></tr></table></div>'
    out = render_markdown("| a | b |\n|---|---|\n| 1 | 2 |\n\n$$x^2$$\n\n```\n<pre>\n```\n\n{{< t >}}\n\n$y$",
                          shortcodes={"t": wrapped}).html
    assert '<table tabindex="0">' in out
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block" tabindex="0">' in out
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in out, "inline math does not scroll"
    assert '<pre tabindex="0"><code>&lt;pre&gt;' in out
    assert '<div class="table-wrap" tabindex="0"><table>' in out
    assert out.count("tabindex") == 4


def test_table_headers_name_their_columns():
    """An empty corner cell is no header; a header holding only a formula is named by its text."""
    out = render_markdown("| | Ash | $K$ | $R'$ and more |\n|---|---|---|---|\n| a | 1 | 2 | 3 |").html
    assert "<thead>\n<tr>\n<td></td>\n<th>Ash</th>" in out
    assert '<th><math aria-label="K" xmlns' in out
    assert out.count("aria-label") == 1, "math beside text needs no label"


def test_math_in_a_table_cell():
    out = render_markdown("| a | b |\n|---|---|\n| $x^2$ | 2 |").html
    assert "<td><math" in out and "<msup>" in out


@pytest.mark.parametrize(
    "text, shown",
    [
        (r"$x^$", r"$x^$"),
        (r"$\frac{1}{2$", r"$\frac{1}{2$"),
        (r"$\sech x$", r"$\sech x$"),
        ("$$\\left( x$$", "$$\\left( x$$"),
    ],
)
def test_bad_latex_raises_markup_error(text, shown):
    with pytest.raises(MarkupError) as info:
        render_markdown(f"Intro.\n\n{text}\n")
    assert isinstance(info.value, ValueError)
    assert shown in str(info.value)


def test_math_text_cannot_inject_html():
    out = render_markdown(r"$\text{<script>alert(1)</script>}$").html
    assert "<script" not in out
    assert "&lt;script&gt;" in out


def test_math_href_is_dropped():
    out = render_markdown(r"$\href{javascript:alert(1)}{x}$").html
    assert "javascript" not in out and "<mi>x</mi>" in out


def test_math_in_link_attributes_becomes_plain_text():
    out = render_markdown(r'![$x^2$](a.png "t $y$") [$\text{" onclick="a}$](/z)').html
    assert 'alt="x^2"' in out and 'title="t y"' in out
    assert '<a href="/z">' in out and "onclick=" not in out.split("<math")[0]


# --- titles -----------------------------------------------------------------


def test_title_is_first_h1_and_removed_from_body():
    out = render_markdown("# The *Lunaro* system\n\nBody text.\n\n# Another top heading\n")
    assert out.title == "The Lunaro system"
    assert "The <em>Lunaro</em> system" not in out.html
    assert out.html.startswith("<p>Body text.</p>")
    assert '<h1 id="another-top-heading">Another top heading</h1>' in out.html


def test_title_plain_text_from_code_entities_and_math():
    out = render_markdown("# Tom &amp; `<b>` & $R'$ rating\n\ntext")
    assert out.title == "Tom & <b> & R' rating"


def test_no_title_without_h1():
    out = render_markdown("## Only a section\n\ntext")
    assert out.title is None
    assert '<h2 id="only-a-section">' in out.html


def test_heading_ids_are_unique_and_deterministic():
    text = "# T\n\n## Rating\n\n## Rating\n"
    out = render_markdown(text).html
    assert '<h2 id="rating">' in out and '<h2 id="rating_1">' in out
    assert render_markdown(text).html == out


# --- shortcodes -------------------------------------------------------------

TABLE = "<table><tr><td>k</td><td>50</td></tr></table>"


def test_shortcode_paragraph_is_replaced():
    out = render_markdown("Values used:\n\n{{< params >}}\n\nDone.", shortcodes={"params": TABLE})
    assert out.html == f"<p>Values used:</p>\n{TABLE}\n<p>Done.</p>"


def test_shortcode_without_spaces_and_inline_html_output():
    out = render_markdown("{{<params>}}", shortcodes={"params": "<b>x</b>"})
    assert out.html == "<p><b>x</b></p>"


def test_unknown_shortcode_raises():
    with pytest.raises(MarkupError, match="nope"):
        render_markdown("{{< nope >}}", shortcodes={"params": TABLE})
    with pytest.raises(MarkupError, match="params"):
        render_markdown("{{< params >}}")


def test_shortcode_in_code_stays_literal():
    text = "`{{< params >}}`\n\n    {{< params >}}\n\n```\n{{< params >}}\n```"
    out = render_markdown(text, shortcodes={"params": TABLE}).html
    assert "<table>" not in out
    assert out.count("{{&lt; params &gt;}}") == 3


def test_shortcode_inside_a_sentence_is_left_alone():
    out = render_markdown("see {{< params >}} here", shortcodes={"params": TABLE}).html
    assert "<table>" not in out


# --- untrusted markdown -----------------------------------------------------


def test_raw_html_passes_when_allowed():
    out = render_markdown("<div class=\"note\">hi</div>\n\ntext <b>bold</b>").html
    assert '<div class="note">hi</div>' in out and "<b>bold</b>" in out


def test_allow_html_false_escapes_script():
    out = render_markdown("<script>alert(1)</script>", allow_html=False).html
    assert "<script" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out


def test_allow_html_false_escapes_img_onerror():
    out = render_markdown("A <img src=x onerror=alert(1)> b", allow_html=False).html
    assert "<img" not in out
    assert "&lt;img src=x onerror=alert(1)&gt;" in out


def test_allow_html_false_still_renders_markdown():
    out = render_markdown("Ranked **1v1** [rules](https://example.org/r)", allow_html=False).html
    assert out == '<p>Ranked <strong>1v1</strong> <a href="https://example.org/r">rules</a></p>'


@pytest.mark.parametrize(
    "link",
    [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](java&#115;cript:alert(1))",
        "[x](javascript&colon;alert(1))",
        "[x](<javascript:alert(1)>)",
        "[x][r]\n\n[r]: javascript:alert(1)",
        "![x](javascript:alert(1))",
        "[x](data:text/html,<script>alert(1)</script>)",
        "[x](java\tscript:alert(1))",
    ],
)
def test_script_urls_are_not_produced(link):
    for allow in (False, True):
        out = render_markdown(link, allow_html=allow).html
        assert "href" not in out and "src" not in out, out


def test_safe_urls_are_kept():
    text = "[a](https://x.org) [b](/p/q.html) [c](#top) [d](mailto:a@b.org) [e](../r.html)"
    out = render_markdown(text, allow_html=False).html
    for href in ("https://x.org", "/p/q.html", "#top", "mailto:a@b.org", "../r.html"):
        assert f'href="{href}"' in out


# --- determinism and robustness ---------------------------------------------


def test_rendered_is_frozen():
    out = render_markdown("# T\n\nx")
    assert isinstance(out, Rendered)
    with pytest.raises(AttributeError):
        out.title = "other"  # type: ignore[misc]


def test_same_input_same_bytes():
    text = "# T\n\n## A\n\n$x$ and $$y$$\n\n## A\n\n{{< p >}}\n\n| a |\n|---|\n| 1 |\n"
    first = render_markdown(text, shortcodes={"p": TABLE})
    for _ in range(3):
        assert render_markdown(text, shortcodes={"p": TABLE}) == first


PIECES = st.sampled_from(
    list("$\\{}^_ab1 \n`#*<>&[]()|-:") + ["\\frac", "\\left(", "$$", "{{< p >}}", "\\text{", "javascript:"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join), st.booleans())
def test_any_input_renders_or_raises_markup_error(text, allow_html):
    try:
        out = render_markdown(text, shortcodes={"p": TABLE}, allow_html=allow_html)
    except MarkupError:
        return
    assert out == render_markdown(text, shortcodes={"p": TABLE}, allow_html=allow_html)
    # No python-markdown placeholder may leak into the page.
    assert "\x02" not in out.html and "\x03" not in out.html
    if not allow_html:
        assert "<script" not in out.html.lower()
        assert 'href="javascript' not in out.html.lower()


# --- the built-in pages -----------------------------------------------------


@pytest.mark.parametrize("page", ["spec/lunaro.md", "spec/elo.md", "spec/placement.md", "spec/glicko2.md",
                                  "spec/arena.md", "about.md"])
def test_builtin_pages_render(page):
    path = CONTENT / page
    chart = '<figure class="chart">the chart</figure>'
    example = "<pre>the match</pre>"
    examples = {f"example {name}": example for name in SYSTEMS}
    out = render_markdown(path.read_text(encoding="utf-8"), shortcodes={"params": TABLE, "chart": chart, **examples})
    assert out.title
    if page.startswith("spec/"):
        assert "<math" in out.html
        assert TABLE in out.html
        assert chart in out.html
        # Each spec page shows its system's match format as new-match writes it.
        assert out.shortcodes == {"params", "chart", f"example {path.stem}"}
    else:
        assert out.shortcodes == frozenset()
