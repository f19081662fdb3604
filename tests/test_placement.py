"""The `placement` system (docs/curators, the battle-royale rating proposal, "Elo implementation").

Hand-worked example, default parameters (initial 0, floor 0, K 32 below 2100).

Match 1: A, B, C, D all at 0, placed 1, 2, 3, 4. Against each rival E = 1 / (1 + 10^0) = 0.5,
so E = 3 x 0.5 = 1.5 for everyone; S = rivals placed below = 3, 2, 1, 0.
  A 0 + 32 (3 - 1.5) = 48      B 0 + 32 (2 - 1.5) = 16
  C 0 + 32 (1 - 1.5) = -16 -> 0 (the floor)      D 0 + 32 (0 - 1.5) = -48 -> 0

Match 2: C wins, A second, B third (A 48, B 16, C 0).
  10^(-32/400) = 10^-0.08 = 0.831764   10^-0.12 = 0.758578   10^-0.04 = 0.912011
  E_A = 1/(1 + 0.831764) + 1/(1 + 0.758578) = 0.545922 + 0.568641 = 1.114563
  E_B = 1/(1 + 1.202264) + 1/(1 + 0.912011) = 0.454078 + 0.523010 = 0.977088
  E_C = 1/(1 + 1.318257) + 1/(1 + 1.096478) = 0.431359 + 0.476990 = 0.908349   (sum 3 = 3 duels)
  A 48 + 32 (1 - 1.114563) = 44.334      B 16 + 32 (0 - 0.977088) = -15.267 -> 0
  C  0 + 32 (2 - 0.908349) = 34.933
"""

from __future__ import annotations

import math
import random
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import build_data, day, league_data, league_toml, problems_of, read_csv, rows_of
from sitegen.commands.build import check
from sitegen.rating.base import Match, k_from_bands
from sitegen.rating.placement import Placement, ordinal, placement_terms

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def naive_terms(ratings, places):
    """The seed's rule written as plainly as possible: a double loop over every pair."""
    n = len(ratings)
    exp, score = [], []
    for i in range(n):
        e = s = 0.0
        for j in range(n):
            if j == i:
                continue
            e += 1.0 / (1.0 + 10.0 ** ((ratings[j] - ratings[i]) / 400.0))
            s += 1.0 if places[j] > places[i] else 0.5 if places[j] == places[i] else 0.0
        exp.append(e)
        score.append(s)
    return exp, score


def naive_after(ratings, places, k, floor=0.0):
    exp, score = naive_terms(ratings, places)
    return [max(floor, r + k * (s - e)) for r, s, e in zip(ratings, score, exp)]


def br_match(played: str, *players: tuple[str, int], platform: str | None = None, id: str | None = None) -> str:
    """One [[match]] table of a placement league: (name, place) pairs."""
    lines = ["[[match]]"]
    if id is not None:
        lines.append(f'id = "{id}"')
    lines.append(f"played = {played}")
    if platform is not None:
        lines.append(f"platform = {platform}")
    lines.append("players = [" + ", ".join(f'{{ name = "{n}", place = {p} }}' for n, p in players) + "]")
    return "\n".join(lines) + "\n\n"


def site(make_site, *matches: str, params: str = ""):
    return make_site({"matches/br/league.toml": league_toml("placement", params=params),
                      "matches/br/m.toml": "".join(matches)})


def event_rows(data, event):
    return [r for r in rows_of(data, "changes") if r["event"] == event]


def to_match(i, players, places, **extra):
    return Match(id=f"m-{i + 1}", played=T0 + timedelta(hours=i), file="matches/br/m.toml", position=i + 1,
                 notes=None, players=tuple(players), entries=tuple({"place": p} for p in places),
                 extra=extra)


FOUR = [("A", 1), ("B", 2), ("C", 3), ("D", 4)]
SECOND = [("C", 1), ("A", 2), ("B", 3)]


# --- the hand-worked example ------------------------------------------------------------

