"""What the pipeline needs of a rating system, one Protocol per job, and a convenience base.

Each job of the pipeline asks a system for one thing: the input side reads its matches
(``MatchReader``), the history is rated (``Rater``), the pages word it (``Presenter``),
`sitegen new-match` prints a match to fill in (``Scaffold``) and the predictions are scored
and shown (``Forecaster``). ``System`` is all of them together, what the registry holds.
``MatchSystem`` gives the plain answers, so a system states only what is its own.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypedDict, runtime_checkable

import numpy as np

from sitegen.rating.fields import RATING_ALLOWED, Example, Field, Param, rating_value
from sitegen.rating.forecasts import PairForecast, PairPrediction
from sitegen.rating.replay import Round, replay, single_rounds
from sitegen.rating.values import Match, ParsedMatch, RatingEvent, Reporter, Standing, last_ratings
from sitegen.rating.wording import value_text
from sitegen.rating.titles import first_of, versus

# What every expected score (not a chance of winning) is told with.
EXPECTED_NOTE = " An expected score is not a chance of winning: a draw counts a half"
# The slope of the 400-point logistic: E = 1 / (1 + e^(-LN10_400 * gap)).
LN10_400 = math.log(10.0) / 400.0

# A line's outcome as a code (``outcome_codes``): its position here, NO_OUTCOME for None.
OUTCOMES: tuple[str, ...] = ("win", "draw", "loss")
NO_OUTCOME = 3


class CurvePoint(TypedDict):
    """One point of a curve: a dict, as the chart's data values are."""

    x: float
    y: float
    series: str


@dataclass(frozen=True, slots=True)
class Curve:
    """Points of one or more series, with what the axes mean: a spec page's characteristic curve."""

    x_title: str
    y_title: str
    series_title: str
    rows: tuple[CurvePoint, ...]
    caption: str
    x_format: str = ",.0f"
    y_format: str = ",.3f"

    @property
    def series(self) -> list[str]:
        return list(dict.fromkeys(str(r["series"]) for r in self.rows))


@dataclass(frozen=True, slots=True)
class Interval:
    """How sure a system is of a rating, as the board words it."""

    head: str                # beside "Rating" in the table's header
    legend: str              # the legend's line
    name: str                # "95% interval"
    term: str                # the standings term the spread comes from
    width: float             # spread = width * that term
    centre: str | None = None    # the standings term at the middle; None: the rating itself

    @property
    def centred(self) -> bool:
        return self.centre is None


@dataclass(frozen=True, slots=True)
class Strength:
    """A player as matchmaking compares them: the rating shown, the strength the expected
    score is taken from, and the logistic's slope per point of strength."""

    rating: float
    strength: float
    slope: float


# --- one Protocol per job ----------------------------------------------------------------

class MatchReader(Protocol):
    """The input side: parameters, a match's keys and fields, [initial]."""

    name: ClassVar[str]
    params: ClassVar[tuple[Param, ...]]
    fields: ClassVar[tuple[Field, ...]]     # the keys of a player entry besides name
    match_keys: ClassVar[tuple[str, ...]]
    has_initial: ClassVar[bool]             # league.toml's [initial] may name starting ratings
    starts: Mapping[str, Any]               # those starting ratings, by canonical name

    def parse_start(self, value: Any, report: Reporter) -> Any | None:
        """Check one value of league.toml's [initial]; the starting value, or None (reported)."""
        ...

    def parse_match(self, raw: Mapping[str, Any], report: Reporter) -> ParsedMatch | None:
        """Check the system's part of a raw match table; report problems through ``report``."""
        ...


class Rater(Protocol):
    """Rating a history: a pure function of the matches in history order."""

    name: ClassVar[str]
    terms: ClassVar[tuple[str, ...]]            # the numbers a page shows beside each change
    ledger_terms: ClassVar[tuple[str, ...]]     # changes.csv's extra columns; () for ``terms``
    standing_terms: ClassVar[tuple[str, ...]]   # extra columns of standings.csv (rd, volatility)
    integer_ratings: ClassVar[bool]             # ratings are whole numbers (written without decimals)
    has_periods: ClassVar[bool]                 # one event may rate several matches (a rating period)
    calendar_periods: bool                      # those periods are days or weeks of the calendar

    def rate(self, matches: Sequence[Match]) -> Sequence[RatingEvent]:
        """Rate matches given in history order; returns one event per rating update (a list,
        or an events.EventTable that makes them from the kernel's columns when read)."""
        ...

    def standings(self, events: Sequence[RatingEvent]) -> list[Standing]:
        """Final ratings of every player who has played."""
        ...

    def resampled_ratings(self, matches: Sequence[Match],
                          draws: Sequence[Sequence[int]]) -> dict[str, list[float]] | None:
        """Each player's final rating in every resample (lists of match positions), when the
        system replays them faster than one ``rate`` each; None to rate them one by one."""
        ...


