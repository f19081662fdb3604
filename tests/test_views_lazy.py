"""League views made when a page reads them (views.MatchViews, ViewMaker, lines.HeldLines) are
the views made for every match at once, as _league_view made them before: every match's and
every page's views, the players' games, each page's last position and the recent list, over
random leagues of several systems, match files, ids, sizes (lines held or read when asked, big
or not) and whether the league's pages may be kept (held lines made when asked)."""

from __future__ import annotations

from dataclasses import replace
from itertools import repeat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_kernels_elo import elo_leagues, lunaro_leagues
from test_placement_kernel import leagues as placement_leagues
from helpers import REPO
from sitegen.commands.build import check, rate
from sitegen.load.config import LeagueConfig, Roster
from sitegen.load.validate import League
from sitegen.model import scale, views
from sitegen.model.columns import column_lines, lines_of
from sitegen.model.groups import plan
from sitegen.model.history import one_event_per_match, rate_league
from sitegen.model.lines import LineMaker, TableLines, event_lines
from sitegen.model.views import MATCH_FACTS, RECENT, Games, Link, MatchView, Rare, league_view
from sitegen.output.pages import last_positions
from sitegen.output.search import group_record
from sitegen.rating import SYSTEMS
from sitegen.rating.base import RatingDiverged
from sitegen.rating.placement import Placement

FILES = ["matches/lg/a.toml", "matches/lg/b.toml", "matches/lg/A B.toml", "matches/lg/x/2.toml"]
FIXTURES = Path(__file__).parent / "fixtures"
DEMO_LINES = 10_000     # the demo's leagues up to this many lines (players in matches): one of every system


def eager_views(rated: Any) -> tuple[list[MatchView], list[Any]]:
    """Every match's view and the pages, made at once as _league_view made them (198f346)."""
    config = rated.league.config
    system = config.system
    base = f"leagues/{config.slug}/"
    names = [r.standing.player for r in rated.standings]
    slugs = views.player_slugs(names)
    links = {name: Link(name, f"{base}players/{slugs[name]}/") for name in names}
    make = LineMaker(rated, links)
    matches = rated.league.matches
    table = one_event_per_match(rated)
    source = TableLines(rated, table, make) if table is not None else None
    number = {name: i for i, name in enumerate(names)}
    found = column_lines(source, number, system) if source is not None else None
    from_columns = found is not None
    sizes = (found or lines_of(matches, number, system))[0]
    pages = plan([m.file for m in matches], [m.id for m in matches], sizes, base,
                 scale.MATCHES_PER_PART if make.big else None)
    urls = pages.urls(len(matches))
    headline = system.headline
    if source is not None:
        keys = source.table.keys
        if scale.lines_held(rated):
            made = list(map(MatchView, matches, source.held_lines(found[2] if from_columns else None), keys,
                            repeat(headline), repeat(-1), urls))
        else:
            made = list(map(MatchView, matches, repeat(source), keys, repeat(headline), range(len(matches)), urls))
    else:
        made = [MatchView(m, lines, key, headline, page=url, rare=Rare(ids))
                for (m, lines, key, ids), url in zip(event_lines(rated, make)[0], urls)]
    groups = pages.groups(made, paged=True)
    for k, m in enumerate(matches):
        if m.extra:
            made[k].facts = tuple([(label, str(m.extra[key])) for key, label in MATCH_FACTS.items()
                                   if m.extra.get(key) is not None])
    return made, groups


def line_text(line: Any) -> tuple[Any, ...]:
    return tuple(f"{type(v).__name__}:{v!r}" for v in (
        line.player.text, line.player.url, line.details, line.result, line.before, line.after, line.tier,
        line.formula, line.team, line.period, line.score, sorted((k, repr(x)) for k, x in line.terms.items())))


def text_of(v: MatchView) -> tuple[Any, ...]:
    return (v.match.id, v.url, v.page, v.anchor, v.event, v.event_matches, v.facts, v.title, v.played_minute,
            [line_text(line) for line in v.lines], [(g.label, [line_text(x) for x in g.lines]) for g in v.groups])


def old_last_positions(made: list[MatchView], groups: list[Any]) -> list[int]:
    """pages.last_positions as it was: each page's last view found by identity among every view."""
    at = {id(m): k for k, m in enumerate(made)}
    return [at[id(g.matches[-1])] for g in groups]


