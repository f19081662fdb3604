"""Elo with FIDE-style K-factors and the challenger's K for both players, plus the options
real leagues use: home advantage, a margin-of-victory multiplier, weighted matches and
season reversion.

Sources: the ranked-battle rating method (Elo methodology, Elo adjustments), spec/elo; the options and their
formulas, docs/auditors (FiveThirtyEight's NFL and NBA Elo).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from sitegen.rating.limits import MAX_COUNT, MAX_POOL, MAX_RATING, MAX_WEIGHT
from sitegen.rating.base import (
    Example, ExampleKey, Field, Match, MatchSystem, Param, ParsedMatch, RatingEvent,
    Reporter, Standing, check_name, either, expected, is_int, is_number, normalize_name, one_of, parse_entries,
    positive, valid_fields, value_text, COUNT_ALLOWED, K_ALLOWED, RATING_ALLOWED, count, k_value,
    rating_value, MAX_NAME,
)
from sitegen.rating.base import Curve, expected_curve
from sitegen.rating.fields import slot_maker
from sitegen.rating.forecasts import (Outcome, PairArrays, PairForecast, PairPrediction, first_listed,
                                      first_listed_arrays)
from sitegen.rating.protocol import EXPECTED_NOTE
from sitegen.rating import elo_kernel
from sitegen.rating.events import EventTable, occurrences
from sitegen.rating.registry import register

SCORES = (1, 0.5, 0)
MARGINS = ("none", "538-nfl", "538-nba")
MAX_SEASON = MAX_NAME      # a season's name is shown like a player's: the same length limit


def new_ratings(r_a: float, r_b: float, s_a: float, k_a: float, k_b: float, *,
                e_a: float | None = None, factor: float = 1.0) -> tuple[float, float]:
    """Seed, Elo methodology: ratings of A and B after A scores ``s_a`` (1, 0.5, 0) against B.

    R'_A = R_A + K_A (S_A - E_A) and R'_B = R_B + K_B (1 - S_A - E_B), E_B = 1 - E_A.
    ``e_a`` is A's expected score when a home advantage changes it (section 8);
    ``factor`` is weight * M, which multiplies both Ks. With factor 1, K * 1.0 is K
    to the last bit, so version 1's numbers stay exactly as they were.
    """
    if e_a is None:
        e_a = expected(r_a, r_b)
    return (r_a + k_a * factor * (s_a - e_a),
            r_b + k_b * factor * ((1.0 - s_a) - (1.0 - e_a)))


def margin_multiplier(rule: str, margin: float, d: float, draw: bool) -> float:
    """docs/auditors: FiveThirtyEight's margin-of-victory multiplier M.

    ``margin`` is m = |points_a - points_b|; ``d`` the winner's rating minus the loser's,
    home advantage included. The denominator shrinks M when a favourite wins (a big win
    was expected), and grows it when an underdog does. The formulas leave their domain
    when the denominator reaches 0 (an underdog 2,200 points below, NFL, or 1,250 below,
    NBA, winning): then ValueError, for the caller to report.
    """
    if rule == "none":
        return 1.0
    if rule == "538-nfl":
        # ln(MOV + 1): a margin of 0 (a win on points equal, such as a shoot-out) counts as 1.
        top = math.log(max(margin, 1) + 1) * 2.2
        if draw:
            return top
        below = 0.001 * d + 2.2
    elif rule == "538-nba":
        top = (margin + 3) ** 0.8
        if draw:
            return top / 7.5
        below = 7.5 + 0.006 * d
    else:
        raise ValueError(f"unknown margin rule {rule!r}; one of {', '.join(MARGINS)}")
    if below <= 0:
        raise ValueError(f"the {rule} margin multiplier's denominator is {below:g}")
    return top / below


def season_text(value: Any) -> str:
    """A season as it is compared: 2024 and "2024" are the same season (interpretation)."""
    return str(value) if is_int(value) else normalize_name(value)


def valid_season(value: Any) -> bool:
    if is_int(value):
        return 0 <= value <= MAX_COUNT
    return isinstance(value, str) and 0 < len(normalize_name(value)) <= MAX_SEASON


def valid_points(value: Any) -> bool:
    return is_number(value) and 0 <= value <= MAX_COUNT


_PLAYER_KEYS = frozenset(("name", "score", "points"))
_MATCH_KEYS = ("challenger", "home", "season", "weight")
_NUMBER = (int, float)
_parsed = slot_maker(ParsedMatch, ("names", "entries", "extra", "name_paths"))
_PLAIN: dict[type, dict[float, Mapping[str, Any]]] = {
    int: {s: {"score": s, "points": None} for s in (1, 0)},
    float: {s: {"score": s, "points": None} for s in (1.0, 0.5)},
}


def _well_formed(raw: Mapping[str, Any], no_margin: bool) -> ParsedMatch | None:
    """The common match, two players of plain name and score and no match keys, read at once:
    what ``Elo.parse_match`` returns for it, found without its general checks (a million
    matches of a long history). None for anything else, or anything amiss: the general path
    then reads it and words each problem."""
    players = raw.get("players")
    if type(players) is not list or len(players) != 2:
        return None
    a, b = players
    if type(a) is not dict or type(b) is not dict or not (a.keys() <= _PLAYER_KEYS and b.keys() <= _PLAYER_KEYS):
        return None
    for key in _MATCH_KEYS:
        if key in raw:
            return None
    name_a, name_b = a.get("name"), b.get("name")
    if type(name_a) is not str or type(name_b) is not str:
        return None
    # check_name and normalize_name for an ASCII name (NFC leaves it as it is).
    name_a, name_b = name_a.strip(), name_b.strip()
    if not (0 < len(name_a) <= MAX_NAME and 0 < len(name_b) <= MAX_NAME and name_a.isascii() and name_b.isascii()):
        return None
    # The fields' checks: a score of SCORES, points (optional) from 0 to MAX_COUNT; bool is no number.
    score_a, score_b = a.get("score"), b.get("score")
    if not (type(score_a) in _NUMBER and type(score_b) in _NUMBER and score_a in SCORES and score_b in SCORES
            and score_a + score_b == 1):
        return None
    points_a, points_b = a.get("points"), b.get("points")
    if points_a is None or points_b is None:
        if not no_margin or "points" in a or "points" in b:
            return None
    else:
        if not (type(points_a) in _NUMBER and type(points_b) in _NUMBER and 0 <= points_a <= MAX_COUNT
                and 0 <= points_b <= MAX_COUNT):
            return None
        if points_a != points_b and (score_a if points_a > points_b else score_b) != 1:
            return None
    if points_a is None:
        # A plain score's entry is one object for every match that has it (load/validate.py
        # keeps one copy of each entry all the same); a float zero's sign is its own.
        entry_a = _PLAIN[type(score_a)].get(score_a) or {"score": score_a, "points": None}
        entry_b = _PLAIN[type(score_b)].get(score_b) or {"score": score_b, "points": None}
    else:
        entry_a, entry_b = {"score": score_a, "points": points_a}, {"score": score_b, "points": points_b}
    return _parsed((name_a, name_b), (entry_a, entry_b), {}, None)



@register
class Elo(MatchSystem):
    name: ClassVar[str] = "elo"
    label: ClassVar[str] = "Elo (FIDE K, challenger K)"
    explain: ClassVar[str] = ("Each change is K × (actual − expected); with the challenger rule both players use "
                              "the challenger's K.")
    term_labels: ClassVar[Mapping[str, str]] = {"expected": "Expected E", "score": "Actual S", "k": "K"}
    bootstraps: ClassVar[bool] = True
    predicts: ClassVar[bool] = True
    prediction_text: ClassVar[str] = "the first listed player's expected score"
    # pools.csv: each player's opponent pool (seed, Match Ups).
    ledger_tables: ClassVar[tuple[str, ...]] = ("pools",)
    # The numbers a page shows beside each change.
    terms: ClassVar[tuple[str, ...]] = ("expected", "score", "k")
    # changes.csv (docs/auditors): version 1's terms, then who set K (the challenger,
    # empty with k_of = "each"), the home player (empty on neutral ground), the margin
    # multiplier, the match's weight and the rating before a season's reversion (empty
    # when none happened), so that every K and every change can be recomputed from the file:
    # rating_after = rating_before + k * weight * margin_multiplier * (score - expected),
    # rating_before being the rating after any reversion.
    ledger_terms: ClassVar[tuple[str, ...]] = terms + (
        "challenger", "home", "margin_multiplier", "weight", "reverted_from")
    match_keys: ClassVar[tuple[str, ...]] = ("players", "challenger", "home", "season", "weight")
    params: ClassVar[tuple[Param, ...]] = (
        Param("initial", 1500, rating_value, RATING_ALLOWED,
              "Seed, Elo: players start at the mean score of 1500."),
        Param("k", "fide", either(k_value, one_of("fide")), f'{K_ALLOWED}, or "fide"',
              "Seed, Elo adjustments: K by the FIDE rating regulations; a number fixes K."),
        Param("k_of", "challenger", one_of("challenger", "each"), '"challenger" or "each"',
              "Seed, Elo methodology: the instigating player's K is used for both, so a match is zero-sum."),
        Param("provisional_games", 30, count, COUNT_ALLOWED.replace("an integer", "a whole number"),
              "Seed, Elo adjustments: K 40 for fewer than 30 games."),
        Param("k_provisional", 40, k_value, K_ALLOWED, "Seed: K = 40 while provisional."),
        Param("k_standard", 20, k_value, K_ALLOWED, "Seed: K = 20 after 30 games, below 2400."),
        Param("k_master", 10, k_value, K_ALLOWED,
              "Seed: K = 10 once the rating has reached 2400, even if it falls back."),
        Param("master_rating", 2400, rating_value, RATING_ALLOWED, "Seed: the 2400 threshold for K = 10."),
        Param("home_advantage", 0, rating_value, RATING_ALLOWED,
              "Section 8: rating points added to the home player's for the expected score; 0 changes "
              "nothing (FiveThirtyEight's NBA ratings used 100)."),
        Param("margin", "none", one_of(*MARGINS), '"none", "538-nfl" or "538-nba"',
              "Section 8: FiveThirtyEight's margin-of-victory multiplier from the players' points; "
              "\"none\" keeps M = 1."),
        Param("season_reversion", 0, lambda v: is_number(v) and 0 <= v <= 1, "a number from 0 to 1",
              "Section 8: the share w of the way back to reversion_mean a rating goes at a new season; "
              "0 changes nothing (FiveThirtyEight's NFL ratings went back a third of the way)."),
        Param("reversion_mean", 1505, rating_value, RATING_ALLOWED,
              "Section 8: the rating seasons revert towards (FiveThirtyEight's value)."),
        Param("pool_deviation", 100, lambda v: positive(v) and rating_value(v),
              f"a number > 0 and at most {MAX_RATING:,}",
              "Seed, Match Ups: the acceptable Elo deviation of 100 around the challenger's rating."),
        Param("pool_size", 30, lambda v: is_int(v) and 2 <= v <= MAX_POOL, f"an integer from 2 to {MAX_POOL:,}",
              "Seed, Match Ups: an opponent pool of 30, 15 drawn from below the rating and 15 from above."),
    )
    fields: ClassVar[tuple[Field, ...]] = (
        Field("score", lambda v: is_number(v) and v in SCORES, "1, 0.5 or 0"),
        Field("points", valid_points, f"a number from 0 to {MAX_COUNT:,} (the game score, such as goals)",
              required=False),
    )
    example: ClassVar[Example] = Example(
        players=(2, 2), entry={"score": 0.5},          # a draw
        keys=(ExampleKey("challenger", "NAME", "optional: who started it (default: the first listed)",
                         optional=True),
              ExampleKey("home", "NAME", "optional: the player at home (default: neutral ground)",
                         optional=True),
              ExampleKey("season", "2026", "optional: text or a whole number (default: the season of the "
                                           "league's previous match)", optional=True),
              ExampleKey("weight", 1, "optional: the match's importance, a number > 0 multiplying K "
                                      "(default 1)", optional=True)),
        rules=("the two scores sum to 1: 1 and 0 (a win), 0.5 and 0.5 (a draw), 0 and 1",
               "a player with more points than the other has score 1"),
    )

    def league_label(self) -> str:
        """The system's name with this league's K rule and version 2 options; version 1's
        defaults read as ``label`` does."""
        parts = ["FIDE K" if self.k == "fide" else f"K = {float(self.k):g}"]
        if self.k_of == "challenger":
            parts.append("challenger K")
        if self.home_advantage:
            parts.append(f"home advantage {float(self.home_advantage):g}")
        if self.margin != "none":
            parts.append(f"{self.margin} margin")
        if self.season_reversion:
            parts.append("season reversion")
        return f"Elo ({', '.join(parts)})"

    def explanation(self, *, weighted: bool = False) -> str:
        """The sentence under a match table, with only the rules this league uses (``weighted``:
        some match has a weight)."""
        if not (weighted or self.margin != "none" or self.home_advantage or self.season_reversion):
            return self.explain
        factors = "K" + (" × weight" if weighted else "") + (" × M" if self.margin != "none" else "")
        parts = [f"Each change is {factors} × (actual − expected)"]
        if self.k_of == "challenger":
            parts.append("both players use the challenger's K")
        if self.margin != "none":
            parts.append(f"M is the {self.margin} margin multiplier of the score difference")
        if self.home_advantage:
            parts.append(f"the home side's expected score counts {self.home_advantage:g} extra points")
        if self.season_reversion:
            parts.append(f"a player's first match of a new season starts {float(self.season_reversion):.0%} of "
                         f"the way back to {self.reversion_mean:g}")
        return "; ".join(parts) + "."

    def __init__(self, *, initial: float = 1500, k: float | str = "fide", k_of: str = "challenger",
                 provisional_games: int = 30, k_provisional: float = 40, k_standard: float = 20,
                 k_master: float = 10, master_rating: float = 2400, home_advantage: float = 0,
                 margin: str = "none", season_reversion: float = 0, reversion_mean: float = 1505,
                 pool_deviation: float = 100, pool_size: int = 30,
                 starts: Mapping[str, float] | None = None) -> None:
        self.initial = initial
        self.k = k
        self.k_of = k_of
        self.provisional_games = provisional_games
        self.k_provisional = k_provisional
        self.k_standard = k_standard
        self.k_master = k_master
        self.master_rating = master_rating
        self.home_advantage = home_advantage
        self.margin = margin
        self.season_reversion = season_reversion
        self.reversion_mean = reversion_mean
        self.starts = dict(starts or {})
        self.pool_deviation = pool_deviation
        self.pool_size = pool_size

    def match_example(self) -> Example:
        """With a margin rule every player needs points: the printed match gives them (0 each, a draw)."""
        if self.margin == "none":
            return self.example
        ex = self.example
        return Example(ex.players, {**ex.entry, "points": 0}, ex.keys,
                       ex.rules + (f'margin = "{self.margin}": both players need points',))

    def parse_match(self, raw: Mapping[str, Any], report: Reporter) -> ParsedMatch | None:
        quick = _well_formed(raw, self.margin == "none")
        if quick is not None:
            return quick
        parsed = parse_entries(raw.get("players"), report, self.fields, min_count=2, max_count=2,
                               system=self.name)
        ok = True
        extra: dict[str, Any] = {}
        # Names of players, resolved through players.toml and checked against the match's
        # players by the validator, which knows the aliases.
        for key in ("challenger", "home"):
            value = raw.get(key)
            if value is None:
                continue
            problem = check_name(value)
            if problem:
                report((key,), problem)
                ok = False
            else:
                extra[key] = normalize_name(value)
        if "season" in raw:
            if valid_season(raw["season"]):
                extra["season"] = season_text(raw["season"])
            else:
                report(("season",), f"must be a non-empty text of at most {MAX_SEASON} characters or a whole "
                                    f"number from 0 to {MAX_COUNT:,} (such as \"2024-25\" or 2024), got "
                                    f"{value_text(raw['season'])}")
                ok = False
        if "weight" in raw:
            weight = raw["weight"]
            if positive(weight) and weight <= MAX_WEIGHT:
                extra["weight"] = weight
            else:
                report(("weight",), f"must be a number > 0 and at most {MAX_WEIGHT:,} (the match's "
                                    f"importance; 1 is an ordinary match), got {value_text(weight)}")
                ok = False
        # Rules across the players are checked whenever their fields are valid, even if another is bad.
        entries = parsed[1] if parsed is not None else valid_fields(raw.get("players"), self.fields)
        scored = len(entries) == 2 and all("score" in e for e in entries)
        if scored:
            total = entries[0]["score"] + entries[1]["score"]
            if total != 1:
                report(("players", 1, "score"),
                       f"the two scores must sum to 1 (1 and 0, 0.5 and 0.5, or 0 and 1), got "
                       f"{entries[0]['score']} and {entries[1]['score']}")
                ok = False
                scored = False
        raw_players = raw.get("players")
        if self.margin != "none" and isinstance(raw_players, list) and len(raw_players) == 2:
            for i, player in enumerate(raw_players):
                if isinstance(player, dict) and "points" not in player:
                    report(("players", i, "points"),
                           f'is missing; with margin = "{self.margin}" both players need points '
                           f"(a number >= 0, the game score such as goals)")
                    ok = False
        # Scored means two players: both have points exactly when two are left here.
        points = [e["points"] for e in entries if e.get("points") is not None]
        if scored and len(points) == 2 and points[0] != points[1]:
            more = 0 if points[0] > points[1] else 1
            if entries[more]["score"] != 1:
                report(("players", more, "score"),
                       f"this player has more points ({points[more]:g} to {points[1 - more]:g}) and so must "
                       f"have score 1 (a win), got {entries[more]['score']}; correct the points or the "
                       "scores")
                ok = False
        if not ok or parsed is None:
            return None
        return ParsedMatch(parsed[0], parsed[1], extra)

    def fide_k(self, games: int, reached_master: bool) -> float:
        """FIDE rule from games played before this match and whether 2400 was ever reached."""
        if games < self.provisional_games:
            return float(self.k_provisional)
        return float(self.k_master if reached_master else self.k_standard)

    def rate(self, matches: Sequence[Match]) -> Sequence[RatingEvent]:
        """One event per match, from the array kernel (elo_kernel.py), which replays every option
        in the arithmetic of the formulas above."""
        return elo_kernel.rate(self, matches)

    def rate_from(self, matches: Sequence[Match], before: elo_kernel.RatedColumns | None
                  ) -> tuple[Sequence[RatingEvent], elo_kernel.RatedColumns]:
        """``rate`` taken up where the rating of the history's first matches left off, and the
        rating to take up next (model/resume.py)."""
        return elo_kernel.rate_from(self, matches, before)

    def resampled_ratings(self, matches: Sequence[Match], draws: Sequence[Sequence[int]]) -> dict[str, list[float]]:
        """The bootstrap's resamples (honest.py) replayed by the kernel over match positions."""
        return elo_kernel.resampled(self, matches, draws)

    def resampled_from(self, matches: Sequence[Match], draws: Sequence[Sequence[int]],
                       before: elo_kernel.ReplayStates | None, cols: elo_kernel.EloColumns | None = None
                       ) -> tuple[dict[str, list[float]], elo_kernel.ReplayStates]:
        """``resampled_ratings`` taken up where the replays of a shorter history left off;
        ``cols``, where given, the matches as ``rate_from`` encoded them."""
        return elo_kernel.resampled_from(self, matches, draws, before, cols)

    def expected_from(self, matches: Sequence[Match], before: elo_kernel.RatingState | None
                      ) -> tuple[np.ndarray, np.ndarray, elo_kernel.RatingState]:
        """Each match's first listed E and S as ``rate`` makes them, from where the replay of a
        shorter history left off (the accuracy page's replay with the defaults, baselines.py)."""
        return elo_kernel.expected_from(self, matches, before)

    def describe(self, entry: Mapping[str, Any]) -> str:
        text = {1: "win", 0.5: "draw", 0: "loss"}[entry["score"]]
        points = entry.get("points")
        if points is None:
            return text
        shown = int(points) if isinstance(points, float) and points.is_integer() else points
        return f"{text}, {shown:,} points"

    def outcome(self, match: Match, index: int) -> str | None:
        s = match.entries[index]["score"]
        return "win" if s == 1 else "draw" if s == 0.5 else "loss"

    def outcome_codes(self, events: Sequence[RatingEvent]) -> np.ndarray | None:
        """``outcome`` of each row of the score column, where the rows are the lines (``listed``):
        the first player's score as entered, the second's 1 minus it (the two sum to 1)."""
        if not (isinstance(events, EventTable) and events.listed):
            return None
        score = events.terms["score"].values
        # Filled in place as int8, with no int64 array of every line made twice.
        codes = np.full(len(score), 2, dtype=np.int8)
        codes[score == 0.5] = 1
        codes[score == 1] = 0
        return codes

    def headline(self, match: Match) -> str:
        (a, b), (ea, eb) = match.players, match.entries
        if ea.get("points") is not None and eb.get("points") is not None:    # a score reads as a score
            return f"{a} {_points(ea['points'])}\u2013{_points(eb['points'])} {b}"
        s = ea["score"]
        return f"{a} and {b} draw" if s == 0.5 else f"{a} beats {b}" if s == 1 else f"{b} beats {a}"

    def result(self, match: Match, index: int) -> str:
        mine, theirs = match.entries[index], match.entries[1 - index]
        if mine.get("points") is not None and theirs.get("points") is not None:
            return f"{_points(mine['points'])}\u2013{_points(theirs['points'])}"
        return ""


    def summary(self, match: Match, names: Sequence[str]) -> str:
        e = match.entries
        if len(e) != 2:
            return super().summary(match, names)
        return f"{names[0]} {_SCORE_TEXT[e[0]['score']]}–{_SCORE_TEXT[e[1]['score']]} {names[1]}"

    @classmethod
    def curve(cls) -> Curve:
        return expected_curve("Equal ratings expect 0.5; 200 points ahead expects about 0.76.")

    # --- predictions ---------------------------------------------------------------------

    def pair_forecasts(self, matches: Sequence[Match], events: Sequence[RatingEvent]) -> Iterator[PairForecast]:
        return first_listed(events)

    def pair_forecast_arrays(self, matches: Sequence[Match], events: Sequence[RatingEvent]) -> Iterator[PairArrays]:
        return first_listed_arrays(events)

    def predictor_params(self) -> dict[str, Any]:
        return self.param_values("k", "k_of", "provisional_games", "k_provisional", "k_standard", "k_master",
                                 "master_rating", "home_advantage", "margin")

    def predictor_states(self, matches: Sequence[Match], events: Sequence[RatingEvent],
                         standings: Sequence[Standing]) -> dict[str, dict[str, Any]]:
        """The rating, games played (the FIDE K), whether 2400 was ever reached, and a pending
        season reversion."""
        out: dict[str, dict[str, Any]] = {s.player: {"r": s.rating} for s in standings}
        mr = self.master_rating
        if isinstance(events, EventTable):      # every change, read from the columns at once
            _table_states(out, events, mr)
        else:
            for event in events:
                for c in event.changes:
                    st = out[c.player]
                    # The engine's rule: the rating before the first match, then every rating after one.
                    first = "games" not in st
                    assert c.before is not None     # every elo player starts from a rating
                    st["games"] = st.get("games", 0) + 1
                    st["master"] = (c.before >= mr if first else st["master"]) or c.after >= mr
        w = float(self.season_reversion)
        if w > 0:       # a season's players, walked only where a new season reverts them
            league_season = None
            last_season: dict[str, Any] = {}
            for m in matches:
                league_season = m.extra.get("season", league_season)
                for p in m.players:
                    last_season[p] = league_season
            for name, st in out.items():
                if last_season.get(name) != league_season:
                    st["rev"] = (1.0 - w) * st["r"] + w * float(self.reversion_mean)
        return out

    def predict_pair(self, a: str, b: str, states: Mapping[str, Mapping[str, Any]], *,
                     scores: Sequence[float], labels: Sequence[str], pings: tuple[float, float] = (0, 0),
                     home: str | None = None, challenger: str | None = None,
                     margin: float = 1.0) -> PairPrediction:
        """Neutral ground unless ``home`` is given, the challenger's K, weight 1, a margin of
        ``margin`` points for a win (0 for a draw) under a margin rule, reverted players first."""
        sa, sb = states[a], states[b]
        ra, rb = sa.get("rev", sa["r"]), sb.get("rev", sb["r"])
        ks = []
        for st, r in ((sa, ra), (sb, rb)):
            ks.append(self.fide_k(st.get("games", 0), st.get("master", r >= self.master_rating))
                      if self.k == "fide" else float(self.k))
        if self.k_of == "challenger":
            ci = 1 if challenger == b else 0
            ks = [ks[ci], ks[ci]]
        h_a = self.home_advantage if home == a else 0.0
        h_b = self.home_advantage if home == b else 0.0
        e = expected(ra + h_a, rb + h_b) if home in (a, b) else expected(ra, rb)
        outs = []
        for lab, s in zip(labels, scores):
            d = (ra + h_a) - (rb + h_b) if s == 1 else (rb + h_b) - (ra + h_a)
            try:
                mult = margin_multiplier(self.margin, 0.0 if s == 0.5 else margin, d, s == 0.5)
            except ValueError:
                outs.append(Outcome(lab, s, None, None))
                continue
            after_a, after_b = new_ratings(ra, rb, s, ks[0], ks[1], e_a=e, factor=1.0 * mult)
            outs.append(Outcome(lab, s, after_a, after_b))
        return PairPrediction(a, b, ra, rb, e, 1.0 - e, tuple(outs))

    def nearest_text(self) -> str:
        margin = ", a win by 1 point" if self.margin != "none" else ""
        return ("{name}'s expected score against the {count} players rated nearest, and the change to {name}'s "
                f"rating each result would bring (neutral ground, {{name}} the challenger{margin})."
                + EXPECTED_NOTE + ".")

    def predictor_form(self) -> frozenset[str]:
        form = {"options"}
        if self.home_advantage:
            form.add("home")
        if self.k_of == "challenger":
            form.add("challenger")
        if self.margin != "none":
            form.add("margin")
        return frozenset(form)


_SCORE_TEXT = {1: "1", 0.5: "½", 0: "0"}


def _points(p: float) -> str:
    return f"{int(p)}" if float(p).is_integer() else f"{p:g}"


def _table_states(out: dict[str, dict[str, Any]], events: EventTable, mr: float) -> None:
    """``predictor_states``' games and master flag of every player from the rating columns:
    the count of their rows, and whether the rating before their first row or any rating after
    one reached ``mr`` (a Python loop over two million rows took 2 s at a million matches)."""
    player, n = events.player, len(events.names)
    if not len(player):
        return
    games = np.bincount(player, minlength=n).tolist()
    reached = (np.bincount(player, weights=events.after >= mr, minlength=n) > 0).tolist()
    who, first, _, _ = occurrences(player, n)
    exact = events.exact_before
    for p, row, before in zip(who.tolist(), first.tolist(), events.before[first].tolist()):
        before = exact.get(row, before)
        assert before is not None     # every elo player starts from a rating
        st = out[events.names[p]]
        st["games"] = games[p]
        st["master"] = before >= mr or reached[p]