def test_hand_worked_example_pure():
    exp, score = placement_terms(np.zeros(4), np.array([1, 2, 3, 4]))
    assert exp.tolist() == [1.5, 1.5, 1.5, 1.5]
    assert score.tolist() == [3.0, 2.0, 1.0, 0.0]
    exp, score = placement_terms(np.array([48.0, 16.0, 0.0]), np.array([2, 3, 1]))
    assert exp.tolist() == pytest.approx([1.114563, 0.977088, 0.908349], abs=1e-6)
    assert score.tolist() == [1.0, 0.0, 2.0]


def test_hand_worked_example_through_a_real_build(make_site, tmp_path):
    root = site(make_site, br_match("2024-01-01", *FOUR), br_match("2024-01-02", *SECOND))
    data = build_data(root, "br", tmp_path / "out")
    first = event_rows(data, "m-1")
    assert [r["player"] for r in first] == ["A", "B", "C", "D"]
    assert [r["rating_after"] for r in first] == ["48.000000", "16.000000", "0.000000", "0.000000"]
    assert [r["delta"] for r in first] == ["48.000000", "16.000000", "0.000000", "0.000000"]
    assert {r["expected"] for r in first} == {"1.500000"}
    assert [r["score"] for r in first] == ["3.000000", "2.000000", "1.000000", "0.000000"]
    assert {r["k"] for r in first} == {"32.000000"}
    second = {r["player"]: r for r in event_rows(data, "m-2")}
    assert [r["player"] for r in event_rows(data, "m-2")] == ["C", "A", "B"]
    assert (second["A"]["rating_before"], second["B"]["rating_before"], second["C"]["rating_before"]) == (
        "48.000000", "16.000000", "0.000000")
    assert float(second["A"]["rating_after"]) == pytest.approx(44.334, abs=5e-4)
    assert second["B"]["rating_after"] == "0.000000"
    assert float(second["C"]["rating_after"]) == pytest.approx(34.933, abs=5e-4)
    assert float(second["A"]["expected"]) == pytest.approx(1.114563, abs=2e-6)
    assert float(second["B"]["expected"]) == pytest.approx(0.977088, abs=2e-6)
    assert float(second["C"]["expected"]) == pytest.approx(0.908349, abs=2e-6)
    standings = rows_of(data, "standings")
    assert [(r["rank"], r["player"], r["games"]) for r in standings] == [
        ("1", "A", "2"), ("2", "C", "2"), ("3", "B", "2"), ("3", "D", "1")]
    assert standings[2]["rating"] == standings[3]["rating"] == "0.000000"


def test_csv_format(make_site, tmp_path):
    root = site(make_site, br_match("2024-01-01", *FOUR), br_match("2024-01-02", *SECOND))
    data = build_data(root, "br", tmp_path / "out")
    changes = data["changes.csv"].split("\n")
    assert changes[0] == "event,played,player,rating_before,rating_after,delta,expected,score,k"
    assert changes[1] == "m-1,2024-01-01T00:00:00Z,A,0.000000,48.000000,48.000000,1.500000,3.000000,32.000000"
    assert data["changes.csv"].endswith("\n") and "\r" not in data["changes.csv"]
    assert len(read_csv(data["changes.csv"])) == 7
    standings = data["standings.csv"].split("\n")
    assert standings[0] == "rank,player,rating,games"
    assert standings[1].startswith("1,A,44.33") and len(standings[1].split(",")[2].split(".")[1]) == 6


# --- ties, the floor, K ---------------------------------------------------------------------

def test_ties_score_half_a_point_against_each_other():
    exp, score = placement_terms(np.zeros(4), np.array([1, 2, 2, 4]))
    assert score.tolist() == [3.0, 1.5, 1.5, 0.0]
    _, score = placement_terms(np.zeros(3), np.array([7, 7, 7]))
    assert score.tolist() == [1.0, 1.0, 1.0]


