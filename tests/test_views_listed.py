"""What the league views read from a rating's columns instead of every match (model/views.py):
a kernel's ``EventTable.listed`` claim that its rows are each match's players as listed, the
systems' ``outcome_codes`` against ``outcome`` line by line, the lines' sizes, players and
outcomes from the columns against those read from the matches, and the match pages planned
from the matches (groups.plan) against the grouping a view at a time it replaces."""

from __future__ import annotations

from itertools import chain
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_kernels_elo import elo_leagues, lunaro_leagues, match
from test_placement_kernel import leagues as placement_leagues
from sitegen.commands.build import check, rate
from sitegen.model import groups, scale
from sitegen.model.groups import LINES_PER_PART, MatchGroup, anchor, group_matches
from sitegen.model.columns import column_lines, lines_of
from sitegen.model.views import MatchView, RESULT_CODES, NO_RESULT, league_view
from sitegen.rating.base import RatingDiverged
from sitegen.rating.elo import Elo
from sitegen.rating.events import EventTable
from sitegen.rating.placement import Placement

FIXTURES = Path(__file__).parent / "fixtures"


def listed_as_matches(table: EventTable, matches) -> bool:
    offsets = table.offsets.tolist()
    who = [table.names[p] for p in table.player.tolist()]
    return offsets[-1] == len(who) and all(who[offsets[k]:offsets[k + 1]] == list(m.players)
                                           for k, m in enumerate(matches))


def outcomes_by_line(system: Any, matches) -> list[int]:
    return [RESULT_CODES.get(system.outcome(m, i), NO_RESULT) for m in matches for i in range(len(m.players))]


def check_columns(system: Any, matches) -> None:
    try:
        table = system.rate(matches)
    except RatingDiverged:
        return
    assert isinstance(table, EventTable) and table.listed
    assert listed_as_matches(table, matches)
    codes = system.outcome_codes(table)
    if codes is not None:
        assert codes.dtype.name == "int8" and codes.tolist() == outcomes_by_line(system, matches)
    # The columns' sizes, players and outcomes are those read from every match.
    number = {name: i for i, name in enumerate(sorted(set(chain.from_iterable(m.players for m in matches))))}
    source = SimpleNamespace(table=table)
    found = column_lines(source, number, system)  # type: ignore[arg-type]
    if codes is not None:
        assert found is not None
        want = lines_of(matches, number, system)
        assert [(a.dtype.name, a.tolist()) for a in found] == [(a.dtype.name, a.tolist()) for a in want]


@settings(max_examples=60, deadline=None)
@given(elo_leagues())
def test_elo_rows_are_the_listed_players_and_its_outcomes_the_lines(case):
    system, matches = case
    check_columns(system, matches)


@settings(max_examples=30, deadline=None)
@given(lunaro_leagues())
def test_lunaro_rows_are_the_listed_players(case):
    system, matches = case
    check_columns(system, matches)


@settings(max_examples=30, deadline=None)
@given(placement_leagues())
def test_placement_rows_are_the_listed_players_and_no_line_has_an_outcome(case):
    params, matches = case
    if matches:
        check_columns(Placement(**params), matches)


