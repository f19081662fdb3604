"""The `glicko2` system (docs/curators, the World vs World rating of Guild Wars 2, Glickman's paper).

Glickman's worked example ("Example of the Glicko-2 system", steps 1-8): a player
at 1500 / RD 200 / volatility 0.06 beats an opponent at 1400 / 30, loses to one
at 1550 / 100 and to one at 1700 / 300, with tau 0.5. The paper prints
g = 0.9955, 0.9531, 0.7242; E = 0.639, 0.432, 0.303; v = 1.7785; Delta = -0.4834;
sigma' = 0.05999; r' = 1464.06; RD' = 151.52. Its v and Delta come from g and E
rounded to four and three decimals; unrounded they are 1.77898 and -0.48393.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import build_data, league_toml, problems_of, read_csv, rows_of
from sitegen.commands.build import check, rate
from sitegen.rating.base import Match
from sitegen.rating.glicko2 import (
    SCALE, Glicko, Glicko2, battle_score, calendar_index, day_key, expected_score, g, idle,
    new_volatility, update, variance_and_improvement, week_key,
)

PLAYER = Glicko(1500, 200, 0.06)
PAPER_RESULTS = [(Glicko(1400, 30, 0.06), 1.0), (Glicko(1550, 100, 0.06), 0.0), (Glicko(1700, 300, 0.06), 0.0)]
UTC = timezone.utc


# --- Glickman's worked example -----------------------------------------------------------------

def test_paper_example_final_values():
    after = update(PLAYER, PAPER_RESULTS, tau=0.5, epsilon=0.000001)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)


def test_paper_example_intermediate_values():
    assert [round(g(o.rd / SCALE), 4) for o, _ in PAPER_RESULTS] == [0.9955, 0.9531, 0.7242]
    assert [round(expected_score(PLAYER, o), 3) for o, _ in PAPER_RESULTS] == [0.639, 0.432, 0.303]
    v, delta, surprise = variance_and_improvement(PLAYER, PAPER_RESULTS)
    # the paper's v and Delta, from its rounded g and E
    assert v == pytest.approx(1.7785, abs=1e-3)
    assert delta == pytest.approx(-0.4834, abs=1e-3)
    assert v == pytest.approx(1.778977, abs=1e-6)
    assert delta == pytest.approx(-0.483933, abs=1e-6)
    assert delta == pytest.approx(v * surprise, rel=1e-12)
    sigma = new_volatility(0.06, 200 / SCALE, v, delta, tau=0.5, epsilon=0.000001)
    assert sigma == pytest.approx(0.05999, abs=1e-5)
    # steps 6-8 written out from sigma'
    phi_star = math.sqrt((200 / SCALE) ** 2 + sigma ** 2)
    phi_new = 1 / math.sqrt(1 / phi_star ** 2 + 1 / v)
    assert phi_new == pytest.approx(0.8722, abs=1e-4)
    assert 1500 + SCALE * phi_new ** 2 * surprise == pytest.approx(1464.06, abs=0.01)


def test_volatility_solves_the_papers_equation():
    """Step 5: sigma' = e^(A/2) where f(A) = 0, to epsilon."""
    v, delta, _ = variance_and_improvement(PLAYER, PAPER_RESULTS)
    phi, tau, a = 200 / SCALE, 0.5, math.log(0.06 ** 2)

    def f(x):
        ex = math.exp(x)
        return ex * (delta ** 2 - phi ** 2 - v - ex) / (2 * (phi ** 2 + v + ex) ** 2) - (x - a) / tau ** 2

    x = 2 * math.log(new_volatility(0.06, phi, v, delta, tau=tau, epsilon=1e-12))
    assert abs(f(x)) < 1e-9
    # a shock result (Delta^2 > phi^2 + v) raises the volatility
    shock = [(Glicko(2300, 30, 0.06), 1.0)] * 5
    v2, d2, _ = variance_and_improvement(Glicko(1500, 50, 0.06), shock)
    assert d2 ** 2 > (50 / SCALE) ** 2 + v2
    assert new_volatility(0.06, 50 / SCALE, v2, d2, tau=0.6, epsilon=1e-6) > 0.06


