"""The `lunaro` system (docs/curators, the Lunaro rating specification).

Hand-worked example (K = 50, both players at rank 1500):
  a is the host (ping 0) and wins 22-19; b plays at ping 180.
  A_a = 1500 * sech(0 / 300)   = 1500
  A_b = 1500 * sech(180 / 300) = 1500 * sech(0.6) = 1500 / cosh(0.6)
      = 1500 / 1.185465 = 1265.33
  E_a = 1 / (1 + 10^((1265.33 - 1500) / 400)) = 1 / (1 + 10^-0.58669) = 0.7943
  E_b = 1 - E_a = 0.2057
  S_a = 22 / (22 + 19) = 22 / 41 = 0.5366,  S_b = 19 / 41 = 0.4634
  R'_a = 1500 + 50 (0.5366 - 0.7943) = 1500 - 12.88 = 1487.12 -> 1487
  R'_b = 1500 + 50 (0.4634 - 0.2057) = 1500 + 12.88 = 1512.88 -> 1513
So the host wins the match but loses 13 points: at 180 ms b was expected to
score only about 21% of the goals and scored 46%.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import build_data, day, league_data, league_toml, lunaro_match, rows_of
from sitegen.rating.base import Match, k_from_bands, round_half_away
from sitegen.rating.lunaro import Lunaro, ability, goal_share, sech


def lunaro_site(make_site, matches, params="", players_toml=None):
    files = {"matches/duel/league.toml": league_toml("lunaro", params=params),
             "matches/duel/games.toml": "".join(matches)}
    if players_toml:
        files["matches/players.toml"] = players_toml
    return make_site(files)


def test_hand_worked_example_pieces():
    assert sech(0.6) == pytest.approx(2 / (math.exp(0.6) + math.exp(-0.6)))
    assert ability(1500, 180, 300) == pytest.approx(1265.33, abs=0.005)
    assert ability(1500, 0, 300) == 1500
    assert goal_share(22, 19) == pytest.approx(0.5366, abs=5e-5)
    assert goal_share(0, 0) == 0.5


def test_hand_worked_example_through_a_real_build(make_site, tmp_path):
    root = lunaro_site(make_site, [lunaro_match("2024-03-01", "Host", 22, 0, "Far", 19, 180, host=0)])
    data = build_data(root, "duel", tmp_path / "out")
    host, far = rows_of(data, "changes")
    assert (host["player"], far["player"]) == ("Host", "Far")
    assert (host["rating_before"], host["rating_after"], host["delta"]) == ("1500", "1487", "-13")
    assert (far["rating_before"], far["rating_after"], far["delta"]) == ("1500", "1513", "13")
    assert host["ability"] == "1500.000000"
    assert float(far["ability"]) == pytest.approx(1265.33, abs=0.005)
    assert float(host["expected"]) == pytest.approx(0.7943, abs=5e-5)
    assert float(far["expected"]) == pytest.approx(0.2057, abs=5e-5)
    assert float(host["score"]) == pytest.approx(22 / 41, abs=5e-7)
    assert host["k"] == far["k"] == "50.000000"
    assert rows_of(data, "standings") == [
        {"rank": "1", "player": "Far", "rating": "1513", "games": "1"},
        {"rank": "2", "player": "Host", "rating": "1487", "games": "1"},
    ]


def test_ratings_are_integers_in_csv_and_json(make_site, tmp_path):
    matches = [lunaro_match(day(i), "a", 20, 0, "b", i, 35 * i, host=0) for i in range(8)]
    data = build_data(lunaro_site(make_site, matches), "duel", tmp_path / "out")
    for r in rows_of(data, "changes"):
        for col in ("rating_before", "rating_after", "delta"):
            assert re.fullmatch(r"-?\d+", r[col]), (col, r[col])
        for col in ("ability", "expected", "score", "k"):
            assert re.fullmatch(r"-?\d+\.\d{6}", r[col]), (col, r[col])
    for r in rows_of(data, "standings"):
        assert re.fullmatch(r"\d+", r["rating"])
    import json
    for obj in json.loads(data["changes.json"]):
        assert all(type(obj[c]) is int for c in ("rating_before", "rating_after", "delta"))
    for obj in json.loads(data["standings.json"]):
        assert type(obj["rating"]) is int


# --- K ------------------------------------------------------------------------------------

@pytest.mark.parametrize("rating, k", [(0, 40), (1, 40), (1499, 40), (1500, 20), (2000, 20),
                                       (2499, 20), (2500, 10), (4000, 10)])
def test_k_bands_default(rating, k):
    assert Lunaro(k="bands").k_for(rating) == k
    assert k_from_bands([[0, 40], [1500, 20], [2500, 10]], rating) == k
    assert Lunaro().k_for(rating) == 50          # the seed's unified K


@pytest.mark.parametrize("initial, k", [(1499, 40), (1500, 20), (2499, 20), (2500, 10)])
def test_k_bands_in_a_build_follow_rank_not_ability(make_site, initial, k):
    # Far plays at 250 ms: ability ~ 0.73 R, in a lower band than R; K must follow R.
    root = lunaro_site(make_site, [lunaro_match("2024-03-01", "Host", 20, 0, "Far", 10, 250, host=0)],
                       params=f'k = "bands"\ninitial = {initial}')
    host, far = rows_of(league_data(root, "duel"), "changes")
    assert float(far["ability"]) < initial - 300
    assert float(host["k"]) == float(far["k"]) == k


def test_k_bands_custom_and_changing_with_rating(make_site):
    # Bands [[0, 100], [1550, 10]]: a's first win (K 100) lifts a over 1550, then a's K is 10.
    matches = [lunaro_match(day(i), "a", 20, 0, "b" + str(i), 0, 0) for i in range(3)]
    root = lunaro_site(make_site, matches, params='k = "bands"\nk_bands = [[0, 100], [1550, 10]]')
    rows = [r for r in rows_of(league_data(root, "duel"), "changes") if r["player"] == "a"]
    assert [float(r["k"]) for r in rows] == [100.0, 10.0, 10.0]
    assert rows[0]["rating_after"] == "1550"           # 1500 + 100 (1 - 0.5)


def test_fixed_k(make_site):
    root = lunaro_site(make_site, [lunaro_match("2024-01-01", "a", 20, 0, "b", 0, 0)], params="k = 8")
    a, b = rows_of(league_data(root, "duel"), "changes")
    assert (a["rating_after"], b["rating_after"], a["k"]) == ("1504", "1496", "8.000000")


def test_nil_nil_scores_half_each(make_site):
    root = lunaro_site(make_site, [lunaro_match("2024-01-01", "a", 0, 0, "b", 0, 0)])
    a, b = rows_of(league_data(root, "duel"), "changes")
    assert a["score"] == b["score"] == "0.500000"
    assert (a["delta"], b["delta"]) == ("0", "0")


def test_nil_nil_with_ping_moves_towards_the_lagging_player(make_site):
    # 0-0 is S 0.5; the host was expected to do better, so it loses points.
    root = lunaro_site(make_site, [lunaro_match("2024-01-01", "a", 0, 0, "b", 0, 300, host=0)])
    a, b = rows_of(league_data(root, "duel"), "changes")
    assert a["score"] == b["score"] == "0.500000"
    assert int(a["delta"]) < 0 < int(b["delta"])


# --- rounding and the floor ----------------------------------------------------------------

@pytest.mark.parametrize("x, want", [(0.5, 1), (1.5, 2), (2.5, 3), (-0.5, -1), (-1.5, -2), (-2.5, -3),
                                     (0.49999, 0), (-0.49999, 0), (1487.5, 1488), (1512.4, 1512),
                                     (0.0, 0), (3.0, 3)])
def test_round_half_away_from_zero(x, want):
    got = round_half_away(x)
    assert got == want
    assert type(got) is int


def test_rounding_half_away_in_a_build(make_site):
    # Equal ratings and pings, K 1, 1-0: R' = 1500 +- 0.5 exactly: 1500.5 -> 1501 and
    # 1499.5 -> 1500 (banker's rounding would give 1500 and 1500).
    root = lunaro_site(make_site, [lunaro_match("2024-01-01", "a", 1, 0, "b", 0, 0)], params="k = 1")
    a, b = rows_of(league_data(root, "duel"), "changes")
    assert (a["rating_after"], b["rating_after"]) == ("1501", "1500")


def test_rating_never_goes_below_zero(make_site):
    # initial 5, K 50: a loses 0-20 to an equal player: 5 + 50 (0 - 0.5) = -20 -> 0; again -> 0.
    matches = [lunaro_match(day(0), "a", 0, 0, "b", 20, 0), lunaro_match(day(1), "a", 0, 0, "c", 20, 0)]
    root = lunaro_site(make_site, matches, params="initial = 5")
    data = league_data(root, "duel")
    rows = [r for r in rows_of(data, "changes") if r["player"] == "a"]
    assert [(r["rating_before"], r["rating_after"], r["delta"]) for r in rows] == [
        ("5", "0", "-5"), ("0", "0", "0")]
    assert {r["player"]: r["rating"] for r in rows_of(data, "standings")}["a"] == "0"


def test_a_player_at_zero_can_gain(make_site):
    root = lunaro_site(make_site, [lunaro_match(day(0), "a", 20, 0, "b", 0, 0)], params="initial = 0")
    a, b = rows_of(league_data(root, "duel"), "changes")
    # A = 0 for both: E 0.5, so a gains 25 and b stays at the floor.
    assert (a["rating_after"], b["rating_after"]) == ("25", "0")


# --- properties ---------------------------------------------------------------------------

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
NAMES = ["a", "b", "c"]


@st.composite
def lunaro_games(draw, equal_pings=False):
    n = draw(st.integers(1, 30))
    out = []
    for i in range(n):
        a, b = draw(st.permutations(NAMES))[:2]
        winner = draw(st.integers(0, 22))
        other = draw(st.integers(0, 19)) if winner >= 20 else draw(st.integers(0, 22))
        goals = [winner, other] if draw(st.booleans()) else [other, winner]
        if goals[0] >= 20 and goals[1] >= 20:
            goals[1] = 19
        if equal_pings:
            ping = draw(st.integers(0, 400))
            pings = [ping, ping]
            host = None
        else:
            host = draw(st.sampled_from([None, 0, 1]))
            pings = [draw(st.integers(0, 1000)), draw(st.integers(0, 1000))]
            if host is not None:
                pings[host] = 0
        entries = tuple({"goals": goals[j], "ping": pings[j], "host": host == j} for j in range(2))
        out.append(Match(id=f"m-{i + 1}", played=T0 + timedelta(hours=i), file="matches/x/m.toml",
                         position=i + 1, notes=None, players=(a, b), entries=entries))
    return out


lunaro_params = st.fixed_dictionaries({
    "initial": st.integers(0, 3000),
    "k": st.one_of(st.just("bands"), st.integers(1, 200), st.floats(0.1, 200)),
    "ping_influence": st.one_of(st.integers(1, 1000), st.floats(0.5, 1000)),
})


@settings(max_examples=200, deadline=None)
@given(lunaro_games(), lunaro_params)
def test_ratings_are_whole_numbers_at_least_zero(matches, params):
    system = Lunaro(**params)
    events = system.rate(matches)
    assert len(events) == len(matches)
    for event in events:
        for c in event.changes:
            assert type(c.after) is int and c.after >= 0
            assert type(c.before) is int and c.before >= 0
            assert c.after == max(0, round_half_away(
                c.before + c.terms["k"] * (c.terms["score"] - c.terms["expected"])))
    for s in system.standings(events):
        assert type(s.rating) is int and s.rating >= 0


@settings(max_examples=200, deadline=None)
@given(lunaro_games(equal_pings=True), st.integers(300, 3000), st.integers(1, 100))
def test_equal_pings_and_fixed_k_are_zero_sum_up_to_rounding(matches, initial, k):
    events = Lunaro(initial=initial, k=k).rate(matches)
    for event in events:
        a, b = event.changes
        assert a.terms["expected"] + b.terms["expected"] == pytest.approx(1, abs=1e-12)
        if a.after == 0 or b.after == 0:
            continue        # the floor at 0 breaks zero-sum by design
        assert abs(a.delta + b.delta) <= 1
