"""Battle-royale placement Elo: every match is a duel against each other player.

Source: the Fortnite battle-royale rating proposal (Phase 3, "1) Elo implementation").
The rule as this site states it: spec/placement.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, cast

import numpy as np

from sitegen.rating import placement_kernel
from sitegen.rating.limits import MAX_COUNT
from sitegen.rating.base import (
    BANDS_ALLOWED, Example, ExampleKey, Field, MatchSystem, Match, Param, ParsedMatch, RatingEvent,
    Reporter, either, one_of, parse_entries, value_text,
    valid_bands,
    K_ALLOWED, RATING_ALLOWED, count, k_value, rating_value,
)
from sitegen.rating.base import Curve, event_name, expected_curve, first_of, listing
from sitegen.rating.events import EventTable, event_keys, event_times
from sitegen.rating.exact import expected_many
from sitegen.rating.forecasts import LobbyPrediction, Outcome, PairArrays, PairForecast, PairPrediction
from sitegen.rating.protocol import EXPECTED_NOTE, NO_OUTCOME
from sitegen.rating.registry import register
from sitegen.rating.titles import ordinal

# Pairs scored in one go: large enough for NumPy to pay, small enough to keep memory flat
# (a run of 2^20 pairs holds ~50 MB of columns).
PAIRS_AT_ONCE = 1 << 20


def placement_terms(ratings: np.ndarray, places: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Seed, Elo implementation: each player's expected and actual score over the whole match.

    E_i = sum over j != i of 1 / (1 + 10^((R_j - R_i)/400))  (base.expected against each other player);
    S_i = players placed below i (a larger place number) + 0.5 * other players placed equal to i.
    Vectorised: one n x n matrix for E, a sort for S, so a 100-player match costs no Python loop.
    """
    r = np.asarray(ratings, dtype=float)
    p = np.asarray(places)
    win = 1.0 / (1.0 + 10.0 ** ((r[np.newaxis, :] - r[:, np.newaxis]) / 400.0))  # [i, j]: i beats j
    np.fill_diagonal(win, 0.0)             # no duel against oneself
    expected = win.sum(axis=1)
    ordered = np.sort(p)
    above_or_equal = np.searchsorted(ordered, p, side="right")
    equal = above_or_equal - np.searchsorted(ordered, p, side="left") - 1   # others on the same place
    score = (len(p) - above_or_equal) + 0.5 * equal
    return expected, score