def test_update_needs_results():
    with pytest.raises(ValueError):
        update(PLAYER, [], tau=0.5, epsilon=1e-6)


# --- step 6 -----------------------------------------------------------------------------------------

def test_idle_grows_rd_only():
    p = Glicko(1620.5, 80, 0.07)
    once = idle(p)
    assert once.rating == 1620.5 and once.volatility == 0.07
    assert once.rd == pytest.approx(SCALE * math.sqrt((80 / SCALE) ** 2 + 0.07 ** 2), abs=1e-12)
    assert idle(p, 0) == p
    three = idle(idle(idle(p)))
    assert idle(p, 3).rd == pytest.approx(three.rd, abs=1e-9)
    assert idle(p, 3).rd == pytest.approx(math.sqrt(80 ** 2 + 3 * (0.07 * SCALE) ** 2), abs=1e-9)
    # no ceiling: a long absence goes past the initial 350
    assert idle(Glicko(1500, 340, 0.06), 100).rd == pytest.approx(math.sqrt(340 ** 2 + 100 * (0.06 * SCALE) ** 2))
    assert idle(Glicko(1500, 340, 0.06), 100).rd > 350


def test_glicko_is_a_frozen_value():
    p = Glicko(1500, 350, 0.06)
    assert p == Glicko(1500.0, 350.0, 0.06)
    with pytest.raises(AttributeError):
        p.rating = 1600


# --- battle scores ------------------------------------------------------------------------------

def test_sine_transform_of_the_seed():
    # share 0.75: (sin(0.25 pi) + 1) / 2 = (sqrt(2)/2 + 1) / 2
    assert battle_score(3, 1, "sine") == pytest.approx(0.8535533905932737, abs=1e-15)
    assert battle_score(3, 1, "sine") == pytest.approx((math.sqrt(2) / 2 + 1) / 2, abs=1e-15)
    assert battle_score(1, 3, "sine") == pytest.approx(0.1464466094067262, abs=1e-15)
    assert battle_score(5, 0, "sine") == 1.0
    assert battle_score(0, 5, "sine") == 0.0
    assert battle_score(7, 7, "sine") == 0.5


def test_share_and_outcome_transforms():
    assert battle_score(3, 1, "share") == 0.75
    assert battle_score(235410, 180000, "share") == pytest.approx(235410 / 415410, abs=1e-15)
    assert battle_score(3, 1, "outcome") == 1.0
    assert battle_score(1, 3, "outcome") == 0.0
    assert battle_score(2.5, 2.5, "outcome") == 0.5
    assert battle_score(1000, 999, "outcome") == 1.0     # any margin is a win


@pytest.mark.parametrize("transform", ["sine", "share", "outcome"])
def test_both_scores_zero_is_half(transform):
    assert battle_score(0, 0, transform) == 0.5


def test_huge_scores_do_not_overflow():
    assert battle_score(1e308, 1e308, "share") == 0.5
    assert battle_score(1e308, 1e307, "sine") == pytest.approx(battle_score(10, 1, "sine"), abs=1e-12)


def test_unknown_transform():
    with pytest.raises(ValueError):
        battle_score(1, 2, "cosine")


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 1e9), st.floats(0, 1e9), st.sampled_from(["sine", "share", "outcome"]))
def test_battle_scores_are_symmetric(a, b, transform):
    s = battle_score(a, b, transform)
    assert 0.0 <= s <= 1.0
    assert s + battle_score(b, a, transform) == pytest.approx(1.0, abs=1e-12)


# --- rating periods ---------------------------------------------------------------------------------

def at(text: str) -> datetime:
    """An aware datetime; without an offset, UTC."""
    t = datetime.fromisoformat(text)
    return t if t.tzinfo else t.replace(tzinfo=UTC)


