"""View models: for every page, the plain data its template shows. No I/O here.

Templates only format; every ordering, count and explanation is decided here.
"""

from __future__ import annotations

from collections import Counter
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain, compress, count
from operator import attrgetter
from typing import TYPE_CHECKING, Any, cast, overload

import numpy as np

from slugify import slugify

from sitegen.rating import collector
from sitegen.load.config import LeagueConfig, Roster, Tier
from sitegen.model.groups import MatchGroup, plan
from sitegen.model.history import RatedLeague, one_event_per_match
from sitegen.model import scale
from sitegen.model.table import iso
from sitegen.rating.base import Match
from sitegen.rating.matchcolumns import column, fields, played_at
from sitegen.rating.protocol import NO_OUTCOME, OUTCOMES

if TYPE_CHECKING:
    from sitegen.model.lines import TableLines
    from sitegen.model.matchviews import ViewMaker

RECENT = 12

# A line's result as a code (LineColumns.outcomes), the systems' outcome_codes: its place in
# OUTCOMES; a line without one is NO_RESULT.
WIN, DRAW, LOSS = (OUTCOMES.index(o) for o in ("win", "draw", "loss"))
NO_RESULT = NO_OUTCOME
RESULT_CODES: dict[str | None, int] = {o: i for i, o in enumerate(OUTCOMES)}

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
class Rare:
    """What few matches have, apart from their views: a view of a million-match league sets
    three fields fewer."""

    rated_with: tuple[str, ...] = ()      # every match rated in the same event (a period)
    facts: tuple[tuple[str, str], ...] = ()     # match-level keys to show
    escaped: str | None = None          # its fragment, where the id needs escaping (groups.anchor)


@dataclass(slots=True)
class MatchView:
    match: Match
    # Its lines; or, where they are read from the columns when asked (model/lines.py), the
    # league's TableLines, and ``at`` the match's position: no object a match for them.
    held: Sequence[MatchLine] | TableLines
    event: str
    # The system's headline, bound once per league: the title is said when a page shows it,
    # not held (a string a match, 70 MB of a million-match league's models).
    headline: Callable[[Match], str] | None = field(default=None, repr=False, compare=False)
    at: int = -1
    # Its file's page (model/groups.py sets it), shared by every match of the page.
    page: str = ""
    rare: Rare | None = None

    def _rare(self) -> Rare:
        if self.rare is None:
            self.rare = Rare()
        return self.rare

    @property
    def rated_with(self) -> tuple[str, ...]:
        """Every match rated in the same event (a period); () where the event is this match alone."""
        return () if self.rare is None else self.rare.rated_with

    @rated_with.setter
    def rated_with(self, matches: tuple[str, ...]) -> None:
        self._rare().rated_with = matches

    @property
    def facts(self) -> tuple[tuple[str, str], ...]:
        """The match-level keys to show."""
        return () if self.rare is None else self.rare.facts

    @facts.setter
    def facts(self, facts: tuple[tuple[str, str], ...]) -> None:
        self._rare().facts = facts

    @property
    def escaped(self) -> str | None:
        """Its fragment on its page where the id needs escaping (groups.anchor); None: "m-" and the id."""
        return None if self.rare is None else self.rare.escaped

    @escaped.setter
    def escaped(self, fragment: str | None) -> None:
        self._rare().escaped = fragment

    # A list, or a MatchLines where they are read from the columns: read as a list reads.
    @property
    def lines(self) -> list[MatchLine]:
        held = self.held
        return cast("list[MatchLine]", cast("TableLines", held).match_lines(self.at) if self.at >= 0 else held)

    @property
    def event_matches(self) -> tuple[str, ...]:
        """Every match rated in the same event, this one included."""
        return self.rare.rated_with if self.rare is not None and self.rare.rated_with else (self.event,)

    @property
    def url(self) -> str:
        """Its anchor on its file's page: "leagues/x/matches/2026/04-april/#m-17"."""
        return f"{self.page}#{self.anchor}"

    @property
    def title(self) -> str:
        """For people: "Ana 3–1 Bo", "Verstappen wins Monaco Grand Prix 2023"."""
        return self.headline(self.match) if self.headline is not None else ""

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
        return self.escaped if self.escaped is not None else f"m-{self.match.id}"

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
        m = self.match
        if m.at >= 0:       # read from the columns (TableLines.line, as MatchLines reads it)
            return cast("TableLines", m.held).line(m.at, self.index)
        return m.lines[self.index]

    @property
    def after(self) -> float:
        """The line's rating after, without making the line where it is read from the columns."""
        m = self.match
        if m.at >= 0:
            return cast("TableLines", m.held).after(m.at, self.index)
        return cast("list[MatchLine]", m.held)[self.index].after

    # Computed when asked, not stored: in 100-player lobbies stored lists of 99
    # opponents per game took most of a large build's memory.
    @property
    def opponents(self) -> list[Link]:
        players, teams = _players_and_teams(self.match.lines)
        i, team = self.index, teams[self.index]
        if team is None:
            return players[:i] + players[i + 1:]
        return [p for p, t in zip(players, teams) if t != team]

    @property
    def teammates(self) -> list[Link]:
        players, teams = _players_and_teams(self.match.lines)
        i, team = self.index, teams[self.index]
        if team is None:
            return []
        return [p for j, (p, t) in enumerate(zip(players, teams)) if t == team and j != i]


