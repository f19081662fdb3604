"""The elo and lunaro array kernels (sitegen/rating/elo_kernel.py, lunaro_kernel.py).

The oracle is the per-match replay the two systems had before the kernels: ``Elo.step`` and
``Lunaro.step`` copied here as they were, run through sitegen/rating/replay.py. Random
leagues with random options are rated by both, the kernel plain and compiled by numba
(``arrays.MODE`` "off" / "on"), and the events must be the same to the last bit and the
same types (``repr``: an int start stays an int, -0.0 is not 0.0); a league the margin
rule or a huge K cannot rate must stop at the same match with the same message. The
bootstrap's ``resampled_ratings`` must equal ``standings(rate(resample))`` resample by
resample, leaving out the ones that diverge.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.rating import arrays
from sitegen.rating.base import (
    Change, Match, RatingDiverged, RatingEvent, expected, round_half_away,
)
from sitegen.rating.elo import Elo, margin_multiplier, new_ratings
from sitegen.rating.lunaro import Lunaro, ability, goal_share
from sitegen.rating.replay import Round, replay

START = datetime(2024, 1, 1, tzinfo=timezone.utc)
NAMES = ("Ann", "Bo", "Cy", "Dee", "Ed", "Flo")


# --- the oracle: the per-match replay as it was -----------------------------------------------

@dataclass(frozen=True, slots=True)
class EloState:
    rating: float
    games: int = 0
    master: bool | None = None
    season: str | None = None


class StepElo:
    """``Elo.rounds``, ``Elo.start`` and ``Elo.step`` before the kernel, around an Elo's parameters."""

    def __init__(self, system: Elo) -> None:
        self.s = system

    def rounds(self, matches: Sequence[Match]) -> Iterator[Round]:
        league_season: str | None = None
        for i, m in enumerate(matches):
            league_season = m.extra.get("season", league_season)
            yield Round(m.id, i, (m,), league_season)

    def start(self, player: str) -> EloState:
        return EloState(self.s.starts.get(player, self.s.initial))

    def step(self, round: Round, before: Mapping[str, EloState]) -> tuple[RatingEvent, dict[str, EloState]]:
        sy = self.s
        (m,) = round.matches
        a, b = m.players
        season = round.note
        w, mean = float(sy.season_reversion), float(sy.reversion_mean)
        reverted: dict[str, float] = {}
        now: dict[str, float] = {}
        for p in (a, b):
            r = before[p].rating
            if w > 0 and before[p].games > 0 and before[p].season != season:
                reverted[p] = r
                r = (1.0 - w) * r + w * mean
            now[p] = r
        ra, rb = now[a], now[b]
        ks = []
        for p, r in ((a, ra), (b, rb)):
            if sy.k == "fide":
                master = before[p].master
                ks.append(sy.fide_k(before[p].games, r >= sy.master_rating if master is None else master))
            else:
                ks.append(float(sy.k))
        challenger = None
        if sy.k_of == "challenger":
            challenger = m.extra.get("challenger") or a
            ci = m.players.index(challenger)
            ks = [ks[ci], ks[ci]]
        home = m.extra.get("home")
        h_a = h_b = 0.0
        if home is not None:
            h_a, h_b = (sy.home_advantage, 0.0) if home == a else (0.0, sy.home_advantage)
            exp_a = expected(ra + h_a, rb + h_b)
        else:
            exp_a = expected(ra, rb)
        s_a = float(m.entries[0]["score"])
        multiplier = self._multiplier(m, ra + h_a, rb + h_b, s_a)
        weight = float(m.extra.get("weight", 1))
        after_a, after_b = new_ratings(ra, rb, s_a, ks[0], ks[1], e_a=exp_a, factor=weight * multiplier)
        if not (math.isfinite(after_a) and math.isfinite(after_b)):
            raise RatingDiverged(m.id, "a rating", "(K × weight × margin multiplier is too large); "
                                                    "lower k or the match's weight")
        shared = {"challenger": challenger, "home": home, "margin_multiplier": multiplier, "weight": weight}
        changes = [
            Change(a, ra, after_a, {"expected": exp_a, "score": s_a, "k": ks[0], **shared,
                                    "reverted_from": reverted.get(a)}),
            Change(b, rb, after_b, {"expected": 1.0 - exp_a, "score": 1.0 - s_a, "k": ks[1], **shared,
                                    "reverted_from": reverted.get(b)}),
        ]
        after: dict[str, EloState] = {}
        for c, r in zip(changes, (ra, rb)):
            held = before[c.player].master
            reached = r >= sy.master_rating if held is None else held
            after[c.player] = EloState(c.after, before[c.player].games + 1,
                                       reached or c.after >= sy.master_rating, season)
        return round.event(changes), after

    def _multiplier(self, m: Match, ra: float, rb: float, s_a: float) -> float:
        sy = self.s
        if sy.margin == "none":
            return 1.0
        p_a, p_b = (float(e["points"]) for e in m.entries)
        d = ra - rb if s_a == 1 else rb - ra
        try:
            return margin_multiplier(sy.margin, abs(p_a - p_b), d, s_a == 0.5)
        except ValueError:
            limit = 2200 if sy.margin == "538-nfl" else 1250
            raise RatingDiverged(
                m.id, f"the {sy.margin} margin multiplier",
                f"(the winner was rated {-d:,.0f} points below the loser, home advantage included; the "
                f"formula holds only while that gap is under {limit:,}); rate this league without a "
                "margin rule, or check the match") from None


