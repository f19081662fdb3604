"""`sitegen matchmake`: lobbies from a queue of tickets (spec/matchmaking, the battle-royale rating proposal).

The seed's battle-royale proposal ("Elo implementation", "Rank compare", "Latency
compare", "Platform mode"): players wait in a priority queue ordered by how long they
have searched; a lobby (the seed's "keeping match list") takes its interval from its first
player, and a player joins only if even with that first player on rank and on latency;
a player who waits long gets an "exception" that enlarges the interval.

The pipeline is the project's own: the site is loaded, validated and rated as `sitegen
check` and `sitegen build` do, the queue file is read with the same TOML-with-lines
machinery, and every problem of either is reported at once. Lobbies are formed by a pure
function (``form_lobbies``) that the simulation (scripts/matchmake_sim.py) calls too.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from sitegen.rating import limits
from sitegen.load.config import LeagueConfig, Roster
from sitegen.model.ledger import Table, to_csv, to_json
from sitegen.load.site import TomlFile, parse_toml_file
from sitegen.load.problems import InvalidInput, Problems
from sitegen.rating.base import check_name, is_int, is_number, normalize_name, unknown_key, value_text
from sitegen.load.validate import to_utc

# --- the queue file -----------------------------------------------------------------

# spec/matchmaking: the defaults of the optional keys. 0.10 is the seed's "less than
# 10" (percentage points between the two players' chances); 40 ms and 120 s are the
# contract's choices where the seed says "a difference threshold" and "a long time".
RANK_THRESHOLD = 0.10
PING_THRESHOLD = 40
EXPAND_AFTER = 120

# The widening schedule (the seed's "exception", *interpretation*): from expand_after on,
# both thresholds are multiplied by 2, and by one more for every further full minute
# (2x at expand_after, 3x a minute later, ...). It has no cap: a player of any rating or
# ping is even with everyone of their platform after a long enough wait, so no ticket
# waits for ever only because it is unusual. A minute is the step because a battle-royale
# round of matchmaking is counted in minutes; linear growth keeps the first widening
# steps small, where most tickets are matched.
EXPAND_STEP = 60

# A queue is a snapshot of one moment: a few thousand tickets at most in a real game. The
# bound keeps lobby forming (quadratic in the tickets when few are even) to seconds.
MAX_TICKETS = 20_000

TOP_KEYS = ("now", "lobby_size", "platform_mode", "rank_threshold", "ping_threshold", "expand_after", "ticket")
TICKET_KEYS = ("name", "ping", "platform", "joined")
MAX_PLATFORM = 64               # free text like a name, and bounded like one (rating.base.MAX_NAME)
MAX_SECONDS = 10 ** 9           # expand_after: about 30 years, far past any queue
DATE_WANTED = "a date-time such as 2026-03-01T20:00:00Z (or a date such as 2026-03-01)"


@dataclass(frozen=True, slots=True)
class Ticket:
    """One player in the queue, as the file gives it (name after aliases and NFC)."""

    index: int              # 0-based position in the file: the tie-break of equal waits
    name: str
    ping: int
    platform: str
    joined: datetime        # aware, UTC
    waited: float           # seconds from joined to the queue's now


@dataclass(frozen=True, slots=True)
class Queue:
    file: str
    now: datetime
    lobby_size: int
    platform_mode: bool
    rank_threshold: float
    ping_threshold: float
    expand_after: float
    tickets: tuple[Ticket, ...]


def read_queue_file(path: Path, shown: str, problems: Problems) -> TomlFile | None:
    """Parse the queue file as load.read_toml parses a site's files (size, nesting, syntax
    errors explained), reporting under ``shown``: the file may live outside the site."""
    return parse_toml_file(path, shown, problems, kind="a queue file", advice="")


def _platform(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = unicodedata.normalize("NFC", value.strip())
    return text if 0 < len(text) <= MAX_PLATFORM else None


def parse_queue(f: TomlFile, roster: Roster, problems: Problems) -> Queue | None:
    """Check every key of a queue file; every problem is reported, None if any was found."""
    data, before = f.data, len(problems)

    def report(path: tuple[str | int, ...], message: str) -> None:
        table = None
        if len(path) >= 2 and path[0] == "ticket" and isinstance(path[1], int):
            table, path = ("ticket", path[1]), path[2:]
        where = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p)
                        for i, p in enumerate(path))
        label = f"ticket[{table[1]}]" + (f".{where}" if where else "") if table else where
        # A top-level key that is missing has no line of its own (the file's first line is not it).
        line = None if table is None and path and path[0] not in data else f.locate(*path, table=table)
        problems.add(f.rel, message, line=line, field=label or None)

    for key in sorted(set(data) - set(TOP_KEYS)):
        report((key,), unknown_key(key, TOP_KEYS))

    now = None
    if "now" not in data:
        report(("now",), f"is missing; must be {DATE_WANTED}: the moment the lobbies are formed")
    else:
        now = to_utc(data["now"])
        if now is None:
            report(("now",), f"must be {DATE_WANTED} from {limits.PLAYED_RANGE}, got {value_text(data['now'])}")

    lobby_size = data.get("lobby_size")
    if lobby_size is None:
        report(("lobby_size",), "is missing; must be an integer of 2 or more: the players of one lobby")
    elif not (is_int(lobby_size) and 2 <= lobby_size <= limits.MAX_PLAYERS):
        report(("lobby_size",), f"must be an integer from 2 to {limits.MAX_PLAYERS:,} (the players of one "
                                f"lobby), got {value_text(lobby_size)}")

    platform_mode = data.get("platform_mode", False)
    if not isinstance(platform_mode, bool):
        report(("platform_mode",), f"must be true or false, got {value_text(platform_mode)}")

    def number(key: str, default: float, ok, allowed: str) -> float:
        value = data.get(key, default)
        if not (is_number(value) and ok(value)):
            report((key,), f"must be {allowed}, got {value_text(value)}")
            return default
        return float(value)

    rank_threshold = number("rank_threshold", RANK_THRESHOLD, lambda v: 0 < v <= 1,
                            "a number > 0 and at most 1 (a difference of expected scores)")
    ping_threshold = number("ping_threshold", PING_THRESHOLD, lambda v: 0 <= v <= limits.MAX_COUNT,
                            f"a number of milliseconds from 0 to {limits.MAX_COUNT:,}")
    expand_after = number("expand_after", EXPAND_AFTER, lambda v: 0 <= v <= MAX_SECONDS,
                          f"a number of seconds from 0 to {MAX_SECONDS:,}")

    raw_tickets = data.get("ticket", [])
    if not isinstance(raw_tickets, list):
        report(("ticket",), f"must be [[ticket]] tables, got {value_text(raw_tickets)}")
        raw_tickets = []
    elif len(raw_tickets) > MAX_TICKETS:
        report(("ticket",), f"a queue may hold at most {MAX_TICKETS:,} tickets, got {len(raw_tickets):,}")
        raw_tickets = []
    tickets: list[Ticket] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(raw_tickets):
        at = ("ticket", i)
        if not isinstance(raw, dict):
            report(at, f"must be a table like {{ name = \"...\", ping = 35, platform = \"pc\", joined = "
                       f"2026-03-01T19:58:10Z }}, got {value_text(raw)}")
            continue
        ok = True
        for key in sorted(set(raw) - set(TICKET_KEYS)):
            report(at + (key,), unknown_key(key, TICKET_KEYS))
            ok = False
        name = None
        if "name" not in raw:
            report(at + ("name",), "is missing; every ticket names its player")
        elif (problem := check_name(raw["name"])) is not None:
            report(at + ("name",), problem)
        else:
            written = normalize_name(raw["name"])
            name = roster.resolve(written)
            if name in seen:
                via = f" (alias of {name!r})" if written != name else ""
                report(at + ("name",), f"{written!r}{via} already has a ticket, ticket[{seen[name]}]; "
                                       "a player queues once")
                ok = False
            else:
                seen[name] = i
        ping = raw.get("ping")
        if "ping" not in raw:
            report(at + ("ping",), f"is missing; must be an integer from 0 to {limits.MAX_COUNT:,} (milliseconds)")
        elif not (is_int(ping) and 0 <= ping <= limits.MAX_COUNT):
            report(at + ("ping",), f"must be an integer from 0 to {limits.MAX_COUNT:,} (milliseconds), "
                                   f"got {value_text(ping)}")
            ping = None
        platform = None
        if "platform" not in raw:
            report(at + ("platform",), "is missing; must be a non-empty string such as \"pc\"")
        else:
            platform = _platform(raw["platform"])
            if platform is None:
                report(at + ("platform",), f"must be a non-empty string of at most {MAX_PLATFORM} characters "
                                           f"such as \"pc\", got {value_text(raw['platform'])}")
        joined = None
        if "joined" not in raw:
            report(at + ("joined",), f"is missing; must be {DATE_WANTED}: when the player queued")
        else:
            joined = to_utc(raw["joined"])
            if joined is None:
                report(at + ("joined",), f"must be {DATE_WANTED} from {limits.PLAYED_RANGE}, "
                                         f"got {value_text(raw['joined'])}")
            elif now is not None and joined > now:
                report(at + ("joined",), f"{value_text(raw['joined'])} is after now ({now.isoformat()}); "
                                         "a ticket joins the queue before the lobbies are formed")
                joined = None
        if ok and name is not None and ping is not None and platform is not None and joined is not None \
                and now is not None:
            tickets.append(Ticket(i, name, ping, platform, joined, (now - joined).total_seconds()))
    if len(problems) > before or now is None or lobby_size is None:
        return None
    return Queue(f.rel, now, lobby_size, platform_mode, rank_threshold, ping_threshold, expand_after,
                 tuple(tickets))


# --- rank compare: the league's own expected scores ---------------------------------------



@dataclass(frozen=True, slots=True)
class Skill:
    """What rank compare needs of each ticket, as arrays in ticket order.

    ``strength`` is the value the system's expected score compares (a rating; lunaro's
    ping-adjusted ability) and ``slope`` how steeply the player's opponents' expected
    scores turn with it: E(a vs b) = 1 / (1 + 10^((s_b - s_a) / 400)) for the 400-point
    logistic systems, and Glicko-2's E(mu_a, mu_b, phi_b) = 1 / (1 + exp(-g(phi_b) (mu_a - mu_b)))
    where the slope is the opponent's g(phi_b) / 173.7178. ``logistic10`` selects the
    first, computed with powers of 10 as base.expected does.
    """

    ratings: np.ndarray     # the rating each ticket is shown with
    strength: np.ndarray
    slope: np.ndarray
    logistic10: bool

    def expected(self, a: int | np.ndarray, b: int | np.ndarray) -> np.ndarray:
        """E(a vs b), elementwise; never overflows (an infinite power gives 0, as it should)."""
        with np.errstate(over="ignore"):
            if self.logistic10:
                return 1.0 / (1.0 + np.power(10.0, (self.strength[b] - self.strength[a]) / 400.0))
            return 1.0 / (1.0 + np.exp(-self.slope[b] * (self.strength[a] - self.strength[b])))

    def gap(self, a: int, b: np.ndarray) -> np.ndarray:
        """|E(a vs b) - E(b vs a)|: the seed's rank compare, 0 for equals, towards 1 for a rout."""
        return np.abs(self.expected(a, b) - self.expected(b, a))


