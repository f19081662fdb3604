"""Markdown pages from content/: the site's own files replace built-in ones of the same path.

Spec pages (content/spec/<system>.md) get two shortcodes: ``{{< params >}}``, a
table of the parameter values each league of that system uses, read from its
league.toml, so the page can never drift from the configuration; and
``{{< chart >}}``, the system's characteristic curve drawn from the engine's
own functions. Every page gets ``{{< example SYSTEM >}}``: the [[match]] table
`sitegen new-match` writes for a league of that system, from the same writer.

A page's HTML follows from its source, and a spec page's also from its leagues' parameters
(``page_inputs``): with the build cache, a page whose inputs are the last build's is not
rendered again (its markdown, formulas and chart were a second of every build). The cache's
keys hold sitegen's own code, and these keys the versions of the libraries that render (the
chart's spec names altair's), so a changed renderer or curve renders every page again.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from sitegen.load.cache import Cache, digest
from sitegen.load.config import LeagueConfig
from sitegen.load.content import ContentSource, content_sources
from sitegen.load.matchtoml import example_table
from sitegen.load.markcheck import MarkupError
from sitegen.load.problems import InvalidInput, Problems
from sitegen.rating import SYSTEMS

if TYPE_CHECKING:
    from sitegen.rating.protocol import Curve



@dataclass(frozen=True, slots=True)
class ContentPage:
    path: str              # "spec/lunaro.md"
    url: str               # "spec/lunaro/"
    title: str
    html: str
    system: str | None     # the system a spec page describes
    has_chart: bool = False


def params_table(system: str, leagues: list[LeagueConfig]) -> str:
    """HTML table: each parameter's default and the value every league of this system uses."""
    cls = SYSTEMS[system]
    mine = [lg for lg in leagues if lg.system_name == system]
    head = "".join(f'<th scope="col">{escape(lg.name)}</th>' for lg in mine)
    rows = []
    for p in cls.params:
        cells = []
        for lg in mine:
            value = lg.params[p.name]
            mark = "" if p.name in lg.explicit else ' class="default"'
            cells.append(f"<td{mark}><code>{escape(_toml(value))}</code></td>")
        rows.append(f'<tr><th scope="row"><code>{escape(p.name)}</code></th>'
                    f"<td><code>{escape(_toml(p.default))}</code></td>{''.join(cells)}"
                    f"<td>{escape(p.doc)}</td></tr>")
    caption = ("Parameters of this system: the default, then the value each league uses "
               "(read from its league.toml; values in grey are defaults the league does not set)."
               if mine else "Parameters of this system and their defaults; no league of this site uses it yet.")
    return (f'<div class="table-wrap"><table class="params"><caption>{escape(caption)}</caption>'
            f'<thead><tr><th scope="col">Parameter</th><th scope="col">Default</th>{head}'
            f'<th scope="col">Why</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def example_block(system: str) -> str:
    """The system's [[match]] table as a TOML code block, marked up as a fenced ```toml block is."""
    text = escape(example_table(system), quote=False).replace('"', "&quot;")
    return f'<pre><code class="language-toml">{text}</code></pre>'


def chart_figure(curve: Curve) -> str:
    """The curve as a chart, with a table of sampled values for readers without scripts."""
    from sitegen.output import preview
    from sitegen.output.charts import curve_chart

    spec = json.dumps(curve_chart(curve), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    # Inside <script> only "</" could end the element early; \u003c keeps the JSON valid.
    spec = spec.replace("<", "\\u003c")
    xs = sorted({r["x"] for r in curve.rows})
    step = max(1, len(xs) // 8)
    shown = xs[::step] if xs[::step][-1] == xs[-1] else xs[::step] + [xs[-1]]
    by = {(r["series"], r["x"]): r["y"] for r in curve.rows}
    head = "".join(f'<th scope="col">{escape(s)}</th>' for s in curve.series)
    body = "".join(
        f'<tr><th scope="row">{_num(x, curve.x_format)}</th>'
        + "".join(f"<td>{_num(by[(s, x)], curve.y_format)}</td>" for s in curve.series) + "</tr>"
        for x in shown)
    series = [[(r["x"], r["y"]) for r in curve.rows if r["series"] == name] for name in curve.series]
    still = preview.curves(series, _num(xs[0], curve.x_format), _num(xs[-1], curve.x_format))
    return (f'<figure class="chart curve"><div class="vega" data-spec="curve-spec" role="img" '
            f'aria-label="{escape(curve.caption)}">{still}</div>'
            f'<figcaption class="meta">{escape(curve.caption)}</figcaption></figure>'
            f'<script type="application/json" id="curve-spec">{spec}</script>'
            f'<details class="curve-values"><summary>Values of the chart</summary>'
            f'<div class="table-wrap"><table><thead><tr><th scope="col">{escape(curve.x_title)}</th>'
            f'{head}</tr></thead><tbody>{body}</tbody></table></div></details>')


def _num(value: float, fmt: str) -> str:
    from sitegen.output.render import MINUS

    # d3 formats (",.3f") and Python's share this subset.
    return format(value, fmt).replace("-", MINUS)


def _toml(value) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value) if isinstance(value, float) else str(value)


# The cache's kind for rendered content pages (load/cache.py), and the libraries they are rendered with.
KIND = "content"
RENDERERS = ("markdown", "altair")


def renderers() -> str:
    """The Python and renderers' versions, read from their metadata (importing altair to ask it
    would cost more than a page)."""
    from importlib import metadata

    found = [sys.version]
    for name in RENDERERS:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} absent")
    return "\0".join(found)


def page_inputs(source: ContentSource, leagues: list[LeagueConfig], libraries: str) -> str:
    """Everything a page's HTML is made from besides sitegen's code: its source, the renderers
    (``libraries``) and, for a spec page, what ``params_table`` reads of its system's leagues
    (each value by its repr, which tells apart every value ``_toml`` shows differently)."""
    params = []
    if source.system:
        names = [p.name for p in SYSTEMS[source.system].params]
        params = [(lg.name, [(name, lg.params[name], name in lg.explicit) for name in names])
                  for lg in leagues if lg.system_name == source.system]
    return digest(libraries, source.path, source.url, repr(source.system), source.text, repr(params))


def render_content(sources: list[ContentSource] | tuple[ContentSource, ...], leagues: list[LeagueConfig],
                   problems: Problems, cache: Cache | None = None) -> list[ContentPage]:
    """The checked pages rendered, spec pages with their parameter tables and curves; with
    ``cache``, a page rendered by a build before with the same inputs is taken from it."""
    from sitegen.load.markup import render_markdown

    pages = []
    examples: dict[str, str] | None = None
    libraries = renderers() if cache is not None else ""
    for source in sources:
        key = page_inputs(source, leagues, libraries) if cache is not None else ""
        hit = cache.get(KIND, key) if cache is not None else None
        if isinstance(hit, ContentPage):
            pages.append(hit)
            continue
        if examples is None:
            examples = {f"example {name}": example_block(name) for name in SYSTEMS}
        shortcodes: dict[str, str] = dict(examples)
        if source.system:
            shortcodes["params"] = params_table(source.system, leagues)
            curve = SYSTEMS[source.system].curve()
            if curve is not None:
                shortcodes["chart"] = chart_figure(curve)
        try:
            rendered = render_markdown(source.text, shortcodes=shortcodes)
        except MarkupError as exc:
            problems.add(source.shown, f"cannot be rendered: {exc}")
            continue
        title = rendered.title or source.path.split("/")[-1][:-3].replace("-", " ").title()
        page = ContentPage(source.path, source.url, title, rendered.html, source.system,
                           "chart" in rendered.shortcodes)
        pages.append(page)
        if cache is not None:
            cache.put(KIND, key, page)
    return pages


def render_pages(sources: tuple[ContentSource, ...], leagues: list[LeagueConfig],
                 cache: Cache | None = None) -> list[ContentPage]:
    """The checked pages rendered for the build; InvalidInput if one cannot be. check() found every
    problem rendering can meet in the site's own pages, so one here is of a built-in page."""
    problems = Problems()
    pages = render_content(sources, leagues, problems, cache)
    if problems:
        raise InvalidInput(list(problems))
    return pages


def load_content(root: Path, leagues: list[LeagueConfig], problems: Problems) -> list[ContentPage]:
    """Every page read, checked and rendered."""
    return render_content(content_sources(root, problems), leagues, problems)
