"""Battle-royale placement Elo: every match is a duel against each other player.

Source: the Fortnite rating proposal, seed 002_4830abbe64cf75eb.txt (Phase 3,
"1) Elo implementation"). docs/curators `placement`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from sitegen.rating.limits import MAX_COUNT
from sitegen.rating.base import (
    BANDS_ALLOWED, Change, Example, ExampleKey, Field, MatchSystem, Match, Param, ParsedMatch, RatingEvent,
    Reporter, either, one_of, parse_entries, value_text,
    valid_bands,
    K_ALLOWED, RATING_ALLOWED, count, k_value, rating_value,
)
from sitegen.rating.base import event_name, listing


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


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 101st, 111th."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class Placement(MatchSystem):
    name: ClassVar[str] = "placement"
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
        return ParsedMatch(parsed[0], parsed[1], extra) if ok else None

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

    def rate(self, matches: Sequence[Match]) -> list[RatingEvent]:
        ratings: dict[str, float] = {name: float(r) for name, r in self.starts.items()}
        initial, floor = float(self.initial), float(self.floor)
        events = []
        for m in matches:
            n = len(m.players)
            before = [ratings.get(p, initial) for p in m.players]
            # TOML integers have no size limit; past int64 numpy keeps them as exact Python ints.
            places = np.array([e["place"] for e in m.entries])
            r = np.array(before)
            exp, score = placement_terms(r, places)
            ks = self.k_of(r)                  # each player's from their own pre-match rating
            if self.normalize:
                ks /= n - 1
            # Everyone from the ratings held before the match (docs/curators).
            after = np.maximum(floor, r + ks * (score - exp)).tolist()
            changes = tuple(
                Change(p, b, a, {"expected": e, "score": s, "k": k})
                for p, b, a, e, s, k in zip(m.players, before, after, exp.tolist(), score.tolist(),
                                            ks.tolist())
            )
            ratings.update(zip(m.players, after))
            events.append(RatingEvent(m.id, m.played, (m.id,), changes))
        return events

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

    def result(self, match: Match, index: int) -> str:
        return f"{ordinal(match.entries[index]['place'])} of {len(match.players)}"
