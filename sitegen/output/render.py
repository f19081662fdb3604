"""The Jinja environment: autoescaping everywhere, strict undefined, formatting filters.

Templates only format: every value they show arrives ready in the view model.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, MutableMapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import jinja2
import jinja2.bccache
import jinja2.meta
from markupsafe import Markup, escape

from sitegen.model.ledger import iso

if TYPE_CHECKING:
    from sitegen.load.cache import Cache

MINUS = "\u2212"


def fmt_rating(value: float | None, decimals: int = 0) -> str:
    if value is None:
        return "\u2013"
    # A constant spec, not one built at every call: the pages show millions of these.
    if decimals == 1:
        text = f"{value:,.1f}"
    elif decimals == 0:
        text = f"{value:,.0f}"
    else:
        text = f"{value:,.{decimals}f}"
    return text.replace("-", MINUS)


def fmt_delta(value: float | None, decimals: int = 0) -> str:
    """Changes as lichess shows them: +12, −3, ±0."""
    if value is None:
        return "new"
    size = abs(value)
    if decimals == 1:       # as in fmt_rating: the usual specs written out
        text = f"{size:,.1f}"
    elif decimals == 0:
        text = f"{size:,.0f}"
    else:
        text = f"{size:,.{decimals}f}"
    if not text.strip("0.,"):       # every shown digit a zero
        return "\u00b10"
    return ("+" if value > 0 else MINUS) + text


def delta_badge(value: float | None, decimals: int = 0) -> Markup:
    """A change as a coloured badge; a filter, not an included template, since big leagues
    show it a million times and an include costs a new template context each time."""
    return Markup(badge_html(value, decimals))


def badge_html(value: float | None, decimals: int = 0) -> str:
    """``delta_badge``'s text, for the rows written in Python (output/rows.py): fmt_delta writes
    digits, signs, "new" or a dash, none of which needs escaping."""
    kind = "up" if value and value > 0 else "down" if value and value < 0 else "flat"
    return f'<span class="delta {kind}">{fmt_delta(value, decimals)}</span>'


RESULT_LETTERS = {"win": "W", "draw": "D", "loss": "L"}


def result_badge(outcome: str | None) -> Markup:
    """W, D or L as a coloured letter, the word said to screen readers; nothing without an outcome."""
    if outcome not in RESULT_LETTERS:
        return Markup("")
    return Markup(f'<span class="wdl {outcome}" title="{outcome}"><span aria-hidden="true">'
                  f'{RESULT_LETTERS[outcome]}</span><span class="visually-hidden">{outcome}</span></span>')


def fmt_number(value: float | None, decimals: int = 3) -> str:
    if value is None:
        return "\u2013"
    if float(value).is_integer() and decimals <= 3:
        return f"{int(value)}"
    return f"{value:.{decimals}f}".replace("-", MINUS)


def fmt_date(value: datetime | None) -> str:
    if value is None:
        return ""
    # isoformat's first ten characters, 3 times as fast as strftime, where they are the same
    # (strftime's %Y pads no year before 1000).
    return value.isoformat()[:10] if value.year >= 1000 else value.strftime("%Y-%m-%d")


def fmt_datetime(value: datetime | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%d %H:%M UTC")


class PlayerLinks(dict):
    """A league's players' links (name -> Markup ``<a>``) from one page folder: ``up`` leads
    from the page to the league's folder. A link is escaped once, when first shown, and then
    reused by every row of every page in that folder that shows the player."""

    __slots__ = ("league", "up", "form")

    def __init__(self, league, up: str, form: str) -> None:
        super().__init__()
        self.league, self.up, self.form = league, up, form

    def __missing__(self, name: str) -> Markup:
        href = escape(self.up + self.league.players[name].url[len(self.league.url):])
        text = escape(name)
        if self.form == "name":
            html = Markup(f'<a href="{href}" class="name">{text}</a>')
        elif self.form == "titled":     # a title only where a narrow column may cut the name
            title = f' title="{text}"' if len(name) > 12 else ""
            html = Markup(f'<a href="{href}" class="name"{title}>{text}</a>')
        else:
            html = Markup(f'<a href="{href}">{text}</a>')
        self[name] = html
        return html


class MatchDateLinks(dict):
    """A match's date linked to its row (``<a href><time datetime>date</time></a>``) from one
    page folder of a league, made once per match for every player's row that shows it."""

    __slots__ = ("cut", "up")

    def __init__(self, league, up: str) -> None:
        super().__init__()
        self.cut, self.up = len(league.url), up

    def __getitem__(self, match) -> Markup:      # match: a MatchView, cached by its address
        url = match.url
        html = self.get(url)
        return self.link(match, url) if html is None else html

    def link(self, match, url: str) -> Markup:
        """The match's link made and kept, ``url`` its address (``MatchView.url``)."""
        html = Markup(f'<a href="{escape(self.up + url[self.cut:])}">{self.shown(match.match.played)}</a>')
        self[url] = html
        return html

    @staticmethod
    def shown(played: datetime) -> str:
        """The link's text: the date in a ``<time>`` that gives the whole timestamp."""
        # A timestamp's digits, dashes, colons and letters need no escaping.
        stamp = iso(played)
        date = stamp[:10] if played.year >= 1000 else fmt_date(played)   # strftime pads no year
        return f'<time datetime="{stamp}">{date}</time>'

    @classmethod
    def of(cls, league, up: str) -> Self:
        """The league's links of this kind for pages ``up`` below its folder, made once."""
        key = (up, cls.__name__)
        cache = league.link_cache
        if key not in cache:
            cache[key] = cls(league, up)
        return cache[key]


