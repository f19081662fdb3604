"""View models: for every page, the plain data its template shows. No I/O here.

Templates only format; every ordering, count and explanation is decided here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from slugify import slugify

from sitegen.rating import collector
from sitegen.load.config import LeagueConfig, Roster, Tier
from sitegen.model.groups import MatchGroup, group_matches
from sitegen.model.history import RatedLeague
from sitegen.model.scale import is_big, matches_per_part
from sitegen.model.table import iso
from sitegen.rating.base import Change, Match
from sitegen.rating.events import EventTable, event_keys

RECENT = 12

# Match-level keys a system adds (docs/curators), as the match page labels them.
MATCH_FACTS = {"challenger": "Challenger", "home": "Home", "season": "Season", "weight": "Weight",
               "platform": "Platform", "score_to_win": "Score to win"}


# Compared by identity: one Link per player and league, so counting opponents
# (head to head in 100-player lobbies) hashes in C, not through generated __hash__.
@dataclass(frozen=True, slots=True, eq=False)
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
    terms: Mapping[str, float | str | None]     # numbers, and names (elo's challenger, home)
    tier: Tier | None = None
    formula: str = ""                 # how the change follows from the terms
    team: int | None = None           # 1-based team number in team games
    period: str | None = None         # the rating period, when it spans several matches
    score: str = ""                   # the result in a few characters: "3–1", "2nd of 20"

    # Worked out when asked, as Change.delta is: a float and a slot less on a million lines.
    @property
    def delta(self) -> float | None:
        return None if self.before is None else self.after - self.before

    @property
    def result_text(self) -> str:
        """The result as a player's games list says it: "win 3–1", "2nd of 20", else the details."""
        return f"{self.result or ''} {self.score}".strip() or self.details


@dataclass(slots=True)
class Group:
    """The players of a match shown together: a team, or everyone when there are no teams."""

    label: str | None                 # "Team 1 · won"
    lines: list[MatchLine]


@dataclass(slots=True)
class MatchView:
    match: Match
    url: str                          # its anchor on its file's page (model/groups.py)
    lines: list[MatchLine]
    event: str
    event_matches: tuple[str, ...] = ()   # every match rated in the same event (a period)
    facts: tuple[tuple[str, str], ...] = ()     # match-level keys to show
    title: str = ""                       # for people: "Ana 3–1 Bo", "Verstappen wins Monaco Grand Prix 2023"

    # Made when a page shows them, not kept: a group and a list per match of a big league.
    @property
    def groups(self) -> list[Group]:
        return _groups(self.lines)

    @property
    def id(self) -> str:
        return self.match.id

    @property
    def anchor(self) -> str:
        """Its row's id on its file's page, the part of its address after "#"."""
        return self.url.split("#")[1]

    @property
    def played_minute(self) -> str:
        """When it was played, to the minute: "2024-05-01 17:30" (UTC)."""
        return iso(self.match.played)[:16].replace("T", " ")


@dataclass(slots=True)
class PlayerGame:
    """A row of a player's match list: the match, the player's line in it and the change."""

    match: MatchView
    index: int                         # the player's position in the match
    number: int                        # the player's n-th game
    rated: bool = True                 # False for all but the player's last game of a period

    @property
    def line(self) -> MatchLine:
        return self.match.lines[self.index]

    # Computed when asked, not stored: in 100-player lobbies stored lists of 99
    # opponents per game took most of a large build's memory.
    @property
    def opponents(self) -> list[Link]:
        lines, i = self.match.lines, self.index
        team = lines[i].team
        if team is None:
            return [line.player for line in lines[:i]] + [line.player for line in lines[i + 1:]]
        return [line.player for line in lines if line.team != team]

    @property
    def teammates(self) -> list[Link]:
        lines, i = self.match.lines, self.index
        team = lines[i].team
        if team is None:
            return []
        return [line.player for j, line in enumerate(lines) if line.team == team and j != i]


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
    standing_terms: tuple[str, ...] = ()
    tier_counts: list[tuple[Tier, int]] = field(default_factory=list)
    has_teams: bool = False
    groups: list[MatchGroup] = field(default_factory=list)   # the match pages
    explanation: str = ""               # under its match tables: the system's, with this league's rules
    # Each player's link as one page folder writes it, made once for every row that shows it
    # (output/render.py's links filter fills it while pages render).
    link_cache: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def places(self) -> int:
        """Decimals of a rating shown on its own (board, player page, home)."""
        return self.config.system.rating_places

    @property
    def recent(self) -> list[MatchView]:
        return self.matches[::-1][:RECENT]