def _players_and_teams(lines: Sequence[MatchLine]) -> tuple[list[Link], list[int | None]]:
    """Every line's player and team; where the lines are read from the columns (model/lines.py),
    without making them (a lobby's 100)."""
    if isinstance(lines, list):
        return [line.player for line in lines], [line.team for line in lines]
    return lines.players_and_teams()        # type: ignore[attr-defined]


class Games(Sequence[PlayerGame]):
    """A player's games, each made when read from two arrays of ints: the position of the
    player's match in the league's history and the player's place in it. A ``PlayerGame``
    held per game of every player was a sixth of a million-match league's view models."""

    __slots__ = ("views", "at", "place")

    def __init__(self, views: Sequence[MatchView] | ViewMaker) -> None:
        self.views = views
        self.at = array("i")
        self.place = array("i")

    def add(self, match: int, index: int) -> None:
        self.at.append(match)
        self.place.append(index)

    def extend(self, matches: np.ndarray, places: np.ndarray) -> None:
        """Games added as two int arrays at once (``_league_view`` groups every line by player),
        read as they are where they are C ints already."""
        self.at.frombytes(np.ascontiguousarray(matches, dtype=np.intc).data.cast("B"))
        self.place.frombytes(np.ascontiguousarray(places, dtype=np.intc).data.cast("B"))

    def __len__(self) -> int:
        return len(self.at)

    @overload
    def __getitem__(self, i: int) -> PlayerGame: ...

    @overload
    def __getitem__(self, i: slice) -> list[PlayerGame]: ...

    def __getitem__(self, i: int | slice) -> PlayerGame | list[PlayerGame]:
        numbers = range(len(self.at))[i]       # a list's bounds, negative indices and steps
        if isinstance(numbers, range):
            views, at, place = self.views, self.at, self.place
            return [PlayerGame(views[at[k]], place[k], k + 1) for k in numbers]
        return PlayerGame(self.views[self.at[numbers]], self.place[numbers], numbers + 1)

    def __iter__(self) -> Iterator[PlayerGame]:
        return map(PlayerGame, map(self.views.__getitem__, self.at), self.place, count(1))

    def __reversed__(self) -> Iterator[PlayerGame]:
        return iter(self[::-1])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return f"Games({list(self)!r})"


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
    games: Sequence[PlayerGame] = field(default_factory=list)     # a Games once modelled
    wins: int = 0
    draws: int = 0
    losses: int = 0
    peak: tuple[float, datetime] | None = None
    lowest: tuple[float, datetime] | None = None
    first_played: datetime | None = None
    last_played: datetime | None = None


@dataclass(frozen=True, slots=True)
class LineColumns:
    """Every line of a league in history order, as columns: each match's number of lines,
    each line's player (numbered in ``LeagueView.players``' order) and result code. Counted
    once by the views, read again by the careers (model/aggregates.py) instead of walking a
    million matches once more."""

    sizes: np.ndarray       # int64, a match each
    players: np.ndarray     # int32, a line each
    outcomes: np.ndarray    # int8 RESULT_CODES, a line each


