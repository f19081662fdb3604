"""`sitegen check` without rendering: no chart, markdown, template or search library is loaded,
and still every problem rendering would meet is reported, the same as `sitegen build` reports it.

The import test is structural (what is in sys.modules after a check), never a timing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from helpers import REPO, write_files
from sitegen.commands.build import build, check
from sitegen.load.markcheck import MarkupError, _plain_math_is_valid
from sitegen.load.problems import InvalidInput

ELO = 'name = "Duel"\nsystem = "elo"\n'
MATCHES = '[[match]]\nplayed = 2024-01-01\nplayers = [{ name = "Ann", score = 1 }, { name = "Bob", score = 0 }]\n'
RENDERING = ("altair", "vl_convert", "markdown", "latex2mathml", "pagefind", "jinja2", "feedgen")


def description(text: str) -> str:
    return ELO + f"description = '''\n{text}\n'''\n"


def small_site(tmp_path, files: dict[str, str | bytes] | None = None):
    return write_files(tmp_path / "site", {"matches/duel/league.toml": ELO, "matches/duel/2024.toml": MATCHES,
                                           **(files or {})})


def loaded_after_check(root) -> set[str]:
    """The top-level packages a fresh interpreter holds after checking ``root`` through the CLI."""
    code = ("import json, sys\n"
            "from sitegen.commands.cli import main\n"
            f"code = main(['check', '--root', {str(root)!r}, '--quiet'])\n"
            "print(json.dumps([code, sorted({m.split('.')[0] for m in sys.modules})]))\n")
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    exit_code, modules = json.loads(done.stdout.strip().splitlines()[-1])
    assert exit_code == 0, done.stderr
    return set(modules)


def test_check_loads_no_rendering_library(tmp_path):
    root = small_site(tmp_path, {
        "matches/duel/league.toml": description("A **duel** league: [rules](https://example.org/)."),
        "content/about.md": "# About\n\nPlain *markdown*, a [link](spec/elo/) and a table:\n\n| a | b |\n|---|---|\n",
    })
    loaded = loaded_after_check(root)
    assert "sitegen" in loaded                  # the check did run in this interpreter
    assert not loaded & set(RENDERING), sorted(loaded & set(RENDERING))


def test_check_of_plain_math_loads_no_markdown(tmp_path):
    """A description with formulas (the demo's arena league has two) is checked by latex2mathml
    alone: python-markdown stays unloaded."""
    root = small_site(tmp_path, {
        "matches/duel/league.toml": description("**Duel**: the winner gains\n\n$$K (S - E)$$\n\nwith $E$ below."),
    })
    loaded = loaded_after_check(root)
    assert "sitegen" in loaded
    assert "latex2mathml" in loaded             # the formulas were checked ...
    assert not loaded & {"markdown", "altair", "jinja2"}    # ... without the parser


# Pieces of markdown that change what the parser sees as math: code, HTML, quotes, lists,
# headings, tables, escapes, prices, valid and invalid LaTeX, line and paragraph breaks.
PIECES = ["$", "$$", "`", "\\", "\\$", "x", " ", "\n", "\n\n", "# ", "- ", "> ", "1. ", "|", "<b>", "    ",
          "\\frac{1}{2}", "\\frac{", "}", "\\bad", "\\alpha", "5", "**", "===", "---", "~~~", "a_b"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14), st.booleans())
def test_plain_math_found_valid_is_valid_to_the_parser(pieces, allow_html):
    """The check's shortcut only ever says "valid" where rendering succeeds: it may defer to the
    parser, never overrule it."""
    from sitegen.load.markup import render_markdown

    text = "".join(pieces)
    if _plain_math_is_valid(text):
        try:
            render_markdown(text, allow_html=allow_html)
        except MarkupError as exc:
            raise AssertionError(f"{text!r}: the shortcut said valid, rendering said {exc}") from None


def test_check_of_a_site_with_its_own_templates_compiles_them_but_renders_nothing(tmp_path):
    root = small_site(tmp_path, {"templates/extra.html": "{% extends 'base.html' %}\n"})
    loaded = loaded_after_check(root)
    assert "jinja2" in loaded                   # the site's own templates can break: they are compiled
    assert not loaded & {"altair", "vl_convert", "markdown", "latex2mathml", "pagefind"}


# Every kind of problem rendering meets, in descriptions, pages and templates, next to text that
# only looks like a problem (math in code, in raw HTML, prices).
CASES = {
    "latex in a description": ({"matches/duel/league.toml": description(r"Half $\frac{1}{2$ ok")},
                               [r"matches/duel/league.toml:3: description: invalid LaTeX in math $\frac{1}{2$: "
                                "unbalanced braces"]),
    "unknown command": ({"matches/duel/league.toml": description(r"See $\foo{x}$")},
                        [r"matches/duel/league.toml:3: description: invalid LaTeX in math $\foo{x}$: "
                         r"unknown command \foo"]),
    "shortcode in a description": ({"matches/duel/league.toml": description("Intro\n\n{{< params >}}\n")},
                                   ["matches/duel/league.toml:3: description: unknown shortcode {{< params >}} "
                                    "(known: none)"]),
    "description too deep": ({"matches/duel/league.toml": description("[" * 40)},
                             ["matches/duel/league.toml:3: description: has brackets [ ] nested more than 32 deep; "
                              "close them, or write a bracket as \\["]),
    # Raw HTML is text in a description, so the math in it is math.
    "math in html in a description": ({"matches/duel/league.toml": description("<b>$\\bad$</b>")},
                                      [r"matches/duel/league.toml:3: description: invalid LaTeX in math $\bad$: "
                                       r"unknown command \bad"]),
    "math in code": ({"matches/duel/league.toml": description("Code `$\\foo$`, and $x^2$ and $$\\frac{a}{b}$$")}, []),
    "prices": ({"matches/duel/league.toml": description("It costs $5, or $6.")}, []),
    "latex in a page": ({"content/about.md": "# About\n\n$$\\frac{1}{$$\n"},
                        [r"content/about.md: cannot be rendered: invalid LaTeX in math $$\frac{1}{$$: "
                         "unbalanced braces"]),
    "shortcode in a page": ({"content/about.md": "# About\n\n{{< params >}}\n"},
                            ["content/about.md: cannot be rendered: unknown shortcode {{< params >}} "
                             "(known: example NAME)"]),
    "spec page shortcodes": ({"content/spec/elo.md": "# Elo\n\n{{< params >}}\n\n{{< chart >}}\n"}, []),
    "unknown spec shortcode": ({"content/spec/elo.md": "# Elo\n\n{{< nope >}}\n"},
                               ["content/spec/elo.md: cannot be rendered: unknown shortcode {{< nope >}} "
                                "(known: chart, example NAME, params)"]),
    # A page may hold raw HTML: what is inside an HTML block is no math.
    "math in an html block": ({"content/about.md": "<div>\n$\\bad$\n</div>\n\nText $x$\n"}, []),
    "page not utf-8": ({"content/about.md": b"# About\n\xff\xfe\n"},
                       ["content/about.md: cannot be rendered: 'utf-8' codec can't decode byte 0xff in position 8: "
                        "invalid start byte"]),
    "page too deep": ({"content/about.md": "> " * 40 + "x\n"},
                      ["content/about.md: cannot be rendered: has quotes or lists nested more than 32 levels deep; "
                       "flatten it"]),
    "template syntax": ({"templates/home.html": "{% if %}\n"},
                        ["templates/home.html:1: template error: Expected an expression, "
                         "got 'end of statement block'"]),
    "template tag": ({"templates/x.html": "a\n{% frob %}\n"},
                     ["templates/x.html:2: template error: Encountered unknown tag 'frob'."]),
    "every kind at once": ({"matches/duel/league.toml": description(r"$\foo$"), "content/a.md": "$\\frac{$",
                            "templates/y.html": "{{ }}"},
                           [r"content/a.md: cannot be rendered: invalid LaTeX in math $\frac{$: unbalanced braces",
                            r"matches/duel/league.toml:3: description: invalid LaTeX in math $\foo$: "
                            r"unknown command \foo",
                            "templates/y.html:1: template error: Expected an expression, "
                            "got 'end of print statement'"]),
}


def reported(run) -> list[str]:
    try:
        run()
    except InvalidInput as exc:
        return [str(p) for p in exc.problems]
    return []


@pytest.mark.parametrize("files, expected", CASES.values(), ids=CASES.keys())
def test_check_reports_what_rendering_would_and_build_reports_the_same(tmp_path, files, expected):
    root = small_site(tmp_path, files)
    assert reported(lambda: check(root)) == expected
    # check is the first stage of build: a build reports the same, nothing more.
    assert reported(lambda: build(root, tmp_path / "_site")) == expected


def test_a_valid_description_and_page_are_rendered_by_the_build(tmp_path):
    root = small_site(tmp_path, {"matches/duel/league.toml": description("Half is $\\frac{1}{2}$."),
                                 "content/about.md": "# About us\n\nWe rate $K$.\n"})
    site = check(root)
    assert site.leagues[0].config.description_html.startswith("<p>Half is <math")
    build(root, tmp_path / "_site")
    about = (tmp_path / "_site/about/index.html").read_text(encoding="utf-8")
    assert "<h1>About us</h1>" in about and "<math" in about