# Transliteration lengthens some names a lot (64 CJK characters give 319 ASCII
# ones): past 255 bytes a folder name cannot be written at all.
SLUG_MAX = 64


def player_slugs(names: list[str]) -> dict[str, str]:
    """A unique, URL-safe slug per player; clashes get -2, -3 in code point order of names.

    The first name of each slug keeps it, and a suffix never takes a slug that a
    name has of its own ("eve-2" stays the slug of the player called "eve 2").
    Names with no letter or digit to keep ("!!!", emoji) are "player", "player-2", ...
    after any player actually called "Player".
    """
    natural = {name: slugify(name, max_length=SLUG_MAX) for name in names}
    order = sorted(names, key=lambda name: (not natural[name], name))
    owner: dict[str, str] = {}
    for name in order:
        owner.setdefault(natural[name] or "player", name)
    result = {name: slug for slug, name in owner.items()}
    taken = set(owner)
    tried: Counter[str] = Counter()       # the last suffix tried per slug: many clashes stay linear
    for name in order:
        if name in result:
            continue
        base = natural[name] or "player"
        while True:
            tried[base] += 1
            slug = f"{base}-{tried[base] + 1}"
            if slug not in taken:
                break
        taken.add(slug)
        result[name] = slug
    return result


def _number(terms: Mapping[str, float | str | None], key: str) -> float:
    """A term of the K × (S − E) update, which is always a number."""
    value = terms[key]
    assert isinstance(value, (int, float)), f"term {key} is {value!r}"
    return float(value)


def formula(terms: Mapping[str, float | str | None], before: float | None, after: float, integer: bool) -> str:
    """The update written out, e.g. "50 × (0.537 − 0.794) = −12.88, rounded".

    For every system whose change is K × (S − E); the others' terms speak for themselves.
    """
    # Three lookups, not a set built for every line.
    if "k" not in terms or "score" not in terms or "expected" not in terms:
        return ""
    k, s, e = _number(terms, "k"), _number(terms, "score"), _number(terms, "expected")
    # elo's weight and margin multiplier (docs/configuration) multiply K; shown only when not 1.
    factors = [f for f in (terms.get("weight"), terms.get("margin_multiplier"))
               if isinstance(f, (int, float)) and f != 1]
    raw = k * (s - e)
    for f in factors:
        raw *= f
    # Most lines have no factor: no generator to join for them (a line each of a big league).
    shown = "".join(f" × {f:.4g}" for f in factors) if factors else ""
    text = f"{k:.4g}{shown} × ({s:.3g} − {e:.3f}) = {raw:+.2f}"
    if terms.get("reverted_from") is not None:
        text = f"season reversion {terms['reverted_from']:.1f} → {before:.1f}, then {text}"
    if integer:
        text += ", rounded"
    elif before is not None and abs(before + raw - after) > 1e-9:
        text += f", floor {after:g}"
    return text.replace("-", "−")


Found = dict[str, tuple[Change, str, tuple[str, ...]]]


def _match_changes(rated: RatedLeague) -> tuple[Iterator[Found], Counter[tuple[str, str]]]:
    """Each match's changes by player, with their event's key and matches, match after match;
    and how many of a player's matches each (event, player) spans."""
    events, matches = rated.events, rated.league.matches
    if isinstance(events, EventTable) and events.matches is None and event_keys(events) == [m.id for m in matches]:
        # One event per match, in the matches' order: each made as it is read, none held after
        # its match's lines (a period of one match spans one match of each of its players);
        # the lines keep each change's terms as a RowTerms over the columns, not a dict.
        one = (({c.player: (c, e.key, e.matches) for c in e.changes}) for e in events.light())
        return one, Counter()
    # Which change belongs to which player in which match; a period's change
    # belongs to every match of the period the player played in.
    change_of: dict[tuple[str, str], tuple[Change, str, tuple[str, ...]]] = {}
    for event in events:
        for c in event.changes:
            for mid in event.matches:
                change_of[(mid, c.player)] = (c, event.key, event.matches)
    # A change is marked with its period only where it spans several of the player's matches.
    in_event: Counter[tuple[str, str]] = Counter()
    for m in matches:
        for name in m.players:
            in_event[(change_of[(m.id, name)][1], name)] += 1
    return ({name: change_of[(m.id, name)] for name in m.players} for m in matches), in_event