@dataclass(slots=True)
class LeagueView:
    config: LeagueConfig
    url: str
    rated: RatedLeague
    players: dict[str, PlayerView]
    leaderboard: list[PlayerView]
    matches: Sequence[MatchView]        # history order (a MatchViews: each made when read)
    integer: bool
    has_outcomes: bool
    terms: tuple[str, ...]
    standing_terms: tuple[str, ...] = ()
    tier_counts: list[tuple[Tier, int]] = field(default_factory=list)
    has_teams: bool = False
    groups: list[MatchGroup] = field(default_factory=list)   # the match pages
    explanation: str = ""               # under its match tables: the system's, with this league's rules
    lines: LineColumns | None = field(default=None, repr=False, compare=False)
    # Each player's link as one page folder writes it, made once for every row that shows it
    # (output/render.py's links filter fills it while pages render).
    link_cache: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict, repr=False, compare=False)
    # Each player's one Link, the one their lines hold: the careers and the forecast read it
    # here, not by making a line per player (ten thousand) or a Link again.
    links: dict[str, Link] = field(default_factory=dict, repr=False, compare=False)

    @property
    def places(self) -> int:
        """Decimals of a rating shown on its own (board, player page, home)."""
        return self.config.system.rating_places

    @property
    def recent(self) -> list[MatchView]:
        return list(self.matches[::-1][:RECENT])

    def hold_lines(self) -> None:
        """Every match's lines made now, where they are held and were left to be made when a
        page reads them (``league_view``'s ``kept``; lines.HeldLines): for a build that turns
        out to make most pages again."""
        from sitegen.model.lines import HeldLines
        from sitegen.model.matchviews import MatchViews, ViewMaker
        views = self.matches.views if isinstance(self.matches, MatchViews) else None
        if isinstance(views, ViewMaker) and isinstance(views.held, HeldLines):
            views.held.hold()


# Transliteration lengthens some names a lot (64 CJK characters give 319 ASCII
# ones): past 255 bytes a folder name cannot be written at all.
SLUG_MAX = 64


def natural_slugs(names: list[str], known: Mapping[str, str] | None = None) -> dict[str, str]:
    """Each name's own slug (``slugify``), ``known``'s where it has the name (model/carried.py)."""
    if not known:
        return {name: slugify(name, max_length=SLUG_MAX) for name in names}
    return {name: known[name] if name in known else slugify(name, max_length=SLUG_MAX) for name in names}


def player_slugs(names: list[str], natural: dict[str, str] | None = None) -> dict[str, str]:
    """A unique, URL-safe slug per player; clashes get -2, -3 in code point order of names.

    The first name of each slug keeps it, and a suffix never takes a slug that a
    name has of its own ("eve-2" stays the slug of the player called "eve 2").
    Names with no letter or digit to keep ("!!!", emoji) are "player", "player-2", ...
    after any player actually called "Player".
    """
    natural = natural_slugs(names) if natural is None else natural
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


def league_view(rated: RatedLeague, roster: Roster, kept: bool = False) -> LeagueView:
    """The league's view models. ``kept``: the build will likely keep most of the league's pages
    from the build before (output/memo.py), so held lines (scale.lines_held) are made for the
    pages that ask, not all at once for every page (``LeagueView.hold_lines`` makes them later)."""
    # A line, a game and a view per player and match, none in a cycle: the cyclic collector
    # waits until they are built instead of walking the growing heap again and again
    # (a 100k-match league: 2.5 of the 5 seconds this took).
    # Inside a build's frozen block they are frozen as the block ends (collector.kept): the
    # collection that would follow the pause does not walk every new line and game once more
    # (0.3 s of 100,000 duels' views).
    with collector.kept():
        return _league_view(rated, roster, kept)