@pytest.mark.parametrize("played, key", [
    ("2020-12-28T00:00:00", "2020-W53"),
    ("2020-12-31T12:00:00", "2020-W53"),
    ("2021-01-03T23:59:59", "2020-W53"),
    ("2021-01-04T00:00:00", "2021-W01"),
    ("2024-12-30T08:00:00", "2025-W01"),     # ISO year ahead of the calendar year
    ("2024-03-04T00:00:00", "2024-W10"),
    ("2024-03-03T23:30:00-02:00", "2024-W10"),  # Monday 01:30 in UTC
])
def test_week_keys(played, key):
    assert week_key(at(played)) == key


def test_day_keys_are_utc_dates():
    assert day_key(at("2024-03-01T23:30:00")) == "2024-03-01"
    assert day_key(at("2024-03-01T23:30:00-02:00")) == "2024-03-02"
    assert day_key(at("2024-03-02T00:30:00+02:00")) == "2024-03-01"


def test_calendar_indexes_count_every_period():
    week = lambda s: calendar_index(at(s), "week")     # noqa: E731
    assert week("2020-12-28T00:00:00") == week("2021-01-03T23:59:59")
    assert week("2021-01-04T00:00:00") - week("2021-01-03T23:59:59") == 1
    assert week("2021-02-01T00:00:00") - week("2020-12-31T00:00:00") == 5
    day = lambda s: calendar_index(at(s), "day")       # noqa: E731
    assert day("2024-03-01T00:00:00") - day("2024-02-28T23:59:00") == 2    # leap day between


# --- matches without a build -------------------------------------------------------------------------

def mk(i: int, played: datetime, players: list[tuple[str, float]], id: str | None = None) -> Match:
    return Match(id=id or f"m-{i}", played=played, file="matches/wvw/m.toml", position=i, notes=None,
                 players=tuple(p for p, _ in players), entries=tuple({"score": s} for _, s in players))


def test_three_way_world_vs_world_match():
    """Seed: each world fights two battles, A v B and A v C; all updated from the same values."""
    worlds = [("Jade Quarry", 235410), ("Blackgate", 180000), ("Tarnished Coast", 90000)]
    system = Glicko2(period="match")
    (event,) = system.rate([mk(1, at("2024-05-03T18:00:00"), worlds)])
    assert event.key == "m-1" and event.matches == ("m-1",)
    assert [c.player for c in event.changes] == ["Jade Quarry", "Blackgate", "Tarnished Coast"]
    start = Glicko(1500, 350, 0.06)
    scores = dict(worlds)
    for c in event.changes:
        results = [(start, battle_score(scores[c.player], scores[o], "sine")) for o in scores if o != c.player]
        assert len(results) == 2
        want = update(start, results, tau=0.6, epsilon=0.000001)
        assert c.before == 1500.0
        assert c.after == pytest.approx(want.rating, abs=1e-9)
        assert c.terms["rd_before"] == 350.0 and c.terms["volatility_before"] == 0.06
        assert c.terms["rd_after"] == pytest.approx(want.rd, abs=1e-9)
        assert c.terms["volatility_after"] == pytest.approx(want.volatility, abs=1e-12)
        # one battle alone would give a different update: both battles count
        assert update(start, results[:1], tau=0.6, epsilon=1e-6).rating != pytest.approx(c.after, abs=1e-6)
    jq, bg, tc = event.changes
    assert jq.delta > 0 > tc.delta
    assert jq.delta > bg.delta > tc.delta
    # Blackgate: sine(180000/415410) + sine(180000/270000) = 0.396 + 0.75 > 1 of 2 battles at E 0.5
    assert bg.delta > 0
    # two battles at 1500/350 each: RD drops from 350
    assert all(c.terms["rd_after"] < 350 for c in event.changes)