def league_view(rated: RatedLeague, roster: Roster) -> LeagueView:
    # A line, a game and a view per player and match, none in a cycle: the cyclic collector
    # waits until they are built instead of walking the growing heap again and again
    # (a 100k-match league: 2.5 of the 5 seconds this took).
    with collector.paused():
        return _league_view(rated, roster)


def _league_view(rated: RatedLeague, roster: Roster) -> LeagueView:
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

    links = {name: Link(name, pv.url) for name, pv in players.items()}
    link = links.__getitem__

    changes_of, in_event = _match_changes(rated)
    periods = bool(in_event)        # empty where every event is one match: no line is in a period
    views: list[MatchView] = []
    counts: Counter[str] = Counter()
    # A big league's match rows show no formula (model/scale.py): none is written out.
    formulas = not is_big(rated)
    integer = system.integer_ratings
    # One copy of each short text many lines say alike ("win, 3 points", "3–1"), not one a line.
    texts: dict[str, str] = {}
    one = texts.setdefault
    for m, found in zip(rated.league.matches, changes_of):
        lines = []
        event_key = ""
        event_matches: tuple[str, ...] = ()
        for i, (name, entry) in enumerate(zip(m.players, m.entries)):
            c, event_key, event_matches = found[name]
            terms = c.terms         # shared with the change, not copied: a million lines in big leagues
            details, score = system.describe(entry), system.result(m, i)
            lines.append(MatchLine(
                link(name), one(details, details), system.outcome(m, i), c.before, c.after,
                terms, config.tier_of(c.after), formula(terms, c.before, c.after, integer) if formulas else "",
                team=entry.get("team"), period=event_key if periods and in_event[(event_key, name)] > 1 else None,
                score=one(score, score)))
        facts = tuple([(label, str(m.extra[key])) for key, label in MATCH_FACTS.items()
                       if m.extra.get(key) is not None]) if m.extra else ()
        view = MatchView(m, "", lines, event_key, event_matches, facts, system.headline(m))
        views.append(view)
        for i, line in enumerate(lines):
            p = players[line.player.text]
            counts[p.name] += 1
            p.games.append(PlayerGame(view, i, counts[p.name]))
            if line.result == "win":
                p.wins += 1
            elif line.result == "draw":
                p.draws += 1
            elif line.result == "loss":
                p.losses += 1
            p.first_played = p.first_played or m.played
            p.last_played = m.played

    for p in players.values():
        _mark_rated(p)

    groups = group_matches(views, base, matches_per_part(rated))      # sets every view's url
    leaderboard = [players[r.standing.player] for r in rated.standings]
    tier_counts = [(t, sum(1 for p in leaderboard if p.tier is t)) for t in config.tiers]
    return LeagueView(config, base, rated, players, leaderboard, views,
                      system.integer_ratings, system.has_outcomes, system.terms,
                      system.standing_terms, tier_counts,
                      any(line.team is not None for v in views for line in v.lines), groups,
                      system.explanation(weighted=any("weight" in v.match.extra for v in views)))


def _groups(lines: list[MatchLine]) -> list[Group]:
    """Team games show each team together, winners first as listed; other matches one group."""
    if all(line.team is None for line in lines):
        return [Group(None, lines)]
    by_team: dict[int, list[MatchLine]] = {}
    for line in lines:
        by_team.setdefault(line.team or 0, []).append(line)
    groups = []
    for team, members in by_team.items():
        outcome = {"win": " · won", "loss": " · lost", "draw": " · drew"}.get(members[0].result or "", "")
        groups.append(Group(f"Team {team}{outcome}", members))
    return groups


def _mark_rated(player: PlayerView) -> None:
    """In a period of several matches only the player's last game carries the period's change;
    the peak and the lowest are the highest and lowest rating after such a game, the first
    game to reach it."""
    last_of: dict[str, int] = {}
    for i, g in enumerate(player.games):
        last_of[g.match.event] = i
    peak = lowest = None
    for i, g in enumerate(player.games):
        g.rated = rated = last_of[g.match.event] == i
        if rated:
            after = g.match.lines[g.index].after
            if peak is None or after > peak[0]:
                peak = (after, g.match.match.played)
            if lowest is None or after < lowest[0]:
                lowest = (after, g.match.match.played)
    player.peak, player.lowest = peak, lowest
