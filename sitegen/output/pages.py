"""Model every page, render it with the theme, and add it and the theme's assets to the output."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from urllib.parse import urlsplit
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

import jinja2
from markupsafe import Markup

from sitegen.rating import collector
from sitegen.model.career import LeagueCareers
from sitegen.model.board import build_board
from sitegen.output import preview
from sitegen.model.baselines import cached_compare, compare
from sitegen.output.charts import HISTORY_SPEC, calibration_chart, distribution_chart, history_spec, load_specs
from sitegen.load.config import base_url_problem, normalize_base_url
from sitegen.output.content import ContentPage, render_pages
from sitegen.output.feeds import league_feed, site_feed, write_feeds
from sitegen.output.gamesdata import games_data, games_data_path
from sitegen.model.forecast import accuracy_page, league_forecast
from sitegen.model.predict import league_predictor
from sitegen.model.history import RatedLeague
from sitegen.model.honest import bootstrap, cached_bootstrap
from sitegen.model.scale import is_big
from sitegen.model.matchviews import MatchViews, file_and_line
from sitegen.model.views import Games, LeagueView, PlayerView, league_view
from sitegen.load.problems import InvalidInput, Problem
from sitegen.load.provenance import Provenance
from sitegen.output import parallel
from sitegen.output.parallel import Background, Batch
from sitegen.output.render import environment, load_parts
from sitegen.load.urls import url_option
from sitegen.output.search import SearchIndexError, write_search_index
from sitegen.output.searchkept import write_kept_index
from sitegen.output.sitemap import Sitemap, write_robots, write_sitemap
from sitegen.output.theme import BUILTIN_TEMPLATES, template_problem
from sitegen.output.memo import (Kept, PageMemo, Stamp, drawn_pool_key, league_key, nearest_key,
                                 page_key, standing_key)
from sitegen.output.write import Output
from sitegen.rating import SYSTEMS

if TYPE_CHECKING:
    from sitegen.load.cache import Cache
    from sitegen.load.checked import Site

# Pages modelled before they are rendered: bounds the contexts held at once.
PAGES_AT_ONCE = 4000
# The size a page worker sends back for a file kept from the build before (``make``).
KEPT = -1

def system_words(attr: str) -> dict[str, Any]:
    """Every registered system's column labels or decimals (``term_labels``, ``standing_decimals``)
    in one lookup: the terms' names are shared where their meaning is."""
    out: dict[str, Any] = {}
    for cls in SYSTEMS.values():
        out.update(getattr(cls, attr))
    return out


RESULTS_PER_PAGE = 200
# A lobby of 100 would list 99 names in every row of a player's games: past a team
# game's worth the row says how many and the match page has them. The player page
# keeps the most frequent opponents; players/<slug>/opponents/ lists them all, or in a
# big league the player's data file, drawn on the page when asked for (games.js).
OPPONENTS_SHOWN = 8
HEAD_TO_HEAD = 20
# A player's page shows their latest games; the whole history is in the player's data
# file (gamesdata.py), drawn by games.js, and in the league's changes.csv without scripts.
LATEST_GAMES = 20


def results_url(lv: LeagueView, number: int) -> str:
    """The list of a league's results, newest first, 200 a page (match pages live under matches/)."""
    return f"{lv.url}results/" if number == 1 else f"{lv.url}results/{number}/"




@dataclass(frozen=True, slots=True)
class PagerItem:
    """An entry of a results pager: a page's number, its link, or a gap ("…") without one."""

    number: int
    url: str | None
    current: bool = False


def pager(urls: list[str], number: int) -> list[PagerItem]:
    """The pager of page ``number`` of ``urls``: the first and last two pages, two either side
    of the current one, and a gap where pages are left out. Only those entries are looked at,
    not every page: a million matches make 5,000 results pages, each with its pager."""
    n = len(urls)
    items = []
    for i in sorted({1, 2, 3, n - 2, n - 1, n, *range(number - 2, number + 3)}):
        if not 1 <= i <= n:
            continue
        if i == number:
            items.append(PagerItem(i, urls[i - 1], True))
        elif i <= 2 or i > n - 2 or abs(i - number) <= 2:
            items.append(PagerItem(i, urls[i - 1]))
        elif i == 3 or i == n - 2:
            items.append(PagerItem(i, None))
    return items


