"""`sitegen diff`: what a change to the match files does to the ratings.

Both revisions are rated by the build's own pipeline (sitegen.commands.revision); this
module compares the two results league by league (matches added, removed,
changed or moved, and every player whose rating, rank or tier differs) and
writes the comparison as text, Markdown (a GitHub job summary), CSV or JSON.
Ratings are compared as the data files write them (lunaro whole, others to 6
decimals): a difference standings.csv cannot show is no change.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from sitegen.load.config import LeagueConfig
from sitegen.model.history import RatedLeague
from sitegen.rating.base import Match
from sitegen.load.site import where_to_run
from sitegen.commands.revision import (WORKING_TREE, InvalidRevision, Revision, RevisionError, has_matches,
                       rated_leagues, repository, resolve)

__all__ = ["RevisionError", "InvalidRevisions", "Diff", "diff_revisions", "compare", "result"]

_MISSING = object()


# --- the comparison ------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Side:
    """A player's line of one revision's standings."""

    rating: float | int        # as standings.csv writes it: lunaro whole, others rounded to 6 decimals
    rank: int
    tier: str | None
    games: int


@dataclass(frozen=True, slots=True)
class PlayerDiff:
    player: str
    before: Side | None        # None: not rated before (a new player)
    after: Side | None         # None: no longer rated

    @property
    def change(self) -> str:
        return "added" if self.before is None else "removed" if self.after is None else "changed"

    @property
    def sides(self) -> tuple[Side, Side]:
        """(before, after) of a player rated in both revisions; the after side alone may stand
        for a new player (before is then the after side too, never read)."""
        after = self.after or self.before
        before = self.before or after
        assert before is not None and after is not None, "a PlayerDiff has a side"
        return before, after

    @property
    def delta(self) -> float | int | None:
        if self.before is None or self.after is None:
            return None
        d = self.after.rating - self.before.rating
        # From the rounded ratings, so before + delta = after in every format.
        return d if isinstance(d, int) else round(d, 6) + 0.0


@dataclass(frozen=True, slots=True)
class MatchDiff:
    id: str
    change: str                # added, removed, changed, or moved (only its file differs)
    fields: tuple[str, ...]    # what differs: played, players, players.goals, challenger, notes, file
    before: Match | None
    after: Match | None

    @property
    def match(self) -> Match:
        """The match as it is now, or as it was if removed."""
        shown = self.after or self.before
        assert shown is not None, "a MatchDiff has a side"
        return shown

    @property
    def played(self) -> datetime:
        return self.match.played

    def results(self, lg: "LeagueDiff", names: Callable[[str], str] = str) -> tuple[str | None, str | None]:
        """(before, after): the match's players and result in each revision, in its league's
        system then; None where the match does not exist. ``names`` escapes each name."""
        return (result(self.before, lg.before.system, names) if self.before and lg.before else None,
                result(self.after, lg.after.system, names) if self.after and lg.after else None)


@dataclass(frozen=True, slots=True)
class LeagueDiff:
    slug: str
    before: LeagueConfig | None
    after: LeagueConfig | None
    settings: tuple[str, ...]  # league.toml entries that differ: name, system, params.k, tiers, description
    matches: tuple[MatchDiff, ...]
    players: tuple[PlayerDiff, ...]
    # Every player rated before, with their games: what a new name may have been meant to be.
    known: Mapping[str, int] = field(default_factory=dict)

    @property
    def change(self) -> str | None:
        """The league itself: added, removed, changed (its league.toml), or None."""
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        return "changed" if self.settings else None

    @property
    def config(self) -> LeagueConfig:
        shown = self.after or self.before
        assert shown is not None, "a LeagueDiff has a side"
        return shown

    @property
    def has_tiers(self) -> bool:
        return any(c is not None and c.tiers for c in (self.before, self.after))

    def counts(self) -> dict[str, dict[str, int]]:
        return {
            "matches": _count((m.change for m in self.matches), MATCH_CHANGES),
            "players": _count((p.change for p in self.players), PLAYER_CHANGES),
        }


LEAGUE_CHANGES = ("added", "removed", "changed")
MATCH_CHANGES = ("added", "removed", "changed", "moved")
PLAYER_CHANGES = ("changed", "added", "removed")


def _count(changes: Iterator[str], order: tuple[str, ...]) -> dict[str, int]:
    counts = dict.fromkeys(order, 0)
    for c in changes:
        counts[c] += 1
    return counts


@dataclass(frozen=True, slots=True)
class Diff:
    before: Revision
    after: Revision
    leagues: tuple[LeagueDiff, ...]     # leagues with anything to report, by slug

    def totals(self) -> dict[str, dict[str, int]]:
        totals = {"leagues": _count((lg.change for lg in self.leagues if lg.change), LEAGUE_CHANGES)}
        for kind, order in (("matches", MATCH_CHANGES), ("players", PLAYER_CHANGES)):
            totals[kind] = {c: sum(lg.counts()[kind][c] for lg in self.leagues) for c in order}
        return totals


class InvalidRevisions(Exception):
    """One or both revisions hold invalid match files."""

    def __init__(self, invalid: list[InvalidRevision]):
        self.invalid = invalid
        super().__init__("; ".join(str(i) for i in invalid))

    def lines(self) -> list[str]:
        return [f"at {i.revision.label}: {p}" for i in self.invalid for p in i.problems]


def diff_revisions(root: Path, before: str, after: str | None = None) -> Diff:
    """Rate the site at ``before`` and at ``after`` (None: the files on disk) and compare.

    Raises RevisionError (a usage error: no git, no repository, unknown revision)
    before rating anything, and InvalidRevisions with every problem of both sides.
    """
    repo = repository(root)
    revisions = (resolve(repo, before), WORKING_TREE if after is None else resolve(repo, after))
    if not any(has_matches(repo, revision) for revision in revisions):
        # Run from a subfolder, both sides would be empty sites: "no changes" would be a lie.
        raise RevisionError(f"no matches/ folder in {root} at {revisions[0].label} or "
                            f"{revisions[1].label}; {where_to_run(root)}")
    rated: list[dict[str, RatedLeague]] = []
    invalid: list[InvalidRevision] = []
    with tempfile.TemporaryDirectory(prefix="sitegen-diff-") as tmp:
        for i, revision in enumerate(revisions):
            try:
                rated.append(rated_leagues(repo, revision, Path(tmp) / f"r{i}"))
            except InvalidRevision as exc:
                invalid.append(exc)
    if invalid:
        raise InvalidRevisions(invalid)
    return compare(revisions[0], rated[0], revisions[1], rated[1])


def compare(rev_a: Revision, a: Mapping[str, RatedLeague], rev_b: Revision,
            b: Mapping[str, RatedLeague]) -> Diff:
    leagues = []
    for slug in sorted(a.keys() | b.keys()):
        lg = _league_diff(slug, a.get(slug), b.get(slug))
        if lg.change or lg.matches or lg.players:
            leagues.append(lg)
    return Diff(rev_a, rev_b, tuple(leagues))


def _league_diff(slug: str, a: RatedLeague | None, b: RatedLeague | None) -> LeagueDiff:
    ca = a.league.config if a else None
    cb = b.league.config if b else None
    keys = frozenset(k for c in (ca, cb) if c for k in c.system.match_keys)
    ma = {m.id: m for m in a.league.matches} if a else {}
    mb = {m.id: m for m in b.league.matches} if b else {}
    matches = []
    for mid in ma.keys() | mb.keys():
        before, after = ma.get(mid), mb.get(mid)
        if before is None:
            matches.append(MatchDiff(mid, "added", (), None, after))
        elif after is None:
            matches.append(MatchDiff(mid, "removed", (), before, None))
        else:
            fields = _match_fields(before, after, keys)
            if fields:
                change = "moved" if fields == ("file",) else "changed"
                matches.append(MatchDiff(mid, change, fields, before, after))
    matches.sort(key=lambda m: (m.played, m.id))

    sa = _sides(a) if a else {}
    sb = _sides(b) if b else {}
    players = []
    for name in sa.keys() | sb.keys():
        was, now = sa.get(name), sb.get(name)
        if was is None or now is None or _shown(was) != _shown(now):
            players.append(PlayerDiff(name, was, now))
    players.sort(key=_player_order)
    settings = _settings(ca, cb) if ca and cb else ()
    return LeagueDiff(slug, ca, cb, settings, tuple(matches), tuple(players),
                      {name: side.games for name, side in sa.items()})


def _shown(side: Side) -> tuple:
    return side.rating, side.rank, side.tier


def _player_order(p: PlayerDiff) -> tuple:
    """Biggest change first: rating delta, then rank move, then name; new, then gone, players
    after them, best rated first, as a leaderboard lists them."""
    if p.before is None:
        assert p.after is not None
        return 1, -p.after.rating, 0, p.player
    if p.after is None:
        return 2, -p.before.rating, 0, p.player
    return 0, -abs(p.delta or 0), -abs(p.after.rank - p.before.rank), p.player


def _sides(rated: RatedLeague) -> dict[str, Side]:
    config = rated.league.config
    integer = config.system.integer_ratings
    out = {}
    for r in rated.standings:
        s = r.standing
        tier = config.tier_of(s.rating)
        value = int(s.rating) if integer else round(s.rating, 6) + 0.0
        out[s.player] = Side(value, r.rank, tier.name if tier else None, s.games)
    return out


def _match_fields(a: Match, b: Match, keys: frozenset[str]) -> tuple[str, ...]:
    fields = []
    if a.played != b.played:
        fields.append("played")
    if a.players != b.players:
        fields.append("players")
    entries_b = dict(zip(b.players, b.entries))
    changed: set[str] = set()
    for name, ea in zip(a.players, a.entries):
        eb = entries_b.get(name)
        if eb is not None:
            changed.update(k for k in ea.keys() | eb.keys() if ea.get(k, _MISSING) != eb.get(k, _MISSING))
    fields.extend(f"players.{k}" for k in sorted(changed))
    # Only the keys a curator writes (arena's derived team sizes follow from players.team).
    for key in sorted(keys & (a.extra.keys() | b.extra.keys())):
        if a.extra.get(key, _MISSING) != b.extra.get(key, _MISSING):
            fields.append(key)
    if a.notes != b.notes:
        fields.append("notes")
    if a.file != b.file:
        fields.append("file")
    return tuple(fields)


def _settings(a: LeagueConfig, b: LeagueConfig) -> tuple[str, ...]:
    out = []
    if a.name != b.name:
        out.append("name")
    if a.system_name != b.system_name:
        out.append("system")
    for key in sorted(a.params.keys() | b.params.keys()):
        if a.params.get(key, _MISSING) != b.params.get(key, _MISSING):
            out.append(f"params.{key}")
    if [(t.min_rating, t.name) for t in a.tiers] != [(t.min_rating, t.name) for t in b.tiers]:
        out.append("tiers")
    # Starting ratings ([initial]) move every rating after them, as a parameter does.
    for name in sorted(a.system.starts.keys() | b.system.starts.keys()):
        if a.system.starts.get(name, _MISSING) != b.system.starts.get(name, _MISSING):
            out.append(f"initial.{name}")
    if a.description != b.description:
        out.append("description")
    return tuple(out)


# --- a match's players and result, compactly -------------------------------------------------

def result(m: Match, system: Any, names: Callable[[str], str] = str) -> str:
    """Who played and how it ended, in one line, by the league's system (its ``summary``): elo
    "Ann 1–0 Bo" (½–½ a draw), lunaro "Ann 20–3 Bo" (goals), placement "1. Ann, 2. Bo, 3. Cy, +2
    more", glicko2 "Ann 310, Bo 290" (scores, highest first), arena "team 1 (Ann, Bo) beat team 2
    (Cy, Dan); kills 25–18". Lobbies and teams show their first three. ``names`` escapes each name;
    the rest of the line is fixed text and numbers."""
    return system.summary(m, [names(n) for n in m.players])