def test_all_players_of_a_period_update_from_pre_period_values():
    t = at("2024-05-06T10:00:00")      # a Monday
    matches = [mk(1, t, [("A", 10), ("B", 0)]), mk(2, t + timedelta(hours=1), [("B", 10), ("C", 0)]),
               mk(3, t + timedelta(days=2), [("A", 3), ("C", 4)])]
    (event,) = Glicko2().rate(matches)
    assert event.key == "2024-W19"
    assert event.played == t + timedelta(days=2)
    assert event.matches == ("m-1", "m-2", "m-3")
    assert [c.player for c in event.changes] == ["A", "B", "C"]
    start = Glicko(1500, 350, 0.06)
    s = lambda x, y: battle_score(x, y, "sine")      # noqa: E731
    want = {
        "A": update(start, [(start, s(10, 0)), (start, s(3, 4))], tau=0.6, epsilon=1e-6),
        "B": update(start, [(start, s(0, 10)), (start, s(10, 0))], tau=0.6, epsilon=1e-6),
        "C": update(start, [(start, s(0, 10)), (start, s(4, 3))], tau=0.6, epsilon=1e-6),
    }
    for c in event.changes:
        assert c.after == pytest.approx(want[c.player].rating, abs=1e-9)
        assert c.terms["rd_after"] == pytest.approx(want[c.player].rd, abs=1e-9)
    standings = {x.player: x for x in Glicko2().standings([event])}
    assert {p: x.games for p, x in standings.items()} == {"A": 2, "B": 2, "C": 2}


def test_match_period_an_idle_player_grows_per_match():
    """Interpretation: with period "match" each match is a period, so everyone who has played
    before and is not in the match ages by one step 6."""
    t = at("2024-01-01T00:00:00")
    matches = [mk(1, t, [("A", 1), ("B", 0)]), mk(2, t + timedelta(minutes=1), [("C", 1), ("D", 0)]),
               mk(3, t + timedelta(minutes=2), [("C", 2), ("D", 1)]),
               mk(4, t + timedelta(minutes=3), [("A", 0), ("C", 1)])]
    system = Glicko2(period="match")
    events = system.rate(matches)
    assert [e.key for e in events] == ["m-1", "m-2", "m-3", "m-4"]
    assert [e.matches for e in events] == [("m-1",), ("m-2",), ("m-3",), ("m-4",)]
    first, _, third, last = events
    a1 = first.changes[0]
    a_after = Glicko(a1.after, a1.terms["rd_after"], a1.terms["volatility_after"])
    a4, c4 = last.changes
    assert a4.before == a1.after
    assert a4.terms["rd_before"] == pytest.approx(idle(a_after, 2).rd, abs=1e-9)   # sat out m-2, m-3
    c3 = third.changes[0]
    assert c4.terms["rd_before"] == c3.terms["rd_after"]                           # no match missed
    # B sat out the last three matches: its standing RD grows three steps
    b1 = first.changes[1]
    standings = {s.player: s for s in system.standings(events)}
    b_after = Glicko(b1.after, b1.terms["rd_after"], b1.terms["volatility_after"])
    assert standings["B"].extra["rd"] == pytest.approx(idle(b_after, 3).rd, abs=1e-9)
    assert standings["B"].extra["volatility"] == b1.terms["volatility_after"]
    assert standings["A"].extra["rd"] == last.changes[0].terms["rd_after"]
    assert {p: s.games for p, s in standings.items()} == {"A": 2, "B": 1, "C": 3, "D": 2}


def test_day_periods_and_the_empty_day_between():
    matches = [mk(1, at("2024-02-28T09:00:00"), [("A", 1), ("B", 0)]),
               mk(2, at("2024-02-28T21:00:00"), [("A", 1), ("B", 1)]),
               mk(3, at("2024-03-01T10:00:00"), [("B", 5), ("A", 2)])]
    events = Glicko2(period="day").rate(matches)
    assert [e.key for e in events] == ["2024-02-28", "2024-03-01"]
    assert [e.matches for e in events] == [("m-1", "m-2"), ("m-3",)]
    assert events[0].played == at("2024-02-28T21:00:00")
    a, b = events[0].changes
    b2, a2 = events[1].changes
    assert (b2.player, a2.player) == ("B", "A")
    # 2024-02-29 was empty: one step 6 for both
    assert a2.terms["rd_before"] == pytest.approx(
        idle(Glicko(a.after, a.terms["rd_after"], a.terms["volatility_after"])).rd, abs=1e-9)
    assert b2.terms["rd_before"] == pytest.approx(
        idle(Glicko(b.after, b.terms["rd_after"], b.terms["volatility_after"])).rd, abs=1e-9)


