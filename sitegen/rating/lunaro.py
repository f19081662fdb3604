"""Lunaro: Elo on ping-adjusted ability, scored by goal share.

Source: the Lunaro Rating Specification (quonnz, koza1brada, Yujas; 7 June
2022). The rule as this site states it: spec/lunaro.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from sitegen.rating.limits import MAX_COUNT, MAX_RATING
from sitegen.rating.base import (
    BANDS_ALLOWED, Example, Field, Match, MatchSystem, Param, ParsedMatch, RatingEvent,
    Reporter, either, expected, is_int, k_from_bands, one_of, parse_entries,
    round_half_away, valid_bands, valid_fields,
    COUNT_ALLOWED, K_ALLOWED, count, is_number, k_value, value_text,
)
from sitegen.rating.base import EN_DASH, Curve, CurvePoint, steps, Standing, Strength, LN10_400
from sitegen.rating.forecasts import (Outcome, PairArrays, PairForecast, PairPrediction, first_listed,
                                      first_listed_arrays)
from sitegen.rating.protocol import EXPECTED_NOTE
from sitegen.rating import lunaro_kernel
from sitegen.rating.registry import register

MAX_GOALS = 22       # spec section 3: a match ends at 20, "unstable Lunaro" allows 21 or 22
WINNING_GOALS = 20   # only one player can reach it: the match ends when someone does


def sech(x: float) -> float:
    """Hyperbolic secant, spec equation (1); 1/cosh keeps large pings from overflowing to nan."""
    try:
        return 1.0 / math.cosh(x)
    except OverflowError:
        return 0.0


def ability(rating: float, ping: float, ping_influence: float) -> float:
    """Spec equation (3): A = R * sech(P / I); the host plays at ping 0, so A = R."""
    return rating * sech(ping / ping_influence)


def goal_share(goals_a: int, goals_b: int) -> float:
    """Spec equation (6); 0.5 for a 0-0 match is the contract's interpretation."""
    total = goals_a + goals_b
    return 0.5 if total == 0 else goals_a / total


