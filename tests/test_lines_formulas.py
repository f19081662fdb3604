"""A page of lines' formulas written from the terms' columns (lines.TableLines._page_formulas)
are the formulas ``formula`` writes from each line's own terms (a ``RowTerms``): over random
elo leagues (weights, margins, season reversion, the challenger's K, starting ratings) and
lunaro's, every line held at once and every match's lines made alone."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings

from test_kernels_elo import elo_leagues, lunaro_leagues
from sitegen.load.config import LeagueConfig
from sitegen.load.validate import League
from sitegen.model.history import one_event_per_match, rate_league
from sitegen.model.lines import LineMaker, TableLines, formula
from sitegen.model.views import Link
from sitegen.rating.base import RatingDiverged
from sitegen.rating.events import RowTerms

FORMULAS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_formulas_from_columns(system_name: str, system: Any, matches: list[Any]) -> None:
    matches = [replace(m, id=f"m{i}") for i, m in enumerate(matches)]
    try:
        rated = rate_league(League(LeagueConfig("lg", "League", system_name, system, {}, frozenset()),
                                   tuple(matches)))
    except RatingDiverged:
        return
    table = one_event_per_match(rated)
    assert table is not None
    names = sorted({name for m in matches for name in m.players})
    make = LineMaker(rated, {name: Link(name, f"p/{name}/") for name in names})
    source = TableLines(rated, table, make)
    every = list(source.held_lines())
    alone = [next(source.held_lines(None, k, k + 1)) for k in range(len(matches))]
    for k, (lines, lines_alone) in enumerate(zip(every, alone)):
        for i, (line, line_alone) in enumerate(zip(lines, lines_alone)):
            r = source.row(k, i)
            want = formula(RowTerms(table, r, k), line.before, line.after, make.integer)
            assert line.formula == line_alone.formula == source.line(k, i).formula == want, (k, i)
    assert any(line.formula for lines in every for line in lines)      # K × (S − E): both write one


@FORMULAS
@given(case=elo_leagues())
def test_elo_formulas_from_columns_are_each_lines_own(case):
    assert_formulas_from_columns("elo", *case)


@FORMULAS
@given(case=lunaro_leagues())
def test_lunaro_formulas_from_columns_are_each_lines_own(case):
    assert_formulas_from_columns("lunaro", *case)