def test_a_new_player_enters_at_their_first_period():
    matches = [mk(1, at("2024-01-01T00:00:00"), [("A", 1), ("B", 0)]),
               mk(2, at("2024-03-01T00:00:00"), [("A", 1), ("N", 0)])]
    events = Glicko2(initial_rd=300, initial_volatility=0.05, initial_rating=1000).rate(matches)
    n = events[1].changes[1]
    assert (n.player, n.before, n.terms["rd_before"], n.terms["volatility_before"]) == ("N", 1000, 300, 0.05)
    assert events[1].changes[0].terms["rd_before"] > events[0].changes[0].terms["rd_after"]


def test_describe_and_outcome():
    system = Glicko2()
    assert system.describe({"score": 235410}) == "score 235,410"
    assert system.describe({"score": 235410.0}) == "score 235,410"
    assert system.describe({"score": 1234.5}) == "score 1,234.5"
    assert system.describe({"score": 0}) == "score 0"
    m = mk(1, at("2024-01-01T00:00:00"), [("A", 1), ("B", 0)])
    assert system.outcome(m, 0) is None
    assert Glicko2.has_outcomes is False and Glicko2.integer_ratings is False


# --- shifting every rating ---------------------------------------------------------------------------

NAMES = ["ann", "bob", "cy", "dee", "eve"]
T0 = datetime(2024, 1, 1, tzinfo=UTC)

league = st.lists(
    st.tuples(st.lists(st.sampled_from(NAMES), min_size=2, max_size=4, unique=True),
              st.lists(st.one_of(st.integers(0, 500), st.floats(0, 500)), min_size=4, max_size=4),
              st.integers(0, 60 * 24 * 9)),       # minutes after the previous match
    min_size=1, max_size=12,
)


def to_matches(games) -> list[Match]:
    t = T0
    out = []
    for i, (names, scores, gap) in enumerate(games):
        t += timedelta(minutes=gap)
        out.append(mk(i + 1, t, list(zip(names, scores))))
    return out


@settings(max_examples=60, deadline=None)
@given(league, st.floats(-3000, 3000), st.sampled_from(["match", "day", "week"]),
       st.sampled_from(["sine", "share", "outcome"]))
def test_shifting_every_rating_shifts_the_results(games, c, period, transform):
    matches = to_matches(games)
    plain = Glicko2(period=period, score_transform=transform)
    shifted = Glicko2(initial_rating=1500 + c, period=period, score_transform=transform)
    e1, e2 = plain.rate(matches), shifted.rate(matches)
    assert [e.key for e in e1] == [e.key for e in e2]
    for a, b in zip(e1, e2, strict=True):
        for x, y in zip(a.changes, b.changes, strict=True):
            assert x.player == y.player
            assert y.before == pytest.approx(x.before + c, abs=1e-6)
            assert y.after == pytest.approx(x.after + c, abs=1e-6)
            for term in Glicko2.terms:
                assert y.terms[term] == pytest.approx(x.terms[term], abs=1e-9)
    s1 = {s.player: s for s in plain.standings(e1)}
    s2 = {s.player: s for s in shifted.standings(e2)}
    assert s1.keys() == s2.keys()
    for p in s1:
        assert s2[p].rating == pytest.approx(s1[p].rating + c, abs=1e-6)
        assert s2[p].extra["rd"] == pytest.approx(s1[p].extra["rd"], abs=1e-9)
        assert s2[p].extra["volatility"] == pytest.approx(s1[p].extra["volatility"], abs=1e-9)
        assert s2[p].games == s1[p].games == sum(p in names for names, _, _ in games)


# --- through a real build ---------------------------------------------------------------------------

SIX = re.compile(r"^-?\d+\.\d{6}$")