class StepLunaro:
    """``Lunaro.start`` and ``Lunaro.step`` before the kernel."""

    def __init__(self, system: Lunaro) -> None:
        self.s = system

    def rounds(self, matches: Sequence[Match]) -> Iterator[Round]:
        for i, m in enumerate(matches):
            yield Round(m.id, i, (m,))

    def start(self, player: str) -> int:
        return self.s.starts.get(player, self.s.initial)

    def step(self, round: Round, before: Mapping[str, int]) -> tuple[RatingEvent, dict[str, int]]:
        sy = self.s
        (m,) = round.matches
        (a, b), (ea, eb) = m.players, m.entries
        ra, rb = before[a], before[b]
        aa = ability(ra, ea["ping"], sy.ping_influence)
        ab = ability(rb, eb["ping"], sy.ping_influence)
        exp_a = expected(aa, ab)
        s_a = goal_share(ea["goals"], eb["goals"])
        changes = []
        for name, r, abil, exp, s in ((a, ra, aa, exp_a, s_a), (b, rb, ab, 1.0 - exp_a, 1.0 - s_a)):
            k = sy.k_for(r)
            after = max(0, round_half_away(r + k * (s - exp)))
            changes.append(Change(name, r, after, {"ability": abil, "expected": exp, "score": s, "k": k}))
        return round.event(changes), {c.player: int(c.after) for c in changes}


def outcome(fn: Any) -> tuple[Any, ...]:
    """What a rating call gives, comparable bit for bit and type for type."""
    try:
        return ("rated", repr(fn()))
    except RatingDiverged as exc:
        return ("diverged", exc.event, exc.what, exc.advice)


# --- random leagues ---------------------------------------------------------------------------

def match(i: int, players: tuple[str, str], entries: tuple[dict[str, Any], dict[str, Any]],
          extra: dict[str, Any] | None = None) -> Match:
    return Match(f"m{i}", START + timedelta(hours=i), "games.toml", i + 1, None, players, entries, extra or {})


# The strategies drawn for every match of a league, made once (hypothesis validates each new
# strategy, which cost more than the drawing): the same draws, in the same order.
PAIRS = st.lists(st.sampled_from(NAMES), min_size=2, max_size=2, unique=True)
SCORES = st.sampled_from([1, 0.5, 0, 1.0, 0.0])
LOW_POINTS = st.sampled_from([0, 1, 2.5, 7])
MARGINS = st.sampled_from([0, 1, 3, 28.5])
SEASONS = st.sampled_from(["2023", "2024", "2025-26"])
WEIGHTS = st.sampled_from([1, 0.5, 2, 1000, 3.25])
COIN = st.booleans()
GOALS = st.integers(0, 22)
GOALS_AFTER_20 = st.integers(0, 19)
HOSTS = st.sampled_from([None, 0, 1])
PINGS = st.sampled_from([0, 1, 35, 180, 1_000_000])