def test_ties_through_a_build(make_site):
    root = site(make_site, br_match("2024-01-01", ("A", 1), ("B", 2), ("C", 2), ("D", 4)))
    rows = rows_of(league_data(root, "br"), "changes")
    assert [r["score"] for r in rows] == ["3.000000", "1.500000", "1.500000", "0.000000"]
    # 32 (1.5 - 1.5) = 0 for the tied pair; D would reach -48 but stays at the floor
    assert [r["rating_after"] for r in rows] == ["48.000000", "0.000000", "0.000000", "0.000000"]


def test_places_need_not_be_contiguous(make_site):
    root = site(make_site, br_match("2024-01-01", ("A", 5), ("B", 1)), params="floor = -1000")
    rows = rows_of(league_data(root, "br"), "changes")
    assert [r["score"] for r in rows] == ["0.000000", "1.000000"]
    assert [r["rating_after"] for r in rows] == ["-16.000000", "16.000000"]


def test_the_floor_at_zero_and_a_player_at_zero_can_gain(make_site):
    root = site(make_site, br_match("2024-01-01", ("A", 2), ("B", 1)), br_match("2024-01-02", ("A", 1), ("B", 2)))
    rows = rows_of(league_data(root, "br"), "changes")
    assert [r["rating_after"] for r in rows[:2]] == ["0.000000", "16.000000"]
    # A at 0 beats B at 16: E_A = 1 / (1 + 10^(16/400)) = 0.476990
    e_a = 1 / (1 + 10 ** (16 / 400))
    assert rows[2]["expected"] == f"{e_a:.6f}" == "0.476990"
    assert float(rows[2]["rating_after"]) == pytest.approx(32 * (1 - e_a), abs=2e-6)      # 16.736307
    # B: 16 + 32 (0 - 0.523010) = -0.736 -> 0
    assert rows[3]["rating_after"] == "0.000000"
    assert float(rows[3]["delta"]) == -16.0


def test_a_custom_floor(make_site):
    root = site(make_site, br_match("2024-01-01", *FOUR), params="initial = 20\nfloor = 10")
    rows = rows_of(league_data(root, "br"), "changes")
    # 20 + 48, 20 + 16, 20 - 16 = 4 -> 10, 20 - 48 = -28 -> 10
    assert [r["rating_after"] for r in rows] == ["68.000000", "36.000000", "10.000000", "10.000000"]
    assert [r["delta"] for r in rows] == ["48.000000", "16.000000", "-10.000000", "-10.000000"]


def test_no_floor_lets_ratings_go_negative(make_site):
    root = site(make_site, br_match("2024-01-01", *FOUR), params="floor = -1000")
    rows = rows_of(league_data(root, "br"), "changes")
    assert [r["rating_after"] for r in rows] == ["48.000000", "16.000000", "-16.000000", "-48.000000"]


def test_initial_below_the_floor_is_lifted_by_the_first_match(make_site):
    root = site(make_site, br_match("2024-01-01", ("A", 1), ("B", 2)), params="initial = -100\nfloor = 0")
    rows = rows_of(league_data(root, "br"), "changes")
    assert [r["rating_before"] for r in rows] == ["-100.000000", "-100.000000"]
    assert [r["rating_after"] for r in rows] == ["0.000000", "0.000000"]     # -84 and -116 -> 0


@pytest.mark.parametrize("rating, k", [
    (-50, 32), (0, 32), (2099.99, 32), (2100, 24), (2250, 24), (2399.99, 24), (2400, 16), (3000, 16)])
def test_k_bands_default(rating, k):
    system = Placement()
    assert system.k_of(np.array([rating])).tolist() == [k]
    assert k_from_bands(system.k_bands, rating) == k


