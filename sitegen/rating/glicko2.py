"""Glicko-2 over rating periods, every pair of a match one battle for each side.

Sources: ArenaNet's description of the Guild Wars 2 World vs World ratings
(each three-way match is two battles per world,
tau 0.6, the sine transform of the score share), and Mark Glickman's
"Example of the Glicko-2 system" (steps 1-8, the Illinois iteration of step 5).
docs/curators `glicko2`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, ClassVar

from sitegen.rating import collector
from sitegen.rating.base import (
    Change, Example, Field, Match, MatchSystem, Param, ParsedMatch, RatingDiverged, RatingEvent, Reporter,
    Standing,
    is_number, one_of, parse_entries, positive, unknown_key, value_text,
    RATING_ALLOWED, rating_value,
)
from sitegen.rating.base import Curve, CurvePoint, Interval, Strength, first_of, amount, steps
from sitegen.rating.forecasts import Outcome, PairForecast, PairPrediction
# SCALE, MAX_ITERATIONS and TRANSFORMS live with the kernel, which compiles them in; named here too.
from sitegen.rating.glicko2_kernel import MAX_ITERATIONS, SCALE, TRANSFORMS, Rated, encode, run
from sitegen.rating.placement import ordinal
from sitegen.rating.protocol import EXPECTED_NOTE
from sitegen.rating.registry import register

PERIODS = ("match", "day", "week")
# The bounds of initial_rd and initial_volatility. An RD above 1,000 says less than
# no rating at all (the paper's newcomer has 350); a volatility above 1 would let one
# period's step 6 alone add more than 170 points of RD.
MAX_RD = 1000
MAX_VOLATILITY = 1
RD_ALLOWED = f"a number > 0 and at most {MAX_RD:,}"
VOLATILITY_ALLOWED = f"a number > 0 and at most {MAX_VOLATILITY}"
# The keys of a table in [initial] (docs/configuration), each checked as its parameter.
START_KEYS = {
    "rating": (rating_value, RATING_ALLOWED),
    "rd": (lambda v: positive(v) and v <= MAX_RD, RD_ALLOWED),
    "volatility": (lambda v: positive(v) and v <= MAX_VOLATILITY, VOLATILITY_ALLOWED),
}


@dataclass(frozen=True, slots=True)
class Glicko:
    """A rating on the paper's public scale: r, RD and volatility sigma."""

    rating: float
    rd: float
    volatility: float


# --- the paper's math, one player at a time ----------------------------------------------
# A league's history runs through glicko2_kernel.py, which repeats these functions operation
# for operation; they serve the predictions and are what the tests hold the kernel to.

def battle_score(a: float, b: float, transform: str) -> float:
    """Score of A's battle against B, from the two raw match scores.

    Seed: p = A / (A + B), then (sin((p - 0.5) pi) + 1) / 2, which dampens large score
    differences. "share" is p itself, "outcome" the paper's 1 / 0.5 / 0. p = 0.5 when
    both scored 0 (interpretation).
    """
    if transform == "outcome":
        return 1.0 if a > b else 0.5 if a == b else 0.0
    total = a + b
    if total == 0:
        p = 0.5
    elif math.isfinite(total):
        p = a / total               # the seed's formula, computed as written
    else:                           # two scores near the float limit: scale down first
        top = max(a, b)
        p = (a / top) / (a / top + b / top)
    if transform == "share":
        return p
    if transform == "sine":
        return (math.sin((p - 0.5) * math.pi) + 1.0) / 2.0
    raise ValueError(f"unknown score transform {transform!r}; one of {', '.join(TRANSFORMS)}")