class Presenter(Protocol):
    """How the pages word a system, its matches and how sure it is of a rating."""

    name: ClassVar[str]
    label: ClassVar[str]                        # "Glicko-2"
    explain: ClassVar[str]                      # one sentence under a match's table
    term_labels: ClassVar[Mapping[str, str]]    # column heads of its terms and standing terms
    standing_decimals: ClassVar[Mapping[str, int]]
    has_outcomes: ClassVar[bool]                # wins/draws/losses make sense
    rating_places: ClassVar[int]                # decimals of a rating shown on its own
    # What a match's order says of two players where there is no win or loss: the entry
    # field and its direction (1: lower is better, a place; -1: higher is, a score).
    ranked_by: ClassVar[tuple[str, int] | None]
    ranks_by_place: ClassVar[bool]              # first places are its wins (a placement record)
    interval: ClassVar[Interval | None]         # its own interval of a rating, from standing terms
    bootstraps: ClassVar[bool]                  # no interval of its own: a bootstrap gives one

    def explanation(self, *, weighted: bool = False) -> str:
        """``explain`` with the league's own rules (``weighted``: some match has a weight)."""
        ...

    def league_label(self) -> str:
        """``label`` as this league's parameters have it ("Elo (K = 20, home advantage 100)")."""
        ...

    def describe(self, entry: Mapping[str, Any]) -> str:
        """A participant's own numbers in words, for the pages ("20 goals, ping 35 ms, host")."""
        ...

    def outcome(self, match: Match, index: int) -> str | None:
        """'win', 'draw' or 'loss' for the player at ``index``, or None where it has no meaning."""
        ...

    def outcome_codes(self, events: Sequence[RatingEvent]) -> np.ndarray | None:
        """``outcome`` of every line of the rated history (each match's players in order, the
        matches in history order) as int8 codes (``OUTCOMES``), read from the rating's columns
        without a call per line; None where they cannot be, and ``outcome`` is asked line by line."""
        ...

    def headline(self, match: Match) -> str:
        ...

    def result(self, match: Match, index: int) -> str:
        ...

    def summary(self, match: Match, names: Sequence[str]) -> str:
        """Who played and how it ended in one line, ``names`` the players as shown (`sitegen diff`)."""
        ...

    @classmethod
    def curve(cls) -> Curve | None:
        """The spec page's characteristic curve, by the system's own functions; None for none."""
        ...


class Scaffold(Protocol):
    """The match `sitegen new-match` prints for a curator to fill in."""

    example: ClassVar[Example]

    def match_example(self) -> Example:
        ...


