"""The glicko2 kernel (sitegen/rating/glicko2_kernel.py) against the per-player replay it replaced.

``Oracle`` is Glicko2 as it rated before the kernel: the generic replay (rating/replay.py)
calling ``update`` and ``idle`` (glicko2.py's per-player functions, Glickman's steps) one
rating period at a time. It lives here, not in the product, because nothing else needs the
step-by-step path; the kernel must give its numbers to the bit (==), run plain and compiled.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import same_bits
from sitegen.rating import arrays
from sitegen.rating.base import Change, Match, RatingDiverged, RatingEvent
from sitegen.rating.glicko2 import (
    Battle, Glicko, Glicko2, Period, battle_score, idle, update,
)
from sitegen.rating.glicko2_kernel import TRANSFORMS, TWO, arguments, encode, glicko2_history, run
from sitegen.rating.replay import Round, replay

UTC = timezone.utc
START = datetime(2024, 1, 1, tzinfo=UTC)


class Oracle(Glicko2):
    """Glicko2's rating before the kernel, verbatim: one replay step per rating period."""

    def rounds(self, matches):
        for key, index, group in self.periods(matches):
            yield Round(key, index, tuple(group))

    def start(self, player):
        return self.starts.get(player, self.initial), None

    def step(self, round: Round, before: Mapping[str, tuple[Glicko, int | None]]):
        key, index, group = round.key, round.index, round.matches
        entering: dict[str, Glicko] = {}
        for name, (held, last) in before.items():
            entering[name] = held if last is None else idle(held, index - last - 1)
        results: dict[str, list[tuple[Glicko, float]]] = {name: [] for name in entering}
        battles: list[Battle] = []
        games: dict[str, int] = {}
        for m in group:
            for name in m.players:
                games[name] = games.get(name, 0) + 1
        for m in group:
            scores = [float(e["score"]) for e in m.entries]
            for i, name in enumerate(m.players):
                for j, other in enumerate(m.players):
                    if i != j:
                        s = battle_score(scores[i], scores[j], self.score_transform)
                        results[name].append((entering[other], s))
                        battles.append(Battle(m.id, name, other, s, entering[other]))
        changes = []
        after: dict[str, tuple[Glicko, int | None]] = {}
        for name, old in entering.items():
            try:
                new = update(old, results[name], tau=self.tau, epsilon=self.epsilon)
            except (RatingDiverged, OverflowError, ZeroDivisionError, ValueError):
                new = Glicko(math.nan, math.nan, math.nan)
            for value, what in ((new.volatility, "the volatility"), (new.rd, "the RD"),
                                (new.rating, "the rating")):
                if not math.isfinite(value):
                    raise RatingDiverged(key, f"{what} of {name!r}")
            after[name] = (new, index)
            changes.append(Change(name, old.rating, new.rating, {
                "rd_before": old.rd, "rd_after": new.rd,
                "volatility_before": old.volatility, "volatility_after": new.volatility,
            }))
        event = Period(key, group[-1].played, tuple(m.id for m in group), tuple(changes),
                       index, games, tuple(battles))
        return event, after

    def rate(self, matches):
        return replay(self, matches)



def assert_same_events(got: list[RatingEvent], want: list[RatingEvent]) -> None:
    assert len(got) == len(want)
    for e, w in zip(got, want):
        assert type(e) is type(w) is Period
        assert (e.key, e.played, e.matches, e.index, dict(e.games)) == (w.key, w.played, w.matches, w.index,
                                                                        dict(w.games))
        assert list(e.games) == list(w.games)
        assert [c.player for c in e.changes] == [c.player for c in w.changes]
        for c, d in zip(e.changes, w.changes):
            assert same_bits(c.before, d.before) and same_bits(c.after, d.after), (e.key, c, d)
            assert list(c.terms) == list(d.terms)
            assert all(same_bits(c.terms[t], d.terms[t]) for t in d.terms), (e.key, c, d)
        assert len(e.battles) == len(w.battles)
        for x, y in zip(e.battles, w.battles):
            assert (x.match_id, x.player, x.opponent) == (y.match_id, y.player, y.opponent)
            assert same_bits(x.score, y.score)
            assert all(same_bits(getattr(x.opponent_before, f), getattr(y.opponent_before, f))
                       for f in ("rating", "rd", "volatility"))


def outcome(system: Glicko2, matches: list[Match]) -> tuple[str, object]:
    try:
        return "events", system.rate(matches)
    except RatingDiverged as exc:
        return "diverged", (exc.event, exc.what)


