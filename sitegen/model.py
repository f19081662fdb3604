"""View models: for every page, the plain data its template shows. No I/O here.

Templates only format; every ordering, count and explanation is decided here.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from slugify import slugify

from .config import LeagueConfig, Roster, Tier
from .history import RatedLeague
from .rating.base import Change, Match

RECENT = 12


@dataclass(frozen=True, slots=True)
class Link:
    text: str
    url: str          # site-relative path such as "leagues/x/players/y/"


@dataclass(slots=True)
class MatchLine:
    """One participant of a match as shown on a match page and a player's list."""

    player: Link
    details: str                      # "20 goals, ping 35 ms, host" or "win"
    result: str | None                # win / draw / loss
    before: float | None
    after: float
    delta: float | None
    terms: dict[str, float | None]
    tier: Tier | None = None
    formula: str = ""                 # how the change follows from the terms


@dataclass(slots=True)
class MatchView:
    match: Match
    url: str
    lines: list[MatchLine]
    event: str

    @property
    def id(self) -> str:
        return self.match.id


@dataclass(slots=True)
class PlayerGame:
    """A row of a player's match list: the match, the opponents and the change it caused."""

    match: MatchView
    line: MatchLine
    opponents: list[Link]
    number: int                        # the player's n-th game


@dataclass(slots=True)
class PlayerView:
    name: str
    slug: str
    url: str
    aliases: tuple[str, ...]
    platform: str | None
    region: str | None
    rank: int = 0
    rating: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)
    tier: Tier | None = None
    games: list[PlayerGame] = field(default_factory=list)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    peak: tuple[float, datetime] | None = None
    lowest: tuple[float, datetime] | None = None
    first_played: datetime | None = None
    last_played: datetime | None = None


@dataclass(slots=True)
class LeagueView:
    config: LeagueConfig
    url: str
    rated: RatedLeague
    players: dict[str, PlayerView]
    leaderboard: list[PlayerView]
    matches: list[MatchView]            # history order
    integer: bool
    has_outcomes: bool
    terms: tuple[str, ...]

    @property
    def recent(self) -> list[MatchView]:
        return self.matches[::-1][:RECENT]


def player_slugs(names: list[str]) -> dict[str, str]:
    """A unique, URL-safe slug per player; clashes get -2, -3 in code point order of names."""
    slugs: dict[str, str] = {}
    used: Counter[str] = Counter()
    for name in sorted(names):
        base = slugify(name) or "player"
        slug = base
        while slug in used:
            used[base] += 1
            slug = f"{base}-{used[base] + 1}"
        used[slug] += 1
        slugs[name] = slug
    return slugs


def formula(terms: dict[str, float | None], integer: bool) -> str:
    """The update written out, e.g. "50 × (0.537 − 0.794) = −12.88, rounded"."""
    if not {"k", "score", "expected"} <= terms.keys():
        return ""
    k, s, e = terms["k"], terms["score"], terms["expected"]
    raw = k * (s - e)
    text = f"{k:g} × ({s:.3f} − {e:.3f}) = {raw:+.2f}".replace("-", "−")
    return text + (", rounded" if integer else "")


def league_view(rated: RatedLeague, roster: Roster) -> LeagueView:
    config = rated.league.config
    system = config.system
    base = f"leagues/{config.slug}/"
    names = [r.standing.player for r in rated.standings]
    slugs = player_slugs(names)
    players: dict[str, PlayerView] = {}
    for r in rated.standings:
        info = roster.info(r.standing.player)
        name = r.standing.player
        players[name] = PlayerView(
            name=name, slug=slugs[name], url=f"{base}players/{slugs[name]}/",
            aliases=info.aliases, platform=info.platform, region=info.region,
            rank=r.rank, rating=r.standing.rating, extra=dict(r.standing.extra),
            tier=config.tier_of(r.standing.rating),
        )

    def link(name: str) -> Link:
        return Link(name, players[name].url)

    # Which change belongs to which player in which match.
    change_of: dict[tuple[str, str], tuple[Change, str]] = {}
    for event in rated.events:
        for c in event.changes:
            for mid in event.matches:
                change_of[(mid, c.player)] = (c, event.key)

    views: list[MatchView] = []
    counts: Counter[str] = Counter()
    for m in rated.league.matches:
        lines = []
        event_key = ""
        for i, (name, entry) in enumerate(zip(m.players, m.entries)):
            c, event_key = change_of[(m.id, name)]
            result = system.outcome(m, i)
            lines.append(MatchLine(link(name), system.describe(entry),
                                   result, c.before, c.after, c.delta, dict(c.terms),
                                   config.tier_of(c.after), formula(dict(c.terms), system.integer_ratings)))
        view = MatchView(m, f"{base}matches/{m.id}/", lines, event_key)
        views.append(view)
        for i, line in enumerate(lines):
            p = players[line.player.text]
            counts[p.name] += 1
            opponents = [l.player for j, l in enumerate(lines) if j != i]
            p.games.append(PlayerGame(view, line, opponents, counts[p.name]))
            if line.result == "win":
                p.wins += 1
            elif line.result == "draw":
                p.draws += 1
            elif line.result == "loss":
                p.losses += 1
            if p.peak is None or line.after > p.peak[0]:
                p.peak = (line.after, m.played)
            if p.lowest is None or line.after < p.lowest[0]:
                p.lowest = (line.after, m.played)
            p.first_played = p.first_played or m.played
            p.last_played = m.played

    leaderboard = [players[r.standing.player] for r in rated.standings]
    return LeagueView(config, base, rated, players, leaderboard, views,
                      system.integer_ratings, system.has_outcomes, system.terms)


def record_by_opponent(player: PlayerView) -> list[dict[str, Any]]:
    """Head-to-head: games, wins, draws, losses against each opponent, most played first."""
    table: dict[str, dict[str, Any]] = defaultdict(lambda: {"games": 0, "win": 0, "draw": 0, "loss": 0})
    links: dict[str, Link] = {}
    for g in player.games:
        for opp in g.opponents:
            row = table[opp.text]
            links[opp.text] = opp
            row["games"] += 1
            if g.line.result:
                row[g.line.result] += 1
    rows = [{"opponent": links[n], **row} for n, row in table.items()]
    rows.sort(key=lambda r: (-r["games"], r["opponent"].text))
    return rows