def _league_view(rated: RatedLeague, roster: Roster, kept: bool = False) -> LeagueView:
    from sitegen.model.carried import carried_files, carried_slugs
    from sitegen.model.columns import column_lines, group_games, lines_of, table_extremes
    from sitegen.model.lines import HeldLines, LineMaker, TableLines, event_lines
    from sitegen.model.matchviews import MatchViews, ViewMaker
    config = rated.league.config
    system = config.system
    base = f"leagues/{config.slug}/"
    names = [r.standing.player for r in rated.standings]
    slugs = player_slugs(names, carried_slugs(rated, names))
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
    make = LineMaker(rated, links)
    matches = rated.league.matches
    table = one_event_per_match(rated)
    source = TableLines(rated, table, make) if table is not None else None
    number = {name: i for i, name in enumerate(players)}
    found = column_lines(source, number, system) if source is not None else None
    from_columns = found is not None
    if found is None:
        found = lines_of(matches, number, system)
    sizes, codes, outcomes = found
    # Every match's page worked out before the views, so that each is made with it.
    # Each match's file number and whether every id is plain, the last build's for the matches it
    # had where this history goes on from it (model/carried.py).
    files, ids = fields(matches, "file"), source.table.keys if source is not None else column(matches, "id")
    pages = plan(files, ids, sizes, base, scale.MATCHES_PER_PART if make.big else None,
                 carried_files(rated, files, ids))
    headline = system.headline
    views: ViewMaker | list[MatchView]
    if source is not None:
        # Every event one match, its key the match's id: each view is made when a page reads it
        # (ViewMaker), its lines read from the columns when asked (scale.lines_held), or held:
        # every match's made at once where every page is made, else each match's when asked.
        held: TableLines | HeldLines = source
        if scale.lines_held(rated):
            # Outcomes the columns gave are the lines' (columns.column_lines): read, not asked again.
            held = HeldLines(source, outcomes if from_columns else None)
            if not kept:
                held.hold()
        views = ViewMaker(matches, held, source.table.keys, headline, pages.page_of(len(matches)),
                          [url for _, _, url, _, _ in pages.pages], pages.plain)
        periods = False
        groups = [MatchGroup(file, name, url, part, MatchViews(views, at), urls, g)
                  for g, ((file, name, url, part, urls), at) in enumerate(zip(pages.pages, pages.positions()))]
    else:
        made, periods = event_lines(rated, make)
        views = [MatchView(m, lines, event_key, headline, page=url, rare=Rare(event_matches))
                 for (m, lines, event_key, event_matches), url in zip(made, pages.urls(len(matches)))]
        groups = pages.groups(views, paged=True)
        for g, at in zip(groups, pages.positions()):
            g.matches = MatchViews(views, at)
        # The match-level keys to show, of the matches that have any (most have none).
        for k in list(compress(count(), map(attrgetter("extra"), matches))):
            extra = matches[k].extra
            views[k].facts = tuple([(label, str(extra[key])) for key, label in MATCH_FACTS.items()
                                    if extra.get(key) is not None])
    # Read from the column where the matches are columns: a walk over the matches themselves
    # made every one of a million (2 s of a rebuild that reads a few hundred).
    # The empty ones (most) passed over in C.
    weighted = any("weight" in extra for extra in filter(None, fields(matches, "extra")))

    # A team game has a team in each entry; the matches share their entries (load/validate.py),
    # so each distinct one is looked at once. A system whose matches list no teams and whose
    # fields name none has no entry with a team (rating/fields.py parse_entries).
    if system.example.teams or any(f.name == "team" for f in system.fields):
        entries = dict(zip(map(id, chain.from_iterable(m.entries for m in matches)),
                           chain.from_iterable(m.entries for m in matches)))
        has_teams = any(entry.get("team") is not None for entry in entries.values())
        del entries
    else:
        has_teams = False
    # Every player's count of each result code in one pass: (players, codes).
    counts = np.bincount(codes.astype(np.int64) * (NO_RESULT + 1) + outcomes,
                         minlength=len(players) * (NO_RESULT + 1)).reshape(-1, NO_RESULT + 1)
    for p, wins, draws, losses in zip(players.values(), *(counts[:, code].tolist() for code in (WIN, DRAW, LOSS))):
        p.wins, p.draws, p.losses = wins, draws, losses
    games_of = {name: Games(views) for name in players}
    order, bounds, first, last = group_games(games_of, codes, sizes)
    for p, games in zip(players.values(), games_of.values()):
        # A period marks its games rated or not (_mark_rated): those are held as PlayerGames.
        p.games = list(games) if periods else games
    # Each player's first and last game's time, read from the column of times: no match made.
    played = [k for k in first if k >= 0]
    for p, when, then in zip(compress(players.values(), [k >= 0 for k in first]), played_at(matches, played),
                             played_at(matches, [k for k in last if k >= 0])):
        p.first_played, p.last_played = when, then
    if periods:
        for p in players.values():
            _mark_rated(p)
    # Every game rated: each player's peak and lowest read from the columns where they allow it.
    elif not (source is not None and source.aligned
              and table_extremes(source.table, matches, list(players.values()), order, bounds)):
        for p in players.values():
            _extremes(p)

    leaderboard = [players[r.standing.player] for r in rated.standings]
    tier_counts = [(t, sum(1 for p in leaderboard if p.tier is t)) for t in config.tiers]
    return LeagueView(config, base, rated, players, leaderboard, MatchViews(views, range(len(matches))),
                      system.integer_ratings, system.has_outcomes, system.terms,
                      system.standing_terms, tier_counts, has_teams, groups,
                      system.explanation(weighted=weighted), LineColumns(sizes, codes, outcomes), links=links)


def _groups(lines: list[MatchLine]) -> list[Group]:
    """Team games show each team together, winners first as listed; other matches one group."""
    lines = list(lines)     # made once, where they are read from the columns
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


def _extremes(player: PlayerView) -> None:
    """``_mark_rated`` where every game is rated (no period spans several of the player's
    matches): the first game reaching the highest and the lowest rating after it."""
    games = player.games
    if not games:
        return
    afters = [g.match.lines[g.index].after for g in games]
    # max and min keep the first of equal values, compared as _mark_rated compares them.
    peak, lowest = max(afters), min(afters)
    player.peak = (peak, games[afters.index(peak)].match.match.played)
    player.lowest = (lowest, games[afters.index(lowest)].match.match.played)