# --- random leagues -----------------------------------------------------------------------

SCORES = st.one_of(st.integers(0, 5), st.floats(0, 1e6, allow_nan=False),
                   st.sampled_from([0.0, 1e308, 1.7e308, 5e-324, 123456789.0]))


@st.composite
def leagues(draw: st.DrawFn) -> tuple[dict[str, object], dict[str, Glicko], list[Match]]:
    params = {
        "period": draw(st.sampled_from(["match", "day", "week"])),
        "score_transform": draw(st.sampled_from(TRANSFORMS)),
        "tau": draw(st.sampled_from([0.01, 0.3, 0.6, 1.2, 5.0])),
        "epsilon": draw(st.sampled_from([1e-12, 1e-6, 0.1])),
        "initial_rating": draw(st.sampled_from([1500, 0, -1e6, 2.5e9])),
        "initial_rd": draw(st.sampled_from([350, 30, 1000, 1e-3])),
        "initial_volatility": draw(st.sampled_from([0.06, 1.0, 1e-6, 0.3])),
    }
    pool = [f"p{i}" for i in range(draw(st.integers(2, 9)))]
    starts = {}
    for name in draw(st.lists(st.sampled_from(pool), max_size=3, unique=True)):
        starts[name] = Glicko(draw(st.floats(-5000, 5000)), draw(st.sampled_from([1e-3, 50.0, 350.0, 1000.0])),
                              draw(st.sampled_from([1e-4, 0.06, 0.9])))
    matches = []
    at = START
    for i in range(draw(st.integers(0, 25))):
        at += timedelta(hours=draw(st.sampled_from([0, 1, 20, 30, 24 * 9])))
        players = draw(st.lists(st.sampled_from(pool), min_size=2, max_size=min(5, len(pool)), unique=True))
        scores = [draw(SCORES) for _ in players]
        matches.append(Match(f"m-{i}", at, "matches/l/m.toml", i + 1, None, tuple(players),
                             tuple({"score": s} for s in scores)))
    return params, starts, matches


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(league=leagues())
def test_the_kernel_gives_the_replays_numbers_to_the_bit(kernel_mode, league):
    params, starts, matches = league
    kind, got = outcome(Glicko2(**params, starts=starts), matches)
    want_kind, want = outcome(Oracle(**params, starts=starts), matches)
    assert kind == want_kind
    if kind == "events":
        assert_same_events(got, want)
    else:
        assert got == want


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(league=leagues())
def test_plain_and_compiled_kernels_write_the_same_columns(league):
    if arrays.compiler() is None:
        pytest.skip("numba is not installed")
    params, starts, matches = league
    system = Glicko2(**params, starts=starts)
    history = encode([(index, group) for _, index, group in system.periods(matches)], system.start)
    out = []
    for compiled in (False, True):
        args = arguments(history, tau=system.tau, epsilon=system.epsilon, transform=system.score_transform,
                         compiled=compiled)
        fn = arrays.compiler()(cache=True)(glicko2_history) if compiled else glicko2_history
        failed, count = fn(*args)
        out.append((failed, count, [np.asarray(a).tolist() for a in args[5:8] + args[12:18]]))
    (f0, c0, cols0), (f1, c1, cols1) = out
    assert (f0, c0) == (f1, c1)
    for x, y in zip(cols0, cols1):
        assert len(x) == len(y) and all(same_bits(float(a), float(b)) for a, b in zip(x, y))


# --- named cases ---------------------------------------------------------------------------

def mk(i: int, at: datetime, players: list[tuple[str, float]]) -> Match:
    return Match(f"m-{i}", at, "matches/l/m.toml", i + 1, None, tuple(p for p, _ in players),
                 tuple({"score": s} for _, s in players))


