"""A lobby league's head to head (career.LeagueCareers.ranked_rivals) counted over the league's
lines as columns at once (``_ranked_table``) is the count the loop over each game's sorted
keys gives: the small and hostile fixtures' lobbies and the demo's battle royale, arena and
formula-1 races, every player, ties (level) among them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sitegen.model.career import LeagueCareers
from sitegen.model.views import Games, league_view

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"


def _demo(root: Path) -> None:
    for league in ("battle-royale", "arena", "formula-1"):
        shutil.copytree(REPO / "matches" / league, root / "matches" / league)
    shutil.copy(REPO / "matches" / "players.toml", root / "matches" / "players.toml")
    shutil.copy(FIXTURES / "small" / "pyproject.toml", root / "pyproject.toml")


@pytest.mark.parametrize("fixture", ["small", "hostile", "demo"])
def test_ranked_rivals_at_once_are_the_loops(rated, fixture, tmp_path, monkeypatch) -> None:
    root = FIXTURES / fixture
    if fixture == "demo":
        root = tmp_path / "site"
        _demo(root)
    site, leagues = rated(root)
    checked = tied = at_once = 0
    for league in leagues:
        lv = league_view(league, site.roster, False)
        careers = LeagueCareers(lv)
        if not careers.ranked_by:
            continue
        loop = LeagueCareers(lv)
        monkeypatch.setattr(loop, "_ranked_table", lambda *args: None)
        for pv in lv.leaderboard:
            assert careers.ranked_rivals(pv, careers.ranked_by) == loop.ranked_rivals(pv, loop.ranked_by), pv.name
            checked += 1
            tied += sum(r.draws for r in loop.ranked_rivals(pv, loop.ranked_by))
        assert careers._table is not None or not isinstance(lv.leaderboard[0].games, Games)
        at_once += careers._table is not None
    assert checked and at_once and tied       # some opponents were level: the equal keys counted too