def glicko_match(played: str, *players: tuple[str, float], id: str | None = None) -> str:
    lines = ["[[match]]"]
    if id:
        lines.append(f'id = "{id}"')
    lines.append(f"played = {played}")
    lines.append("players = [" + ", ".join(f'{{ name = "{n}", score = {s} }}' for n, s in players) + "]")
    return "\n".join(lines) + "\n\n"


def test_rd_grows_over_empty_weeks(make_site, tmp_path):
    """A plays in week 1, sits out weeks 2-4 (week 3 has no match at all), plays in week 5."""
    text = (glicko_match("2024-01-02T20:00:00Z", ("A", 300), ("B", 200))     # 2024-W01
            + glicko_match("2024-01-09T20:00:00Z", ("B", 100), ("C", 150))   # 2024-W02
            + glicko_match("2024-01-24T20:00:00Z", ("C", 90), ("B", 90))     # 2024-W04
            + glicko_match("2024-01-30T20:00:00Z", ("A", 10), ("B", 40)))    # 2024-W05
    root = make_site({"matches/wvw/league.toml": league_toml("glicko2"), "matches/wvw/2024.toml": text})
    data = build_data(root, "wvw", tmp_path / "out")
    rows = rows_of(data, "changes")
    assert [r["event"] for r in rows] == ["2024-W01"] * 2 + ["2024-W02"] * 2 + ["2024-W04"] * 2 + ["2024-W05"] * 2
    assert not [r for r in rows if r["event"] == "2024-W03"]
    row = {(r["event"], r["player"]): r for r in rows}
    a1, a5 = row[("2024-W01", "A")], row[("2024-W05", "A")]
    phi, sigma = float(a1["rd_after"]) / SCALE, float(a1["volatility_after"])
    grown = math.sqrt(phi ** 2 + 3 * sigma ** 2) * SCALE
    # sigma has 6 decimals in the file; d(grown)/d(sigma) = 3 sigma SCALE^2 / grown ~ 20 carries
    # its rounding (<= 5e-7) up to ~1e-5
    assert float(a5["rd_before"]) == pytest.approx(grown, abs=2e-5)
    assert a5["rating_before"] == a1["rating_after"]
    assert a5["volatility_before"] == a1["volatility_after"]
    # unrounded, the growth is exact
    (rated,) = rate(check(root))
    period = {e.key: e for e in rated.events}
    c1 = next(c for c in period["2024-W01"].changes if c.player == "A")
    c5 = next(c for c in period["2024-W05"].changes if c.player == "A")
    exact = math.sqrt((c1.terms["rd_after"] / SCALE) ** 2 + 3 * c1.terms["volatility_after"] ** 2) * SCALE
    assert c5.terms["rd_before"] == pytest.approx(exact, abs=1e-9)
    assert float(a5["rd_before"]) == pytest.approx(exact, abs=1e-6)
    # B played weeks 1, 2, 4, 5: one step 6 for the empty week 3 only
    b2, b4 = row[("2024-W02", "B")], row[("2024-W04", "B")]
    b_grown = math.sqrt((float(b2["rd_after"]) / SCALE) ** 2 + float(b2["volatility_after"]) ** 2) * SCALE
    assert float(b4["rd_before"]) == pytest.approx(b_grown, abs=2e-5)
    # C last played in week 4; the league ends in week 5: C's standing RD has one step 6 more
    standings = {r["player"]: r for r in rows_of(data, "standings")}
    c4 = row[("2024-W04", "C")]
    c_grown = math.sqrt((float(c4["rd_after"]) / SCALE) ** 2 + float(c4["volatility_after"]) ** 2) * SCALE
    assert float(standings["C"]["rd"]) == pytest.approx(c_grown, abs=2e-5)
    assert float(standings["C"]["rd"]) > float(c4["rd_after"])
    assert standings["A"]["rd"] == a5["rd_after"]
    assert standings["C"]["rating"] == c4["rating_after"]