def skill(config: LeagueConfig, standings: dict[str, Any], tickets: Sequence[Ticket]) -> Skill:
    """The ratings of the tickets' players and the system's expected-score terms.

    ``standings`` maps a player to their Standing in the rated league; a name not in it
    is a new player, as the system's ``strength`` says (its initial rating; its own
    initial RD for glicko2, initial mu and sigma for openskill).
    """
    system = config.system
    ratings, strength, slope = [], [], []
    for t in tickets:
        s = system.strength(standings.get(t.name), t.ping)
        ratings.append(s.rating)
        strength.append(s.strength)
        slope.append(s.slope)
    arr = lambda xs: np.array(xs, dtype=float)     # noqa: E731
    return Skill(arr(ratings), arr(strength), arr(slope), system.logistic10)


# --- forming lobbies ---------------------------------------------------------------

def widening(waited: float, expand_after: float) -> float:
    """How many times the base thresholds a lobby whose first player waited ``waited`` s allows."""
    if waited < expand_after:
        return 1.0
    return 2.0 + math.floor((waited - expand_after) / EXPAND_STEP)


@dataclass(frozen=True, slots=True)
class Settings:
    lobby_size: int
    platform_mode: bool = False
    rank_threshold: float = RANK_THRESHOLD
    ping_threshold: float = PING_THRESHOLD
    expand_after: float = EXPAND_AFTER