def test_papers_example_through_the_kernel(kernel_mode):
    """Glickman's example as one period: the player (1500/200) against 1400/30, 1550/100, 1700/300."""
    starts = {"me": Glicko(1500, 200, 0.06), "a": Glicko(1400, 30, 0.06), "b": Glicko(1550, 100, 0.06),
              "c": Glicko(1700, 300, 0.06)}
    t = datetime(2024, 5, 6, 12, tzinfo=UTC)
    matches = [mk(0, t, [("me", 1), ("a", 0)]), mk(1, t, [("me", 0), ("b", 1)]), mk(2, t, [("me", 0), ("c", 1)])]
    (event,) = Glicko2(tau=0.5, score_transform="outcome", starts=starts).rate(matches)
    me = event.changes[0]
    assert me.player == "me"
    assert me.after == pytest.approx(1464.06, abs=0.01)
    assert me.terms["rd_after"] == pytest.approx(151.52, abs=0.01)
    assert me.terms["volatility_after"] == pytest.approx(0.05999, abs=1e-5)
    want = update(starts["me"], [(starts["a"], 1.0), (starts["b"], 0.0), (starts["c"], 0.0)], tau=0.5, epsilon=1e-6)
    assert (me.after, me.terms["rd_after"], me.terms["volatility_after"]) == (want.rating, want.rd, want.volatility)


def runaway(n: int = 8) -> list[Match]:
    """100-player matches whose order flips every match: the volatility runs away."""
    return [mk(i, START + timedelta(minutes=i), [(f"p{j}", (100 - j) if i % 2 else j) for j in range(100)])
            for i in range(n)]


def test_a_volatility_that_runs_away_names_the_same_period_and_value(kernel_mode):
    kind, got = outcome(Glicko2(period="match"), runaway())
    assert kind == "diverged"
    assert got == outcome(Oracle(period="match"), runaway())[1]


def test_idle_growth_over_empty_weeks_and_days(kernel_mode):
    matches = [mk(0, START, [("a", 3), ("b", 1)]), mk(1, START + timedelta(days=40), [("a", 1), ("c", 2)]),
               mk(2, START + timedelta(days=41), [("b", 0), ("c", 0)])]
    for period in ("day", "week", "match"):
        assert_same_events(Glicko2(period=period).rate(matches), Oracle(period=period).rate(matches))
    b = Glicko2(period="day").rate(matches)[2].changes[0]
    first = Glicko2(period="day").rate(matches)[0].changes[1]
    assert b.terms["rd_before"] == idle(Glicko(first.after, first.terms["rd_after"],
                                              first.terms["volatility_after"]), 40).rd


def test_compiled_squares_are_the_interpreters_pow():
    """Why the kernel takes its exponent 2.0 as an argument: Python's ``x ** 2`` is the C
    library's pow, which differs from x * x in the last bit for some x; numba compiles a literal
    2 into x * x but calls pow for an exponent it cannot see."""
    compiler = arrays.compiler()
    if compiler is None:
        pytest.skip("numba is not installed")
    x = 30.034675292417745
    assert x ** 2 != x * x
    square = compiler(lambda v, two: v ** two)
    values = [x, *np.random.default_rng(7).random(2000) * 1e3]
    assert [square(v, TWO) for v in values] == [float(v) ** 2 for v in values]


def test_a_long_iteration_to_a_tiny_epsilon(kernel_mode):
    matches = [mk(i, START + timedelta(minutes=i), [(f"p{i % 7}", i % 5), (f"p{(i * 3 + 1) % 7}", (i * 7) % 4)])
               for i in range(300) if i % 7 != (i * 3 + 1) % 7]
    params = {"period": "match", "epsilon": 1e-12, "tau": 1.2, "score_transform": "share"}
    assert_same_events(Glicko2(**params).rate(matches), Oracle(**params).rate(matches))


def test_an_empty_league_has_no_events(kernel_mode):
    assert Glicko2().rate([]) == []


def test_long_leagues_run_compiled_by_default(monkeypatch):
    if arrays.compiler() is None:
        pytest.skip("numba is not installed")
    monkeypatch.setattr(arrays, "MODE", "auto")
    assert arrays.kernel(glicko2_history, arrays.JIT_MIN_MATCHES) is not glicko2_history
    assert arrays.kernel(glicko2_history, arrays.JIT_MIN_MATCHES - 1) is glicko2_history
    history = encode([(0, [mk(0, START, [("a", 1), ("b", 0)])])], lambda name: (1500.0, 350.0, 0.06))
    rated = run(history, tau=0.6, epsilon=1e-6, transform="outcome")
    assert rated.failed == -1 and rated.change_player == [0, 1] and rated.games == [1, 1]
    assert all(type(x) is float for x in rated.before + rated.after + rated.battle)
    want = update(Glicko(1500, 350, 0.06), [(Glicko(1500, 350, 0.06), 1.0)], tau=0.6, epsilon=1e-6)
    assert rated.after[:3] == [want.rating, want.rd, want.volatility]