@st.composite
def elo_leagues(draw: st.DrawFn) -> tuple[Elo, list[Match]]:
    margin = draw(st.sampled_from(["none", "538-nfl", "538-nba"]))
    ratings = st.one_of(st.sampled_from([1500, 0, 2400, 1505]), st.floats(0, 3000, allow_nan=False))
    starts = draw(st.dictionaries(st.sampled_from(NAMES), ratings, max_size=3))
    system = Elo(
        initial=draw(ratings),
        k=draw(st.one_of(st.just("fide"), st.sampled_from([10, 32, 0.5, 10_000]),
                         st.floats(0.1, 10_000, allow_nan=False))),
        k_of=draw(st.sampled_from(["challenger", "each"])),
        provisional_games=draw(st.integers(0, 4)),
        k_provisional=draw(st.sampled_from([40, 60.5, 10_000])),
        k_standard=draw(st.sampled_from([20, 24])), k_master=draw(st.sampled_from([10, 16.5])),
        master_rating=draw(st.sampled_from([2400, 1510, 1500.5, 0])),
        home_advantage=draw(st.sampled_from([0, 100, 65.5, 2000])),
        margin=margin,
        season_reversion=draw(st.sampled_from([0, 1 / 3, 0.25, 1])),
        reversion_mean=draw(st.sampled_from([1505, 0, 1234.5])),
        starts=starts)
    matches = []
    for i in range(draw(st.integers(1, 30))):
        a, b = draw(PAIRS)
        s = draw(SCORES)
        ea: dict[str, Any] = {"score": s}
        eb: dict[str, Any] = {"score": 1 - s}
        if margin != "none":
            low = draw(LOW_POINTS)
            high = low if s == 0.5 else low + draw(MARGINS)
            ea["points"], eb["points"] = (high, low) if s == 1 else (low, high) if s == 0 else (low, low)
        extra: dict[str, Any] = {}
        for key, value in (("challenger", st.sampled_from([a, b])), ("home", st.sampled_from([a, b])),
                           ("season", SEASONS), ("weight", WEIGHTS)):
            if draw(COIN):
                extra[key] = draw(value)
        matches.append(match(i, (a, b), (ea, eb), extra))
    return system, matches


@st.composite
def lunaro_leagues(draw: st.DrawFn) -> tuple[Lunaro, list[Match]]:
    starts = draw(st.dictionaries(st.sampled_from(NAMES), st.integers(0, 5000), max_size=3))
    system = Lunaro(initial=draw(st.sampled_from([1500, 0, 2500, 7])),
                    k=draw(st.one_of(st.just("bands"), st.sampled_from([50, 0.5, 10_000]),
                                     st.floats(0.1, 10_000, allow_nan=False))),
                    k_bands=draw(st.sampled_from([((0, 40), (1500, 20), (2500, 10)), ((0, 100.5),),
                                                  ((1000, 30), (1499.5, 5))])),
                    ping_influence=draw(st.sampled_from([300, 1, 57.5, 1_000_000])),
                    starts=starts)
    matches = []
    for i in range(draw(st.integers(1, 30))):
        a, b = draw(PAIRS)
        ga = draw(GOALS)
        gb = draw(GOALS_AFTER_20 if ga >= 20 else GOALS)
        host = draw(HOSTS)
        pings = [0 if host == k else draw(PINGS) for k in (0, 1)]
        matches.append(match(i, (a, b), ({"goals": ga, "ping": pings[0], "host": host == 0},
                                         {"goals": gb, "ping": pings[1], "host": host == 1})))
    return system, matches