@register
class Placement(MatchSystem):
    name: ClassVar[str] = "placement"
    label: ClassVar[str] = "Placement Elo"
    explain: ClassVar[str] = ("Each change is K × (actual − expected): the actual score counts every player placed "
                              "below (a tie counts half), the expected score sums the chances against every other "
                              "player; ratings never go below the floor.")
    term_labels: ClassVar[Mapping[str, str]] = {"expected": "Expected E", "score": "Actual S", "k": "K"}
    # No win or loss: the better place is ahead, and first places are its wins.
    ranked_by: ClassVar[tuple[str, int] | None] = ("place", 1)
    ranks_by_place: ClassVar[bool] = True
    bootstraps: ClassVar[bool] = True
    predicts: ClassVar[bool] = True
    prediction_text: ClassVar[str] = "for each pair of players, the better placed one's expected score"
    outcome_labels: ClassVar[tuple[str, str, str]] = ("1st", "tied", "2nd")     # of a lobby of the two
    # W/D/L has no meaning among 2..100 places; the place itself is shown (describe).
    has_outcomes: ClassVar[bool] = False
    # k is the K actually applied to that player (after the normalize division), so an
    # auditor recomputes R' = max(floor, R + k (score - expected)) from the row alone.
    terms: ClassVar[tuple[str, ...]] = ("expected", "score", "k")
    match_keys: ClassVar[tuple[str, ...]] = ("players", "platform")
    # initial below floor is not refused: parameters are checked one at a time, and
    # the first match lifts such a player to floor at least (R' = max(floor, ...)).
    params: ClassVar[tuple[Param, ...]] = (
        Param("initial", 0, rating_value, RATING_ALLOWED,
              'Seed, Elo implementation: a new player\'s "elo is zero".'),
        Param("floor", 0, rating_value, RATING_ALLOWED,
              'Seed: the elo "cannot decrease more than zero"; no rating goes below floor.'),
        Param("k", "bands", either(k_value, one_of("bands")), f'{K_ALLOWED}, or "bands"',
              'Seed: K by the player\'s own elo ("bands" uses k_bands); a number fixes K for all.'),
        Param("k_bands", [[0, 32], [2100, 24], [2400, 16]], valid_bands, BANDS_ALLOWED,
              "Seed: K 32 below 2100, 24 between 2100 and 2400, 16 above (2400 itself counts as above)."),
        Param("normalize", False, lambda v: isinstance(v, bool), "true or false",
              "Seed sums S and E over all n - 1 rivals; true divides K by n - 1 (interpretation)."),
    )
    fields: ClassVar[tuple[Field, ...]] = (
        Field("place", lambda v: count(v, 1), f"an integer from 1 to {MAX_COUNT:,} (1 = winner, equal places tie)"),
    )
    example: ClassVar[Example] = Example(
        players=(2, None), entry={"place": 1},         # everyone tied
        keys=(ExampleKey("platform", "pc", "optional: a platform-only queue (any text)", optional=True),),
        rules=("only the order of places counts: 1, 2, 2, 4 is a shared second place",),
    )

    def __init__(self, *, initial: float = 0, floor: float = 0, k: float | str = "bands",
                 k_bands: Sequence[Sequence[float]] = ((0, 32), (2100, 24), (2400, 16)),
                 normalize: bool = False, starts: Mapping[str, float] | None = None) -> None:
        self.initial = initial
        self.starts = dict(starts or {})
        self.floor = floor
        self.k = k
        self.k_bands = [tuple(b) for b in k_bands]
        self._lows = np.array([float(low) for low, _ in self.k_bands])
        self._band_k = np.array([float(k) for _, k in self.k_bands])
        self.normalize = normalize

    def parse_match(self, raw: Mapping[str, Any], report: Reporter) -> ParsedMatch | None:
        # No maximum: places need not be contiguous (1, 2, 2, 4 or 1, 5), only their order counts.
        parsed = parse_entries(raw.get("players"), report, self.fields, min_count=2, system=self.name)
        extra = {}
        ok = parsed is not None
        if "platform" in raw:
            platform = raw["platform"]
            if not isinstance(platform, str):
                report(("platform",), f"must be a non-empty string (e.g. \"pc\"), got {value_text(platform)}")
                ok = False
            elif not platform.strip():
                report(("platform",), 'must be a non-empty string (e.g. "pc")')
                ok = False
            else:
                extra["platform"] = platform.strip()
        return ParsedMatch(parsed[0], parsed[1], extra) if ok and parsed is not None else None

    def parse_start(self, value: Any, report: Reporter) -> float | None:
        """A starting rating the league can hold: not below ``floor``, which no rating goes under.

        (The ``initial`` parameter below floor stays allowed, as before: parameters are
        checked one at a time. A name's own starting rating is a statement about that
        player, and one the floor contradicts is a mistake.)
        """
        if not rating_value(value):
            report((), f"must be {RATING_ALLOWED} (the player's rating before their first match), "
                       f"got {value_text(value)}")
            return None
        if value < self.floor:
            report((), f"must be at least the league's floor {self.floor:g} (no rating goes below it), "
                       f"got {value_text(value)}")
            return None
        return value

    def k_of(self, ratings: np.ndarray) -> np.ndarray:
        """Each rating's K: the number, or base.k_from_bands's rule as one sorted search."""
        if self.k != "bands":
            return np.full(len(ratings), float(self.k))
        # The last band whose min_rating is at most the rating; the first band below all.
        band = np.searchsorted(self._lows, ratings, side="right") - 1
        return self._band_k[np.maximum(band, 0)]

    def start(self, player: str) -> float:
        return float(self.starts[player]) if player in self.starts else float(self.initial)

    def rate(self, matches: Sequence[Match]) -> Sequence[RatingEvent]:
        """The history by placement_kernel: each match's update, R' = max(floor, R + K (S - E)) with
        ``placement_terms``' E and S, to the bit, over arrays; the events held as its columns."""
        return placement_kernel.rate(self, matches)

    def describe(self, entry: Mapping[str, Any]) -> str:
        return ordinal(entry["place"])

    def headline(self, match: Match) -> str:
        places = [e["place"] for e in match.entries]
        best = min(places)
        winners = [p for p, place in zip(match.players, places) if place == best]
        event = event_name(match)
        verb = "wins" if len(winners) == 1 else "share first place in" if event else "share first place"
        where = f" {event}" if event else "" if len(winners) > 1 else f" ({len(match.players)} players)"
        return f"{listing(winners)} {verb}{where}"

    def outcome_codes(self, events: Sequence[RatingEvent]) -> np.ndarray | None:
        """No line has an outcome (``outcome`` is None): one code a row, where the rows are the lines."""
        if not (isinstance(events, EventTable) and events.listed):
            return None
        return np.full(events.rows, NO_OUTCOME, dtype=np.int8)

    def result(self, match: Match, index: int) -> str:
        return f"{ordinal(match.entries[index]['place'])} of {len(match.players)}"

    def summary(self, match: Match, names: Sequence[str]) -> str:
        e = match.entries
        order = sorted(range(len(e)), key=lambda i: e[i]["place"])      # stable: a tie as listed
        return first_of([f"{e[i]['place']}. {names[i]}" for i in order])

    @classmethod
    def curve(cls) -> Curve:
        return expected_curve("In a lobby a player's expected score is the sum of these values over "
                              "every other player.")

    # --- predictions ---------------------------------------------------------------------

    def pair_forecasts(self, matches: Sequence[Match], events: Sequence[RatingEvent]) -> Iterator[PairForecast]:
        """One per pair of players of a match: the better placed one's E from the ratings before
        the match, against S = 1; on a tie the earlier listed of the two, S = 0.5."""
        for run in self.pair_forecast_arrays(matches, events):
            yield from run.forecasts()

    def pair_forecast_arrays(self, matches: Sequence[Match], events: Sequence[RatingEvent],
                             size: int = PAIRS_AT_ONCE) -> Iterator[PairArrays]:
        """``pair_forecasts`` as columns, whole matches of about ``size`` pairs a run: a lobby
        of 100 is 4,950 pairs, too many to make one object each (accuracy.csv, the baselines)."""
        places_of = {m.id: [e["place"] for e in m.entries] for m in matches}
        offsets, codes, befores, table = _event_rows(events)
        rank = np.empty(len(table), dtype=np.int64)           # position by code point
        rank[sorted(range(len(table)), key=table.__getitem__)] = np.arange(len(table))
        match_ids = tuple(event_keys(events))
        parts: list[tuple[np.ndarray, ...]] = []
        held = 0
        for number, (key, played) in enumerate(zip(match_ids, event_times(events))):
            lo, hi = offsets[number], offsets[number + 1]
            i, j = _upper_pairs(hi - lo)    # every pair i < j in row order: the match's listing
            # TOML integers have no size limit; past int64 numpy keeps them as exact Python ints.
            places = np.array(places_of[key])
            # Rows follow the match's player order.
            ratings = befores[lo:hi]
            who = codes[lo:hi]
            # The better placed one is predicted; on a tie the earlier listed (i).
            later_ahead = places[j] < places[i]
            a = np.where(later_ahead, j, i)
            b = np.where(later_ahead, i, j)
            score = np.where(places[i] == places[j], 0.5, 1.0)
            parts.append((ratings[a], ratings[b], score, who[a], who[b],
                          np.full(len(a), played.year, dtype=np.int64), np.full(len(a), number, dtype=np.int64)))
            held += len(a)
            if held >= size:
                yield _pair_run(parts, rank, table, match_ids)
                parts, held = [], 0
        if parts:
            yield _pair_run(parts, rank, table, match_ids)

    def predictor_params(self) -> dict[str, Any]:
        return self.param_values("k", "k_bands", "normalize", "floor", "initial")

    def predict_lobby(self, players: Sequence[str], states: Mapping[str, Mapping[str, Any]]) -> LobbyPrediction:
        r = np.array([float(states[p]["r"]) for p in players])
        exp, _ = placement_terms(r, np.arange(1, len(players) + 1))
        ks = self.k_of(r)
        if self.normalize:
            ks = ks / (len(players) - 1)
        return LobbyPrediction(tuple(players), tuple(r.tolist()), tuple(exp.tolist()), tuple(ks.tolist()),
                               float(self.floor))

    def predict_pair(self, a: str, b: str, states: Mapping[str, Mapping[str, Any]], *,
                     scores: Sequence[float], labels: Sequence[str], pings: tuple[float, float] = (0, 0),
                     home: str | None = None, challenger: str | None = None,
                     margin: float = 1.0) -> PairPrediction:
        """A lobby of the two: S is 1 ahead, 0.5 tied, 0 behind."""
        lobby = self.predict_lobby((a, b), states)
        outs = [Outcome(lab, s, lobby.after(0, s), lobby.after(1, 1.0 - s)) for lab, s in zip(labels, scores)]
        return PairPrediction(a, b, lobby.ratings[0], lobby.ratings[1], lobby.expected[0], lobby.expected[1],
                              tuple(outs))

    def predictor_text(self) -> str:
        return ("Choose a lobby of two or more players to see each one's expected score (the duels they are "
                "expected to win, of one against each other player) and the rating change each finishing place "
                "would bring." + EXPECTED_NOTE + ".")

    def nearest_text(self) -> str:
        return ("{name}'s expected score against the {count} players rated nearest, and the change to {name}'s "
                "rating each result would bring (a lobby of the two)." + EXPECTED_NOTE + ".")

    def predictor_form(self) -> frozenset[str]:
        return frozenset({"lobby"})

    def resampled_ratings(self, matches: Sequence[Match], draws: Sequence[Sequence[int]]) -> dict[str, list[float]]:
        """Every resample's ratings at once (honest.py's bootstrap): ``placement_replays``."""
        return placement_replays(self, matches, draws)