def g(phi: float) -> float:
    """Step 3: how much an opponent's result counts, less the more uncertain they are."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def expected_score(player: Glicko, opponent: Glicko) -> float:
    """Step 3: E(mu, mu_j, phi_j) = 1 / (1 + exp(-g(phi_j) (mu - mu_j))).

    Ratings enter only as mu - mu_j = (r - r_j) / SCALE, so no reference point
    (the paper's 1500) is needed and a common shift of all ratings changes nothing.
    """
    z = g(opponent.rd / SCALE) * (player.rating - opponent.rating) / SCALE
    if z < -700.0:              # exp(-z) would overflow: the same logistic as exp(z) / (1 + exp(z))
        t = math.exp(z)
        return t / (1.0 + t)
    return 1.0 / (1.0 + math.exp(-z))


def variance_and_improvement(player: Glicko,
                             results: Sequence[tuple[Glicko, float]]) -> tuple[float, float, float]:
    """Steps 3 and 4: (v, Delta, sum of g (s - E)) of a player's results in one period."""
    info = 0.0
    surprise = 0.0
    for opponent, score in results:
        gj = g(opponent.rd / SCALE)
        e = expected_score(player, opponent)
        info += gj * gj * e * (1.0 - e)
        surprise += gj * (score - e)
    v = math.inf if info == 0.0 else 1.0 / info
    return v, v * surprise, surprise


def new_volatility(sigma: float, phi: float, v: float, delta: float, *, tau: float, epsilon: float) -> float:
    """Step 5: sigma' from the Illinois (regula falsi) iteration to ``epsilon``."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi

    def f(x: float) -> float:
        if x > 700.0:
            # e^x would overflow: numerator and denominator divided by e^2x, w = e^-x.
            w = math.exp(-x)
            first = ((delta * delta - phi2 - v) * w - 1.0) / (2.0 * ((phi2 + v) * w + 1.0) ** 2)
        else:
            ex = math.exp(x)
            first = ex * (delta * delta - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2)
        return first - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi2 + v:
        big_b = math.log(delta * delta - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
            if k > MAX_ITERATIONS * 1000:
                raise RatingDiverged("", "the volatility's bracket (step 5)")
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(MAX_ITERATIONS):
        if abs(big_b - big_a) <= epsilon:
            break
        c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(c)
        # <= 0 rather than < 0: a C exactly on the root still closes the bracket onto it.
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = c, f_c
    return math.exp(big_a / 2.0)


def update(player: Glicko, results: Sequence[tuple[Glicko, float]], *, tau: float, epsilon: float) -> Glicko:
    """Steps 2-8 for a player with at least one result; opponents hold their pre-period values."""
    if not results:
        raise ValueError("update needs at least one result; a player who sat out grows by idle()")
    phi = player.rd / SCALE
    v, delta, surprise = variance_and_improvement(player, results)
    if math.isinf(v):
        # Every opponent is so far away that E is exactly 0 or 1 in floats: the
        # results carry no information, and the player only ages (step 6).
        return idle(player)
    sigma = new_volatility(player.volatility, phi, v, delta, tau=tau, epsilon=epsilon)
    phi_star = math.sqrt(phi * phi + sigma * sigma)                     # step 6
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)   # step 7
    mu_change = phi_new * phi_new * surprise
    # Step 8, as a change of r: the same mu' - mu whatever the reference rating.
    return Glicko(player.rating + SCALE * mu_change, SCALE * phi_new, sigma)


def idle(player: Glicko, periods: int = 1) -> Glicko:
    """Step 6 for a player who did not compete: phi' = sqrt(phi^2 + k sigma^2) after k periods.

    Rating and volatility stay. The paper sets no ceiling on RD (Glicko-1 capped it
    at 350), so none is applied here.
    """
    if periods <= 0:
        return player
    phi = player.rd / SCALE
    sigma = player.volatility
    return Glicko(player.rating, SCALE * math.sqrt(phi * phi + periods * sigma * sigma), sigma)


# --- rating periods -------------------------------------------------------------------------

def day_key(played: datetime) -> str:
    return played.astimezone(timezone.utc).date().isoformat()


def week_key(played: datetime) -> str:
    """ISO week of ``played`` in UTC: 2021-01-03 -> 2020-W53 (the ISO year, not the calendar one)."""
    year, week, _ = played.astimezone(timezone.utc).date().isocalendar()
    return f"{year}-W{week:02d}"


def calendar_index(played: datetime, period: str) -> int:
    """A number per day or week that grows by one from each period to the next, empty ones too."""
    day = played.astimezone(timezone.utc).date().toordinal()
    if period == "day":
        return day
    return (day - 1) // 7      # ordinal 1 (0001-01-01) is a Monday, so weeks start on Mondays


@dataclass(frozen=True, slots=True)
class Battle:
    """One side of one battle of a period: a result of ``player``'s update (steps 3-4).

    ``opponent_before`` is the opponent's value going into the period (after growth
    for periods sat out), the value the update used; ``score`` the battle score after
    the league's score transform.
    """

    match_id: str
    player: str
    opponent: str
    score: float
    opponent_before: Glicko


@dataclass(frozen=True, slots=True)
class Period(RatingEvent):
    """A rating period's event, with what standings and pairings.csv need beyond the changes.

    ``index`` counts periods from any fixed origin, so the periods a player sat out
    between two events are the difference of their indexes; ``games`` is each
    participant's number of matches in the period; ``battles`` every result the
    period's updates used, match by match, each player's against each other player.
    """

    index: int
    games: Mapping[str, int]
    battles: tuple[Battle, ...] = ()


@register
class Glicko2(MatchSystem):
    name: ClassVar[str] = "glicko2"
    label: ClassVar[str] = "Glicko-2"
    explain: ClassVar[str] = ("Every pair of players is one battle for each side; the new rating, RD and volatility "
                              "follow Glicko-2 from all of a player's battles in the rating period.")
    term_labels: ClassVar[Mapping[str, str]] = {
        "rd_before": "RD before", "rd_after": "RD after",
        "volatility_before": "σ before", "volatility_after": "σ after",
        "rd": "RD", "volatility": "Volatility σ",
    }
    # Decimals of the standings' own columns: RD reads like a rating, volatility moves in the 5th place.
    standing_decimals: ClassVar[Mapping[str, int]] = {"rd": 1, "volatility": 5}
    has_periods: ClassVar[bool] = True
    # The higher score is ahead, as its battles count.
    ranked_by: ClassVar[tuple[str, int] | None] = ("score", -1)
    interval: ClassVar[Interval | None] = Interval(
        "± 2 RD", "± 2 RD: the 95% interval of the rating (rating − 2 RD to rating + 2 RD).",
        "95% interval", "rd", 2.0)
    predicts: ClassVar[bool] = True
    prediction_text: ClassVar[str] = "for each pair of players, the earlier listed one's expected battle score"
    outcome_labels: ClassVar[tuple[str, str, str]] = ("all", "equal", "none")     # battle score 1, ½ and 0
    # pairings.csv (every battle a period's update used) and next.csv (next week's matchups).
    ledger_tables: ClassVar[tuple[str, ...]] = ("pairings", "next")
    logistic10: ClassVar[bool] = False
    # Scores are points (seed: the worlds' match scores), not wins; W/D/L is not shown.
    has_outcomes: ClassVar[bool] = False
    # rd_before is the RD going into the period, after growth for periods sat out,
    # so an auditor recomputes phi* = sqrt(phi^2 + sigma'^2) from the row alone.
    terms: ClassVar[tuple[str, ...]] = ("rd_before", "rd_after", "volatility_before", "volatility_after")
    standing_terms: ClassVar[tuple[str, ...]] = ("rd", "volatility")
    params: ClassVar[tuple[Param, ...]] = (
        Param("initial_rating", 1500, rating_value, RATING_ALLOWED,
              "Glickman's paper, step 1: an unrated player starts at 1500."),
        Param("initial_rd", 350, lambda v: positive(v) and v <= MAX_RD, RD_ALLOWED,
              "Glickman's paper, step 1: an unrated player's RD is 350."),
        Param("initial_volatility", 0.06, lambda v: positive(v) and v <= MAX_VOLATILITY, VOLATILITY_ALLOWED,
              "Glickman's paper, step 1: an unrated player's volatility is 0.06."),
        Param("tau", 0.6, lambda v: is_number(v) and 0.01 <= v <= 5, "a number from 0.01 to 5",
              "Seed: ArenaNet uses tau 0.6; the paper suggests 0.3 to 1.2 (smaller, steadier volatility)."),
        Param("period", "week", one_of(*PERIODS), '"match", "day" or "week"',
              "Paper: games are batched into rating periods; \"week\" is the ISO week of played in UTC."),
        Param("score_transform", "sine", one_of(*TRANSFORMS), '"sine", "share" or "outcome"',
              "Seed: (sin((p - 0.5) pi) + 1) / 2 of the score share p; \"outcome\": the paper's 1/0.5/0."),
        Param("epsilon", 0.000001, lambda v: is_number(v) and 1e-12 <= v <= 0.1,
              "a number from 0.000000000001 (1e-12) to 0.1",
              "Glickman's paper, step 5: the Illinois iteration stops within 0.000001."),
    )
    fields: ClassVar[tuple[Field, ...]] = (
        Field("score", lambda v: is_number(v) and v >= 0, "a number >= 0 (the player's match score)"),
    )
    example: ClassVar[Example] = Example(
        players=(2, None), entry={"score": 0},         # equal scores: every battle a draw
        rules=("each pair of players is a battle, won by the higher score",
               "played decides the rating period (by default the ISO week in UTC)"),
    )

    def __init__(self, *, initial_rating: float = 1500, initial_rd: float = 350,
                 initial_volatility: float = 0.06, tau: float = 0.6, period: str = "week",
                 score_transform: str = "sine", epsilon: float = 0.000001,
                 starts: Mapping[str, Glicko] | None = None) -> None:
        self.initial = Glicko(float(initial_rating), float(initial_rd), float(initial_volatility))
        self.starts = dict(starts or {})
        self.tau = float(tau)
        self.period = period
        self.score_transform = score_transform
        self.epsilon = float(epsilon)
        # Periods by the calendar: the board's window is the league's last period.
        self.calendar_periods = period in ("day", "week")

    def parse_match(self, raw: Mapping[str, Any], report: Reporter) -> ParsedMatch | None:
        parsed = parse_entries(raw.get("players"), report, self.fields, min_count=2, system=self.name)
        return None if parsed is None else ParsedMatch(*parsed)

    def parse_start(self, value: Any, report: Reporter) -> Glicko | None:
        """A starting rating, or a table { rating, rd, volatility } whose missing keys take the
        league's initial values; each bounded as its initial_* parameter is."""
        if not isinstance(value, dict):
            if not rating_value(value):
                report((), f"must be {RATING_ALLOWED}, or a table {{ rating = ..., rd = ..., volatility = ... }} "
                           f"(missing keys take the league's initial values), got {value_text(value)}")
                return None
            return Glicko(float(value), self.initial.rd, self.initial.volatility)
        ok = True
        for key in sorted(set(value) - set(START_KEYS)):
            report((key,), unknown_key(key, list(START_KEYS)))
            ok = False
        found = {"rating": self.initial.rating, "rd": self.initial.rd, "volatility": self.initial.volatility}
        for key, (check, allowed) in START_KEYS.items():
            if key in value:
                if check(value[key]):
                    found[key] = float(value[key])
                else:
                    report((key,), f"must be {allowed}, got {value_text(value[key])}")
                    ok = False
        return Glicko(found["rating"], found["rd"], found["volatility"]) if ok else None

    def periods(self, matches: Sequence[Match]) -> list[tuple[str, int, list[Match]]]:
        """(key, index, matches) of each period that has matches, in history order.

        With period "match" every match is a period of its own (interpretation), so a
        player who has played before ages by one period with every match they miss.
        """
        out: list[tuple[str, int, list[Match]]] = []
        for i, m in enumerate(matches):
            if self.period == "match":
                key, index = m.id, i
            else:
                key = day_key(m.played) if self.period == "day" else week_key(m.played)
                index = calendar_index(m.played, self.period)
            if out and out[-1][0] == key:
                out[-1][2].append(m)
            else:
                out.append((key, index, [m]))
        return out

    def start(self, player: str) -> tuple[float, float, float]:
        """(rating, RD, volatility) before the player's first period: [initial], or the league's."""
        held = self.starts.get(player, self.initial)
        return held.rating, held.rd, held.volatility

    def rate(self, matches: Sequence[Match]) -> Sequence[RatingEvent]:
        """Every period's update by the kernel (glicko2_kernel.py), then its columns as events.

        A participant's value going into a period is the one after their last period grown
        by step 6 for the periods sat out since (a newcomer's: ``start``); all participants
        update from those values, in order of first appearance in the period.
        """
        groups = self.periods(matches)
        history = encode([(index, group) for _, index, group in groups], self.start)
        rated = run(history, tau=self.tau, epsilon=self.epsilon, transform=self.score_transform)
        if rated.failed < 0:
            # The periods as the kernel's columns, each made when read (glicko2_events.py).
            from sitegen.rating.glicko2_events import Periods       # it imports this module
            return Periods(groups, history, rated)
        # A period left the finite numbers: the events up to it, as the problem reports them.
        # They are acyclic: the cyclic collector, which would walk the growing history again
        # and again while they are built, waits until they are done.
        with collector.paused():
            return self._events(groups, history.names, rated)

    def _events(self, groups: Sequence[tuple[str, int, list[Match]]], names: Sequence[str],
                rated: Rated) -> list[RatingEvent]:
        events: list[RatingEvent] = []
        before, after, battle = rated.before, rated.after, rated.battle
        b = 0
        for p, (key, index, group) in enumerate(groups):
            entering: dict[str, Glicko] = {}
            games: dict[str, int] = {}
            changes = []
            for row in range(rated.period_changes[p], rated.period_changes[p + 1]):
                name = names[rated.change_player[row]]
                t = 3 * row
                old = entering[name] = Glicko(before[t], before[t + 1], before[t + 2])
                games[name] = rated.games[row]
                changes.append(Change(name, old.rating, after[t], {
                    "rd_before": old.rd, "rd_after": after[t + 1],
                    "volatility_before": old.volatility, "volatility_after": after[t + 2],
                }))
            if p == rated.failed:
                _diverged(key, changes)
            battles = []
            for m in group:
                for i, name in enumerate(m.players):
                    for j, other in enumerate(m.players):
                        if i != j:
                            battles.append(Battle(m.id, name, other, battle[b], entering[other]))
                            b += 1
            events.append(Period(key, group[-1].played, tuple([m.id for m in group]), tuple(changes),
                                 index, games, tuple(battles)))
        return events

    def standings(self, events: Sequence[RatingEvent]) -> list[Standing]:
        # The RD shown is the one at the end of the league's last period (interpretation):
        # grown by step 6 for every period a player sat out after their last game. The
        # Period events carry their index and match counts, so this is a function of
        # the events alone. An event of another shape counts as the next period, one game
        # for each of its players.
        from sitegen.rating.glicko2_events import Periods       # it imports this module
        if isinstance(events, Periods):         # the same, from the kernel's columns
            return events.standings()
        last: dict[str, tuple[Change, int]] = {}
        games: dict[str, int] = {}
        end = 0
        for position, event in enumerate(events):
            index = event.index if isinstance(event, Period) else position
            for c in event.changes:
                last[c.player] = (c, index)
                played = event.games.get(c.player, 1) if isinstance(event, Period) else 1
                games[c.player] = games.get(c.player, 0) + played
            end = index
        out = []
        for name, (c, index) in last.items():
            final = idle(Glicko(c.after, float(c.terms["rd_after"] or 0.0),
                                float(c.terms["volatility_after"] or 0.0)), end - index)
            out.append(Standing(name, final.rating, games[name],
                                {"rd": final.rd, "volatility": final.volatility}))
        return out

    def describe(self, entry: Mapping[str, Any]) -> str:
        score = entry["score"]
        if isinstance(score, float) and score.is_integer():
            score = int(score)
        return f"score {score:,}"

    def headline(self, match: Match) -> str:
        # Scores (war score, points) in order, best first: a three-way matchup reads as its table.
        ranked = sorted(zip(match.players, match.entries), key=lambda pe: -pe[1]["score"])
        if len(ranked) > 4:
            return f"{ranked[0][0]} leads {len(ranked)} players"
        return " · ".join(f"{p} {_score_text(e['score'])}" for p, e in ranked)

    def result(self, match: Match, index: int) -> str:
        mine = match.entries[index]["score"]
        place = 1 + sum(1 for e in match.entries if e["score"] > mine)
        return f"{ordinal(place)} of {len(match.players)}"


    def summary(self, match: Match, names: Sequence[str]) -> str:
        e = match.entries
        order = sorted(range(len(e)), key=lambda i: -e[i]["score"])
        return first_of([f"{names[i]} {amount(e[i]['score'])}" for i in order])

    @classmethod
    def curve(cls) -> Curve:
        rows: list[CurvePoint] = []
        for transform, label in (("sine", "sine (the default)"), ("share", "share"),
                                 ("outcome", "outcome")):
            for share in steps(0, 1, 100):
                rows.append({"x": share, "y": battle_score(share, 1.0 - share, transform),
                             "series": label})
        return Curve("Share of the two scores, A / (A + B)", "Battle score of A", "Transform",
                     tuple(rows),
                     "The battle score each transform gives for a share of the two worlds' scores. "
                     "The sine flattens near the ends, so a crushing win counts little more than a clear one.",
                     x_format=".2f")

    # --- predictions ---------------------------------------------------------------------

    def pair_forecasts(self, matches: Sequence[Match], events: Sequence[RatingEvent]) -> Iterator[PairForecast]:
        """One per pair of players of a match (each unordered pair once, A the earlier listed):
        A's E(mu, mu_j, phi_j) from the values both held at the start of the rating period,
        against A's battle score after the league's score transform."""
        by_id = {m.id: m for m in matches}
        for event in events:
            battles = event.battles if isinstance(event, Period) else ()
            # Every participant of a period is some battle's opponent: their value going into it.
            start: dict[str, Glicko] = {b.opponent: b.opponent_before for b in battles}
            position: dict[str, dict[str, int]] = {}
            for b in battles:
                m = by_id[b.match_id]
                pos = position.get(m.id)
                if pos is None:
                    pos = position[m.id] = {name: i for i, name in enumerate(m.players)}
                # Each side of each pair is a battle; the earlier listed player's side is the prediction.
                if pos[b.player] < pos[b.opponent]:
                    yield PairForecast(m.played.year, expected_score(start[b.player], b.opponent_before),
                                       b.score, b.player, b.opponent, m.id)

    def predictor_states(self, matches: Sequence[Match], events: Sequence[RatingEvent],
                         standings: Sequence[Standing]) -> dict[str, dict[str, Any]]:
        return {s.player: {"r": s.rating, "rd": s.extra["rd"], "vol": s.extra["volatility"]} for s in standings}

    def predictor_params(self) -> dict[str, Any]:
        return self.param_values("tau", "epsilon")

    def predict_pair(self, a: str, b: str, states: Mapping[str, Mapping[str, Any]], *,
                     scores: Sequence[float], labels: Sequence[str], pings: tuple[float, float] = (0, 0),
                     home: str | None = None, challenger: str | None = None,
                     margin: float = 1.0) -> PairPrediction:
        """One match of the two in the period after the league's last: each enters with the RD
        the standings show."""
        sa, sb = states[a], states[b]
        ga = Glicko(sa["r"], sa["rd"], sa["vol"])
        gb = Glicko(sb["r"], sb["rd"], sb["vol"])
        outs = tuple(Outcome(lab, s, update(ga, [(gb, s)], tau=self.tau, epsilon=self.epsilon).rating,
                             update(gb, [(ga, 1.0 - s)], tau=self.tau, epsilon=self.epsilon).rating)
                     for lab, s in zip(labels, scores))
        return PairPrediction(a, b, ga.rating, gb.rating, expected_score(ga, gb), expected_score(gb, ga), outs)

    def predictor_text(self) -> str:
        return ("Choose two players to see each one's expected battle score and the rating change each result "
                "would bring." + EXPECTED_NOTE + ".")

    def nearest_text(self) -> str:
        return ("{name}'s expected battle score against the {count} players rated nearest, and the change to "
                "{name}'s rating each result would bring (one match in the next rating period; all, equal and "
                "none: battle scores 1, ½ and 0)." + EXPECTED_NOTE + ".")

    def matchup_expected(self, a: tuple[float, float | None], b: tuple[float, float | None]) -> float:
        """E of a's battle against b, each (rating, RD) as next.csv groups them (volatility plays no part)."""
        return expected_score(Glicko(a[0], a[1] or 0.0, 0.0), Glicko(b[0], b[1] or 0.0, 0.0))

    def strength(self, standing: Standing | None, ping: float) -> Strength:
        """Glicko-2's E: the slope is g of the player's own RD (as the opponent's) per point."""
        start = self.initial
        r = standing.rating if standing is not None else start.rating
        rd = standing.extra["rd"] if standing is not None else start.rd
        return Strength(r, r, g(rd / SCALE) / SCALE)


def _diverged(key: str, changes: Sequence[Change]) -> None:
    """The first value of the period off the finite numbers, players in order, as RatingDiverged."""
    for c in changes:
        for value, what in ((c.terms["volatility_after"], "the volatility"), (c.terms["rd_after"], "the RD"),
                            (c.after, "the rating")):
            if not math.isfinite(float(value or 0.0)):
                raise RatingDiverged(key, f"{what} of {c.player!r}")


def _score_text(score: float) -> str:
    return f"{int(score):,}" if float(score).is_integer() else f"{score:,}"
