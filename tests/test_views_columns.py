"""League views read straight from a rating's columns (model/views.py's one-event-per-match path)
are the views the general path makes from the very events the columns stand for: every line's
values and their types, every game, tally, peak and lowest, page and anchor."""

from __future__ import annotations

import gc
import hashlib
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from helpers import REPO
from sitegen.commands.build import check, rate
from sitegen.model import scale, views
from sitegen.model.history import one_event_per_match
from sitegen.model.groups import anchor, group_matches
from sitegen.model.views import LeagueView, league_view
from sitegen.rating.events import EventTable, RowTerms

FIXTURES = Path(__file__).parent / "fixtures"


def typed(value: object) -> str:
    return f"{type(value).__name__}:{value!r}"


def text_of(view: LeagueView) -> list[str]:
    """Everything a page reads of a league's view, each value with its type."""
    out = [typed((view.url, view.integer, view.has_outcomes, view.terms, view.standing_terms, view.has_teams,
                  view.explanation, [(t.name, n) for t, n in view.tier_counts]))]
    for v in view.matches:
        out.append(typed((v.match.id, v.url, v.event, v.event_matches, v.facts, v.title)))
        for line in v.lines:
            out.append(" ".join(map(typed, (
                line.player.text, line.player.url, line.details, line.result, line.before, line.after,
                line.tier, line.formula, line.team, line.period, line.score,
                [(k, typed(x)) for k, x in line.terms.items()]))))
    for name, p in view.players.items():
        out.append(" ".join(map(typed, (name, p.slug, p.url, p.rank, p.rating, p.extra, p.tier, p.wins, p.draws,
                                        p.losses, p.peak, p.lowest, p.first_played, p.last_played))))
        out.extend(typed((g.match.match.id, g.index, g.number, g.rated, g.line == g.match.lines[g.index],
                          g.after, [(o.text, o.url) for o in g.opponents], [(t.text, t.url) for t in g.teammates]))
                   for g in p.games)
    out.append(typed([p.name for p in view.leaderboard]))
    out.extend(typed((g.file, g.name, g.url, g.part, g.parts, g.number, [v.match.id for v in g.matches]))
               for g in view.groups)
    return out


def leagues(root: Path):
    site = check(root, cache=False)
    return site, rate(site)


@pytest.fixture
def rated_once(rated):
    """``leagues(root)`` checked and rated once a session for each root (conftest's ``rated``: the
    demo takes a while); each call returns the leagues with caches of their own, empty, as a fresh
    rating leaves them."""
    return rated


@pytest.fixture(scope="module")
def general_text():
    """``general_text(site, league)``: ``text_of`` the league's view made the general way (its
    events as a tuple), worked out once a module for each root and league and kept as a digest.
    The general path reads no rating columns, so scale.HELD_LINES does not change it: both
    ways of the column path are held to the same text (the demo's took a third of the time)."""
    done: dict[tuple[Path, str], tuple[int, str]] = {}

    def _text(root: Path, site, league) -> tuple[int, str]:
        key = (Path(root), league.league.config.slug)
        if key not in done:
            done[key] = digest(general_of(site, league))
        return done[key]

    return _text


def general_of(site, league) -> list[str]:
    """The same events as a tuple take the general path: changes by player, periods, _mark_rated."""
    return text_of(league_view(replace(league, events=tuple(league.events), cache={}), site.roster))


def digest(text: list[str]) -> tuple[int, str]:
    return len(text), hashlib.sha256("\0".join(text).encode("utf-8", "surrogatepass")).hexdigest()


@pytest.mark.parametrize("held", [True, False], ids=["lines held", "lines read when asked"])
@pytest.mark.parametrize("root", [FIXTURES / "small", FIXTURES / "hostile", REPO], ids=["small", "hostile", "demo"])
def test_column_views_are_the_views_of_the_events(root, held, monkeypatch, rated_once, general_text):
    # Lines are read from the columns when asked past scale.HELD_LINES appearances: both ways here.
    monkeypatch.setattr(scale, "HELD_LINES", 10 ** 9 if held else 0)
    site, rated = rated_once(root)
    tables = 0
    for league in rated:
        view = league_view(league, site.roster)
        if one_event_per_match(league) is not None:
            tables += 1
            assert all(isinstance(line.terms, RowTerms) for v in view.matches for line in v.lines)
            assert all(isinstance(v.lines, list) == held for v in view.matches)
        text = text_of(view)
        if digest(text) != general_text(root, site, league):
            assert text == general_of(site, league)     # where they differ, shown line by line
            pytest.fail("the general view's text is not the one worked out before for this league")
    assert tables        # the fixtures do reach the column path (elo, lunaro, placement)


@pytest.mark.parametrize("root", [FIXTURES / "small", FIXTURES / "hostile"], ids=["small", "hostile"])
def test_peaks_read_from_columns_are_those_of_mark_rated(root):
    site, rated = leagues(root)
    for league in rated:
        view = league_view(league, site.roster)
        for p in view.players.values():
            found = (p.peak, p.lowest)
            rated_games = [g.rated for g in p.games]
            views._mark_rated(p)
            assert (p.peak, p.lowest) == found
            assert [g.rated for g in p.games] == rated_games
            assert all(typed(a) == typed(b) for a, b in zip(found, (p.peak, p.lowest)))


def test_rows_out_of_the_players_order_are_found_by_player(tmp_path):
    """An event whose rows do not list its match's players in order (no kernel does this today)
    still gives each line its own player's change, as the changes by player do."""
    site, rated = leagues(FIXTURES / "small")
    league = next(r for r in rated if isinstance(r.events, EventTable) and len(r.league.matches) > 1)
    t = league.events
    # Each event's rows reversed: the same changes, in the opposite order.
    order = [r for i in range(len(t)) for r in range(int(t.offsets[i + 1]) - 1, int(t.offsets[i]) - 1, -1)]
    exact = {order.index(r): v for r, v in t.exact_before.items()}
    terms = {name: term if term.per_event else replace(term, values=(
        term.values[order] if term.numeric else [term.values[r] for r in order])) for name, term in t.terms.items()}
    flipped = EventTable(t.keys, t.played, t.offsets, t.names, t.player[order], t.before[order], t.after[order],
                         terms, exact_before=exact)
    view = league_view(replace(league, events=flipped, cache={}), site.roster)
    general = league_view(replace(league, events=tuple(t), cache={}), site.roster)
    assert text_of(view) == text_of(general)


def test_league_view_freezes_only_inside_a_frozen_block():
    site, rated = leagues(FIXTURES / "small")
    assert gc.get_freeze_count() == 0
    league_view(rated[0], site.roster)
    assert gc.get_freeze_count() == 0       # a caller outside a build keeps its collector as it was


def test_plain_anchors_are_the_escaped_ones():
    def view(mid: str):
        return views.MatchView(SimpleNamespace(id=mid, file="matches/x/a.toml"), [1, 2], "")  # type: ignore[arg-type]

    for ids in (["a-1", "b_2", "c.3"], ["a-1", "main", "weird id/ü", "~x"]):
        made = [view(i) for i in ids]
        group_matches(made, "leagues/x/")
        assert [v.url for v in made] == [f"leagues/x/matches/a/#{anchor(i)}" for i in ids]