@pytest.mark.parametrize("initial, k", [(2099.99, 32), (2100, 24), (2399.99, 24), (2400, 16)])
def test_k_bands_in_a_build(make_site, initial, k):
    root = site(make_site, br_match("2024-01-01", ("A", 1), ("B", 2)), params=f"initial = {initial}")
    rows = rows_of(league_data(root, "br"), "changes")
    assert {float(r["k"]) for r in rows} == {k}
    assert float(rows[0]["delta"]) == pytest.approx(k / 2, abs=2e-6)     # E 0.5, S 1
    assert float(rows[1]["delta"]) == pytest.approx(-k / 2, abs=2e-6)


def test_each_player_gets_the_k_of_their_own_rating(make_site):
    # From 2390 (K 24): A wins, 2402; B loses, 2378. Then A plays with K 16, B with K 24.
    root = site(make_site, br_match("2024-01-01", ("A", 1), ("B", 2)), br_match("2024-01-02", ("A", 2), ("B", 1)),
                params="initial = 2390")
    rows = rows_of(league_data(root, "br"), "changes")
    assert [r["rating_after"] for r in rows[:2]] == ["2402.000000", "2378.000000"]
    assert [r["k"] for r in rows[2:]] == ["16.000000", "24.000000"]
    e_a = 1 / (1 + 10 ** ((2378 - 2402) / 400))
    assert float(rows[2]["rating_after"]) == pytest.approx(2402 - 16 * e_a, abs=2e-6)
    assert float(rows[3]["rating_after"]) == pytest.approx(2378 + 24 * e_a, abs=2e-6)


def test_custom_k_bands_and_fixed_k(make_site):
    root = site(make_site, br_match("2024-01-01", *FOUR), params="k_bands = [[0, 10], [5, 2]]")
    assert {r["k"] for r in rows_of(league_data(root, "br"), "changes")} == {"10.000000"}
    root = site(make_site, br_match("2024-01-01", *FOUR), params="k_bands = [[-10, 10], [0, 2]]")
    assert {r["k"] for r in rows_of(league_data(root, "br"), "changes")} == {"2.000000"}
    root = site(make_site, br_match("2024-01-01", *FOUR), params="k = 12.5\ninitial = 3000")
    rows = rows_of(league_data(root, "br"), "changes")
    assert {r["k"] for r in rows} == {"12.500000"}
    assert [r["delta"] for r in rows] == ["18.750000", "6.250000", "-6.250000", "-18.750000"]


def test_normalize_divides_k_by_the_rivals(make_site):
    root = site(make_site, br_match("2024-01-01", *FOUR), params="normalize = true\nfloor = -1000")
    rows = rows_of(league_data(root, "br"), "changes")
    assert {r["k"] for r in rows} == {"10.666667"}        # 32 / 3
    assert [r["rating_after"] for r in rows] == ["16.000000", "5.333333", "-5.333333", "-16.000000"]
    # an auditor recomputes from the row alone: R + k (S - E)
    for r in rows:
        want = float(r["rating_before"]) + float(r["k"]) * (float(r["score"]) - float(r["expected"]))
        assert float(r["rating_after"]) == pytest.approx(want, abs=1e-5)


def test_normalize_with_two_players_is_plain_k(make_site):
    root = site(make_site, br_match("2024-01-01", ("A", 1), ("B", 2)), params="normalize = true")
    rows = rows_of(league_data(root, "br"), "changes")
    assert {r["k"] for r in rows} == {"32.000000"}
    assert rows[0]["rating_after"] == "16.000000"


# --- the match: platform, places, pages -------------------------------------------------

def test_platform_is_kept_trimmed(make_site):
    root = site(make_site, br_match("2024-01-01", *FOUR, platform='" pc "'), br_match("2024-01-02", *SECOND))
    (league,) = check(root).leagues
    assert [dict(m.extra) for m in league.matches] == [{"platform": "pc"}, {}]