def test_csv_columns_and_formats(make_site, tmp_path):
    """Contract section 7: columns, 6 decimals, one row per player per period, played = last match."""
    text = (glicko_match("2024-05-03T18:00:00Z", ("Jade Quarry", 235410), ("Blackgate", 180000),
                         ("Tarnished Coast", 90000), id="wvw-1")
            + glicko_match("2024-05-05T18:00:00Z", ("Blackgate", 1200.5), ("Jade Quarry", 800), id="wvw-2")
            + glicko_match("2024-05-07T18:00:00Z", ("Tarnished Coast", 5), ("Blackgate", 0), id="wvw-3"))
    root = make_site({"matches/wvw/league.toml": league_toml("glicko2"), "matches/wvw/m.toml": text})
    data = build_data(root, "wvw", tmp_path / "out")
    changes_header = data["changes.csv"].split("\n", 1)[0]
    assert changes_header == ("event,played,player,rating_before,rating_after,delta,"
                              "rd_before,rd_after,volatility_before,volatility_after")
    assert data["standings.csv"].split("\n", 1)[0] == "rank,player,rating,games,rd,volatility"
    rows = read_csv(data["changes.csv"])
    assert [(r["event"], r["played"], r["player"]) for r in rows] == [
        ("2024-W18", "2024-05-05T18:00:00Z", "Jade Quarry"),
        ("2024-W18", "2024-05-05T18:00:00Z", "Blackgate"),
        ("2024-W18", "2024-05-05T18:00:00Z", "Tarnished Coast"),
        ("2024-W19", "2024-05-07T18:00:00Z", "Tarnished Coast"),
        ("2024-W19", "2024-05-07T18:00:00Z", "Blackgate"),
    ]
    for r in rows:
        for col in ("rating_before", "rating_after", "delta", "rd_before", "rd_after",
                    "volatility_before", "volatility_after"):
            assert SIX.match(r[col]), (col, r[col])
        assert float(r["delta"]) == pytest.approx(float(r["rating_after"]) - float(r["rating_before"]), abs=2e-6)
    first = rows[:3]
    assert {(r["rating_before"], r["rd_before"], r["volatility_before"]) for r in first} == {
        ("1500.000000", "350.000000", "0.060000")}
    # week 18 by hand: Jade Quarry fought Blackgate twice and Tarnished Coast once
    start = Glicko(1500, 350, 0.06)
    s = lambda a, b: battle_score(a, b, "sine")   # noqa: E731
    jq = update(start, [(start, s(235410, 180000)), (start, s(235410, 90000)), (start, s(800, 1200.5))],
                tau=0.6, epsilon=0.000001)
    assert float(first[0]["rating_after"]) == pytest.approx(jq.rating, abs=1e-6)
    assert float(first[0]["rd_after"]) == pytest.approx(jq.rd, abs=1e-6)
    assert float(first[0]["volatility_after"]) == pytest.approx(jq.volatility, abs=1e-6)
    standings = read_csv(data["standings.csv"])
    assert [r["rank"] for r in standings] == ["1", "2", "3"]
    ratings = [float(r["rating"]) for r in standings]
    assert ratings == sorted(ratings, reverse=True)
    games = {r["player"]: r["games"] for r in standings}
    assert games == {"Jade Quarry": "2", "Blackgate": "3", "Tarnished Coast": "2"}
    for r in standings:
        assert SIX.match(r["rating"]) and SIX.match(r["rd"]) and SIX.match(r["volatility"])
    # Jade Quarry sat out week 19: its RD grew one step
    jq_row = next(r for r in standings if r["player"] == "Jade Quarry")
    assert float(jq_row["rd"]) == pytest.approx(math.sqrt(jq.rd ** 2 + (jq.volatility * SCALE) ** 2), abs=1e-6)
    assert [r["match_id"] for r in read_csv(data["matches.csv"])] == ["wvw-1", "wvw-2", "wvw-3"]


# --- validation -------------------------------------------------------------------------------------

GOOD = '{ name = "A", score = 3 }'