def site_base_url(configured: str, given: str | None) -> str:
    """``--base-url`` when given (checked as ``base_url`` is), else the setting: the site's
    absolute address ending in "/", or "" when none is known."""
    return url_option("--base-url", configured, given, base_url_problem, normalize_base_url)


def rated_together(matches: Any) -> bool:
    """Whether some match of a page was rated in one event with others (a period)."""
    if isinstance(matches, MatchViews):
        return matches.rated_together()
    return any(len(m.event_matches) > 1 for m in matches)


def last_positions(lv: LeagueView) -> list[int]:
    """The history position of each match-file page's last match, page by page: the pages'
    plan's (views.MatchViews), no view made."""
    return [cast(MatchViews, g.matches).positions[-1] for g in lv.groups]


def page_folders(leagues: list[LeagueView], big: Mapping[str, bool]) -> list[str]:
    """The staging folders of the leagues' match-file pages and players' files (``_render_site``)."""
    folders = []
    for lv in leagues:
        folders += [g.url.rstrip("/") for g in lv.groups]
        folders += [pv.url.rstrip("/") for pv in lv.leaderboard]
        if not big[lv.config.slug]:     # a big league's players have no opponents page
            folders += [f"{pv.url}opponents" for pv in lv.leaderboard]
    return folders


def search_keys(root: Any, leagues: list[LeagueView], memo: PageMemo,
                lasts: Mapping[str, list[int]]) -> dict[str, list[tuple[Any, ...]]]:
    """The key of each match-file page's search record (a big league's) where the league's pages
    are kept: what the page's key (below) holds of its matches, which is all its record shows."""
    keys: dict[str, list[tuple[Any, ...]]] = {}
    for lv in leagues:
        prefixes = memo.league_prefixes(root, lv.rated)
        if prefixes is None:
            continue
        keys[lv.config.slug] = [(g.url, g.name, g.file, g.part, tuple(g.parts), len(g.matches), int(prefixes[k]))
                                for g, k in zip(lv.groups, lasts[lv.config.slug])]
    return keys


class Beside:
    """The jobs a build runs in processes of their own beside its main one (output/parallel.py),
    each started as soon as what it needs exists, so that the second core works while this one
    still checks and rates: the content pages (markdown, formulas, the spec pages' charts) need
    no league's ratings and start once the site is checked; the bootstrap intervals (each
    league replayed 80 times over) and the accuracy comparisons (the predictions scored, the
    ratings replayed with the default parameters) start once the leagues are rated."""

    def __init__(self, site: "Site", cache: "Cache | None" = None) -> None:
        # The shared chart specs first, so that every process forked from here has them (and,
        # where they were made now, Altair imported once, here).
        load_specs(cache)
        # With the build cache, a content page rendered before from the same inputs is not rendered again.
        self.content = Background(lambda: render_pages(site.content, [lg.config for lg in site.leagues], cache))
        self.intervals: Background | None = None
        self.comparisons: Background | None = None

    def rated(self, rated: tuple[RatedLeague, ...], cache: "Cache | None",
              keys: Mapping[str, tuple[str, Any] | None] | None = None) -> None:
        # With the build cache, a league whose input did not change is not resampled again.
        resample = cached_bootstrap(cache, keys or {}) if cache is not None else bootstrap
        self.intervals = Background(lambda: {r.league.config.slug: resample(r) for r in rated})
        # And the predictions of the matches the last build scored are not scored again.
        judge = cached_compare(cache, keys or {}) if cache is not None else compare
        self.comparisons = Background(lambda: {r.league.config.slug: judge(r) for r in rated})

    def close(self) -> None:
        """Stops every job, done or not (a build that fails does not wait for them)."""
        for job in (self.content, self.intervals, self.comparisons):
            if job is not None:
                job.close()