def _event_rows(events: Sequence[RatingEvent]) -> tuple[list[int], np.ndarray, np.ndarray, tuple[str, ...]]:
    """Each event's first row (and the end), each row's player (an index into the names, in
    order of their first change) and rating before: an EventTable's columns, read as they are."""
    if isinstance(events, EventTable):
        # The table's player indices renumbered by first change, as the events list them.
        codes, first = np.unique(events.player, return_index=True)
        order = codes[np.argsort(first, kind="stable")]
        renumber = np.empty(len(events.names), dtype=np.int64)
        renumber[order] = np.arange(len(order), dtype=np.int64)
        # A placement change always has a rating before (a float: Placement.start).
        befores = np.array(events.befores(0, events.rows), dtype=np.float64)
        return (events.offsets.tolist(), renumber[events.player], befores,
                tuple(events.names[c] for c in order.tolist()))
    names: dict[str, int] = {}
    offsets = [0]
    who: list[int] = []
    ratings: list[float] = []
    for event in events:
        for c in event.changes:
            who.append(names.setdefault(c.player, len(names)))
            ratings.append(cast(float, c.before))
        offsets.append(len(who))
    return offsets, np.array(who, dtype=np.int64), np.array(ratings, dtype=np.float64), tuple(names)


_pairs_of: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _upper_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) of every pair i < j of n players, i's rows first: the order of the nested loops."""
    pairs = _pairs_of.get(n)
    if pairs is None:
        pairs = _pairs_of[n] = np.triu_indices(n, 1)
    return pairs