def test_a_table_not_listed_reads_nothing_from_its_columns():
    system = Elo()
    matches = [match(i, pair, ({"score": s}, {"score": 1 - s}))
               for i, (pair, s) in enumerate([(("Ann", "Bo"), 1), (("Bo", "Cy"), 0.5), (("Cy", "Ann"), 0)])]
    table = system.rate(matches)
    flat = EventTable(table.keys, table.played, table.offsets, table.names, table.player, table.before,
                      table.after, table.terms, exact_before=table.exact_before)
    assert not flat.listed and system.outcome_codes(flat) is None
    assert column_lines(SimpleNamespace(table=flat), {}, system) is None  # type: ignore[arg-type]
    assert table.tail(len(table) // 2).listed


# --- the match pages ---------------------------------------------------------------------------

def group_one_by_one(views: list[MatchView], base: str, per_part: int | None, sizes: list[int]) -> list[MatchGroup]:
    """groups.group_matches as it was: a view at a time appended to its file's list."""
    per_part = per_part or groups.MATCHES_PER_PART
    by_file: dict[str, list[tuple[MatchView, int]]] = {}
    for v, n in zip(views, sizes):
        by_file.setdefault(v.match.file, []).append((v, n))
    plain = groups._UNSAFE.search("".join([v.match.id for v in views])) is None
    out: list[MatchGroup] = []
    taken: set[str] = set()
    for file, members in by_file.items():
        part: list[MatchView] = []
        parts = [part]
        lines = 0
        for v, n in members:
            if part and (len(part) >= per_part or lines + n > LINES_PER_PART):
                part = []
                parts.append(part)
                lines = 0
            part.append(v)
            lines += n
        rel = file.split("/", 2)[2] if file.count("/") >= 2 else file
        name = rel[: -len(".toml")] if rel.endswith(".toml") else rel
        folder = groups._folder(name)
        candidate, k = folder, 1
        while True:
            urls = [f"{base}matches/{candidate}/" + (f"{j}/" if j > 1 else "") for j in range(1, len(parts) + 1)]
            if not taken.intersection(urls):
                break
            k += 1
            candidate = f"{folder}-{k}"
        taken.update(urls)
        for j, (url, chunk) in enumerate(zip(urls, parts), start=1):
            out.append(MatchGroup(file, name, url, j, chunk, urls, len(out)))
            for v in chunk:
                v.page = url
            if not plain:
                for v in chunk:
                    v.escaped = anchor(v.match.id)
    return out


FILES = ["matches/lg/a.toml", "matches/lg/b.toml", "matches/lg/A B.toml", "matches/lg/a-b.toml",
         "matches/lg/x.toml", "matches/lg/x/2.toml", "matches/lg/2026/04-april.toml"]


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[str], list[str], list[int], int | None]:
    runs = draw(st.lists(st.tuples(st.sampled_from(FILES), st.integers(1, 40)), max_size=8))
    files = [f for f, n in runs for _ in range(n)]
    ids = [draw(st.sampled_from([f"m{i}", f"m {i}", f"ü{i}", f"m-{i}.x_"])) if draw(st.booleans()) else f"m{i}"
           for i in range(len(files))]
    big = draw(st.booleans())       # duels, or lobbies that close a part by their lines
    sizes = [2 if not big else draw(st.sampled_from([2, 100, 700, LINES_PER_PART + 1])) for _ in files]
    return files, ids, sizes, draw(st.sampled_from([None, 1, 3, 7, 500]))


def page_text(made: list[MatchGroup], views: list[MatchView]) -> list[Any]:
    return ([(g.file, g.name, g.url, g.part, [v.match.id for v in g.matches], g.parts, g.number) for g in made]
            + [(v.page, v.escaped, v.url) for v in views])


@settings(max_examples=200, deadline=None)
@given(histories())
def test_planned_pages_are_the_pages_grouped_one_view_at_a_time(case):
    files, ids, sizes, per_part = case

    def made() -> list[MatchView]:
        return [MatchView(SimpleNamespace(file=f, id=i), [None] * n, i)  # type: ignore[arg-type]
                for f, i, n in zip(files, ids, sizes)]

    want_views, got_views, paged = made(), made(), made()
    want = group_one_by_one(want_views, "leagues/lg/", per_part, sizes)
    got = group_matches(got_views, "leagues/lg/", per_part, sizes)
    assert page_text(got, got_views) == page_text(want, want_views)
    # Each view made with its page (as _league_view makes them), then grouped without setting it.
    pages = groups.plan(files, ids, sizes, "leagues/lg/", per_part)
    for v, url in zip(paged, pages.urls(len(files))):
        v.page = url
    assert page_text(pages.groups(paged, paged=True), paged) == page_text(want, want_views)


@pytest.mark.parametrize("root", [FIXTURES / "small", FIXTURES / "hostile"], ids=["small", "hostile"])
def test_teams_and_appearances_where_the_columns_tell_them(root):
    site = check(root, cache=False)
    seen = set()
    for league in rate(site):
        view = league_view(league, site.roster)
        seen.add(view.has_teams)
        assert view.has_teams == any(e.get("team") is not None for m in league.league.matches for e in m.entries)
        # The appearances a listed table counts by its rows are those of every match.
        assert scale.appearances(league) == sum(len(m.players) for m in league.league.matches)
    assert False in seen and (True in seen or root.name != "small")     # the small site has team games