def render_site(site: "Site", rated: tuple[RatedLeague, ...], output: Output, *,
                base_url: str | None = None, provenance: Provenance | None = None,
                cache: "Cache | None" = None, beside: Beside | None = None, memo: PageMemo | None = None) -> None:
    """``beside`` holds the jobs the build started early; the caller closes it. Without it,
    they start here and are closed here. ``memo`` (output/memo.py), when given, keeps the pages
    of matches and the players' files whose inputs did not change; the caller saves it."""
    own = beside is None
    if beside is None:
        beside = Beside(site, cache)
    if beside.intervals is None:
        beside.rated(rated, cache)
    assert beside.intervals is not None and beside.comparisons is not None
    children: list[Background | Batch] = []     # stopped however the build ends
    try:
        # The leagues' view models live until every page is written: once made, they are frozen
        # out of the collector's reach (rating/collector.py), which would walk them again and again.
        with collector.frozen() as freeze:
            _render_site(site, rated, output, freeze, beside.intervals, beside.content, beside.comparisons,
                         children, base_url=base_url, provenance=provenance, memo=memo)
    finally:
        for child in children:
            child.close()
        if own:
            beside.close()


def _render_site(site: "Site", rated: tuple[RatedLeague, ...], output: Output, freeze: Callable[[], None],
                 intervals: Background, content_pages: Background, comparisons: Background,
                 children: list[Background | Batch], *,
                 base_url: str | None, provenance: Provenance | None,
                 memo: PageMemo | None = None) -> None:
    settings = site.settings
    prov = provenance or Provenance()         # none outside a git checkout
    base = site_base_url(settings.base_url, base_url)
    templates = [d for d in (site.root / "templates", BUILTIN_TEMPLATES) if d.is_dir()]
    env = environment(templates, None if memo is None else memo.cache)
    # A league most of whose pages are likely kept makes its held lines for the pages made
    # (views.league_view); a cold build, or one after an edit before the end, makes every one at once.
    leagues = [league_view(r, site.roster, memo is not None and memo.keeps_history(site.root, r)) for r in rated]
    collector.hold(leagues)
    freeze()
    # Which leagues are big, told once here (a count over every match) for the pages and the
    # search index alike; and where a league's pages are kept (output/memo.py), the positions
    # of its match-file pages' last matches, whose prefixes key those pages and their search records.
    big = {lv.config.slug: is_big(lv.rated) for lv in leagues}
    # Their pages' staging folders, thousands in a big league, are made by a process of its own
    # while this one models the pages; the first batch handed to the workers waits for them.
    folders = page_folders(leagues, big)
    making: list[Background] = []
    if len(folders) >= parallel.MIN_PAGES:
        making.append(Background(lambda: output.make_folders(folders)))
        children.append(making[0])
    lasts: dict[str, list[int]] = {}
    if memo is not None:
        for lv in leagues:
            if memo.league_prefixes(site.root, lv.rated) is not None:
                lasts[lv.config.slug] = last_positions(lv)
    # The search index needs only the view models: a second process writes it meanwhile, from
    # the index the build before left in the cache where there is one (output/searchkept.py).
    if memo is not None and memo.cache is not None:
        store, keys = memo.cache, search_keys(site.root, leagues, memo, lasts)
        search = Background(lambda: output.journaled(lambda: write_kept_index(leagues, output, store, keys, big)))
    else:
        search = Background(lambda: output.journaled(lambda: write_search_index(leagues, output)))
    children.append(search)
    content: list[ContentPage] = content_pages.result()
    specs = {p.system: p for p in content if p.system}
    # The header names the leagues and the site's own pages; the guides under spec/ that belong
    # to no one system (matchmaking) are listed in the footer with the systems' pages. The
    # curators' and maintainers' guides under docs/ are linked from the about page instead.
    nav_pages = [p for p in content if not p.system and not p.url.startswith(("spec/", "docs/"))]
    guides = [p for p in content if not p.system and p.url.startswith("spec/")]
    common = {
        "site": settings,
        "base_url": base,               # "https://owner.github.io/repo/", or "" when unknown
        "leagues": leagues,
        "specs": specs,
        "nav_pages": nav_pages,
        "guides": guides,
        "term_labels": system_words("term_labels"),
        "standing_decimals": system_words("standing_decimals"),
    }

    sitemap = Sitemap()
    feed = site_feed(leagues)
    def bootstrap_of(league: RatedLeague) -> dict[str, tuple[float, float]]:
        return intervals.result()[league.league.config.slug]

    # Looked up once per name: get_template checks the file's age on every call, and a
    # large league renders tens of thousands of pages.
    compiled: dict[str, jinja2.Template] = {}

    # Pages are queued here and made in batches on every core (output/parallel.py): each job
    # renders its pages and writes them itself, so only sizes come back to this process. A
    # page's path is claimed when it is queued (two pages wanting one path is a bug, found
    # here); a player's pages are even modelled in the worker (``player_job``).
    # A job's file is (path, content), or (path, content, key) for a file kept from build to
    # build (output/memo.py), whose content is ``Kept`` where the published file was linked.
    pending: list[Callable[[], list[tuple[Any, ...]]]] = []

    class PageError(Exception):
        """A template failed: the problem to report, made where it failed."""

    def template(name: str) -> jinja2.Template:
        if name not in compiled:
            try:
                compiled[name] = env.get_template(name)
            except jinja2.TemplateError as exc:
                raise InvalidInput([template_problem(site.root, exc, name)]) from None
            load_parts(env, name)
        return compiled[name]

    def render(name: str, ctx: dict[str, Any]) -> str:
        try:
            return compiled[name].render(ctx)
        except jinja2.TemplateError as exc:
            raise PageError(template_problem(site.root, exc, name)) from None

    Made = tuple[list[tuple[str, int, bool, Stamp | None]], Problem | None]

    def make(job: Callable[[], list[tuple[Any, ...]]]) -> Made:
        """Run a job and write its files: (path, size, linked, stamp) of each, or the problem. A
        kept file's is (path, KEPT, True, None): its stamp is the build before's, which this
        process holds (tens of thousands of stamps were sent back from the workers)."""
        try:
            files = job()
        except PageError as exc:
            return [], exc.args[0]
        written: list[tuple[str, int, bool, Stamp | None]] = []
        for path, content, *keyed in files:
            if isinstance(content, Kept):
                written.append((path, KEPT, True, None))
                continue
            size, linked = output.write(path, content)
            stamp = memo.stamp(output, path, keyed[0], size) if keyed and memo is not None else None
            written.append((path, size, linked, stamp))
        return written, None

    def record(made: Made) -> None:
        written, problem = made
        if problem is not None:
            raise InvalidInput([problem])
        for path, size, linked, stamp in written:
            if size == KEPT and memo is not None:
                stamp = memo.old[path]
                size = stamp.size
            output.record(path, size, linked)
            if stamp is not None and memo is not None:
                memo.new[path] = stamp

    running: list[Batch] = []       # the batch the workers make while this process goes on

    def settle() -> None:
        while running:
            for made in running.pop(0).get():
                record(made)

    handed = [0]        # pages handed to batches so far

    def flush(last: bool = False) -> None:
        """Hand the queued pages to the workers, once the batch before is done: this process
        models the next pages (the next league's board, its players' jobs) meanwhile. The
        pages' folders are made here first, while the batch before is still made. The
        ``last`` batch of a build whose batches went to a pool goes to one even when small."""
        while making:
            output.folders_made(making.pop().result())
        output.make_folders()
        settle()
        if pending:
            jobs = pending[:]
            pending.clear()
            handed[0] += len(jobs)
            least = parallel.MIN_LAST_PAGES if last and handed[0] >= parallel.MIN_PAGES else None
            running.append(Batch(len(jobs), lambda i: make(jobs[i]), least))
            children.append(running[-1])

    def queue(job: Callable[[], list[tuple[Any, ...]]]) -> None:
        pending.append(job)
        if len(pending) >= PAGES_AT_ONCE:
            flush()

    def context(path: str, **context: Any) -> dict[str, Any]:
        # A league's pages announce its feed, the others the feed of every league; a page
        # may set its own root (the 404 page).
        own_feed = league_feed(context["league"]) if "league" in context else feed
        return {**common, "root": "../" * path.count("/"), "feed": own_feed, **context, "path": path}

    def page(path: str, name: str, key: str | None = None, **context_: Any) -> None:
        """Queue a page; one with a ``key`` is linked from the published site where unchanged."""
        ctx = context(path, **context_)
        sitemap.add(path, name, ctx)
        template(name)
        path = output.claim(path)
        if key is None or memo is None:
            queue(lambda: [(path, render(name, ctx))])
        else:
            def keyed(memo: PageMemo = memo, key: str = key) -> list[tuple[Any, ...]]:
                kept = memo.keep(output, path, key)
                return [(path, kept)] if kept is not None else [(path, render(name, ctx), key)]
            queue(keyed)

    recent = sorted(((lv, m) for lv in leagues for m in lv.recent),
                    key=lambda pair: (pair[1].match.played, pair[1].url), reverse=True)[:15]
    page("index.html", "home.html", recent=recent, build_info=prov.build)
    for lv in leagues:
        decimals = 0 if lv.integer else 1
        board = build_board(lv, settings.board_for(lv.config.slug), bootstrap_of)
        comparison = comparisons.result()[lv.config.slug]
        forecast = league_forecast(lv, site.roster, comparison)
        predictor = league_predictor(lv.rated)
        compact = big[lv.config.slug]      # a big league's output is smaller (model/scale.py)
        prefixes = memo.league_prefixes(site.root, lv.rated) if memo is not None else None
        careers = LeagueCareers(lv)
        known = league_key(memo.site_key, lv, board, careers, compact) if memo is not None else ""
        if memo is not None and not memo.keeps_league(lv.rated, known):
            lv.hold_lines()     # no page of the league is kept: its lines made at once, before its pages
        page(f"{lv.url}index.html", "league.html", league=lv, decimals=decimals, compact=compact,
             spec=specs.get(lv.config.system_name), board=board, forecast=forecast, predictor=predictor,
             distribution=distribution_chart(board.distribution),
             distribution_preview=Markup(preview.distribution(board.distribution)))
        if comparison is not None:
            report = accuracy_page(lv, comparison)
            page(f"{report.url}index.html", "accuracy.html", league=lv, spec=specs.get(lv.config.system_name),
                 report=report, chart=calibration_chart(report.calibration),
                 chart_preview=Markup(preview.calibration(report.calibration)))
        # A big league's results list its match-file pages, newest first, not every match again.
        listed = lv.groups[::-1] if compact else lv.matches[::-1]
        pages = [listed[i:i + RESULTS_PER_PAGE] for i in range(0, len(listed), RESULTS_PER_PAGE)] or [[]]
        # matches/ holds one page per match file (model/groups.py); its own address leads to the list.
        page(f"{lv.url}matches/index.html", "redirect.html", target=results_url(lv, 1))
        page_urls = [results_url(lv, k) for k in range(1, len(pages) + 1)]
        for n, rows in enumerate(pages, start=1):
            page(f"{results_url(lv, n)}index.html", "matches.html", league=lv, decimals=decimals,
                 compact=compact, rows=rows, number=n, pages=page_urls, pager=pager(page_urls, n))
        groups = lv.groups
        # Positions of the matches whose prefix a key takes: each page's last match (``lasts``),
        # and in a league rated by periods (whose games are held as a list of views) every match.
        at: dict[int, int] = {}
        if prefixes is not None and any(not isinstance(pv.games, Games) for pv in lv.leaderboard):
            at = {id(m): k for k, m in enumerate(lv.matches)}
        ends = lasts.get(lv.config.slug, [])

        def shown(group: Any) -> tuple[Any, ...] | None:
            return None if group is None else (group.url, group.name, group.part, len(group.parts))

        for i, group in enumerate(groups):
            source = prov.source_at(*file_and_line(group.matches, 0))     # no view made of it
            prev_group = groups[i - 1] if i else None
            next_group = groups[i + 1] if i + 1 < len(groups) else None
            # A page of matches shows them (the prefix at its last one), its neighbours and its file.
            key = None if prefixes is None else page_key(
                known, group.url, group.file, group.part, tuple(group.parts), len(group.matches),
                int(prefixes[ends[i]]), shown(prev_group), shown(next_group),
                repr(source))
            page(f"{group.url}index.html", "match_group.html", key=key, league=lv, group=group,
                 decimals=decimals, compact=compact,
                 source=source, file_url=source.file_url.partition("#")[0],
                 prev_group=prev_group, next_group=next_group, periods=rated_together(group.matches))
        row_of = {row.player.name: row for row in board.rows}
        states_seen: dict[str, str] = {}     # the predictor's states' reprs, made once a league

        def standing_page(pv: PlayerView, board: Any, standing: Any, forecast: Any, predictor: Any, compact: bool,
                          known: str, prefixes: Any, states_seen: dict[str, str],
                          lv: LeagueView = lv, decimals: int = decimals) -> list[tuple[Any, ...]]:
            """A big league's standing.html of a player: kept where their rank, movement, grouped rank,
            pool and nearest players' states are the same (the league's key holds the counts). The
            pool's view and the predictions are made only for a page made again."""
            path = f"{pv.url}standing.html"
            key = None
            if prefixes is not None and memo is not None:
                movement = standing.movement
                key = standing_key(
                    (known, path, pv.name, pv.rating, standing.provisional, standing.active, pv.rank,
                     standing.rank, movement.kind, movement.text, movement.label, standing.sure_rank),
                    drawn_pool_key(forecast.pools.get(pv.name), forecast.deviation, forecast.size),
                    nearest_key(predictor, pv.name, states_seen) if predictor else None)
                kept = memo.keep(output, path, key)
                if kept is not None:
                    return [(path, kept)]
            ctx = context(path, league=lv, player=pv, decimals=decimals, board=board, standing=standing,
                          compact=compact, pool=forecast.pool_of(pv.name), predictor=predictor,
                          predictions=predictor.against_nearest(pv.name) if predictor else [])
            content = render("player_standing.html", ctx)
            return [(path, content)] if key is None else [(path, content, key)]

        # The league's parts are bound as defaults: the job runs later, after the loop moved on.
        def player_job(pv: PlayerView, lv: LeagueView = lv, decimals: int = decimals,
                       careers: LeagueCareers = careers, board: Any = board, forecast: Any = forecast,
                       predictor: Any = predictor, compact: bool = compact,
                       row_of: dict[str, Any] = row_of, prefixes: Any = prefixes,
                       known: str = known, at: dict[int, int] = at,
                       states_seen: dict[str, str] = states_seen,
                       standing_page: Callable[..., list[tuple[Any, ...]]] = standing_page) -> list[tuple[Any, ...]]:
            """A player's page, opponents page (none in a big league) and data file, modelled and
            rendered together; the data file is kept from the build before where the player's games
            are the same, the pages where nothing they show changed (output/memo.py)."""
            data_path = games_data_path(lv, pv)
            pages = [f"{pv.url}index.html"] + ([] if compact else [f"{pv.url}opponents/index.html"])
            key = data_key = None
            kept_pages: list[Kept] | None = None
            kept_data: Kept | None = None
            # A big league's player page leaves where the player stands (rank, pool, predictions:
            # what others' matches move) to standing.html beside it, which is made on its own.
            where = standing_page(pv, board, row_of[pv.name], forecast, predictor, compact, known, prefixes,
                                  states_seen) if compact else []
            if prefixes is not None and memo is not None:
                standing = row_of[pv.name]
                movement = standing.movement
                games = pv.games
                # The history up to their last game's event holds every game and change they show.
                if isinstance(games, Games):
                    last = int(prefixes[games.at[-1]]) if len(games) else 0
                else:
                    last = int(prefixes[at[id(games[-1].match)]]) if games else 0
                # The data file shows the games alone; the pages also where the player stands.
                data_key = page_key(known, data_path, pv.name, last, len(games))
                tier = pv.tier
                # Where the player stands, on the page itself in a league that is not big.
                stands = () if compact else (standing_key(
                    (pv.rank, standing.rank, movement.kind, movement.text, movement.label, standing.sure_rank),
                    drawn_pool_key(forecast.pools.get(pv.name), forecast.deviation, forecast.size),
                    nearest_key(predictor, pv.name, states_seen) if predictor else None),)
                key = page_key(known, pages, pv.name, pv.aliases, pv.platform, pv.region,
                               pv.rating, sorted(pv.extra.items()), tier and (tier.index, tier.name),
                               pv.peak, pv.lowest,
                               pv.first_played, pv.last_played, len(games), pv.wins, pv.draws, pv.losses,
                               last, standing.games, standing.provisional, standing.active,
                               standing.spread, standing.centre, standing.interval, *stands)
                kept_data = memo.keep(output, data_path, data_key)
                kept_pages = memo.keep_all(output, pages, key)
                if kept_data is not None and kept_pages is not None:
                    return [(data_path, kept_data), *zip(pages, kept_pages), *where]
            career = careers.of(pv)
            files: list[tuple[Any, ...]] = []
            if kept_data is not None:
                files.append((data_path, kept_data))
            else:
                data = games_data(lv, pv, decimals, career.rivals, careers) if compact else games_data(lv, pv, decimals)
                files.append((data_path, data) if data_key is None else (data_path, data, data_key))
            if kept_pages is not None:
                return files + list(zip(pages, kept_pages)) + where
            shared = dict(league=lv, player=pv, decimals=decimals, careers=careers, career=career,
                          opponents_shown=OPPONENTS_SHOWN, board=board, standing=row_of[pv.name],
                          compact=compact)
            home = context(f"{pv.url}index.html", **shared, games=pv.games[:-LATEST_GAMES - 1:-1],
                           games_data=data_path, head_to_head=career.rivals[:HEAD_TO_HEAD],
                           # A point each rated game, read from the careers' columns.
                           chart_preview=Markup(preview.history_columns(*careers.chart(pv), compact)),
                           pool=forecast.pool_of(pv.name), predictor=predictor,
                           predictions=predictor.against_nearest(pv.name) if predictor and not compact else [])
            made = [(home["path"], render("player.html", home))]
            if not compact:     # a big league has every opponent in the data file, not on a page
                opponents = context(f"{pv.url}opponents/index.html", **shared)
                made.append((opponents["path"], render("player_opponents.html", opponents)))
            return files + (made if key is None else [(path, content, key) for path, content in made]) + where

        template("player.html")
        pages_of_player = [("index.html", "player.html")]
        if not compact:
            template("player_opponents.html")
            pages_of_player.append(("opponents/index.html", "player_opponents.html"))
        else:
            template("player_standing.html")
        for n, pv in enumerate(lv.leaderboard):
            for path, name in pages_of_player:
                sitemap.add(pv.url + path, name, {"player": pv})
            output.claim(games_data_path(lv, pv))
            for path, _ in pages_of_player:
                output.claim(pv.url + path)
            if compact:
                output.claim(f"{pv.url}standing.html")
            job = functools.partial(player_job, pv)
            if n == 0:
                # The first player's pages are made here: the league-wide tables they fill on
                # first use (career aggregates, escaped links) are then made once, before the
                # workers fork, and shared by all of them. Where those pages are kept, the
                # aggregates are made all the same: else each worker of each batch would make
                # them for its first player whose pages changed.
                record(make(job))
                if memo is not None and len(lv.leaderboard) >= parallel.MIN_PAGES:
                    careers.of(pv)
            else:
                queue(job)
        if len(pending) >= parallel.MIN_PAGES:
            flush()         # this league's pages are made while the next one is modelled
    for cp in content:
        page(f"{cp.url}index.html", "content.html", page_content=cp)
    page("search/index.html", "search.html")
    # GitHub Pages serves 404.html for a missing path at any depth, so its links start
    # from the site's root path ("/repo/"), not from where the file sits.
    page("404.html", "404.html", root=urlsplit(base).path if base else "/")
    flush(last=True)
    # The feeds, sitemap and assets need no page: written here while the workers make the last batch.
    write_feeds(leagues, settings, base, output)
    write_sitemap(sitemap, base, output)
    write_robots(base, output)

    for folder in reversed(templates):      # the site's own assets override built-in ones
        assets = folder / "assets"
        if assets.is_dir():
            for f in sorted(assets.rglob("*")):
                if f.is_file():
                    output.add(f"assets/{f.relative_to(assets).as_posix()}", f.read_bytes(), replace=True)
    # The rating-history chart of every player page: one spec, each page's rows from its data file.
    output.add(HISTORY_SPEC, json.dumps(history_spec(), sort_keys=True, separators=(",", ":")) + "\n")
    settle()
    try:
        output.settle(search.result())
    except SearchIndexError as exc:
        raise InvalidInput([Problem("search/index", message=f"the search index could not be built: {exc}")]) from None