def site(make_site, players: str = f'{GOOD}, {{ name = "B", score = 1 }}', *, params: str = "",
         extra: str = ""):
    text = f"[[match]]\nplayed = 2024-01-01\n{extra}players = [{players}]\n"
    return make_site({"matches/wvw/league.toml": league_toml("glicko2", params=params),
                      "matches/wvw/m.toml": text})


@pytest.mark.parametrize("players, field, words", [
    (f'{GOOD}, {{ name = "B" }}', "players[1].score", ("missing", ">= 0")),
    (f'{GOOD}, {{ name = "B", score = -1 }}', "players[1].score", (">= 0", "-1")),
    (f'{GOOD}, {{ name = "B", score = "12" }}', "players[1].score", ("number", "numbers are written without quotes")),
    (f'{GOOD}, {{ name = "B", score = true }}', "players[1].score", ("number", "got true")),
    (f'{GOOD}, {{ name = "B", score = inf }}', "players[1].score", ("number",)),
    (GOOD, "players", ("at least 2", "got 1")),
    (f'{GOOD}, {{ name = "B", score = 1, goals = 3 }}', "players[1].goals", ("unknown", "score")),
    (f'{GOOD}, {{ score = 1 }}', "players[1].name", ("missing",)),
])
def test_bad_players(make_site, players, field, words):
    (p,) = problems_of(site(make_site, players))
    assert (p.file, p.field) == ("matches/wvw/m.toml", field), str(p)
    assert p.match is not None
    for w in words:
        assert w in p.message, (w, str(p))


def test_every_problem_of_a_match_in_one_run(make_site):
    players = '{ name = "A", score = -1 }, { name = "B", score = false }, { name = "C" }'
    found = {p.field for p in problems_of(site(make_site, players, extra='colour = "red"\n'))}
    assert found == {"colour", "players[0].score", "players[1].score", "players[2].score"}


def test_unknown_match_key(make_site):
    (p,) = problems_of(site(make_site, extra='platform = "pc"\n'))
    assert p.field == "platform" and "unknown" in p.message and "players" in p.message


def test_many_players_and_float_scores_are_valid(make_site):
    players = ", ".join(f'{{ name = "W{i}", score = {i * 1.5} }}' for i in range(12))
    (rated,) = rate(check(site(make_site, players)))
    (event,) = rated.events
    assert len(event.changes) == 12
    assert [c.player for c in event.changes] == [f"W{i}" for i in range(12)]


@pytest.mark.parametrize("params, field, words", [
    ("tau = 0", "params.tau", ("from 0.01 to 5",)),
    ("tau = -0.5", "params.tau", ("from 0.01 to 5",)),
    ("tau = 1e308", "params.tau", ("from 0.01 to 5",)),
    ('period = "month"', "params.period", ('"match"', '"day"', '"week"', "month")),
    ('score_transform = "x"', "params.score_transform", ('"sine"', '"share"', '"outcome"')),
    ("epsilon = 0", "params.epsilon", ("1e-12",)),
    ("initial_rd = true", "params.initial_rd", ("number",)),
    ("initial_volatility = -0.06", "params.initial_volatility", ("> 0",)),
    ('initial_rating = "1500"', "params.initial_rating", ("number",)),
    ("k = 20", "params.k", ("unknown", "tau", "score_transform")),
])
def test_bad_params(make_site, params, field, words):
    (p,) = problems_of(site(make_site, params=params))
    assert (p.file, p.field) == ("matches/wvw/league.toml", field), str(p)
    for w in words:
        assert w in p.message, (w, str(p))


def test_params_are_the_contracts():
    assert {p.name: p.default for p in Glicko2.params} == {
        "initial_rating": 1500, "initial_rd": 350, "initial_volatility": 0.06, "tau": 0.6,
        "period": "week", "score_transform": "sine", "epsilon": 0.000001}
    assert Glicko2.terms == ("rd_before", "rd_after", "volatility_before", "volatility_after")
    assert Glicko2.standing_terms == ("rd", "volatility")
    assert Glicko2.match_keys == ("players",)
