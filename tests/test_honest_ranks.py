"""Honest ranks (sitegen/model/honest.py): intervals and ranks grouped by significance.

- the grouping rule on hand-made intervals (Chatbot Arena's: 1 + the number of players
  whose lower bound is above this player's upper bound);
- the bootstrap is the same on every build of the same input, and changes with the input;
- every interval holds the rating it belongs to;
- the batched placement replay equals the engine's Placement.rate on the same resample.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.model.board import build_board
from sitegen.commands.build import build, check, rate
from sitegen.model.history import rate_league
from sitegen.rating.placement import placement_replays
from sitegen.model.honest import (
    bootstrap, grouped_ranks, percentile_interval, python_resamples, resamples, seed_of,
)
from sitegen.model.views import league_view

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


def test_seed_follows_the_input():
    rated = {r.league.config.slug: r for r in rate(check(FIXTURE))}["duel"]
    matches = rated.league.matches
    seed = seed_of("duel", matches)
    assert seed == seed_of("duel", tuple(matches))
    assert seed != seed_of("duel2", matches)
    assert seed != seed_of("duel", matches[:-1])
    draws = [d.tolist() for d in resamples(10, 3, 7)]
    assert draws == [d.tolist() for d in resamples(10, 3, 7)] != [d.tolist() for d in resamples(10, 3, 8)]
    assert all(d == sorted(d) and len(d) == 10 for d in draws)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 300), st.integers(0, 4), st.one_of(st.integers(0, 2 ** 32 + 5), st.integers(0, 2 ** 64 - 1)))
def test_resamples_are_the_draws_of_python_random(n, count, seed):
    # numpy's generator, started from Python's state for the seed, draws the same numbers:
    # the intervals of every league stay what they were.
    assert [d.tolist() for d in resamples(n, count, seed)] == python_resamples(n, count, seed)


def test_resamples_of_a_big_league_are_the_draws_of_python_random():
    assert [d.tolist() for d in resamples(100_000, 2, 2 ** 63 + 12345)] == python_resamples(100_000, 2, 2 ** 63 + 12345)


def test_percentile_interval_is_widened_to_the_rating():
    assert percentile_interval([1.0, 2.0, 3.0], 10.0)[1] == 10.0
    assert percentile_interval([5.0, 6.0, 7.0], 0.0)[0] == 0.0
    assert percentile_interval([], 4.0) == (4.0, 4.0)
    lo, hi = percentile_interval([float(x) for x in range(101)], 50.0)
    assert (lo, hi) == pytest.approx((2.5, 97.5))


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
    draws = resamples(len(matches), 4, 99)
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