class Forecaster(Protocol):
    """What a system predicts of a pair, scored against what happened and shown to readers."""

    predicts: ClassVar[bool]
    no_prediction: ClassVar[str]            # why a system that predicts nothing does not
    prediction_text: ClassVar[str]          # what one scored prediction is, in words
    outcome_labels: ClassVar[tuple[str, str, str]]   # a pair's results at S = 1, 0.5 and 0
    ledger_tables: ClassVar[tuple[str, ...]]         # its own data files: pairings, pools, next
    # Matchmaking's expected score: the 400-point logistic in powers of 10 (base.expected),
    # or Glicko-2's e-based one with a slope per opponent.
    logistic10: ClassVar[bool]

    def pair_forecasts(self, matches: Sequence[Match], events: Sequence[RatingEvent]) -> Iterator[PairForecast]:
        """Every prediction the ratings made before a match, in history order."""
        ...

    def predictor_states(self, matches: Sequence[Match], events: Sequence[RatingEvent],
                         standings: Sequence[Standing]) -> dict[str, dict[str, Any]]:
        """Per rated player, in standings order: what a next match needs of them."""
        ...

    def predictor_params(self) -> dict[str, Any]:
        """The parameters the browser's predictor needs (ratings.json)."""
        ...

    def predict_pair(self, a: str, b: str, states: Mapping[str, Mapping[str, Any]], *,
                     scores: Sequence[float], labels: Sequence[str], pings: tuple[float, float] = (0, 0),
                     home: str | None = None, challenger: str | None = None,
                     margin: float = 1.0) -> PairPrediction:
        ...

    def strength(self, standing: Standing | None, ping: float) -> Strength:
        """A player as matchmaking compares them; a new player when ``standing`` is None."""
        ...

    def matchup_expected(self, a: tuple[float, float | None], b: tuple[float, float | None]) -> float:
        """E of a against b, each (rating, RD or None), for a next matchup's table."""
        ...

    # The predictor's words and form. Texts are the site's own HTML text (no markup, not
    # escaped again); ``nearest_text`` holds {name} and {count} for the player and how many.
    predicts_chance: ClassVar[bool]         # E is a chance of winning, not an expected score
    no_predictor_text: ClassVar[str]        # the league page's line where there is no predictor

    def predictor_text(self) -> str:
        ...

    def nearest_text(self) -> str:
        ...

    def predictor_form(self) -> frozenset[str]:
        """What the predictor's form asks besides two players: "lobby" (more players), "pings",
        "options" (match options), each of "home", "challenger", "margin"."""
        ...


class System(MatchReader, Rater, Presenter, Scaffold, Forecaster, Protocol):
    """A rating system: holds its parameters; rating a history is a pure function."""

    def __init__(self, **params: Any) -> None: ...


@runtime_checkable
class PoolParams(Protocol):
    """The parameters of a system whose ledger tables hold "pools": opponent pools drawn
    within ``pool_deviation`` of a player's rating, ``pool_size`` opponents at most."""

    pool_size: int
    pool_deviation: float


# --- the plain answers ----------------------------------------------------------------------

