"""The openskill kernel (sitegen/rating/openskill_kernel.py) against the package it replaces.

``Oracle`` is OpenSkill as it rated before the kernel: the generic replay calling the
``openskill`` package's PlackettLuce.rate (through openskill.update) match by match. The
kernel, plain and compiled, must give its numbers to the bit (==) on random leagues: teams of
any size, ties, every parameter.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import bit_key
from sitegen.rating import arrays
from sitegen.rating.base import Change, Match, RatingDiverged
from sitegen.rating.openskill import OpenSkill, Skill, update
from sitegen.rating.openskill_kernel import openskill_history
from sitegen.rating.replay import Round, replay

START = datetime(2024, 1, 1, tzinfo=timezone.utc)


class Oracle(OpenSkill):
    """OpenSkill's rating before the kernel, verbatim: the package, one match per replay step."""

    def start(self, player):
        return self.starts.get(player, self.initial)

    def step(self, round: Round, before):
        (m,) = round.matches
        held = [before[name] for name in m.players]
        teams: dict[int, list[int]] = {}
        for i, e in enumerate(m.entries):
            teams.setdefault(e["team"], []).append(i)
        order = sorted(teams)
        try:
            rated = update(self.model, [[held[i] for i in teams[t]] for t in order], m.extra["places"])
        except (OverflowError, ZeroDivisionError, ValueError) as exc:
            raise RatingDiverged(m.id, "the team strengths e^(mu / c)",
                                 "use a larger beta or a smaller mu, so that mu / beta stays well "
                                 "below 700") from exc
        after: dict[int, Skill] = {}
        for t, team in zip(order, rated):
            for i, skill in zip(teams[t], team):
                after[i] = skill
        changes = []
        for i, name in enumerate(m.players):
            old, new = held[i], after[i]
            if not (math.isfinite(new.mu) and math.isfinite(new.sigma)):
                raise RatingDiverged(m.id, f"the skill of {name!r}")
            changes.append(Change(name, old.ordinal, new.ordinal, {
                "mu_before": old.mu, "mu_after": new.mu,
                "sigma_before": old.sigma, "sigma_after": new.sigma,
            }))
        return round.event(changes), {name: after[i] for i, name in enumerate(m.players)}

    def rate(self, matches):
        return replay(self, matches)



def summary(system: OpenSkill, matches: list[Match]) -> object:
    """Every number of every event, to the bit, or the divergence."""
    try:
        events = system.rate(matches)
    except RatingDiverged as exc:
        return ("diverged", exc.event, exc.what, exc.advice)
    return [(e.key, e.played, e.matches, [(c.player, bit_key(c.before), bit_key(c.after), list(c.terms),
                                           [bit_key(v) for v in c.terms.values()]) for c in e.changes])
            for e in events]


def as_match(i: int, teams: list[list[str]], places: list[int]) -> Match:
    names = tuple(p for team in teams for p in team)
    entries = tuple({"team": t + 1, "place": place} for t, (team, place) in enumerate(zip(teams, places))
                    for _ in team)
    return Match(f"m-{i}", START + timedelta(minutes=i), "matches/os/m.toml", i + 1, None, names, entries,
                 {"places": tuple(places)})


@st.composite
def leagues(draw: st.DrawFn) -> tuple[dict[str, object], dict[str, Skill], list[Match]]:
    params = {
        "mu": draw(st.sampled_from([25, 0, -300, 1000])),
        "sigma": draw(st.sampled_from([25 / 3, 1.0, 0.01, 500.0])),
        "beta": draw(st.sampled_from([25 / 6, 0.5, 30.0])),
        "tau": draw(st.sampled_from([25 / 300, 0.0, 2.0])),
        "kappa": draw(st.sampled_from([0.0001, 0.5, 0.99])),
        "limit_sigma": draw(st.booleans()),
    }
    pool = [f"p{i}" for i in range(draw(st.integers(2, 12)))]
    starts = {name: Skill(draw(st.floats(-100, 100)), draw(st.sampled_from([0.5, 8.0, 40.0])))
              for name in draw(st.lists(st.sampled_from(pool), max_size=3, unique=True))}
    matches = []
    for i in range(draw(st.integers(0, 20))):
        players = draw(st.lists(st.sampled_from(pool), min_size=2, max_size=len(pool), unique=True))
        cuts = sorted(draw(st.sets(st.integers(1, len(players) - 1), min_size=1)))
        teams = [players[a:b] for a, b in zip([0, *cuts], [*cuts, len(players)])]
        places = [draw(st.integers(1, len(teams))) for _ in teams]
        matches.append(as_match(i, teams, places))
    return params, starts, matches


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(league=leagues())
def test_the_kernel_gives_the_packages_numbers_to_the_bit(kernel_mode, league):
    params, starts, matches = league
    assert summary(OpenSkill(**params, starts=starts), matches) == summary(Oracle(**params, starts=starts), matches)


def test_duels_and_lobbies_with_ties(kernel_mode):
    matches = [as_match(i, [[f"p{(i + j) % 9}"] for j in range(2 + i % 6)],
                        [1 + (j * 7 + i) % 3 for j in range(2 + i % 6)]) for i in range(200)]
    assert summary(OpenSkill(), matches) == summary(Oracle(), matches)
    assert summary(OpenSkill(limit_sigma=True, tau=0.0), matches) == summary(Oracle(limit_sigma=True, tau=0.0), matches)


def test_strengths_that_overflow_name_the_match(kernel_mode):
    matches = [as_match(0, [["a"], ["b"]], [1, 2]), as_match(1, [["a"], ["c"]], [1, 2])]
    for params in ({"mu": 1_000_000, "beta": 0.001, "sigma": 0.001}, {"mu": -1_000_000, "beta": 0.001, "sigma": 0.001}):
        got = summary(OpenSkill(**params), matches)
        assert got[0] == "diverged" and got[1] == "m-0"
        assert got == summary(Oracle(**params), matches)


def test_an_empty_league_has_no_events(kernel_mode):
    assert OpenSkill().rate([]) == []


def test_long_leagues_run_compiled_by_default(monkeypatch):
    if arrays.compiler() is None:
        pytest.skip("numba is not installed")
    monkeypatch.setattr(arrays, "MODE", "auto")
    assert arrays.kernel(openskill_history, arrays.JIT_MIN_MATCHES) is not openskill_history
    assert arrays.kernel(openskill_history, arrays.JIT_MIN_MATCHES - 1) is openskill_history