def match_date_links(league, up: str) -> MatchDateLinks:
    """``league|date_links(up)``: matches' dates linked to their rows, for a page ``up`` below
    the league's folder."""
    return MatchDateLinks.of(league, up)


def player_links(league, up: str, form: str = "") -> PlayerLinks:
    """``league|links(up)``: the players' links for a page ``up`` below the league's folder;
    form "name" adds class="name", "titled" also a title where the name is long."""
    key = (up, form)
    cache = league.link_cache
    if key not in cache:
        cache[key] = PlayerLinks(league, up, form)
    return cache[key]


def first_changes(prediction) -> list[float | None]:
    """A pair prediction's change of the first player at each of its outcomes (None where the
    system has no formula): a filter, as a method call per table cell costs far more."""
    return [prediction.change(o)[0] for o in prediction.outcomes]


@jinja2.pass_context
def url(context, path: str) -> str:
    """A site path as a link relative to the current page, so the site works under any sub-path."""
    return context["root"] + path


class Once:
    """``{% call once(part, ...) %}...{% endcall %}``: a part of a page that is the same bytes on
    every page given the same values (the site's footer from one folder depth), rendered for
    the first and reused by the others. A value that is no string or number (a dict of pages)
    counts by its identity, and is kept with the part, so that identity is not reused."""

    def __init__(self) -> None:
        self.made: dict[tuple[Any, ...], tuple[Markup, tuple[Any, ...]]] = {}

    def __call__(self, *values: Any, caller: Callable[[], Markup]) -> Markup:
        key = tuple(v if isinstance(v, (str, int)) else id(v) for v in values)
        made = self.made.get(key)
        if made is None:
            made = self.made[key] = (caller(), values)
        return made[0]


class SiteNav:
    """``{{ site_nav(leagues, nav_pages, root, path) }}``: the header's list of the leagues and the
    site's own pages, the current one marked, as base.html's loops wrote it. It is the same
    bytes on every page of one folder depth that marks the same entry: made once for each, not
    a Jinja loop of a dozen links on each of thousands of pages. The lists count by identity,
    and are kept with the text, so that identity is not reused."""

    def __init__(self) -> None:
        self.made: dict[tuple[Any, ...], tuple[Markup, Any, Any]] = {}

    def __call__(self, leagues: Any, pages: Any, root: str, path: str) -> Markup:
        marked = (tuple([i for i, lv in enumerate(leagues) if path.startswith(lv.url)]),
                  tuple([i for i, p in enumerate(pages) if path == p.url + "index.html"]))
        key = (id(leagues), id(pages), root, marked)
        made = self.made.get(key)
        if made is None:
            current = ' aria-current="page"'
            items = [f'      <li><a href="{escape(root + lv.url)}"{current if i in marked[0] else ""}>'
                     f"{escape(lv.config.name)}</a></li>\n" for i, lv in enumerate(leagues)]
            items += [f'      <li><a href="{escape(root + p.url)}"{current if i in marked[1] else ""}>'
                      f"{escape(p.title)}</a></li>\n" for i, p in enumerate(pages)]
            made = self.made[key] = (Markup("".join(items)), leagues, pages)
        return made[0]


