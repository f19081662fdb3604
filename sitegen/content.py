"""Markdown pages from content/: the site's own files replace built-in ones of the same path.

Spec pages (content/spec/<system>.md) get two shortcodes: ``{{< params >}}``, a
table of the parameter values each league of that system uses, read from its
league.toml, so the page can never drift from the configuration; and
``{{< chart >}}``, the system's characteristic curve drawn from the engine's
own functions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from .config import LeagueConfig
from .files import link_problem, walk
from .markcheck import MarkupError, check_markdown
from .problems import InvalidInput, Problems
from .rating import SYSTEMS

if TYPE_CHECKING:
    from .curves import Curve

BUILTIN = Path(__file__).resolve().parent / "content"
# A spec page's shortcodes (content/spec/<system>.md); other pages have none.
SPEC_SHORTCODES = ("chart", "params")


@dataclass(frozen=True, slots=True)
class ContentSource:
    """A page as `sitegen check` leaves it: read and checked, not rendered."""

    path: str              # "spec/lunaro.md"
    url: str               # "spec/lunaro/"
    system: str | None     # the system a spec page describes
    shown: str             # how problems name the file
    text: str


@dataclass(frozen=True, slots=True)
class ContentPage:
    path: str              # "spec/lunaro.md"
    url: str               # "spec/lunaro/"
    title: str
    html: str
    system: str | None     # the system a spec page describes
    has_chart: bool = False


def content_files(root: Path, problems: Problems | None = None) -> dict[str, Path]:
    """Page path -> file, the site's own content/ overriding the built-in pages.

    The site's own folder is listed safely (links outside the site, special files), its
    problems reported into ``problems``.
    """
    found: dict[str, Path] = {}
    for f in sorted(BUILTIN.rglob("*.md")):
        found[f.relative_to(BUILTIN).as_posix()] = f
    folder = root / "content"
    if folder.is_dir() or folder.is_symlink():
        problems = Problems() if problems is None else problems
        if not link_problem(root, folder, problems):
            for f in walk(root, folder, problems, suffix=".md"):
                if f.name.endswith(".md"):
                    found[f.relative_to(folder).as_posix()] = f
    return dict(sorted(found.items()))


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


def chart_figure(curve: Curve) -> str:
    """The curve as a chart, with a table of sampled values for readers without scripts."""
    from . import preview
    from .charts import curve_chart

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
    from .render import MINUS

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


def content_sources(root: Path, problems: Problems) -> list[ContentSource]:
    """Every page read and checked without rendering (sitegen/markcheck.py): the site's own
    files, that is. The built-in pages are tested with the package and rendered by the build;
    a site whose content/ is the built-in folder itself (this repository's demo) has none of its own."""
    sources = []
    builtin = BUILTIN.resolve()
    for path, file in content_files(root, problems).items():
        parts = path.split("/")
        system = parts[1][:-3] if len(parts) == 2 and parts[0] == "spec" and parts[1][:-3] in SYSTEMS else None
        shown = file.relative_to(root).as_posix() if file.is_relative_to(root) else f"content/{path} (built-in)"
        try:
            text = file.read_text(encoding="utf-8")
            if not file.resolve().is_relative_to(builtin):
                check_markdown(text, shortcodes=SPEC_SHORTCODES if system else ())
        except (UnicodeDecodeError, MarkupError) as exc:
            problems.add(shown, f"cannot be rendered: {exc}")
            continue
        stem = path[:-3]
        url = "" if stem == "index" else (stem[:-len("index")] if stem.endswith("/index") else stem + "/")
        sources.append(ContentSource(path, url, system, shown, text))
    return sources


def render_content(sources: list[ContentSource] | tuple[ContentSource, ...], leagues: list[LeagueConfig],
                   problems: Problems) -> list[ContentPage]:
    """The checked pages rendered, spec pages with their parameter tables and curves."""
    from .curves import CURVES
    from .markup import render_markdown

    pages = []
    for source in sources:
        shortcodes: dict[str, str] = {}
        if source.system:
            shortcodes["params"] = params_table(source.system, leagues)
            shortcodes["chart"] = chart_figure(CURVES[source.system]())
        try:
            rendered = render_markdown(source.text, shortcodes=shortcodes)
        except MarkupError as exc:
            problems.add(source.shown, f"cannot be rendered: {exc}")
            continue
        title = rendered.title or source.path.split("/")[-1][:-3].replace("-", " ").title()
        pages.append(ContentPage(source.path, source.url, title, rendered.html, source.system,
                                 "chart" in rendered.shortcodes))
    return pages


def render_pages(sources: tuple[ContentSource, ...], leagues: list[LeagueConfig]) -> list[ContentPage]:
    """The checked pages rendered for the build; InvalidInput if one cannot be. check() found every
    problem rendering can meet in the site's own pages, so one here is of a built-in page."""
    problems = Problems()
    pages = render_content(sources, leagues, problems)
    if problems:
        raise InvalidInput(list(problems))
    return pages


def load_content(root: Path, leagues: list[LeagueConfig], problems: Problems) -> list[ContentPage]:
    """Every page read, checked and rendered."""
    return render_content(content_sources(root, problems), leagues, problems)
