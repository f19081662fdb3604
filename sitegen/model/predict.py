"""The matchup predictor: what the next match between chosen players would do.

Two halves that must agree to the last digit that matters:

- ``ratings_json`` writes ``data/<league>/ratings.json``, the current state every
  prediction starts from (rating, and per system what its K or update needs), which
  ``templates/assets/predict.js`` loads when a reader opens the predictor;
- ``predict_pair`` and ``predict_lobby`` compute the same predictions here, with the
  engine's own functions (sitegen/rating/*.py), for the player pages' list against
  the ten nearest-rated players, which needs no script.

What a prediction assumes is each system's own (its ``predict_pair`` in
sitegen/rating/<system>.py, and the spec pages say it too); a system that predicts no
pairs has no predictor.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sitegen.model.history import RatedLeague
from sitegen.rating.forecasts import LobbyPrediction, Outcome, PairPrediction
from sitegen.rating.protocol import System

NEAREST = 10
# The outcomes a pair's prediction is shown at: the first player's score S.
OUTCOMES = (1.0, 0.5, 0.0)

__all__ = ["LobbyPrediction", "Outcome", "PairPrediction", "OUTCOMES", "NEAREST", "league_predictor",
           "nearest", "player_states", "rating_order", "predict_lobby", "predict_pair", "ratings_json"]


def predicts(system: System) -> bool:
    return system.predicts


# --- the state each prediction starts from ---------------------------------------------

STATES = "predictor-states"     # RatedLeague.cache key


def player_states(rated: RatedLeague) -> dict[str, dict[str, Any]]:
    """Per rated player, in standings order: what the system needs of them for a next match.

    Made once per league (ratings.json and the pages' predictor both read it) and kept in
    ``rated.cache``: callers must not modify it.
    """
    states = rated.cache.get(STATES)
    if states is None:
        system = rated.league.config.system
        states = system.predictor_states(rated.league.matches, rated.events,
                                         [r.standing for r in rated.standings])
        rated.cache[STATES] = states
    return states


def ratings_json(rated: RatedLeague) -> str | None:
    """data/<league>/ratings.json: the predictor's input, or None for a system that predicts no pairs.

    Numbers are written as Python's repr, which JavaScript reads back to the same double.
    """
    system = rated.league.config.system
    if not predicts(system):
        return None
    players = [{"n": name, **state} for name, state in player_states(rated).items()]
    doc = {"system": system.name, "params": system.predictor_params(), "players": players}
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"


# --- predictions ------------------------------------------------------------------------

def predict_pair(system: System, a: str, b: str, states: Mapping[str, Mapping[str, Any]], *,
                 scores: Sequence[float] = OUTCOMES, pings: tuple[float, float] = (0, 0),
                 home: str | None = None, challenger: str | None = None,
                 margin: float = 1.0) -> PairPrediction:
    """A match of ``a`` against ``b`` (a listed first), at each of ``scores`` (a's S)."""
    labels = system.outcome_labels if tuple(scores) == OUTCOMES else tuple(f"{s:g}" for s in scores)
    return system.predict_pair(a, b, states, scores=scores, labels=labels, pings=pings, home=home,
                               challenger=challenger, margin=margin)


def predict_lobby(system: Any, players: Sequence[str],
                  states: Mapping[str, Mapping[str, Any]]) -> LobbyPrediction:
    """A lobby of two or more, for a system whose matches are lobbies (``predict_lobby``)."""
    return system.predict_lobby(players, states)


# --- the player pages' list ----------------------------------------------------------------

def rating_order(states: Mapping[str, Mapping[str, Any]]) -> tuple[list[tuple[float, str]], dict[str, int]]:
    """Every player by (rating, name), and each name's place in that order: sorted once per
    league, not once per player page (a league of 5,000 players sorted 5,000 times)."""
    ordered = sorted((st["r"], p) for p, st in states.items())
    return ordered, {p: i for i, (_, p) in enumerate(ordered)}


def nearest(states: Mapping[str, Mapping[str, Any]], name: str, n: int = NEAREST, *,
            order: tuple[list[tuple[float, str]], dict[str, int]] | None = None) -> list[str]:
    """The ``n`` players rated nearest to ``name`` (ties: the lower rating, then name by code point).

    ``order`` is ``rating_order(states)`` when the caller asks for many players of one league."""
    ordered, position = order if order is not None else rating_order(states)
    me = states[name]["r"]
    i = position[name]
    lo, hi = i - 1, i + 1
    out: list[str] = []
    while len(out) < n and (lo >= 0 or hi < len(ordered)):
        # The closer side first; on equal distance the one below.
        take_lo = hi >= len(ordered) or (lo >= 0 and me - ordered[lo][0] <= ordered[hi][0] - me)
        if take_lo:
            out.append(ordered[lo][1])
            lo -= 1
        else:
            out.append(ordered[hi][1])
            hi += 1
    return out


@dataclass(frozen=True, slots=True)
class LeaguePredictor:
    system: Any
    states: dict[str, dict[str, Any]]
    data_url: str                 # site-relative: data/<league>/ratings.json
    order: tuple[list[tuple[float, str]], dict[str, int]]     # rating_order(states)

    def against_nearest(self, name: str) -> list[PairPrediction]:
        if name not in self.states:
            return []
        return [predict_pair(self.system, name, other, self.states, challenger=name)
                for other in nearest(self.states, name, order=self.order)]

    def nearest_inputs(self, name: str) -> list[tuple[str, dict[str, Any]]]:
        """What ``against_nearest`` is worked out from: the player's state and each nearest
        one's, by name (a page kept from build to build is keyed by them, output/memo.py)."""
        if name not in self.states:
            return []
        return [(other, self.states[other]) for other in [name, *nearest(self.states, name, order=self.order)]]

    @property
    def labels(self) -> tuple[str, ...]:
        return self.system.outcome_labels


def league_predictor(rated: RatedLeague) -> LeaguePredictor | None:
    system = rated.league.config.system
    if not predicts(system):
        return None
    states = player_states(rated)
    return LeaguePredictor(system, states, f"data/{rated.league.config.slug}/ratings.json", rating_order(states))