def draws_of(data: st.DataObject, n: int) -> list[list[int]]:
    """A few resamples as honest.py draws them: each position 0..n-1 any number of times (none
    at all included), in order, so resamples differ in length and one may be empty."""
    count = data.draw(st.integers(1, 6))
    return [[i for i, w in enumerate(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
             for _ in range(w)] for _ in range(count)]


def one_by_one(system: Any, oracle: Any, matches: Sequence[Match], draws: Sequence[Sequence[int]]) -> dict:
    """honest.py's one-by-one path, each resample rated by the oracle."""
    samples: dict[str, list[float]] = {}
    for idx in draws:
        try:
            standings = system.standings(replay(oracle, [matches[i] for i in idx]))
        except RatingDiverged:
            continue
        for s in standings:
            samples.setdefault(s.player, []).append(s.rating)
    return samples


# --- the properties -----------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(elo_leagues())
def test_elo_kernel_rates_as_the_per_match_replay(kernel_mode: str, league: tuple[Elo, list[Match]]) -> None:
    system, matches = league
    assert outcome(lambda: system.rate(matches)) == outcome(lambda: replay(StepElo(system), matches))


@settings(max_examples=300, deadline=None)
@given(lunaro_leagues())
def test_lunaro_kernel_rates_as_the_per_match_replay(kernel_mode: str, league: tuple[Lunaro, list[Match]]) -> None:
    system, matches = league
    assert outcome(lambda: system.rate(matches)) == outcome(lambda: replay(StepLunaro(system), matches))


@settings(max_examples=150, deadline=None)
@given(elo_leagues(), st.data())
def test_elo_resamples_as_one_rate_each(kernel_mode: str, league: tuple[Elo, list[Match]], data: st.DataObject) -> None:
    system, matches = league
    draws = draws_of(data, len(matches))
    assert system.resampled_ratings(matches, draws) == one_by_one(system, StepElo(system), matches, draws)


@settings(max_examples=150, deadline=None)
@given(lunaro_leagues(), st.data())
def test_lunaro_resamples_as_one_rate_each(kernel_mode: str, league: tuple[Lunaro, list[Match]],
                                           data: st.DataObject) -> None:
    system, matches = league
    draws = draws_of(data, len(matches))
    assert system.resampled_ratings(matches, draws) == one_by_one(system, StepLunaro(system), matches, draws)


# --- hand cases the random leagues might miss ----------------------------------------------------

def test_a_resample_the_margin_rule_cannot_rate_is_left_out(kernel_mode: str) -> None:
    # Ann, 2,000 points above Bo, loses by 10 under the NBA rule: the denominator is below 0.
    system = Elo(margin="538-nba", starts={"Ann": 3500, "Bo": 1500})
    ann_wins = match(0, ("Ann", "Bo"), ({"score": 1, "points": 3}, {"score": 0, "points": 0}))
    bo_wins = match(1, ("Ann", "Bo"), ({"score": 0, "points": 0}, {"score": 1, "points": 10}))
    with pytest.raises(RatingDiverged) as caught:
        system.rate([ann_wins, bo_wins])
    assert caught.value.event == "m1" and "2,000 points below" in (caught.value.advice or "")
    draws = [[0, 0], [0, 1], [1, 1]]
    got = system.resampled_ratings([ann_wins, bo_wins], draws)
    assert got == one_by_one(system, StepElo(system), [ann_wins, bo_wins], draws)
    assert len(got["Ann"]) == 1             # only the resample of Ann's win twice


def test_a_rating_past_the_floats_stops_at_its_match(kernel_mode: str) -> None:
    # K × weight past the largest float (a K no league.toml may set, given to the class itself).
    system = Elo(k=1e308)
    games = [match(0, ("Ann", "Bo"), ({"score": 1}, {"score": 0})),
             match(1, ("Ann", "Bo"), ({"score": 1}, {"score": 0}), {"weight": 1000})]
    assert outcome(lambda: system.rate(games)) == outcome(lambda: replay(StepElo(system), games))
    assert outcome(lambda: system.rate(games))[:2] == ("diverged", "m1")


def test_an_int_start_stays_an_int_and_a_float_a_float(kernel_mode: str) -> None:
    system = Elo(initial=1500, starts={"Bo": 1600.0})
    (event,) = system.rate([match(0, ("Ann", "Bo"), ({"score": 1}, {"score": 0}))])
    assert [type(c.before) for c in event.changes] == [int, float]
    assert all(type(c.after) is float for c in event.changes)
    (event,) = Lunaro().rate([match(0, ("Ann", "Bo"), ({"goals": 20, "ping": 0}, {"goals": 3, "ping": 40}))])
    assert [(type(c.before), type(c.after)) for c in event.changes] == [(int, int), (int, int)]


def test_compiled_mode_really_compiles(kernel_mode: str) -> None:
    from sitegen.rating.elo_kernel import elo_replay
    from sitegen.rating.lunaro_kernel import lunaro_replay
    for fn in (elo_replay, lunaro_replay):
        assert (arrays.kernel(fn, 1) is fn) == (kernel_mode == "off")


# --- the columns as the kernel reads them -------------------------------------------------------

def encode_one_by_one(system: Elo, matches: Sequence[Match]) -> tuple[Any, ...]:
    """elo_kernel.encode as it was: every column read match by match."""
    from sitegen.rating.elo_kernel import HOME_A, HOME_B, NEUTRAL
    index: dict[str, int] = {}
    for m in matches:
        for p in m.players:
            index.setdefault(p, len(index))
    seasons: dict[str, int] = {}
    columns = (
        [index[m.players[0]] for m in matches], [index[m.players[1]] for m in matches],
        [float(m.entries[0]["score"]) for m in matches],
        [(m.extra.get("challenger") or m.players[0]) == m.players[1] for m in matches],
        [NEUTRAL if m.extra.get("home") is None else HOME_A if m.extra["home"] == m.players[0] else HOME_B
         for m in matches],
        [float(m.extra.get("weight", 1)) for m in matches],
        [0.0 if system.margin == "none" else float(m.entries[0]["points"]) for m in matches],
        [0.0 if system.margin == "none" else float(m.entries[1]["points"]) for m in matches],
        [seasons.setdefault(m.extra["season"], len(seasons)) if "season" in m.extra else -1 for m in matches],
    )
    return (tuple(index), tuple(system.starts.get(p, system.initial) for p in index), *columns, tuple(seasons))


@settings(max_examples=200, deadline=None)
@given(elo_leagues(), st.data())
def test_encode_reads_the_columns_match_by_match(league: tuple[Elo, list[Match]], data: st.DataObject) -> None:
    """The columns read in C loops (each distinct entry once, only the matches with system keys
    one by one) are the per-match reading's, value and type: with entries shared between
    matches as validate.Shared shares them, and without."""
    from dataclasses import replace

    from sitegen.rating.elo_kernel import encode
    system, matches = league
    if data.draw(st.booleans()):
        # Equal entries made one object, as a checked league holds them.
        kept: dict[str, Any] = {}
        matches = [replace(m, entries=tuple(kept.setdefault(repr(sorted(e.items())), e) for e in m.entries))
                   for m in matches]
    cols = encode(system, matches)
    got = (cols.names, cols.starts, cols.a, cols.b, cols.s_a, cols.chall_b, cols.home, cols.weight, cols.pts_a,
           cols.pts_b, cols.season_of, cols.seasons)
    want = encode_one_by_one(system, matches)
    assert got[:2] == want[:2] and got[-1] == want[-1]
    for column, values, dtype in zip(got[2:-1], want[2:-1], ("int64", "int64", "float64", "bool", "int64",
                                                             "float64", "float64", "float64", "int64")):
        assert column.dtype == dtype and column.tolist() == values
        assert [repr(v) for v in column.tolist()] == [repr(v) for v in values]   # -0.0 stays -0.0