def test_places_of_any_size():
    # TOML integers have no size limit; order is all that counts
    exp, score = placement_terms(np.zeros(3), np.array([10 ** 30, 1, 10 ** 30 + 1], dtype=object))
    assert score.tolist() == [1.0, 2.0, 0.0]
    (event,) = Placement().rate([to_match(0, "ABC", [10 ** 30, 1, 10 ** 30 + 1])])
    assert [c.terms["score"] for c in event.changes] == [1.0, 2.0, 0.0]


@pytest.mark.parametrize("n, text", [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"),
                                     (13, "13th"), (21, "21st"), (22, "22nd"), (23, "23rd"), (101, "101st"),
                                     (111, "111th"), (112, "112th"), (1000, "1000th")])
def test_ordinals(n, text):
    assert ordinal(n) == text
    assert Placement().describe({"place": n}) == text


def test_no_win_draw_loss():
    m = to_match(0, "AB", [1, 2])
    assert Placement.has_outcomes is False
    assert Placement().outcome(m, 0) is None and Placement().outcome(m, 1) is None


# --- against the naive double loop -------------------------------------------------------

@st.composite
def fields(draw, max_n=30):
    n = draw(st.integers(2, max_n))
    ratings = draw(st.lists(st.floats(-500, 3500, allow_nan=False), min_size=n, max_size=n))
    places = draw(st.lists(st.integers(1, max(1, n // 2 + 1)), min_size=n, max_size=n))   # ties likely
    return ratings, places


@settings(max_examples=300, deadline=None)
@given(fields())
def test_vectorised_terms_equal_the_double_loop(field):
    ratings, places = field
    exp, score = placement_terms(np.array(ratings), np.array(places))
    want_e, want_s = naive_terms(ratings, places)
    assert exp.tolist() == pytest.approx(want_e, rel=1e-12, abs=1e-12)
    assert score.tolist() == want_s
    n = len(ratings)
    assert sum(score.tolist()) == n * (n - 1) / 2
    assert sum(exp.tolist()) == pytest.approx(n * (n - 1) / 2, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1000, 4000, allow_nan=False), min_size=1, max_size=20),
       st.lists(st.tuples(st.floats(-1000, 4000, allow_nan=False), st.floats(0.5, 64)), min_size=1, max_size=5))
def test_vectorised_k_equals_k_from_bands(ratings, bands):
    lows = sorted({low for low, _ in bands})
    k_bands = [[low, k] for low, (_, k) in zip(lows, bands)]
    system = Placement(k_bands=k_bands)
    assert system.k_of(np.array(ratings)).tolist() == [k_from_bands(k_bands, r) for r in ratings]


NAMES = [f"p{i}" for i in range(8)]

matches = st.lists(
    st.lists(st.tuples(st.sampled_from(NAMES), st.integers(1, 5)), min_size=2, max_size=8,
             unique_by=lambda t: t[0]),
    min_size=1, max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(matches, st.floats(0.5, 64), st.booleans())
def test_without_the_floor_and_with_one_k_a_match_is_zero_sum(games, k, normalize):
    system = Placement(floor=-1e9, k=k, normalize=normalize, initial=1000)
    events = system.rate([to_match(i, [n for n, _ in g], [p for _, p in g]) for i, g in enumerate(games)])
    for event, g in zip(events, games, strict=True):
        n = len(g)
        assert sum(c.delta for c in event.changes) == pytest.approx(0, abs=1e-9)
        assert sum(c.terms["score"] for c in event.changes) == n * (n - 1) / 2
        assert sum(c.terms["expected"] for c in event.changes) == pytest.approx(n * (n - 1) / 2, abs=1e-9)
        assert {c.terms["k"] for c in event.changes} == {k / (n - 1) if normalize else k}


@settings(max_examples=150, deadline=None)
@given(matches, st.sampled_from([0, 1500, 2100, 2400]), st.sampled_from([0, -1e9, 1000]))
def test_history_equals_a_naive_replay(games, initial, floor):
    """Every player from their pre-match rating, K by their own band, then the floor."""
    events = Placement(initial=initial, floor=floor).rate(
        [to_match(i, [n for n, _ in g], [p for _, p in g]) for i, g in enumerate(games)])
    ratings: dict[str, float] = {}
    for event, g in zip(events, games, strict=True):
        names, places = [n for n, _ in g], [p for _, p in g]
        before = [ratings.get(n, initial) for n in names]
        k = [32 if r < 2100 else 24 if r < 2400 else 16 for r in before]
        exp, score = naive_terms(before, places)
        after = [max(floor, r + kk * (s - e)) for r, kk, s, e in zip(before, k, score, exp)]
        assert [c.player for c in event.changes] == names
        assert [c.before for c in event.changes] == pytest.approx(before, abs=1e-9)
        assert [c.after for c in event.changes] == pytest.approx(after, abs=1e-9)
        assert [c.terms["k"] for c in event.changes] == k
        assert all(c.after >= floor and math.isfinite(c.after) for c in event.changes)
        ratings.update(zip(names, after))


def test_a_100_player_match_equals_the_double_loop():
    rng = random.Random(7)
    names = [f"p{i}" for i in range(100)]
    places = [rng.randint(1, 60) for _ in names]                 # ties too
    first = to_match(0, names, list(range(1, 101)))
    second = to_match(1, names[::-1], places)
    e1, e2 = Placement(floor=-1e9, normalize=True).rate([first, second])
    ratings = [c.after for c in e1.changes][::-1]
    assert len(set(ratings)) == 100
    want = naive_after(ratings, places, 32 / 99, floor=-1e9)
    assert [c.after for c in e2.changes] == pytest.approx(want, abs=1e-9)
    assert e2.changes[0].terms["k"] == pytest.approx(32 / 99)


def test_a_100_player_match_through_a_build(make_site):
    players = [(f"p{i:03d}", i + 1) for i in range(100)]
    upset = [(name, 101 - place) for name, place in players]         # the order turned around
    root = site(make_site, br_match("2024-01-01", *players), br_match("2024-01-02", *upset))
    data = league_data(root, "br")
    rows = event_rows(data, "m-2")
    assert [r["player"] for r in rows] == [name for name, _ in players]
    before = [float(r["rating_before"]) for r in rows]
    assert max(before) == 32 * (99 - 49.5) and before.count(0.0) == 50      # all in the K 32 band
    want = naive_after(before, [place for _, place in upset], 32)
    assert want[-1] > 1000 and want[0] == 0.0
    assert [float(r["rating_after"]) for r in rows] == pytest.approx(want, abs=2e-6)
    assert len(rows_of(data, "standings")) == 100


# --- validation ------------------------------------------------------------------------------

BR_M = "matches/br/m.toml"
P0 = '{ name = "A", place = 1 }'
P1 = '{ name = "B", place = 2 }'


def bad_site(make_site, p1=P1, *, extra="", params=""):
    """match #2 of m.toml holds the planted problem.

    line 1-3: match #1, 5: [[match]], 6: played, 7: extra, 8: players = [, 9: player 0, 10: player 1, 11: ]
    """
    first = br_match("2024-01-01", ("A", 1), ("B", 2), ("C", 2))
    second = f"[[match]]\nplayed = 2024-01-02\n{extra}\nplayers = [\n  {P0},\n  {p1}\n]\n"
    return make_site({"matches/br/league.toml": league_toml("placement", params=params),
                      "matches/br/m.toml": first + second})


@pytest.mark.parametrize("p1, field, line, says", [
    ('{ name = "B" }', "players[1].place", 10, ("missing", "integer from 1 to 1,000,000")),
    ('{ name = "B", place = 0 }', "players[1].place", 10, ("integer from 1 to 1,000,000", "0")),
    ('{ name = "B", place = -1 }', "players[1].place", 10, ("integer from 1 to 1,000,000", "-1")),
    ('{ name = "B", place = 1.5 }', "players[1].place", 10, ("integer from 1 to 1,000,000", "1.5")),
    ('{ name = "B", place = "1" }', "players[1].place", 10,
     ("integer from 1 to 1,000,000", 'got the text "1" (numbers are written without quotes)')),
    ('{ name = "B", place = true }', "players[1].place", 10, ("integer from 1 to 1,000,000", "got true")),
    ('{ name = "B", place = 2, score = 1 }', "players[1].score", 10, ("unknown", "name", "place")),
    ('{ place = 2 }', "players[1].name", 10, ("missing",)),
    ('{ name = "A", place = 2 }', "players[1].name", 10, ("once",)),
    ("# nobody", "players", 8, ("at least 2", "got 1")),
])
def test_bad_players(make_site, p1, field, line, says):
    (p,) = problems_of(bad_site(make_site, p1))
    assert (p.file, p.line, p.field) == (BR_M, line, field), str(p)
    assert "#2" in p.match
    assert all(w in p.message for w in says), p.message


@pytest.mark.parametrize("extra, says", [
    ('platform = ""', ("non-empty string",)),
    ('platform = "   "', ("non-empty string",)),
    ("platform = 5", ("string", "got 5")),
    ("platform = [\"pc\"]", ("string", 'got the list ["pc"]')),
])
def test_bad_platform(make_site, extra, says):
    (p,) = problems_of(bad_site(make_site, extra=extra))
    assert (p.file, p.line, p.field) == (BR_M, 7, "platform"), str(p)
    assert all(w in p.message for w in says), p.message


def test_unknown_match_key_names_platform(make_site):
    (p,) = problems_of(bad_site(make_site, extra='challenger = "A"'))
    assert (p.line, p.field) == (7, "challenger")
    assert "platform" in p.message and "players" in p.message


def test_every_problem_of_a_match_in_one_run(make_site):
    root = bad_site(make_site, '{ name = "B", place = 0, kills = 3 }', extra="platform = 3")
    found = {(p.line, p.field) for p in problems_of(root)}
    assert found == {(7, "platform"), (10, "players[1].place"), (10, "players[1].kills")}


@pytest.mark.parametrize("params, field, says", [
    ("k_bands = [[2100, 24], [0, 32]]", "params.k_bands", ("increasing",)),
    ('k_bands = [[0, "x"]]', "params.k_bands", ("[min_rating, k]",)),
    ('normalize = "yes"', "params.normalize", ("true or false",)),
    ("normalize = 1", "params.normalize", ("true or false",)),
    ("k = 0", "params.k", ("> 0", '"bands"')),
    ('k = "fide"', "params.k", ('"bands"',)),
    ('floor = "none"', "params.floor", ("number",)),
    ("floor = true", "params.floor", ("number",)),
    ("initial = true", "params.initial", ("number",)),
    ("ping_influence = 300", "params.ping_influence", ("unknown", "normalize", "k_bands", "floor")),
])
def test_bad_params(make_site, params, field, says):
    problems = problems_of(bad_site(make_site, params=params))
    (p,) = problems
    assert (p.file, p.line, p.field) == ("matches/br/league.toml", 5, field), str(p)
    assert all(w in p.message for w in says), p.message


@pytest.mark.parametrize("p1, extra, params", [
    ('{ name = "B", place = 1 }', "", ""),                          # a tie for first
    ('{ name = "B", place = 99 }', 'platform = "console"', ""),
    (P1, 'platform = " pc "', "initial = 1500\nfloor = -100.5\nk = 20\nnormalize = true"),
    (P1, "", 'k = "bands"\nk_bands = [[-100, 50]]\nnormalize = false'),
])
def test_valid_edge_cases(make_site, p1, extra, params):
    check(bad_site(make_site, p1, extra=extra, params=params))


def test_many_players_are_allowed(make_site):
    players = [(f"p{i}", 1 + i % 7) for i in range(150)]
    (league,) = check(site(make_site, br_match(day(0), *players))).leagues
    assert len(league.matches[0].players) == 150