def assert_lazy_is_eager(rated: Any, kept: bool) -> None:
    made, groups = eager_views(rated)
    # Each view's text worked out once (a placement league's match is read by each of its
    # players' games): kept by the view's identity, with the view held so the identity stays its.
    texts: dict[int, tuple[MatchView, tuple[Any, ...]]] = {}

    def view_text(v: MatchView) -> tuple[Any, ...]:
        found = texts.get(id(v))
        if found is None:
            found = texts[id(v)] = (v, text_of(v))
        return found[1]

    # Each player's games read first, no match's lines made yet (lines.HeldLines.line's own line).
    lv = league_view(rated, Roster(), kept)
    for pv in lv.players.values():
        games = pv.games
        if isinstance(games, Games):
            want = [(place, j + 1, line_text(made[k].lines[place]), made[k].lines[place].after, view_text(made[k]))
                    for j, (k, place) in enumerate(zip(games.at, games.place))]
            assert [(g.index, g.number, line_text(g.line), g.after, view_text(g.match)) for g in games] == want
    lv = league_view(rated, Roster(), kept)
    # Asked in any order, a match at a time, every match's view is the one made at once.
    n = len(made)
    for k in [n - 1, 0, *range(n)][:2 * n]:
        assert view_text(lv.matches[k]) == view_text(made[k])
    assert len(lv.matches) == n and bool(lv.matches) == bool(made)
    assert [view_text(v) for v in lv.matches[::-1]] == [view_text(v) for v in made[::-1]]
    assert [view_text(v) for v in lv.recent] == [view_text(v) for v in made[::-1][:RECENT]]
    # The pages: their views, the matches themselves, their last positions and search records.
    assert [(g.file, g.name, g.url, g.part, g.parts, g.number, [view_text(v) for v in g.matches])
            for g in lv.groups] == [(g.file, g.name, g.url, g.part, g.parts, g.number,
                                     [view_text(v) for v in g.matches]) for g in groups]
    assert last_positions(lv) == old_last_positions(made, groups)
    assert [g.matches.plain for g in lv.groups] == [[v.match for v in g.matches] for g in groups]
    assert [group_record(g, {}) for g in lv.groups] == [group_record(g, {}) for g in groups]


def rated_of(system_name: str, system: Any, matches: list[Any], files: list[str], ids: list[str]) -> Any:
    matches = [replace(m, file=f, id=i) for m, f, i in zip(matches, files, ids)]
    config = LeagueConfig("lg", "League", system_name, system, {}, frozenset())
    return rate_league(League(config, tuple(matches)))


@st.composite
def layouts(draw: st.DrawFn, count: int) -> tuple[list[str], list[str]]:
    """Each match's file (runs of files, some coming back) and id (some needing escapes)."""
    files: list[str] = []
    while len(files) < count:
        files += [draw(st.sampled_from(FILES))] * draw(st.integers(1, 12))
    ids = [draw(st.sampled_from([f"m{i}", f"m {i}", f"ü{i}"])) if draw(st.booleans()) else f"m{i}"
           for i in range(count)]
    return files[:count], ids


SCALES = st.tuples(st.sampled_from([4, 40_000]), st.sampled_from([6, 400_000]), st.booleans())


def check_league(system_name: str, system: Any, matches: list[Any], draw: Any, scales: tuple[int, int, bool],
                 monkeypatch: pytest.MonkeyPatch) -> None:
    big_rows, held_lines, kept = scales
    monkeypatch.setattr(scale, "BIG_LEAGUE_ROWS", big_rows)
    monkeypatch.setattr(scale, "HELD_LINES", held_lines)
    files, ids = draw(layouts(len(matches)))
    if len(set(ids)) < len(ids):
        return
    try:
        rated = rated_of(system_name, system, matches, files, ids)
    except RatingDiverged:
        return
    assert_lazy_is_eager(rated, kept)


LAZY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@LAZY
@given(case=elo_leagues(), data=st.data(), scales=SCALES)
def test_elo_views_made_when_read_are_the_views_made_at_once(case, data, scales, monkeypatch):
    system, matches = case
    check_league("elo", system, matches, data.draw, scales, monkeypatch)


@LAZY
@given(case=lunaro_leagues(), data=st.data(), scales=SCALES)
def test_lunaro_views_made_when_read_are_the_views_made_at_once(case, data, scales, monkeypatch):
    system, matches = case
    check_league("lunaro", system, matches, data.draw, scales, monkeypatch)


@LAZY
@given(case=placement_leagues(), data=st.data(), scales=SCALES)
def test_placement_views_made_when_read_are_the_views_made_at_once(case, data, scales, monkeypatch):
    params, matches = case
    check_league("placement", Placement(**params), matches, data.draw, scales, monkeypatch)


@pytest.fixture
def demo_leagues(rated) -> list[Any]:
    """The demo's leagues of up to DEMO_LINES lines, one of every system, checked and rated once a
    session (conftest's ``rated``), with caches of their own."""
    return [league for league in rated(REPO)[1]
            if sum(map(len, (m.players for m in league.league.matches))) <= DEMO_LINES]


@pytest.mark.parametrize("kept", [True, False], ids=["pages kept", "every page made"])
@pytest.mark.parametrize("held", [True, False], ids=["lines held", "lines read when asked"])
@pytest.mark.parametrize("root", [FIXTURES / "small", FIXTURES / "hostile"], ids=["small", "hostile"])
def test_every_systems_views_made_when_read_are_the_views_made_at_once(root, held, kept, monkeypatch):
    # The fixtures rate with every system (glicko2's periods, openskill, arena, ...).
    monkeypatch.setattr(scale, "HELD_LINES", scale.HELD_LINES if held else 0)
    for rated in rate(check(root, cache=False)):
        assert_lazy_is_eager(rated, kept)


# The demo at the two ends: every line held and every page made, or lines read when asked
# and the pages kept (the fixtures above take every combination).
@pytest.mark.parametrize(("held", "kept"), [(True, False), (False, True)],
                         ids=["lines held, every page made", "lines read when asked, pages kept"])
def test_the_demos_views_made_when_read_are_the_views_made_at_once(demo_leagues, held, kept, monkeypatch):
    monkeypatch.setattr(scale, "HELD_LINES", scale.HELD_LINES if held else 0)
    for rated in demo_leagues:
        assert_lazy_is_eager(rated, kept)
    assert {rated.league.config.system_name for rated in demo_leagues} >= set(SYSTEMS)