class MatchSystem:
    """Shared behaviour of the systems: plain defaults for every Protocol above."""

    name: ClassVar[str]
    label: ClassVar[str]
    explain: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    fields: ClassVar[tuple[Field, ...]] = ()
    terms: ClassVar[tuple[str, ...]] = ()
    ledger_terms: ClassVar[tuple[str, ...]] = ()
    term_labels: ClassVar[Mapping[str, str]] = {}
    standing_decimals: ClassVar[Mapping[str, int]] = {}
    example: ClassVar[Example]
    integer_ratings: ClassVar[bool] = False
    has_outcomes: ClassVar[bool] = True
    has_periods: ClassVar[bool] = False
    match_keys: ClassVar[tuple[str, ...]] = ("players",)
    standing_terms: ClassVar[tuple[str, ...]] = ()
    # Decimals of a rating shown on its own (the board, a player's page): none on the
    # Elo-like scales of hundreds of points; more where a whole scale spans a few dozen.
    rating_places: ClassVar[int] = 0
    ranked_by: ClassVar[tuple[str, int] | None] = None
    ranks_by_place: ClassVar[bool] = False
    interval: ClassVar[Interval | None] = None
    bootstraps: ClassVar[bool] = False
    predicts: ClassVar[bool] = False
    no_prediction: ClassVar[str] = ""
    prediction_text: ClassVar[str] = ""
    outcome_labels: ClassVar[tuple[str, str, str]] = ("win", "draw", "loss")
    ledger_tables: ClassVar[tuple[str, ...]] = ()
    logistic10: ClassVar[bool] = True
    # Whether league.toml's [initial] may name starting ratings (docs/configuration): every
    # system with an initial rating; arena has none (a rating is a mean of game ratings).
    has_initial: ClassVar[bool] = True
    # The starting ratings of [initial], canonical name -> what ``parse_start`` returned.
    starts: Mapping[str, Any] = {}
    # Rating periods by the calendar (the board's window is then the last period).
    calendar_periods: bool = False

    def explanation(self, *, weighted: bool = False) -> str:
        return self.explain

    def league_label(self) -> str:
        return self.label

    def parse_start(self, value: Any, report: Reporter) -> Any | None:
        """One value of [initial]: a rating this system can hold, or None (reported).

        The default: a finite number within MAX_RATING, as the ``initial`` parameter.
        """
        if not rating_value(value):
            report((), f"must be {RATING_ALLOWED} (the player's rating before their first match), "
                       f"got {value_text(value)}")
            return None
        return value

    def match_example(self) -> Example:
        """The match `sitegen new-match` prints for a league with these parameters."""
        return self.example

    # The history's replay (replay.py): each system states its newcomer and one round's update.
    def rounds(self, matches: Sequence[Match]) -> Iterable[Round]:
        return single_rounds(matches)

    def start(self, player: str) -> Any:
        raise NotImplementedError

    def step(self, round: Round, before: Mapping[str, Any]) -> tuple[RatingEvent, Mapping[str, Any]]:
        raise NotImplementedError

    def rate(self, matches: Sequence[Match]) -> Sequence[RatingEvent]:
        return replay(self, matches)

    def resampled_ratings(self, matches: Sequence[Match],
                          draws: Sequence[Sequence[int]]) -> dict[str, list[float]] | None:
        return None

    def standings(self, events: Sequence[RatingEvent]) -> list[Standing]:
        afters = getattr(events, "last_afters", None)       # an events.EventTable: from its columns
        if afters is not None:
            return [Standing(p, after, n) for p, after, n in afters()]
        last, count = last_ratings(events)
        return [Standing(p, c.after, count[p]) for p, c in last.items()]

    def outcome(self, match: Match, index: int) -> str | None:
        return None

    def outcome_codes(self, events: Sequence[RatingEvent]) -> np.ndarray | None:
        return None

    def describe(self, entry: Mapping[str, Any]) -> str:
        return ", ".join(f"{k} {v}" for k, v in entry.items() if v is not None)

    # How a match reads to people: a title from its players and result, and one player's
    # result in a few characters. Each system says it its own way; these are the plain forms.
    def headline(self, match: Match) -> str:
        return versus(match.players)

    def result(self, match: Match, index: int) -> str:
        """"3–1", "2nd of 20"; "" where the win, draw or loss says it all."""
        return ""

    def summary(self, match: Match, names: Sequence[str]) -> str:
        """A system without a short form: each player's own numbers, as the match pages word them."""
        return first_of([f"{names[i]} ({self.describe(entry)})" for i, entry in enumerate(match.entries)])

    @classmethod
    def curve(cls) -> Curve | None:
        return None

    def pair_forecasts(self, matches: Sequence[Match], events: Sequence[RatingEvent]) -> Iterator[PairForecast]:
        return iter(())

    def predictor_states(self, matches: Sequence[Match], events: Sequence[RatingEvent],
                         standings: Sequence[Standing]) -> dict[str, dict[str, Any]]:
        return {s.player: {"r": s.rating} for s in standings}

    def predictor_params(self) -> dict[str, Any]:
        return {}

    def param_values(self, *names: str) -> dict[str, Any]:
        """The named parameters as ratings.json writes them (band lists as lists)."""
        out = {}
        for n in names:
            v = getattr(self, n)
            out[n] = [list(b) for b in v] if n == "k_bands" else v
        return out

    def predict_pair(self, a: str, b: str, states: Mapping[str, Mapping[str, Any]], *,
                     scores: Sequence[float], labels: Sequence[str], pings: tuple[float, float] = (0, 0),
                     home: str | None = None, challenger: str | None = None,
                     margin: float = 1.0) -> PairPrediction:
        raise ValueError(f"{self.name} predicts no pairs")

    def matchup_expected(self, a: tuple[float, float | None], b: tuple[float, float | None]) -> float:
        """The plain form: the 400-point logistic of the two ratings."""
        from sitegen.rating.base import expected
        return expected(a[0], b[0])

    predicts_chance: ClassVar[bool] = False
    no_predictor_text: ClassVar[str] = ("This league's system says nothing about how two players would fare "
                                        "against each other, so this league has no predictor.")

    def predictor_text(self) -> str:
        return ("Choose two players to see each one's expected score and the rating change each result would "
                "bring." + EXPECTED_NOTE + ".")

    def nearest_text(self) -> str:
        return ("{name}'s expected score against the {count} players rated nearest, and the change to {name}'s "
                "rating each result would bring." + EXPECTED_NOTE + ".")

    def predictor_form(self) -> frozenset[str]:
        return frozenset()

    def strength(self, standing: Standing | None, ping: float) -> Strength:
        """The plain form: the rating on the 400-point logistic; a new player at ``initial``."""
        r = standing.rating if standing is not None else float(getattr(self, "initial"))
        return Strength(r, r, LN10_400)