def _pair_run(parts: list[tuple[np.ndarray, ...]], rank: np.ndarray, names: tuple[str, ...],
              match_ids: tuple[str, ...]) -> PairArrays:
    r_a, r_b, score, a, b, year, match = (np.concatenate(col) for col in zip(*parts))
    return PairArrays(year, expected_many(r_a, r_b), score, a, b, match, rank[b] < rank[a], names, match_ids)


def placement_replays(system: Placement, matches: Sequence[Match],
                      draws: Sequence[Sequence[int]]) -> dict[str, list[float]]:
    """Every resample of a placement league replayed at once, one match of each per step.

    The engine's update, R' = max(floor, R + K (S - E)), on a (resamples x players) array:
    a 20-car race replayed match by match costs ~0.4 ms in Placement.rate, too slow for a
    hundred replays of a long league. tests/test_honest_ranks.py checks one resample
    against Placement.rate.
    """
    names = sorted({p for m in matches for p in m.players})
    pid = {n: i for i, n in enumerate(names)}
    pad = len(names)                       # a column no player owns: the padding's
    width = max(len(m.players) for m in matches)
    # One more match, of padding only: a resample shorter than the longest plays it to the end
    # (resamples differ in length), which changes no rating. Its size 2 divides nothing by 0.
    who = np.full((len(matches) + 1, width), pad)
    score = np.zeros((len(matches) + 1, width))
    size = np.array([len(m.players) for m in matches] + [2])
    for i, m in enumerate(matches):
        who[i, :len(m.players)] = [pid[p] for p in m.players]
        # S depends on the places alone: the engine's own formula, ratings aside.
        score[i, :len(m.players)] = placement_terms(np.zeros(len(m.players)),
                                                    np.array([e["place"] for e in m.entries]))[1]
    count = len(draws)
    order = np.full((count, max((len(d) for d in draws), default=0)), len(matches))
    for row, d in zip(order, draws):
        row[:len(d)] = d
    start = np.full(pad + 1, float(system.initial))
    for name, r in system.starts.items():
        if name in pid:
            start[pid[name]] = float(r)
    ratings = np.tile(start, (count, 1))
    seen = np.zeros((count, pad + 1), dtype=bool)
    rows = np.arange(count)[:, None]
    diag = np.arange(width)
    for t in range(order.shape[1]):
        picked = order[:, t]
        w = int(size[picked].max())                        # resamples are sorted: similar matches at a step
        cols = who[picked, :w]                             # (resamples, w)
        real = cols != pad
        r = ratings[rows, cols]
        # 1 / (1 + 10^((R_j - R_i)/400)) = q_i / (q_i + q_j), q = 10^((R - top)/400): n
        # powers instead of n^2 (equal to ~1e-15; relative to the match's top rating, q <= 1).
        top = np.where(real, r, -np.inf).max(axis=1, keepdims=True)
        q = np.where(real, 10.0 ** ((r - top) / 400.0), 1.0)
        win = q[:, :, np.newaxis] / (q[:, :, np.newaxis] + q[:, np.newaxis, :])
        win *= real[:, np.newaxis, :]                 # no duel against the padding
        win[:, diag[:w], diag[:w]] = 0.0              # nor against oneself
        expected = win.sum(axis=2)
        k = system.k_of(r.ravel()).reshape(r.shape)
        if system.normalize:
            k = k / (size[picked] - 1)[:, None]
        after = np.maximum(float(system.floor), r + k * (score[picked, :w] - expected))
        ratings[rows, cols] = np.where(real, after, r)
        seen[rows, cols] |= real
    out: dict[str, list[float]] = {}
    for name, i in pid.items():
        out[name] = ratings[seen[:, i], i].tolist()
    return out