@dataclass(frozen=True, slots=True)
class Result:
    lobbies: tuple[tuple[int, ...], ...]     # ticket positions, the first player first
    waiting: tuple[int, ...]                 # in queue-priority order


def priority(tickets: Sequence[Ticket]) -> list[int]:
    """Longest waiting first; equal waits in file order (the earlier ticket first)."""
    return sorted(range(len(tickets)), key=lambda i: (-tickets[i].waited, tickets[i].index))


def form_lobbies(tickets: Sequence[Ticket], skill: Skill, settings: Settings) -> Result:
    """The seed's keeping-match lists, formed one at a time from a snapshot of the queue.

    The longest-waiting unplaced ticket heads a lobby; the tickets after it in priority
    order join, longest-waiting first, while they are even with the head on both counts
    (thresholds widened by the head's wait: the head has waited at least as long as any of
    them, so "one of them has waited" is the head). A lobby is formed only when full; a head
    that cannot fill one waits, its would-be members stay free, and the next ticket in
    priority order is tried as a head (*interpretation*: the seed keeps such a list open
    until more players arrive; at the snapshot's moment nobody else will).
    """
    order = priority(tickets)
    n = len(order)
    if n == 0:
        return Result((), ())
    pos = np.array(order)
    pings = np.array([tickets[i].ping for i in order], dtype=float)
    plats = [tickets[i].platform for i in order]
    codes = {p: k for k, p in enumerate(sorted(set(plats)))}
    plat = np.array([codes[p] for p in plats])
    free = np.ones(n, dtype=bool)
    size = settings.lobby_size
    lobbies: list[tuple[int, ...]] = []
    for h in range(n):
        if not free[h] or n - h < size:
            continue
        rest = np.arange(h + 1, n)
        rest = rest[free[h + 1:]]
        if settings.platform_mode:
            rest = rest[plat[rest] == plat[h]]
        if len(rest) < size - 1:
            continue
        wide = widening(tickets[order[h]].waited, settings.expand_after)
        even = np.abs(pings[rest] - pings[h]) <= settings.ping_threshold * wide
        rest = rest[even]
        if len(rest) < size - 1:
            continue
        rest = rest[skill.gap(int(pos[h]), pos[rest]) < settings.rank_threshold * wide]
        if len(rest) < size - 1:
            continue
        members = [h, *rest[: size - 1].tolist()]
        free[members] = False
        lobbies.append(tuple(int(pos[m]) for m in members))
    waiting = tuple(int(pos[k]) for k in range(n) if free[k])
    return Result(tuple(lobbies), waiting)


