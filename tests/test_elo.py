"""The `elo` system (docs/curators, the ranked-battle rating method).

The seed's worked example: A (1500) instigates a match against B (1600) with
K = 20. E_A = 1 / (1 + 10^((1600 - 1500) / 400)) = 1 / (1 + 10^0.25) = 0.359935
(the seed rounds it to 0.360), E_B = 0.640065.
  A wins:  A 1500 + 20 (1 - 0.360) = 1512.8,   B 1600 + 20 (0 - 0.640) = 1587.2
  draw:    A 1500 + 20 (0.5 - 0.360) = 1502.8, B 1600 + 20 (0.5 - 0.640) = 1597.2
  A loses: A 1500 + 20 (0 - 0.360) = 1492.8,   B 1600 + 20 (1 - 0.640) = 1607.2
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import build_data, day, elo_match, league_data, league_toml, rows_of
from sitegen.rating.base import Match, expected
from sitegen.rating.elo import Elo, new_ratings

E_A = 1 / (1 + 10 ** 0.25)          # 0.3599350001971149...

WORKED = [
    # score of A, score of B, A after (seed), B after (seed)
    (1, 0, 1512.8, 1587.2),
    (0.5, 0.5, 1502.8, 1597.2),
    (0, 1, 1492.8, 1607.2),
]


def test_expected_score_of_the_worked_example():
    assert expected(1500, 1600) == pytest.approx(0.360, abs=5e-4)
    assert expected(1600, 1500) == pytest.approx(0.640, abs=5e-4)
    assert expected(1500, 1600) + expected(1600, 1500) == pytest.approx(1.0, abs=1e-12)
    # 200 points higher: ~76% (the seed's own illustration)
    assert expected(1700, 1500) == pytest.approx(0.76, abs=0.005)


@pytest.mark.parametrize("s_a, s_b, seed_a, seed_b", WORKED)
def test_worked_example_pure(s_a, s_b, seed_a, seed_b):
    a, b = new_ratings(1500, 1600, s_a, 20, 20)
    assert a == pytest.approx(seed_a, abs=0.05)
    assert b == pytest.approx(seed_b, abs=0.05)
    assert a == pytest.approx(1500 + 20 * (s_a - E_A), abs=1e-9)
    assert b == pytest.approx(1600 + 20 * (s_b - (1 - E_A)), abs=1e-9)
    assert (a - 1500) + (b - 1600) == pytest.approx(0, abs=1e-9)


def worked_site(make_site, s_a, s_b, *, order="AB", challenger=None):
    """B reaches 1600 and A stays at 1500 in their first (K 200) game; then A meets B with K 20.

    provisional_games = 1 makes the first game of everyone K 200 (k_provisional) and
    every later game K 20 (k_standard): B beats C (+100, E 0.5), A draws D (no change).
    """
    a, b = ("A", s_a), ("B", s_b)
    first, second = (a, b) if order == "AB" else (b, a)
    text = (elo_match("2024-01-01", "B", 1, "C", 0)
            + elo_match("2024-01-02", "A", 0.5, "D", 0.5)
            + elo_match("2024-01-03", first[0], first[1], second[0], second[1], challenger=challenger))
    return make_site({
        "matches/ranked/league.toml": league_toml(
            "elo", params="provisional_games = 1\nk_provisional = 200\nk_standard = 20"),
        "matches/ranked/m.toml": text,
    })


@pytest.mark.parametrize("s_a, s_b, seed_a, seed_b", WORKED)
def test_worked_example_through_a_real_build(make_site, tmp_path, s_a, s_b, seed_a, seed_b):
    root = worked_site(make_site, s_a, s_b)
    data = build_data(root, "ranked", tmp_path / "out")
    rows = [r for r in rows_of(data, "changes") if r["event"] == "m-3"]
    assert [r["player"] for r in rows] == ["A", "B"]
    a, b = rows
    assert (a["rating_before"], b["rating_before"]) == ("1500.000000", "1600.000000")
    assert float(a["rating_after"]) == pytest.approx(seed_a, abs=0.05)
    assert float(b["rating_after"]) == pytest.approx(seed_b, abs=0.05)
    assert float(a["rating_after"]) == pytest.approx(1500 + 20 * (s_a - E_A), abs=1e-6)
    assert float(b["rating_after"]) == pytest.approx(1600 + 20 * (s_b - (1 - E_A)), abs=1e-6)
    assert a["k"] == b["k"] == "20.000000"
    assert a["expected"] == f"{E_A:.6f}" == "0.359935"
    assert b["expected"] == f"{1 - E_A:.6f}"
    assert (float(a["score"]), float(b["score"])) == (s_a, s_b)
    assert float(a["delta"]) + float(b["delta"]) == pytest.approx(0, abs=2e-6)
    standings = {r["player"]: r for r in rows_of(data, "standings")}
    assert float(standings["A"]["rating"]) == pytest.approx(seed_a, abs=0.05)
    assert standings["A"]["games"] == "2"


@pytest.mark.parametrize("s_a, s_b, seed_a, seed_b", WORKED)
def test_worked_example_with_the_challenger_listed_second(make_site, s_a, s_b, seed_a, seed_b):
    root = worked_site(make_site, s_a, s_b, order="BA", challenger="A")
    rows = {r["player"]: r for r in rows_of(league_data(root, "ranked"), "changes") if r["event"] == "m-3"}
    assert float(rows["A"]["rating_after"]) == pytest.approx(seed_a, abs=0.05)
    assert float(rows["B"]["rating_after"]) == pytest.approx(seed_b, abs=0.05)


# --- the FIDE K rule --------------------------------------------------------------------

def k_column(data, player):
    return [float(r["k"]) for r in rows_of(data, "changes") if r["player"] == player]


def series_site(make_site, results, *, params="", players_toml=None, player="S", prefix="O"):
    """``player`` plays one game against a fresh opponent per result (1 win, 0 loss, 0.5 draw)."""
    text = "".join(elo_match(day(i), player, s, f"{prefix}{i}", 1 - s) for i, s in enumerate(results))
    files = {"matches/ranked/league.toml": league_toml("elo", params=params),
             "matches/ranked/games.toml": text}
    if players_toml:
        files["matches/players.toml"] = players_toml
    return make_site(files)


def test_fide_k_40_for_games_1_to_30_then_20(make_site):
    root = series_site(make_site, [1, 0] * 16, params='k_of = "each"')
    data = league_data(root, "ranked")
    assert k_column(data, "S") == [40.0] * 30 + [20.0] * 2
    # every fresh opponent plays their first game: K 40
    assert {float(r["k"]) for r in rows_of(data, "changes") if r["player"] != "S"} == {40.0}


def test_fide_k_10_once_2400_reached_in_provisional_games_and_after_falling_back(make_site):
    # initial 2390: the first win (K 40, E 0.5) takes S to exactly 2410, then S loses every game.
    root = series_site(make_site, [1] + [0] * 31, params='initial = 2390\nk_of = "each"')
    data = league_data(root, "ranked")
    rows = [r for r in rows_of(data, "changes") if r["player"] == "S"]
    assert float(rows[0]["rating_after"]) == pytest.approx(2410)
    assert k_column(data, "S") == [40.0] * 30 + [10.0] * 2
    assert float(rows[30]["rating_before"]) < 2400          # fell back, K stays 10


def test_fide_exactly_2400_counts_as_reached(make_site):
    root = series_site(make_site, [1] + [0] * 30, params='initial = 2380\nk_of = "each"')
    data = league_data(root, "ranked")
    rows = [r for r in rows_of(data, "changes") if r["player"] == "S"]
    assert rows[0]["rating_after"] == "2400.000000"
    assert k_column(data, "S")[30] == 10.0


@pytest.mark.parametrize("initial, k31", [(2400, 10.0), (2500, 10.0), (2399, 20.0), (1500, 20.0)])
def test_fide_initial_rating_at_or_above_2400_counts_as_reached(make_site, initial, k31):
    root = series_site(make_site, [0] * 31, params=f'initial = {initial}\nk_of = "each"')
    ks = k_column(league_data(root, "ranked"), "S")
    assert ks[:30] == [40.0] * 30
    assert ks[30] == k31


@pytest.mark.parametrize("initial, k1", [(2400, 10.0), (2399.5, 20.0)])
def test_fide_initial_rating_counts_from_the_first_game(make_site, initial, k1):
    # Without provisional games the very first K already depends on the initial rating.
    root = series_site(make_site, [0, 0], params=f'initial = {initial}\nk_of = "each"\nprovisional_games = 0')
    assert k_column(league_data(root, "ranked"), "S") == [k1, k1]


def test_fide_parameters_are_used(make_site):
    params = ('k_of = "each"\nprovisional_games = 2\nk_provisional = 30\nk_standard = 15\n'
              'k_master = 5\nmaster_rating = 1510')
    # S: 1500 -> win (K 30, +15) 1515 reaches 1510 -> then K 5 from game 3 on.
    root = series_site(make_site, [1, 0, 0, 0], params=params)
    assert k_column(league_data(root, "ranked"), "S") == [30.0, 30.0, 5.0, 5.0]
    root = series_site(make_site, [0, 0, 0], params=params)
    assert k_column(league_data(root, "ranked"), "S") == [30.0, 30.0, 15.0]


def veteran_site(make_site, params, tail, players_toml=None):
    """V plays 30 games against fresh opponents (K 40 each), then the matches of ``tail``."""
    text = "".join(elo_match(day(i), "V", s, f"O{i}", 1 - s) for i, s in enumerate([1, 0] * 15))
    text += "".join(tail)
    files = {"matches/ranked/league.toml": league_toml("elo", params=params),
             "matches/ranked/games.toml": text}
    if players_toml:
        files["matches/players.toml"] = players_toml
    return make_site(files)


def event_rows(data, event):
    return {r["player"]: r for r in rows_of(data, "changes") if r["event"] == event}


def test_k_of_challenger_uses_the_challengers_k_for_both(make_site):
    tail = [
        elo_match(day(100), "N1", 1, "V", 0, challenger="V", id="v-challenges"),   # V: K 20
        elo_match(day(101), "N2", 1, "V", 0, id="n-challenges"),                   # default: first, K 40
        elo_match(day(102), "V", 0, "N3", 1, id="v-first"),                        # default: V, K 20
    ]
    data = league_data(veteran_site(make_site, "", tail), "ranked")
    for event, k in (("v-challenges", 20.0), ("n-challenges", 40.0), ("v-first", 20.0)):
        rows = event_rows(data, event)
        assert {float(r["k"]) for r in rows.values()} == {k}, event
        assert sum(float(r["delta"]) for r in rows.values()) == pytest.approx(0, abs=2e-6)


def test_challenger_given_by_an_alias(make_site):
    players = '[players."V"]\naliases = ["V_old"]\n'
    tail = [elo_match(day(100), "N1", 1, "V", 0, challenger="V_old", id="alias-challenger"),
            elo_match(day(101), "N2", 1, "V_old", 0, challenger="V", id="alias-player")]
    data = league_data(veteran_site(make_site, "", tail, players_toml=players), "ranked")
    for event in ("alias-challenger", "alias-player"):
        rows = event_rows(data, event)
        assert set(rows) == {"N1" if event == "alias-challenger" else "N2", "V"}
        assert {float(r["k"]) for r in rows.values()} == {20.0}, event


def test_k_of_each_uses_each_players_own_k(make_site):
    tail = [elo_match(day(100), "N1", 1, "V", 0, challenger="V", id="each")]
    rows = event_rows(league_data(veteran_site(make_site, 'k_of = "each"', tail), "ranked"), "each")
    assert float(rows["V"]["k"]) == 20.0
    assert float(rows["N1"]["k"]) == 40.0
    # same expected scores (both 1500 +- small), but V moves half as far as N1
    assert float(rows["N1"]["delta"]) > 0 > float(rows["V"]["delta"])
    assert float(rows["V"]["delta"]) == pytest.approx(-20 * float(rows["V"]["expected"]), abs=5e-5)
    assert float(rows["N1"]["delta"]) == pytest.approx(40 * (1 - float(rows["N1"]["expected"])), abs=5e-5)


@pytest.mark.parametrize("k_of", ["challenger", "each"])
def test_fixed_numeric_k(make_site, k_of):
    root = series_site(make_site, [1, 0] * 16, params=f'k = 32\nk_of = "{k_of}"')
    rows = rows_of(league_data(root, "ranked"), "changes")
    assert {r["k"] for r in rows} == {"32.000000"}
    first = rows[:2]     # both 1500: E 0.5, win +16 / loss -16
    assert [r["delta"] for r in first] == ["16.000000", "-16.000000"]


def test_fractional_fixed_k(make_site):
    root = series_site(make_site, [0.5], params="k = 12.5\ninitial = 1000")
    rows = rows_of(league_data(root, "ranked"), "changes")
    assert [r["rating_after"] for r in rows] == ["1000.000000", "1000.000000"]
    assert {r["k"] for r in rows} == {"12.500000"}


# --- properties ---------------------------------------------------------------------

NAMES = ["ann", "bob", "cy", "dee"]
T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)

games = st.lists(
    st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES), st.sampled_from([1, 0.5, 0]), st.booleans())
    .filter(lambda g: g[0] != g[1]),
    min_size=1, max_size=40,
)
elo_params = st.fixed_dictionaries({
    "k": st.one_of(st.just("fide"), st.integers(1, 64), st.floats(0.5, 64)),
    "initial": st.sampled_from([0, 1500, 2390, 2400]),
    "provisional_games": st.integers(0, 5),
    "master_rating": st.sampled_from([1500, 1520, 2400]),
})


def to_matches(games, *, swap=False):
    out = []
    for i, (a, b, s_a, a_challenges) in enumerate(games):
        challenger = a if a_challenges else b
        players, entries = (a, b), ({"score": s_a}, {"score": 1 - s_a})
        if swap:
            players, entries = players[::-1], entries[::-1]
        out.append(Match(id=f"m-{i + 1}", played=T0 + timedelta(hours=i), file="matches/x/m.toml",
                         position=i + 1, notes=None, players=players, entries=entries,
                         extra={"challenger": challenger}))
    return out


@settings(max_examples=150, deadline=None)
@given(games, elo_params)
def test_zero_sum_with_the_challengers_k(games, params):
    events = Elo(**params, k_of="challenger").rate(to_matches(games))
    assert len(events) == len(games)
    for event in events:
        a, b = event.changes
        assert a.delta + b.delta == pytest.approx(0, abs=1e-9)
        assert a.terms["k"] == b.terms["k"]
        assert a.terms["expected"] + b.terms["expected"] == pytest.approx(1, abs=1e-12)
        assert all(math.isfinite(c.after) for c in event.changes)


@settings(max_examples=150, deadline=None)
@given(games, elo_params, st.sampled_from(["challenger", "each"]))
def test_swapping_the_two_players_mirrors_the_changes(games, params, k_of):
    system = Elo(**params, k_of=k_of)
    plain = system.rate(to_matches(games))
    swapped = system.rate(to_matches(games, swap=True))
    for e1, e2 in zip(plain, swapped, strict=True):
        for c1, c2 in zip(e1.changes, reversed(e2.changes), strict=True):
            assert c1.player == c2.player
            assert c1.before == pytest.approx(c2.before, abs=1e-9)
            assert c1.after == pytest.approx(c2.after, abs=1e-9)
            for term in ("expected", "score", "k"):
                assert c1.terms[term] == pytest.approx(c2.terms[term], abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(games)
def test_fide_k_follows_games_played_and_2400_reached(games):
    """Replay the rule independently: K 40 before 30 games, then 10 if 2400 was ever reached, else 20."""
    events = Elo(k_of="each", initial=2380, provisional_games=3).rate(to_matches(games))
    played: dict[str, int] = {}
    reached: dict[str, bool] = {}
    for event in events:
        for c in event.changes:
            n = played.get(c.player, 0)
            top = reached.get(c.player, c.before >= 2400)
            want = 40 if n < 3 else (10 if top else 20)
            assert c.terms["k"] == want
            played[c.player] = n + 1
            reached[c.player] = top or c.after >= 2400


def test_the_sentence_under_a_match_table_names_only_the_rules_the_league_uses():
    assert Elo().explanation() == Elo.explain
    assert Elo().explanation(weighted=True) == ("Each change is K × weight × (actual − expected); both players "
                                                "use the challenger's K.")
    nfl = Elo(k=20, k_of="each", home_advantage=65, margin="538-nfl", season_reversion=1 / 3)
    assert nfl.explanation() == (
        "Each change is K × M × (actual − expected); M is the 538-nfl margin multiplier of the score "
        "difference; the home side's expected score counts 65 extra points; a player's first match of a "
        "new season starts 33% of the way back to 1505.")


def test_a_league_label_names_its_own_k_rule_and_options():
    assert Elo().league_label() == Elo.label == "Elo (FIDE K, challenger K)"
    assert Elo(k=20, k_of="each", home_advantage=65, margin="538-nfl", season_reversion=1 / 3).league_label() == (
        "Elo (K = 20, home advantage 65, 538-nfl margin, season reversion)")