@register
class Lunaro(MatchSystem):
    name: ClassVar[str] = "lunaro"
    label: ClassVar[str] = "Lunaro (ping-adjusted Elo, goal share)"
    # One sentence under each match's table: where its numbers come from.
    explain: ClassVar[str] = ("Each change is K × (actual − expected), rounded to a whole number; the expected "
                              "score comes from each player's ping-adjusted ability.")
    integer_ratings: ClassVar[bool] = True
    terms: ClassVar[tuple[str, ...]] = ("ability", "expected", "score", "k")
    term_labels: ClassVar[Mapping[str, str]] = {
        "ability": "Ability A", "expected": "Expected E", "score": "Actual S", "k": "K"}
    # No interval of its own: the board's comes from a bootstrap of the matches (honest.py).
    bootstraps: ClassVar[bool] = True
    predicts: ClassVar[bool] = True
    prediction_text: ClassVar[str] = "the first listed player's expected share of the goals"
    outcome_labels: ClassVar[tuple[str, str, str]] = ("20–0", "10–10", "0–20")
    params: ClassVar[tuple[Param, ...]] = (
        Param("initial", 1500, lambda v: is_int(v) and 0 <= v <= MAX_RATING, f"a whole number from 0 to {MAX_RATING:,}",
              "Rating of a new player. The spec sets none; 1500 is the contract's interpretation."),
        Param("k", 50, either(k_value, one_of("bands")), f'{K_ALLOWED}, or "bands"',
              "Spec equation (8): the curators unified K at 50; \"bands\" uses k_bands instead."),
        Param("k_bands", [[0, 40], [1500, 20], [2500, 10]], valid_bands, BANDS_ALLOWED,
              "Spec section 3: K 40 below 1500, 20 below 2500, 10 from 2500, chosen by R (not A)."),
        Param("ping_influence", 300, lambda v: is_number(v) and 1 <= v <= MAX_COUNT,
              f"a number of milliseconds from 1 to {MAX_COUNT:,}",
              "Spec equation (2): I = 300; lower values punish high ping more."),
    )
    fields: ClassVar[tuple[Field, ...]] = (
        Field("goals", lambda v: is_int(v) and 0 <= v <= MAX_GOALS, f"an integer 0..{MAX_GOALS}"),
        Field("ping", count, f"{COUNT_ALLOWED} (milliseconds)",
              result=False),
        Field("host", lambda v: isinstance(v, bool), "true or false", default=False, required=False,
              result=False),
    )
    # 0-0 at ping 0: valid for any two players, a draw between equal ratings.
    example: ClassVar[Example] = Example(
        players=(2, 2), entry={"goals": 0, "ping": 0, "host": False},
        rules=(f"at most one player has {WINNING_GOALS} goals or more",
               "host = true on at most one player, whose ping is 0"),
    )

    def __init__(self, *, initial: int = 1500, k: float | str = 50,
                 k_bands: Sequence[Sequence[float]] = ((0, 40), (1500, 20), (2500, 10)),
                 ping_influence: float = 300, starts: Mapping[str, int] | None = None) -> None:
        self.initial = initial
        self.starts = dict(starts or {})
        self.k = k
        self.k_bands = [tuple(b) for b in k_bands]
        self.ping_influence = ping_influence

    def parse_match(self, raw: Mapping[str, Any], report: Reporter) -> ParsedMatch | None:
        parsed = parse_entries(raw.get("players"), report, self.fields, min_count=2, max_count=2,
                               system=self.name)
        # Rules across players are checked on every valid field, even if another field is bad.
        entries = parsed[1] if parsed is not None else valid_fields(raw.get("players"), self.fields)
        ok = parsed is not None
        winners = [i for i, e in enumerate(entries) if e.get("goals", 0) >= WINNING_GOALS]
        if len(winners) > 1:
            report(("players", winners[1], "goals"),
                   f"only one player can reach {WINNING_GOALS} goals (the match ends when one does); "
                   f"both have {entries[winners[0]]['goals']} and {entries[winners[1]]['goals']}")
            ok = False
        hosts = [i for i, e in enumerate(entries) if e.get("host") is True]
        if len(hosts) > 1:
            report(("players", hosts[1], "host"), "at most one player can be the host")
            ok = False
        for i in hosts:
            if "ping" in entries[i] and entries[i]["ping"] != 0:
                report(("players", i, "ping"), f"the host's ping must be 0, got {entries[i]['ping']}")
                ok = False
        if not ok or parsed is None:
            return None
        return ParsedMatch(parsed[0], parsed[1])

    def parse_start(self, value: Any, report: Reporter) -> int | None:
        """A starting rank is a rank like any other: a whole number, never below 0 (section 3)."""
        if not (is_int(value) and 0 <= value <= MAX_RATING):
            report((), f"must be a whole number from 0 to {MAX_RATING:,} (lunaro ranks are whole "
                       f"numbers and never below 0), got {value_text(value)}")
            return None
        return value

    def k_for(self, rating: float) -> float:
        return k_from_bands(self.k_bands, rating) if self.k == "bands" else float(self.k)

    def rate(self, matches: Sequence[Match]) -> Sequence[RatingEvent]:
        """One event per match, from the array kernel (lunaro_kernel.py)."""
        return lunaro_kernel.rate(self, matches)

    def resampled_ratings(self, matches: Sequence[Match], draws: Sequence[Sequence[int]]) -> dict[str, list[float]]:
        """The bootstrap's resamples (honest.py) replayed by the kernel over match positions."""
        return lunaro_kernel.resampled(self, matches, draws)

    def describe(self, entry: Mapping[str, Any]) -> str:
        text = f"{entry['goals']} goals, ping {entry['ping']} ms"
        return text + (", host" if entry.get("host") else "")

    def outcome(self, match: Match, index: int) -> str | None:
        mine = match.entries[index]["goals"]
        theirs = match.entries[1 - index]["goals"]
        return "win" if mine > theirs else "loss" if mine < theirs else "draw"

    def headline(self, match: Match) -> str:
        (a, b), (ea, eb) = match.players, match.entries
        return f"{a} {ea['goals']}{EN_DASH}{eb['goals']} {b}"

    def result(self, match: Match, index: int) -> str:
        mine, theirs = match.entries[index]["goals"], match.entries[1 - index]["goals"]
        return f"{mine}{EN_DASH}{theirs}"

    def summary(self, match: Match, names: Sequence[str]) -> str:
        e = match.entries
        if len(e) != 2:
            return super().summary(match, names)
        return f"{names[0]} {e[0]['goals']}–{e[1]['goals']} {names[1]}"

    # --- predictions ---------------------------------------------------------------------

    def pair_forecasts(self, matches: Sequence[Match], events: Sequence[RatingEvent]) -> Iterator[PairForecast]:
        return first_listed(events)

    def pair_forecast_arrays(self, matches: Sequence[Match], events: Sequence[RatingEvent]) -> Iterator[PairArrays]:
        return first_listed_arrays(events)

    def predictor_params(self) -> dict[str, Any]:
        return self.param_values("k", "k_bands", "ping_influence")

    def predict_pair(self, a: str, b: str, states: Mapping[str, Mapping[str, Any]], *,
                     scores: Sequence[float], labels: Sequence[str], pings: tuple[float, float] = (0, 0),
                     home: str | None = None, challenger: str | None = None,
                     margin: float = 1.0) -> PairPrediction:
        """The next match at the pings given; the change at each of a's goal shares ``scores``."""
        ra, rb = states[a]["r"], states[b]["r"]
        e = expected(ability(ra, pings[0], self.ping_influence), ability(rb, pings[1], self.ping_influence))
        outs = tuple(Outcome(lab, s, max(0, round_half_away(ra + self.k_for(ra) * (s - e))),
                             max(0, round_half_away(rb + self.k_for(rb) * ((1.0 - s) - (1.0 - e)))))
                     for lab, s in zip(labels, scores))
        return PairPrediction(a, b, ra, rb, e, 1.0 - e, outs)

    def predictor_text(self) -> str:
        return ("Choose two players to see each one's expected share of the goals and the rating change each "
                "result would bring." + EXPECTED_NOTE + ", and a lunaro match is scored by its goal share.")

    def nearest_text(self) -> str:
        return ("{name}'s expected share of the goals against the {count} players rated nearest, and the change "
                "to {name}'s rating each result would bring (both at ping 0)." + EXPECTED_NOTE + ".")

    def predictor_form(self) -> frozenset[str]:
        return frozenset({"pings"})

    def strength(self, standing: Standing | None, ping: float) -> Strength:
        """The expected score is taken between abilities A = R sech(ping / I): the ping the
        ticket queues with is the ping the match would be played at (*interpretation*)."""
        r = standing.rating if standing is not None else float(self.initial)
        return Strength(r, ability(r, ping, self.ping_influence), LN10_400)

    @classmethod
    def curve(cls) -> Curve:
        default = next(p.default for p in cls.params if p.name == "ping_influence")
        rows: list[CurvePoint] = []
        for influence in (default / 2, default, default * 2):
            label = f"ping_influence = {influence:g}" + (" (default)" if influence == default else "")
            for ping in steps(0, 600, 60):
                rows.append({"x": ping, "y": ability(1.0, ping, influence), "series": label})
        return Curve("Ping (ms)", "Share of the rating that counts (A / R)", "Setting", tuple(rows),
                     "The ability factor sech(P / I) against ping, for the default influence and for half "
                     "and double it. The host plays at ping 0 and keeps the whole rating.")
