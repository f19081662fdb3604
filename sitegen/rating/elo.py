"""Elo with FIDE-style K-factors and the challenger's K for both players, plus the options
real leagues use: home advantage, a margin-of-victory multiplier, weighted matches and
season reversion.

Sources: the ranked-battle rating method, seed 001_41bcfd1597e08275.txt
(Elo methodology, Elo adjustments), docs/curators `elo`; the options and their
formulas, docs/auditors (FiveThirtyEight's NFL and NBA Elo).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from sitegen.rating.limits import MAX_COUNT, MAX_POOL, MAX_RATING, MAX_WEIGHT
from sitegen.rating.base import (
    Change, Example, ExampleKey, Field, Match, MatchSystem, Param, ParsedMatch, RatingDiverged, RatingEvent,
    Reporter, check_name, either, expected, is_int, is_number, normalize_name, one_of, parse_entries,
    positive, valid_fields, value_text, COUNT_ALLOWED, K_ALLOWED, RATING_ALLOWED, count, k_value,
    rating_value, MAX_NAME,
)

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


class Elo(MatchSystem):
    name: ClassVar[str] = "elo"
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
        points = [e.get("points") for e in entries]
        if scored and len(points) == 2 and None not in points and points[0] != points[1]:
            more = 0 if points[0] > points[1] else 1
            if entries[more]["score"] != 1:
                report(("players", more, "score"),
                       f"this player has more points ({points[more]:g} to {points[1 - more]:g}) and so must "
                       f"have score 1 (a win), got {entries[more]['score']}; correct the points or the "
                       "scores")
                ok = False
        if not ok or parsed is None:
            return None
        return ParsedMatch(parsed[0], entries, extra)

    def fide_k(self, games: int, reached_master: bool) -> float:
        """FIDE rule from games played before this match and whether 2400 was ever reached."""
        if games < self.provisional_games:
            return float(self.k_provisional)
        return float(self.k_master if reached_master else self.k_standard)

    def rate(self, matches: Sequence[Match]) -> list[RatingEvent]:
        ratings: dict[str, float] = dict(self.starts)
        games: dict[str, int] = {}
        master: dict[str, bool] = {}
        # Season reversion (section 8): the season of the league's previous match, which a
        # match without `season` is in, and the season of each player's previous match.
        league_season: str | None = None
        last_season: dict[str, str | None] = {}
        w, mean = float(self.season_reversion), float(self.reversion_mean)
        events = []
        for m in matches:
            a, b = m.players
            season = m.extra.get("season", league_season)
            league_season = season
            reverted: dict[str, float] = {}
            for p in (a, b):
                # Once per new season, however many passed; w = 0 is no reversion at all.
                if w > 0 and p in last_season and last_season[p] != season:
                    r = ratings.get(p, self.initial)
                    reverted[p] = r
                    ratings[p] = (1.0 - w) * r + w * mean
                last_season[p] = season
            ra, rb = ratings.get(a, self.initial), ratings.get(b, self.initial)
            ks = []
            for p, r in ((a, ra), (b, rb)):
                if self.k == "fide":
                    ks.append(self.fide_k(games.get(p, 0), master.get(p, r >= self.master_rating)))
                else:
                    ks.append(float(self.k))
            challenger = None
            if self.k_of == "challenger":
                # The aliases are resolved already, so the challenger is one of the two names.
                challenger = m.extra.get("challenger") or a
                ci = m.players.index(challenger)
                ks = [ks[ci], ks[ci]]
            home = m.extra.get("home")
            h_a = h_b = 0.0
            if home is not None:
                h_a, h_b = (self.home_advantage, 0.0) if home == a else (0.0, self.home_advantage)
                exp_a = expected(ra + h_a, rb + h_b)   # E_home with R_home + home_advantage
            else:
                exp_a = expected(ra, rb)                # version 1's formula
            s_a = float(m.entries[0]["score"])      # validated: the two scores sum to 1
            multiplier = self._multiplier(m, ra + h_a, rb + h_b, s_a)
            weight = float(m.extra.get("weight", 1))
            after_a, after_b = new_ratings(ra, rb, s_a, ks[0], ks[1], e_a=exp_a, factor=weight * multiplier)
            if not (math.isfinite(after_a) and math.isfinite(after_b)):
                raise RatingDiverged(m.id, "a rating", "(K × weight × margin multiplier is too large); "
                                                        "lower k or the match's weight")
            shared = {"challenger": challenger, "home": home, "margin_multiplier": multiplier,
                      "weight": weight}
            changes = [
                Change(a, ra, after_a, {"expected": exp_a, "score": s_a, "k": ks[0], **shared,
                                        "reverted_from": reverted.get(a)}),
                Change(b, rb, after_b, {"expected": 1.0 - exp_a, "score": 1.0 - s_a, "k": ks[1], **shared,
                                        "reverted_from": reverted.get(b)}),
            ]
            for c in changes:
                ratings[c.player] = c.after
                games[c.player] = games.get(c.player, 0) + 1
                reached = master.get(c.player, c.before >= self.master_rating)
                master[c.player] = reached or c.after >= self.master_rating
            events.append(RatingEvent(m.id, m.played, (m.id,), tuple(changes)))
        return events

    def _multiplier(self, m: Match, ra: float, rb: float, s_a: float) -> float:
        """M of one match from the ratings with home advantage added; RatingDiverged off its domain."""
        if self.margin == "none":
            return 1.0
        p_a, p_b = (float(e["points"]) for e in m.entries)
        d = ra - rb if s_a == 1 else rb - ra     # the winner's minus the loser's (unused on a draw)
        try:
            return margin_multiplier(self.margin, abs(p_a - p_b), d, s_a == 0.5)
        except ValueError:
            limit = 2200 if self.margin == "538-nfl" else 1250
            raise RatingDiverged(
                m.id, f"the {self.margin} margin multiplier",
                f"(the winner was rated {-d:,.0f} points below the loser, home advantage included; the "
                f"formula holds only while that gap is under {limit:,}); rate this league without a "
                "margin rule, or check the match") from None

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


def _points(p: float) -> str:
    return f"{int(p)}" if float(p).is_integer() else f"{p:g}"
