"""Honest ranks (sitegen/model/honest.py): intervals and ranks grouped by significance.

- the grouping rule on hand-made intervals (Chatbot Arena's: 1 + the number of players
  whose lower bound is above this player's upper bound);
- the bootstrap is the same on every build of the same input; its Poisson weights are the
  definition's (``python_weight``), have Poisson(1)'s mean and variance, and a match appended to
  a league changes no earlier weight and no interval but its players';
- every interval holds the rating it belongs to;
- the batched placement replay equals the engine's Placement.rate on the same resample.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.model.board import build_board
from sitegen.commands.build import build, check, rate
from sitegen.model.history import rate_league
from sitegen.rating.placement import placement_replays
from sitegen.model.honest import (
    POISSON_CDF, bootstrap, grouped_ranks, league_key, percentile_interval, percentile_intervals, python_resamples,
    python_weight, resamples,
)
from sitegen.model.views import league_view
from helpers import bit_key, season_league

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "small"


def boards(root: Path) -> dict:
    site = check(root)
    return {r.league.config.slug: build_board(league_view(r, site.roster),
                                              site.settings.board_for(r.league.config.slug))
            for r in rate(site)}


def test_grouping_on_hand_cases():
    # A clear leader, two who overlap each other, and one clearly behind both of them.
    intervals = {"A": (100, 120), "B": (80, 99), "C": (85, 98), "D": (10, 50)}
    assert grouped_ranks(intervals) == {"A": 1, "B": 2, "C": 2, "D": 4}
    # Chains do not merge: E overlaps F and F overlaps G, but G is significantly below E.
    assert grouped_ranks({"E": (50, 70), "F": (40, 60), "G": (30, 45)}) == {"E": 1, "F": 1, "G": 2}
    # Touching bounds are not significant (strictly above).
    assert grouped_ranks({"H": (10, 20), "I": (0, 10)}) == {"H": 1, "I": 1}
    assert grouped_ranks({}) == {}


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.integers(0, 30), st.tuples(st.floats(-100, 100), st.floats(0, 50)), max_size=30))
def test_grouping_is_the_definition_and_never_worse_than_the_plain_rank(raw):
    intervals = {n: (c - w, c + w) for n, (c, w) in raw.items()}
    got = grouped_ranks(intervals)
    for n, (lo, hi) in intervals.items():
        assert got[n] == 1 + sum(1 for lo2, _ in intervals.values() if lo2 > hi)
        mid = (lo + hi) / 2
        plain = 1 + sum(1 for lo2, hi2 in intervals.values() if (lo2 + hi2) / 2 > mid)
        assert got[n] <= plain


@pytest.mark.parametrize("slug", ["duel", "ladder", "royale"])
def test_bootstrap_intervals_hold_the_rating_and_repeat(slug):
    site = check(FIXTURE)
    rated = {r.league.config.slug: r for r in rate(site)}[slug]
    first = bootstrap(rated)
    assert set(first) == {r.standing.player for r in rated.standings}
    for r in rated.standings:
        lo, hi = first[r.standing.player]
        assert lo <= r.standing.rating <= hi
    # A second replay of a freshly read site draws the same resamples.
    again = {r.league.config.slug: r for r in rate(check(FIXTURE))}[slug]
    assert bootstrap(again) == first


def test_no_bootstrap_for_glicko2_and_arena():
    rated = {r.league.config.slug: r for r in rate(check(FIXTURE))}
    assert bootstrap(rated["wvw"]) == {} and bootstrap(rated["arena"]) == {}


def test_board_rows_carry_interval_and_grouped_rank():
    b = boards(FIXTURE)
    assert b["arena"].interval_kind is None and all(r.sure_rank is None for r in b["arena"].rows)
    assert b["wvw"].interval_kind == "rd"
    for r in b["wvw"].rows:
        assert r.interval == (r.low, r.high)
    for slug in ("duel", "ladder", "royale"):
        assert b[slug].interval_kind == "bootstrap"
    for board in b.values():
        if board.interval_kind is None:
            continue
        active = {r.player.name: r.interval for r in board.active}
        for r in board.active:
            assert r.sure_rank == grouped_ranks(active)[r.player.name]
            assert r.sure_rank <= r.rank
            assert r.interval[0] <= r.player.rating <= r.interval[1]


def test_key_follows_the_slug_only():
    assert league_key("duel") == league_key("duel") != league_key("duel2")
    # The definition's arithmetic, by hand: SHA-256 of the slug, its first 8 bytes big-endian.
    assert league_key("") == 0xE3B0C44298FC1C14
    draws = [d.tolist() for d in resamples(10, 3, 7)]
    assert draws == [d.tolist() for d in resamples(10, 3, 7)] != [d.tolist() for d in resamples(10, 3, 8)]
    assert all(d == sorted(d) and set(d) <= set(range(10)) for d in draws)


def test_weight_by_hand():
    # SplitMix64's first output from seed 0 is 0xE220A8397B1DCDAF (its reference sequence): the
    # weight of (r, i) = (0, 0) under key 0 is the inverse CDF of its top 53 bits.
    u = (0xE220A8397B1DCDAF >> 11) / 2 ** 53
    assert python_weight(0, 0, 0) == next(k for k, c in enumerate(POISSON_CDF) if u < c)
    # Resample 1 counts on from 2**40, so its first weight is output number 2**40 of the stream.
    assert python_weight(5, 1, 0) == python_weight(5, 0, 2 ** 40)
    assert POISSON_CDF[0] == pytest.approx(0.36787944117144233, abs=0) and POISSON_CDF[-1] == 1.0
    assert list(POISSON_CDF) == sorted(set(POISSON_CDF)) and len(POISSON_CDF) == 18


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 300), st.integers(0, 4), st.one_of(st.integers(0, 2 ** 32 + 5), st.integers(0, 2 ** 64 - 1)))
def test_resamples_are_the_weights_of_the_definition(n, count, key):
    # numpy's uint64 arithmetic wraps as the definition masks: the same weights.
    assert [d.tolist() for d in resamples(n, count, key)] == python_resamples(n, count, key)


def test_resamples_of_a_big_league_are_the_weights_of_the_definition():
    key = 2 ** 64 - 12345
    assert [d.tolist() for d in resamples(100_000, 2, key)] == python_resamples(100_000, 2, key)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 200), st.integers(1, 50), st.integers(1, 4), st.integers(0, 2 ** 64 - 1))
def test_an_appended_match_changes_no_earlier_weight(n, more, count, key):
    before, after = resamples(n, count, key), resamples(n + more, count, key)
    for old, new in zip(before, after, strict=True):
        # Every earlier position as many times as before; the new ones only after them.
        assert new[:len(old)].tolist() == old.tolist() and (new[len(old):] >= n).all()


def test_weights_have_the_mean_and_variance_of_poisson_1():
    # 400 resamples of 5,000 matches: 2 million weights under a fixed key (the same every run).
    w = np.concatenate([np.bincount(d, minlength=5000) for d in resamples(5000, 400, league_key("duel"))])
    assert w.mean() == pytest.approx(1.0, abs=0.005) and w.var() == pytest.approx(1.0, abs=0.01)
    assert (w == 0).mean() == pytest.approx(np.exp(-1), abs=0.003)     # ~63% of matches in a resample
    assert w.max() < len(POISSON_CDF)


def _league_files(system: str, rounds: int) -> list[str]:
    """``rounds`` matches of a small league, a day apart, among six players."""
    names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]
    out = []
    for i in range(rounds):
        a, b, c = names[i % 6], names[(i * 5 + 1) % 6], names[(i + 2) % 6]
        if system == "elo":
            fields = [(a, f"score = {i % 2}"), (b, f"score = {1 - i % 2}")]
        elif system == "lunaro":
            fields = [(a, f"goals = {i % 4}, ping = 30"), (b, f"goals = {i % 3}, ping = 40")]
        else:
            fields = [(a, "place = 2"), (b, "place = 1"), (c, "place = 3")]
        entries = ", ".join(f'{{ name = "{name}", {rest} }}' for name, rest in fields)
        out.append(f"[[match]]\nplayed = 2024-{1 + i // 28:02d}-{1 + i % 28:02d}\nplayers = [{entries}]\n")
    return out


@pytest.mark.parametrize("system", ["elo", "lunaro", "placement"])
def test_an_appended_match_changes_only_its_players_intervals(make_site, system):
    from helpers import league_toml
    lines = _league_files(system, 41)
    intervals, last = [], None
    for count in (40, 41):
        root = make_site({"matches/x/league.toml": league_toml(system), "matches/x/m.toml": "\n".join(lines[:count])})
        rated = {r.league.config.slug: r for r in rate(check(root))}["x"]
        intervals.append(bootstrap(rated))
        last = rated.league.matches[-1]
    before, after = intervals
    assert last is not None and set(after) == set(before) | set(last.players)
    changed = {p for p in before if before[p] != after[p]}
    # The new match's players get new ratings in the resamples that play it, so new intervals.
    assert changed == set(last.players) & set(before)
    assert set(before) - changed


def test_percentile_interval_is_widened_to_the_rating():
    assert percentile_interval([1.0, 2.0, 3.0], 10.0)[1] == 10.0
    assert percentile_interval([5.0, 6.0, 7.0], 0.0)[0] == 0.0
    assert percentile_interval([], 4.0) == (4.0, 4.0)
    lo, hi = percentile_interval([float(x) for x in range(101)], 50.0)
    assert (lo, hi) == pytest.approx((2.5, 97.5))


samples_of = st.one_of(
    st.lists(st.sampled_from([1500.0, 1499.5, 1510.25, -0.0, 0.0]), max_size=12),      # ties
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), max_size=90))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=3), st.tuples(samples_of, st.one_of(
    st.floats(-1e6, 1e6, allow_nan=False), st.integers(-5, 5000))), max_size=30),
    st.lists(st.text(min_size=1, max_size=3), max_size=4))
def test_every_player_s_interval_at_once_is_each_one_s(players: dict, unsampled: list[str]) -> None:
    """percentile_intervals, the players of one number of samples stacked, gives each player
    what percentile_interval gives them alone, to the bit and type (an int rating kept)."""
    samples = {name: values for name, (values, _) in players.items()}
    ratings = [(name, rating) for name, (_, rating) in players.items()]
    ratings += [(name, 1500) for name in unsampled if name not in players]     # no samples at all
    got = percentile_intervals(samples, ratings)
    want = {name: percentile_interval(samples.get(name, ()), rating) for name, rating in ratings}
    assert list(got) == list(want)
    assert [tuple(map(bit_key, v)) + tuple(map(type, v)) for v in got.values()] == \
        [tuple(map(bit_key, v)) + tuple(map(type, v)) for v in want.values()]


@pytest.mark.parametrize("params", ["", "normalize = true\nfloor = 3\ninitial = 10", "k = 20"])
def test_batched_placement_replay_equals_the_engine(make_site, params):
    from helpers import league_toml
    lines = []
    names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]
    for i in range(12):
        lobby = names[i % 3: i % 3 + 3 + i % 4]
        places = [(j * 7 + i) % len(lobby) + 1 for j in range(len(lobby))]
        lines.append(f"[[match]]\nplayed = 2024-01-{i + 1:02d}\nplayers = ["
                     + ", ".join(f'{{ name = "{n}", place = {p} }}' for n, p in zip(lobby, places)) + "]\n")
    root = make_site({"matches/r/league.toml": league_toml("placement", params=params),
                      "matches/r/m.toml": "\n".join(lines)})
    rated = {r.league.config.slug: r for r in rate(check(root))}["r"]
    system = rated.league.config.system
    matches = rated.league.matches
    # Resamples of different lengths, and an empty one: the shorter are padded by a match of nobody.
    draws = [*resamples(len(matches), 4, 99), np.array([], dtype=np.int64)]
    assert len({len(d) for d in draws}) > 2
    batched = placement_replays(system, matches, draws)
    for b, idx in enumerate(draws):
        replayed = rate_league(replace(rated.league, matches=tuple(matches[i] for i in idx)))
        for r in replayed.standings:
            # The resample's ratings of this player, in draw order: the b-th among the draws holding them.
            holding = [k for k, d in enumerate(draws) if any(r.standing.player in matches[i].players for i in d)]
            assert batched[r.standing.player][holding.index(b)] == pytest.approx(r.standing.rating, abs=1e-9)


def test_two_builds_are_byte_identical(tmp_path):
    build(FIXTURE, tmp_path / "a")
    build(FIXTURE, tmp_path / "b")
    for slug in ("duel", "ladder", "royale"):
        a = (tmp_path / "a" / "leagues" / slug / "index.html").read_bytes()
        assert a == (tmp_path / "b" / "leagues" / slug / "index.html").read_bytes()
        assert b"Rank (CI)" in a and b"95% interval of the rating: " in a


@pytest.fixture
def elo_leagues(checked) -> list:
    """The elo leagues of the small fixture and the demo's ranked battle, checked once a session
    (conftest's ``checked``); a league is frozen, each test rates it."""
    from helpers import REPO
    leagues = [lg for lg in checked(FIXTURE).leagues if lg.config.system_name == "elo"]
    leagues += [lg for lg in checked(REPO).leagues if lg.config.slug == "ranked-battle"]
    assert leagues
    return leagues


@pytest.mark.parametrize("cut", [0.0, 0.3, 0.5, 0.9, 1.0])
def test_replays_taken_up_after_appended_matches_are_whole_replays(elo_leagues, cut: float) -> None:
    """A league's bootstrap resumed from the replays of its first matches (the rebuild after
    matches are appended) gives every interval a whole replay gives, to the last bit."""
    from sitegen.load.validate import League
    from sitegen.model.honest import bootstrap_from
    for league in elo_leagues:
        whole = rate_league(league)
        expected = bootstrap(whole)
        first = max(1, int(len(league.matches) * cut))
        _, states = bootstrap_from(rate_league(League(league.config, league.matches[:first])), None)
        assert states is not None and states.matches == first
        resumed, after = bootstrap_from(whole, states)
        assert resumed == expected
        assert after.matches == len(league.matches)
        # Taken up again with nothing new: the same intervals.
        assert bootstrap_from(whole, after)[0] == expected


def test_replays_taken_up_go_on_in_the_season_they_stood_in(tmp_path) -> None:
    """Under season reversion, matches after the cut that name no season are played in the one
    the replay stood in: each resample's, which its own draws decide."""
    from sitegen.load.validate import League
    from sitegen.model.honest import bootstrap_from
    root = season_league(tmp_path / "site")
    league = check(root, cache=False).leagues[0]
    whole = rate_league(league)
    expected = bootstrap(whole)
    for first in range(5, 40, 3):
        _, states = bootstrap_from(rate_league(League(league.config, league.matches[:first])), None)
        assert bootstrap_from(whole, states)[0] == expected, first


def test_replays_of_other_players_are_not_taken_up(elo_leagues) -> None:
    from sitegen.load.validate import League
    from sitegen.model.honest import bootstrap_from
    league = elo_leagues[0]
    whole = rate_league(league)
    # The replays of the history without its first match: its players came in another order.
    _, states = bootstrap_from(rate_league(League(league.config, league.matches[1:])), None)
    assert states.names != tuple(dict.fromkeys(p for m in league.matches for p in m.players))[:len(states.names)]
    assert bootstrap_from(whole, states)[0] == bootstrap(whole)
