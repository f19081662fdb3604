"""Elo with FIDE-style K-factors and the challenger's K for both players.

Source: the ranked-battle rating method, seed 001_41bcfd1597e08275.txt
(Elo methodology, Elo adjustments). CONTRACT section 4 `elo`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from .base import (
    Change, Example, ExampleKey, Field, Match, MatchSystem, Param, ParsedMatch, RatingEvent, Reporter,
    check_name, either, expected, is_int, is_number, normalize_name, one_of, parse_entries, positive,
    valid_fields, COUNT_ALLOWED, K_ALLOWED, RATING_ALLOWED, count, k_value, rating_value,
)
from ..limits import MAX_POOL, MAX_RATING

SCORES = (1, 0.5, 0)


def new_ratings(r_a: float, r_b: float, s_a: float, k_a: float, k_b: float) -> tuple[float, float]:
    """Seed, Elo methodology: ratings of A and B after A scores ``s_a`` (1, 0.5, 0) against B.

    R'_A = R_A + K_A (S_A - E_A) and R'_B = R_B + K_B (1 - S_A - E_B), E_B = 1 - E_A.
    """
    e_a = expected(r_a, r_b)
    return r_a + k_a * (s_a - e_a), r_b + k_b * ((1.0 - s_a) - (1.0 - e_a))


class Elo(MatchSystem):
    name: ClassVar[str] = "elo"
    # The numbers a page shows beside each change.
    terms: ClassVar[tuple[str, ...]] = ("expected", "score", "k")
    # changes.csv (CONTRACT section 8): version 1's terms, then who set K (the challenger,
    # empty with k_of = "each"), the home player (empty on neutral ground), the margin
    # multiplier, the match's weight and the rating before a season's reversion (empty
    # when none happened), so that every K and every change can be recomputed from the file.
    ledger_terms: ClassVar[tuple[str, ...]] = terms + (
        "challenger", "home", "margin_multiplier", "weight", "reverted_from")
    match_keys: ClassVar[tuple[str, ...]] = ("players", "challenger")
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
        Param("pool_deviation", 100, lambda v: positive(v) and rating_value(v),
              f"a number > 0 and at most {MAX_RATING:,}",
              "Seed, Match Ups: the acceptable Elo deviation of 100 around the challenger's rating."),
        Param("pool_size", 30, lambda v: is_int(v) and 2 <= v <= MAX_POOL, f"an integer from 2 to {MAX_POOL:,}",
              "Seed, Match Ups: an opponent pool of 30, 15 drawn from below the rating and 15 from above."),
    )
    fields: ClassVar[tuple[Field, ...]] = (
        Field("score", lambda v: is_number(v) and v in SCORES, "1, 0.5 or 0"),
    )
    example: ClassVar[Example] = Example(
        players=(2, 2), entry={"score": 0.5},          # a draw
        keys=(ExampleKey("challenger", "NAME", "optional: who started it (default: the first listed)",
                         optional=True),),
        rules=("the two scores sum to 1: 1 and 0 (a win), 0.5 and 0.5 (a draw), 0 and 1",),
    )

    def __init__(self, *, initial: float = 1500, k: float | str = "fide", k_of: str = "challenger",
                 provisional_games: int = 30, k_provisional: float = 40, k_standard: float = 20,
                 k_master: float = 10, master_rating: float = 2400, pool_deviation: float = 100,
                 pool_size: int = 30) -> None:
        self.initial = initial
        self.k = k
        self.k_of = k_of
        self.provisional_games = provisional_games
        self.k_provisional = k_provisional
        self.k_standard = k_standard
        self.k_master = k_master
        self.master_rating = master_rating
        self.pool_deviation = pool_deviation
        self.pool_size = pool_size

    def parse_match(self, raw: Mapping[str, Any], report: Reporter) -> ParsedMatch | None:
        parsed = parse_entries(raw.get("players"), report, self.fields, min_count=2, max_count=2,
                               system=self.name)
        challenger = raw.get("challenger")
        ok = True
        if challenger is not None:
            problem = check_name(challenger)
            if problem:
                report(("challenger",), problem)
                ok = False
            else:
                challenger = normalize_name(challenger)
        # The sum is checked whenever both scores are valid, even if another field is bad.
        entries = parsed[1] if parsed is not None else valid_fields(raw.get("players"), self.fields)
        if len(entries) == 2 and all("score" in e for e in entries):
            total = entries[0]["score"] + entries[1]["score"]
            if total != 1:
                report(("players", 1, "score"),
                       f"the two scores must sum to 1 (1 and 0, 0.5 and 0.5, or 0 and 1), got "
                       f"{entries[0]['score']} and {entries[1]['score']}")
                ok = False
        if not ok or parsed is None:
            return None
        return ParsedMatch(parsed[0], entries, {"challenger": challenger} if challenger else {})

    def fide_k(self, games: int, reached_master: bool) -> float:
        """FIDE rule from games played before this match and whether 2400 was ever reached."""
        if games < self.provisional_games:
            return float(self.k_provisional)
        return float(self.k_master if reached_master else self.k_standard)

    def rate(self, matches: Sequence[Match]) -> list[RatingEvent]:
        ratings: dict[str, float] = {}
        games: dict[str, int] = {}
        master: dict[str, bool] = {}
        events = []
        for m in matches:
            a, b = m.players
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
            exp_a = expected(ra, rb)
            s_a = float(m.entries[0]["score"])      # validated: the two scores sum to 1
            after_a, after_b = new_ratings(ra, rb, s_a, ks[0], ks[1])
            # Neutral ground, no margin rule, weight 1, no reversion: the defaults of section 8.
            shared = {"challenger": challenger, "home": None, "margin_multiplier": 1.0, "weight": 1.0,
                      "reverted_from": None}
            changes = [
                Change(a, ra, after_a, {"expected": exp_a, "score": s_a, "k": ks[0], **shared}),
                Change(b, rb, after_b, {"expected": 1.0 - exp_a, "score": 1.0 - s_a, "k": ks[1], **shared}),
            ]
            for c in changes:
                ratings[c.player] = c.after
                games[c.player] = games.get(c.player, 0) + 1
                reached = master.get(c.player, c.before >= self.master_rating)
                master[c.player] = reached or c.after >= self.master_rating
            events.append(RatingEvent(m.id, m.played, (m.id,), tuple(changes)))
        return events

    def describe(self, entry: Mapping[str, Any]) -> str:
        return {1: "win", 0.5: "draw", 0: "loss"}[entry["score"]]

    def outcome(self, match: Match, index: int) -> str | None:
        s = match.entries[index]["score"]
        return "win" if s == 1 else "draw" if s == 0.5 else "loss"
