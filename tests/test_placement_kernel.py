"""The placement kernel (sitegen/rating/placement_kernel.py).

The oracle is the per-match replay placement had before the kernel: ``Placement.step`` copied
here as it was (``placement_terms``' n x n matrix, NumPy's row sums), run through
sitegen/rating/replay.py. Random leagues of lobbies with ties and random options are rated by
both, the kernel plain and compiled by numba (``arrays.MODE`` "off" / "on"), and every event
must be the same to the last bit and the same types (Python floats; -0.0 is not 0.0).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import bit_key, same_bits
from sitegen.rating import placement_kernel
from sitegen.rating.base import Change, Match, RatingEvent
from sitegen.rating.placement import Placement, placement_terms
from sitegen.rating.replay import Round, replay

START = datetime(2024, 1, 1, tzinfo=timezone.utc)
NAMES = tuple(f"P{i:02d}" for i in range(24))


class StepPlacement:
    """``Placement.start`` and ``Placement.step`` before the kernel."""

    def __init__(self, system: Placement) -> None:
        self.s = system

    def rounds(self, matches: Sequence[Match]) -> Iterator[Round]:
        for i, m in enumerate(matches):
            yield Round(m.id, i, (m,))

    def start(self, player: str) -> float:
        return self.s.start(player)

    def step(self, round: Round, before: Mapping[str, float]) -> tuple[RatingEvent, dict[str, float]]:
        (m,) = round.matches
        n = len(m.players)
        held = [before[p] for p in m.players]
        places = np.array([e["place"] for e in m.entries])
        r = np.array(held)
        exp, score = placement_terms(r, places)
        ks = self.s.k_of(r)
        if self.s.normalize:
            ks /= n - 1
        after = np.maximum(float(self.s.floor), r + ks * (score - exp)).tolist()
        changes = tuple(
            Change(p, b, a, {"expected": e, "score": s, "k": k})
            for p, b, a, e, s, k in zip(m.players, held, after, exp.tolist(), score.tolist(), ks.tolist())
        )
        return round.event(changes), dict(zip(m.players, after))


def lobby(i: int, players: Sequence[str], places: Sequence[int]) -> Match:
    return Match(f"m{i + 1}", START + timedelta(hours=i), "matches/l.toml", i + 1, None, tuple(players),
                 tuple({"place": p} for p in places))


def event_key(events: Sequence[RatingEvent]) -> list[Any]:
    """Everything an event holds, floats by their bits and every number by its type."""
    out: list[Any] = []
    for e in events:
        out.append((e.key, e.played, e.matches))
        for c in e.changes:
            values = (c.before, c.after, *c.terms.values())
            out.append((c.player, tuple(c.terms), tuple(type(v).__name__ for v in values),
                        tuple(bit_key(v) for v in values)))
    return out


def assert_same(system: Placement, matches: Sequence[Match]) -> None:
    want = replay(StepPlacement(system), matches)
    got = system.rate(matches)
    assert event_key(got) == event_key(want)
    assert got == want


def league(rng: np.random.Generator, count: int, size: int, players: int, tie: float = 0.1) -> list[Match]:
    """``count`` lobbies of ``size`` from ``players`` names; about ``tie`` of neighbours share a place."""
    out = []
    for i in range(count):
        who = rng.choice(players, size, replace=False)
        places, place = [], 1
        for n in range(size):
            if n and rng.random() >= tie:
                place = n + 1
            places.append(place)
        out.append(lobby(i, [f"Q{p:04d}" for p in who], places))
    return out


# --- random leagues -------------------------------------------------------------------------------

# Past MAX_COUNT and int64 too: validation refuses them, rate() ranks them by order alone. (Not
# 2^63 to 2^64: the old np.array(places) made those float64, where 2^63 - 3 and 2^63 tie.)
places_st = st.integers(1, 6) | st.integers(1, 1_000_000) | st.integers(2 ** 64 + 1, 2 ** 70)
ratings_st = st.sampled_from([0.0, -0.0, 1500.0, 2100.0, 2400.0, 2399.999999]) | st.floats(
    -2000, 5000, allow_nan=False) | st.integers(-3000, 3000)


@st.composite
def leagues(draw: st.DrawFn) -> tuple[dict[str, Any], list[Match]]:
    bands = sorted({draw(st.integers(-500, 3000)) for _ in range(draw(st.integers(1, 4)))})
    k = draw(st.sampled_from(["bands", 32, 0.5, 100.0]))
    params: dict[str, Any] = {
        "initial": draw(ratings_st), "floor": draw(st.sampled_from([0, 0.0, -0.0, -100.0, 1000, -1e6])),
        "k": k, "k_bands": [[b, draw(st.sampled_from([8, 16, 24.5, 32]))] for b in bands],
        "normalize": draw(st.booleans()),
        "starts": {p: draw(ratings_st) for p in draw(st.lists(st.sampled_from(NAMES), max_size=6, unique=True))},
    }
    matches = []
    for i in range(draw(st.integers(0, 12))):
        players = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=len(NAMES), unique=True))
        # Small places tie often; any place up to MAX_COUNT otherwise.
        places = draw(st.lists(places_st, min_size=len(players), max_size=len(players)))
        matches.append(lobby(i, players, places))
    return params, matches


@settings(max_examples=150, deadline=None)
@given(leagues())
def test_kernel_equals_the_per_match_replay(kernel_mode, case):
    params, matches = case
    assert_same(Placement(**params), matches)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from([2, 3, 7, 8, 9, 16, 17, 100]), st.floats(0.0, 1.0))
def test_kernel_equals_the_replay_on_skill_driven_lobbies(kernel_mode, seed, size, tie):
    """Ratings that spread out over a history, as a real league's do: their differences reach
    every part of the logistic curve."""
    rng = np.random.default_rng(seed)
    assert_same(Placement(initial=1500), league(rng, 25, size, max(size, 40), tie))


# --- the parts of the arithmetic -------------------------------------------------------------

@pytest.mark.parametrize("size", [127, 128, 129, 136, 255, 257, 300, 520])
def test_lobbies_past_numpys_block_of_128(kernel_mode, size):
    """NumPy sums a row above 128 numbers as two halves (split at a multiple of 8), recursively:
    the kernel's pairwise sum follows the split."""
    rng = np.random.default_rng(size)
    matches = league(rng, 3, size, size + 20)
    assert_same(Placement(initial=1500, starts={m: float(rng.normal(1500, 400)) for m in matches[0].players}),
                matches)