# --- output ------------------------------------------------------------------------

HEADER = ("lobby", "player", "rating", "ping", "platform", "waited_s")


def table(tickets: Sequence[Ticket], skill: Skill, result: Result, integer_ratings: bool) -> Table:
    """Rows of the lobbies in the order they formed (first player first, then the others in
    the order they joined), then the waiting tickets in priority order, lobby empty."""
    def row(lobby: int | None, i: int) -> tuple:
        t = tickets[i]
        r = float(skill.ratings[i])
        return (lobby, t.name, int(r) if integer_ratings else r, t.ping, t.platform, float(t.waited))

    rows = [row(k, i) for k, lobby in enumerate(result.lobbies, 1) for i in lobby]
    rows += [row(None, i) for i in result.waiting]
    return HEADER, rows


def render(tab: Table, fmt: str) -> str:
    return to_json(tab) if fmt == "json" else to_csv(tab)


# --- the command -------------------------------------------------------------------

class UsageError(Exception):
    """A bad command line (unknown league, no queue file): exit 2."""


def matchmake(root: Path, league: str, queue_path: Path, shown: str) -> tuple[Queue, Skill, Result, bool]:
    """Validate and rate the site, read the queue, form the lobbies.

    Raises UsageError for an unknown league or a queue path that is not a file, and
    InvalidInput with every problem of the site and of the queue file together.
    """
    from dataclasses import replace

    from sitegen.commands.build import check, rate
    from sitegen.load.config import roster as read_roster
    from sitegen.load.site import LEAGUE_SLUG, load_site, where_to_run

    folder = root / "matches" / league
    if not LEAGUE_SLUG.match(league) or not (folder / "league.toml").is_file():
        if not (root / "matches").is_dir():
            raise UsageError(f"no matches/ folder in {root}; {where_to_run(root)}")
        known = sorted(p.name for p in (root / "matches").iterdir() if (p / "league.toml").is_file())
        raise UsageError(f"unknown league {league!r}; leagues: {', '.join(known) or 'none'}")
    if not queue_path.is_file():
        what = ("is a folder" if queue_path.is_dir() else "is not a regular file" if queue_path.exists()
                else "does not exist")
        raise UsageError(f"queue file {shown} {what}; give the path of a queue file (a TOML file with now, "
                         "lobby_size and [[ticket]] tables)")

    problems = Problems()
    site = None
    try:
        site = check(root)
        roster = site.roster
    except InvalidInput as exc:
        problems.items.extend(exc.problems)
        roster = read_roster(load_site(root, Problems()).players, Problems())
    own = Problems()
    f = read_queue_file(queue_path, shown, own)
    queue = parse_queue(f, roster, own) if f is not None else None
    problems.items.extend(sorted(own, key=lambda p: p.line or 0))     # top to bottom, as check lists them
    if problems or site is None or queue is None:
        raise InvalidInput(list(problems))
    chosen = next(lg for lg in site.leagues if lg.config.slug == league)
    rated = rate(replace(site, leagues=(chosen,)))[0]
    standings = {r.standing.player: r.standing for r in rated.standings}
    sk = skill(chosen.config, standings, queue.tickets)
    settings = Settings(queue.lobby_size, queue.platform_mode, queue.rank_threshold, queue.ping_threshold,
                        queue.expand_after)
    return queue, sk, form_lobbies(queue.tickets, sk, settings), chosen.config.system.integer_ratings
