"""The matchup predictor: what the next match between chosen players would do.

Two halves that must agree to the last digit that matters:

- ``ratings_json`` writes ``data/<league>/ratings.json``, the current state every
  prediction starts from (rating, and per system what its K or update needs), which
  ``templates/assets/predict.js`` loads when a reader opens the predictor;
- ``predict_pair`` and ``predict_lobby`` compute the same predictions here, with the
  engine's own functions (sitegen/rating/*.py), for the player pages' list against
  the ten nearest-rated players, which needs no script.

What a prediction assumes, per system (the spec pages say it too):

- lunaro: the next match at the pings given (both 0 on the player pages); the change is
  shown at a 20-0 win, equal goals and a 0-20 loss, and at any score the reader enters.
- elo: neutral ground unless a home side is chosen, the first player the challenger,
  weight 1, and a margin of 1 point for a win (0 for a draw) when the league uses a margin
  rule; a player whose last match was in an earlier season than the league's last is
  reverted first, as the engine would at a next match without a ``season``.
- placement: one lobby, every player a different place (a two-player lobby on the pages).
- glicko2: one match of the players in the rating period after the league's last, so
  each player enters with the RD the standings show (grown for the periods sat out).
- openskill: one match of the two as teams of one, at the league's model parameters
  (tau added to sigma first, as at every match); E is the package's ``predict_win``, a
  chance of winning, and each result's mu, sigma and ordinal mu - 3 sigma are the
  package's ``rate`` of that match (win: places 1, 2; draw: 1, 1; loss: 2, 1).
- arena: its rating is a mean of game ratings and predicts no pairs: no predictor.

None of the first four is a win probability: E is an expected score (a draw counts a half; for
lunaro it is an expected share of the goals, for glicko2 of the battle score).
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sitegen.model.history import RatedLeague
from sitegen.rating.base import expected, round_half_away
from sitegen.rating.elo import Elo, margin_multiplier, new_ratings
from sitegen.rating.glicko2 import Glicko, Glicko2, expected_score, update
from sitegen.rating.lunaro import Lunaro, ability
from sitegen.rating.openskill import Z, OpenSkill, Skill, update as openskill_update
from sitegen.rating.placement import Placement, placement_terms

PREDICT_SYSTEMS = ("lunaro", "elo", "placement", "glicko2", "openskill")
NEAREST = 10
# The outcomes a pair's prediction is shown at: the first player's score S.
OUTCOMES = (1.0, 0.5, 0.0)
OUTCOME_LABELS = {
    "lunaro": ("20–0", "10–10", "0–20"),
    "elo": ("win", "draw", "loss"),
    "placement": ("1st", "tied", "2nd"),       # of a lobby of the two
    "glicko2": ("all", "equal", "none"),         # battle score 1, ½ and 0
    "openskill": ("win", "draw", "loss"),        # places 1-2, 1-1 and 2-1
}
# openskill: the first player's S -> the two places of the match.
OPENSKILL_PLACES = {1.0: (1, 2), 0.5: (1, 1), 0.0: (2, 1)}


def predicts(system_name: str) -> bool:
    return system_name in PREDICT_SYSTEMS


# --- the state each prediction starts from ---------------------------------------------

def player_states(rated: RatedLeague) -> dict[str, dict[str, Any]]:
    """Per rated player, in standings order: what the system needs of them for a next match."""
    system = rated.league.config.system
    out: dict[str, dict[str, Any]] = {}
    for r in rated.standings:
        s = r.standing
        state: dict[str, Any] = {"r": s.rating}
        if system.name == "glicko2":
            state.update(rd=s.extra["rd"], vol=s.extra["volatility"])
        elif system.name == "openskill":
            state.update(mu=s.extra["mu"], sigma=s.extra["sigma"])
        out[s.player] = state
    if isinstance(system, Elo):
        _elo_states(rated, system, out)
    return out


def _elo_states(rated: RatedLeague, system: Elo, out: dict[str, dict[str, Any]]) -> None:
    """Games played (the FIDE K), whether 2400 was ever reached, and a pending season reversion."""
    league_season = None
    last_season: dict[str, Any] = {}
    for m in rated.league.matches:
        league_season = m.extra.get("season", league_season)
        for p in m.players:
            last_season[p] = league_season
    mr = system.master_rating
    for event in rated.events:
        for c in event.changes:
            st = out[c.player]
            # The engine's rule: the rating before the first match, then every rating after one.
            first = "games" not in st
            st["games"] = st.get("games", 0) + 1
            st["master"] = (c.before >= mr if first else st["master"]) or c.after >= mr
    w = float(system.season_reversion)
    for name, st in out.items():
        if w > 0 and last_season.get(name) != league_season:
            st["rev"] = (1.0 - w) * st["r"] + w * float(system.reversion_mean)


def _params(system: Any) -> dict[str, Any]:
    names = {
        "lunaro": ("k", "k_bands", "ping_influence"),
        "elo": ("k", "k_of", "provisional_games", "k_provisional", "k_standard", "k_master",
                "master_rating", "home_advantage", "margin"),
        "placement": ("k", "k_bands", "normalize", "floor", "initial"),
        "glicko2": ("tau", "epsilon"),
        "openskill": ("beta", "tau", "kappa", "limit_sigma"),
    }[system.name]
    out = {}
    for n in names:
        v = getattr(system, n)
        out[n] = [list(b) for b in v] if n == "k_bands" else v
    return out


def ratings_json(rated: RatedLeague) -> str | None:
    """data/<league>/ratings.json: the predictor's input, or None for arena.

    Numbers are written as Python's repr, which JavaScript reads back to the same double.
    """
    system = rated.league.config.system
    if not predicts(system.name):
        return None
    players = [{"n": name, **state} for name, state in player_states(rated).items()]
    params = _params(system)
    if system.name == "openskill":
        params["z"] = Z          # the ordinal mu - z sigma the ratings are
    doc = {"system": system.name, "params": params, "players": players}
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"


# --- predictions ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Outcome:
    """Ratings after one result; None where the system's formula has no value for it (an
    elo margin multiplier off its domain: the engine would refuse that match too)."""

    label: str
    score: float              # the first player's S
    after_a: float | None
    after_b: float | None
    # openskill: each side's (mu, sigma) after the result; after_a/after_b are the ordinals.
    skills: tuple[tuple[float, float], tuple[float, float]] | None = None


@dataclass(frozen=True, slots=True)
class PairPrediction:
    a: str
    b: str
    rating_a: float
    rating_b: float           # ratings the match starts from (after any season reversion)
    expected_a: float
    expected_b: float         # 1 - expected_a, except glicko2 (each side uses the other's RD)
    outcomes: tuple[Outcome, ...]
    skills: tuple[tuple[float, float], tuple[float, float]] | None = None     # openskill: (mu, sigma) before

    def change(self, outcome: Outcome) -> tuple[float | None, float | None]:
        return (None if outcome.after_a is None else outcome.after_a - self.rating_a,
                None if outcome.after_b is None else outcome.after_b - self.rating_b)


def predict_pair(system: Any, a: str, b: str, states: Mapping[str, Mapping[str, Any]], *,
                 scores: Sequence[float] = OUTCOMES, pings: tuple[float, float] = (0, 0),
                 home: str | None = None, challenger: str | None = None,
                 margin: float = 1.0) -> PairPrediction:
    """A match of ``a`` against ``b`` (a listed first), at each of ``scores`` (a's S)."""
    sa, sb = states[a], states[b]
    labels = OUTCOME_LABELS[system.name] if tuple(scores) == OUTCOMES else tuple(f"{s:g}" for s in scores)
    if isinstance(system, Lunaro):
        ra, rb = sa["r"], sb["r"]
        e = expected(ability(ra, pings[0], system.ping_influence), ability(rb, pings[1], system.ping_influence))
        outs = tuple(Outcome(lab, s, max(0, round_half_away(ra + system.k_for(ra) * (s - e))),
                             max(0, round_half_away(rb + system.k_for(rb) * ((1.0 - s) - (1.0 - e)))))
                     for lab, s in zip(labels, scores))
        return PairPrediction(a, b, ra, rb, e, 1.0 - e, outs)
    if isinstance(system, Elo):
        ra, rb = sa.get("rev", sa["r"]), sb.get("rev", sb["r"])
        ks = []
        for st, r in ((sa, ra), (sb, rb)):
            ks.append(system.fide_k(st.get("games", 0), st.get("master", r >= system.master_rating))
                      if system.k == "fide" else float(system.k))
        if system.k_of == "challenger":
            ci = 1 if challenger == b else 0
            ks = [ks[ci], ks[ci]]
        h_a = system.home_advantage if home == a else 0.0
        h_b = system.home_advantage if home == b else 0.0
        e = expected(ra + h_a, rb + h_b) if home in (a, b) else expected(ra, rb)
        outs = []
        for lab, s in zip(labels, scores):
            d = (ra + h_a) - (rb + h_b) if s == 1 else (rb + h_b) - (ra + h_a)
            try:
                m = margin_multiplier(system.margin, 0.0 if s == 0.5 else margin, d, s == 0.5)
            except ValueError:
                outs.append(Outcome(lab, s, None, None))
                continue
            after_a, after_b = new_ratings(ra, rb, s, ks[0], ks[1], e_a=e, factor=1.0 * m)
            outs.append(Outcome(lab, s, after_a, after_b))
        return PairPrediction(a, b, ra, rb, e, 1.0 - e, tuple(outs))
    if isinstance(system, Placement):
        lobby = predict_lobby(system, (a, b), states)
        outs = []
        for lab, s in zip(labels, scores):
            # S of a two-player lobby: 1 ahead, 0.5 tied, 0 behind.
            outs.append(Outcome(lab, s, lobby.after(0, s), lobby.after(1, 1.0 - s)))
        return PairPrediction(a, b, lobby.ratings[0], lobby.ratings[1], lobby.expected[0], lobby.expected[1],
                              tuple(outs))
    if isinstance(system, Glicko2):
        ga = Glicko(sa["r"], sa["rd"], sa["vol"])
        gb = Glicko(sb["r"], sb["rd"], sb["vol"])
        outs = tuple(Outcome(lab, s, update(ga, [(gb, s)], tau=system.tau, epsilon=system.epsilon).rating,
                             update(gb, [(ga, 1.0 - s)], tau=system.tau, epsilon=system.epsilon).rating)
                     for lab, s in zip(labels, scores))
        return PairPrediction(a, b, ga.rating, gb.rating, expected_score(ga, gb), expected_score(gb, ga), outs)
    if isinstance(system, OpenSkill):
        ka, kb = Skill(sa["mu"], sa["sigma"]), Skill(sb["mu"], sb["sigma"])
        model = system.model
        win = model.predict_win([[model.rating(mu=ka.mu, sigma=ka.sigma)], [model.rating(mu=kb.mu, sigma=kb.sigma)]])
        outs = []
        for lab, s in zip(labels, scores):
            if s not in OPENSKILL_PLACES:
                raise ValueError(f"openskill predicts a win, a draw or a loss (S = 1, 0.5 or 0), not S = {s}")
            (na,), (nb,) = openskill_update(model, [[ka], [kb]], OPENSKILL_PLACES[s])
            outs.append(Outcome(lab, s, na.mu - Z * na.sigma, nb.mu - Z * nb.sigma,
                                ((na.mu, na.sigma), (nb.mu, nb.sigma))))
        return PairPrediction(a, b, ka.ordinal, kb.ordinal, float(win[0]), float(win[1]), tuple(outs),
                              ((ka.mu, ka.sigma), (kb.mu, kb.sigma)))
    raise ValueError(f"{system.name} predicts no pairs")


@dataclass(frozen=True, slots=True)
class LobbyPrediction:
    """A placement lobby: each player's expected score E (duels won, of n - 1) and K."""

    players: tuple[str, ...]
    ratings: tuple[float, ...]
    expected: tuple[float, ...]
    k: tuple[float, ...]
    floor: float

    def after(self, i: int, score: float) -> float:
        """Player i's rating after a result worth ``score`` (n - place with distinct places)."""
        return max(self.floor, self.ratings[i] + self.k[i] * (score - self.expected[i]))


def predict_lobby(system: Placement, players: Sequence[str],
                  states: Mapping[str, Mapping[str, Any]]) -> LobbyPrediction:
    r = np.array([float(states[p]["r"]) for p in players])
    exp, _ = placement_terms(r, np.arange(1, len(players) + 1))
    ks = system.k_of(r)
    if system.normalize:
        ks = ks / (len(players) - 1)
    return LobbyPrediction(tuple(players), tuple(r.tolist()), tuple(exp.tolist()), tuple(ks.tolist()),
                           float(system.floor))


# --- the player pages' list ----------------------------------------------------------------

def nearest(states: Mapping[str, Mapping[str, Any]], name: str, n: int = NEAREST) -> list[str]:
    """The ``n`` players rated nearest to ``name`` (ties: the lower rating, then name by code point)."""
    ordered = sorted((st["r"], p) for p, st in states.items())
    me = states[name]["r"]
    i = bisect_left(ordered, (me, name))
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

    def against_nearest(self, name: str) -> list[PairPrediction]:
        if name not in self.states:
            return []
        return [predict_pair(self.system, name, other, self.states, challenger=name)
                for other in nearest(self.states, name)]

    @property
    def labels(self) -> tuple[str, ...]:
        return OUTCOME_LABELS[self.system.name]


def league_predictor(rated: RatedLeague) -> LeaguePredictor | None:
    system = rated.league.config.system
    if not predicts(system.name):
        return None
    return LeaguePredictor(system, player_states(rated), f"data/{rated.league.config.slug}/ratings.json")