class _Environment(jinja2.Environment):
    """Templates found again by name in a plain dict: Jinja's own cache is an LRU whose every
    hit scans its queue, and every include of every page looks its template up again. Only
    right without ``auto_reload``: a loaded template is never looked at again."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._loaded: dict[str, jinja2.Template] = {}

    def _load_template(self, name: str, globals: MutableMapping[str, Any] | None) -> jinja2.Template:
        if globals:
            return super()._load_template(name, globals)
        template = self._loaded.get(name)
        if template is None:
            template = self._loaded[name] = super()._load_template(name, globals)
        return template


def load_parts(env: jinja2.Environment, name: str) -> None:
    """Load every template that ``name`` extends or includes by a constant name, and theirs: the
    page workers are forked afterwards and share them, where each worker of each batch compiled
    base.html and the includes again. A part that fails to load is left to the page that
    renders it, which reports it as it did."""
    assert env.loader is not None
    todo, seen = [name], {name}
    while todo:
        try:
            source = env.loader.get_source(env, todo.pop())[0]
            found = [ref for ref in _references(env, source) if ref is not None and ref not in seen]
        except jinja2.TemplateError:
            continue
        for ref in found:
            seen.add(ref)
            try:
                env.get_template(ref)
            except jinja2.TemplateError:
                continue
            todo.append(ref)


def _references(env: jinja2.Environment, source: str) -> tuple[str | None, ...]:
    """The templates ``source`` names (jinja2.meta.find_referenced_templates), kept in the build
    cache under its text where there is one: parsing the page templates again to find them was
    a third of a second of every rebuild."""
    kept = env.bytecode_cache
    cache = kept.cache if isinstance(kept, CachedBytecode) else None
    key = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
    hit = cache.get("template-parts", key) if cache is not None else _PARTS.get(key)
    if isinstance(hit, tuple):
        return hit
    refs = tuple(jinja2.meta.find_referenced_templates(env.parse(source)))
    if cache is not None:
        cache.put("template-parts", key, refs)
    else:
        _PARTS[key] = refs
    return refs


# A build without the cache still compiles and parses each template once a process, not once an
# environment: `sitegen serve --no-cache` rebuilds in its own process, and so do the tests. Every environment
# ``environment`` makes has the same options, so a template's code depends only on its source and
# name (Jinja's bucket key and source checksum, as in the build cache).
_COMPILED: dict[tuple[str, str], Any] = {}
_PARTS: dict[str, tuple[str | None, ...]] = {}


class CompiledOnce(jinja2.BytecodeCache):
    """The templates a build without the cache compiled, kept in this process."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        bucket.code = _COMPILED.get((bucket.key, bucket.checksum))

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        _COMPILED[bucket.key, bucket.checksum] = bucket.code


class CachedBytecode(jinja2.BytecodeCache):
    """Compiled templates kept in the build cache (load/cache.py), so a build does not compile
    every template again. Jinja checks each entry against its template's source checksum and
    this Python's bytecode magic: an edited template or another interpreter compiles afresh."""

    def __init__(self, cache: Cache) -> None:
        self.cache = cache

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        data = self.cache.get("templates", bucket.key)
        if isinstance(data, bytes):
            bucket.bytecode_from_string(data)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.cache.put("templates", bucket.key, bucket.bytecode_to_string())


def environment(template_dirs: list[Path], cache: Cache | None = None) -> jinja2.Environment:
    """The site's templates first (they override), then the built-in theme; compiled templates
    kept in ``cache`` where there is one."""
    env = _Environment(
        bytecode_cache=CompiledOnce() if cache is None else CachedBytecode(cache),
        loader=jinja2.FileSystemLoader([str(d) for d in template_dirs]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # One environment per build: its templates do not change while it renders, and an
        # include or extends would otherwise look at its file's age on every page.
        auto_reload=False,
    )
    env.filters.update(rating=fmt_rating, delta=fmt_delta, delta_badge=delta_badge, result_badge=result_badge,
                       number=fmt_number, date=fmt_date, datetime=fmt_datetime, iso=iso,
                       links=player_links, date_links=match_date_links,
                       first_changes=first_changes)
    from sitegen.output.rows import FILTERS     # here: the rows are written with the formatters above
    env.filters.update(FILTERS)
    env.globals["url"] = url
    env.globals["once"] = Once()
    env.globals["site_nav"] = SiteNav()
    return env