def test_a_one_v_one_league_in_long_waves(kernel_mode):
    """Many players, lobbies of two: a wave holds dozens of matches, each rated from the ratings
    the matches before it left."""
    rng = np.random.default_rng(7)
    assert_same(Placement(initial=1000, k=40), league(rng, 600, 2, 300, tie=0.2))


def test_waves_of_one_lobby(kernel_mode, monkeypatch):
    """A buffer that holds one lobby's exponents: every wave one lobby, the same numbers."""
    monkeypatch.setattr(placement_kernel, "BUFFER", 1)
    rng = np.random.default_rng(8)
    assert_same(Placement(initial=1000), league(rng, 40, 5, 12) + league(rng, 5, 2, 3))


def test_a_player_back_in_the_next_lobby(kernel_mode):
    """The next lobby shares a player: a new wave, from the rating the last lobby left."""
    matches = [lobby(0, ["A", "B", "C"], [1, 2, 3]), lobby(1, ["D", "E"], [2, 1]),
               lobby(2, ["C", "F"], [1, 1]), lobby(3, ["A", "F", "D"], [3, 1, 2])]
    assert_same(Placement(initial=1200), matches)


def test_ratings_far_apart_overflow_the_power(kernel_mode):
    """10^x past the largest float is inf in NumPy (a warning, not an error): E of that duel 0."""
    matches = [lobby(0, ["A", "B", "C"], [2, 1, 1]), lobby(1, ["A", "B"], [1, 2])]
    system = Placement(starts={"A": 1_000_000, "B": -1_000_000, "C": 0}, floor=-1e6)
    with np.errstate(over="ignore"):
        assert_same(system, matches)
    assert system.rate(matches)[1].changes[1].terms["expected"] == 0.0


def test_a_floor_of_negative_zero_is_kept_as_numpy_maximum_keeps_it(kernel_mode):
    """np.maximum(floor, R'): the floor itself below it, R' from it up (0.0 at a floor of -0.0)."""
    matches = [lobby(0, ["A", "B"], [2, 1]), lobby(1, ["A", "B"], [1, 1])]
    system = Placement(starts={"A": -50.0, "B": 0.0}, floor=-0.0, k=32)
    assert_same(system, matches)
    first, second = system.rate(matches)
    assert same_bits(first.changes[0].after, -0.0)          # -50 + 32 (0 - E) under the floor
    assert first.changes[1].after > 0.0


def test_no_matches():
    assert Placement().rate([]) == []


def test_array_base_power_is_numpys_scalar_base_power():
    """The kernel raises a contiguous array of tens, placement_terms a broadcast 10.0: NumPy's
    SIMD power gives the same bits either way (and both differ from the C library's pow)."""
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.normal(0, s, 200_000) for s in (0.01, 1, 5, 50)] + [rng.uniform(300, 320, 1000)])
    with np.errstate(over="ignore"):
        scalar = 10.0 ** x
        array = np.power(np.full(len(x), placement_kernel.TEN), x)
    assert (scalar.view(np.int64) == array.view(np.int64)).all()


def test_the_scores_count_places_alone():
    """Lobbies' S from one sort of (lobby, place) keys: placement_terms' S, places up to MAX_COUNT."""
    matches = [lobby(0, ["A", "B", "C", "D"], [1_000_000, 1, 1_000_000, 2]), lobby(1, ["A", "B"], [5, 5]),
               lobby(2, ["A", "B", "C"], [1, 2, 3])]
    cols = placement_kernel.Lobbies(Placement(), matches)
    assert cols.score.tolist() == [0.5, 3.0, 0.5, 2.0, 0.5, 0.5, 2.0, 1.0, 0.0]
    assert cols.duels == 12 + 2 + 6


def test_compiled_from_the_work_of_20000_elo_matches(monkeypatch):
    """arrays.kernel weighs a placement league by its duels and its entries: 100 lobbies of 100
    players are 218,000 matches' work (compiled in "auto"), 100 lobbies of 2 are 440, 20,000 of
    2 are 88,000 (compiled: the plain kernel takes about five elo matches' time for each)."""
    asked = []
    monkeypatch.setattr(placement_kernel.arrays, "kernel", lambda fn, work: asked.append(work) or fn)
    rng = np.random.default_rng(13)
    Placement().rate(league(rng, 100, 100, 150))
    Placement().rate(league(rng, 100, 2, 150))
    Placement().rate(league(rng, 20_000, 2, 1000))
    assert asked == [218_000, 440, 88_000]
