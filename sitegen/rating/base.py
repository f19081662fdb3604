"""What every rating system shares: values, the System protocol, parameters and common math."""

from __future__ import annotations

import difflib
import functools
import json
import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any, ClassVar, Protocol

from sitegen.rating import limits


# --- the values that flow through the pipeline -----------------------------------

@dataclass(frozen=True, slots=True)
class Match:
    """A validated match, in a system-neutral shape plus the system's own fields.

    ``players`` holds canonical names in the order the match file lists them;
    ``entries`` holds each player's validated fields (goals, ping, score, ...)
    in the same order, and ``extra`` the system's match-level keys.
    """

    id: str
    played: datetime              # aware, UTC
    file: str                     # relative to the site root
    position: int                 # 1-based position in its file
    notes: str | None
    players: tuple[str, ...]
    entries: tuple[Mapping[str, Any], ...]
    extra: Mapping[str, Any] = field(default_factory=dict)
    line: int | None = None


def default_id(league_rel: str, position: int) -> str:
    """A match's id when its file gives none: `2024/week-03.toml`, 2nd match -> `2024-week-03-2`
    (the file's path in its league folder, '/' as '-', then the position in the file)."""
    stem = league_rel[: -len(".toml")] if league_rel.endswith(".toml") else league_rel
    return f"{stem.replace('/', '-')}-{position}"


@dataclass(frozen=True, slots=True)
class Change:
    """One player's rating change in one rating event, with the terms that explain it.

    ``before`` is None where no rating existed yet (an arena player's first game).
    ``terms`` holds the system's own columns, in the order of ``System.terms``.
    """

    player: str
    before: float | None
    after: float
    terms: Mapping[str, float | None]

    @property
    def delta(self) -> float | None:
        return None if self.before is None else self.after - self.before


@dataclass(frozen=True, slots=True)
class RatingEvent:
    """A rating update: one match, or (glicko2) one rating period."""

    key: str                          # match id, or a period key
    played: datetime                  # the match's time, or the period's last match
    matches: tuple[str, ...]          # ids of the matches rated in this event
    changes: tuple[Change, ...]


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's final rating in a league."""

    player: str
    rating: float
    games: int
    extra: Mapping[str, float] = field(default_factory=dict)   # rd, volatility for glicko2


# --- parameters --------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Param:
    """A declared parameter: its default, what values are allowed, and where it comes from."""

    name: str
    default: Any
    check: Callable[[Any], bool]
    allowed: str                  # shown to curators when check fails
    doc: str                      # one line, cites the seed


def is_number(v: Any) -> bool:
    """A finite number that a float holds: TOML integers have no bound (10**400 would overflow)."""
    # TOML booleans are Python ints; a rating parameter is never a boolean.
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    return abs(v) <= sys.float_info.max if isinstance(v, int) else math.isfinite(v)


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def positive(v: Any) -> bool:
    return is_number(v) and v > 0


def non_negative(v: Any) -> bool:
    return is_number(v) and v >= 0


def rating_value(v: Any) -> bool:
    """A rating given as a parameter (initial, floor, a threshold): finite and within MAX_RATING."""
    return is_number(v) and abs(v) <= limits.MAX_RATING


def k_value(v: Any) -> bool:
    """A K factor: > 0 and at most MAX_K (K = 1e308 would print 300-digit ratings)."""
    return positive(v) and v <= limits.MAX_K


def count(v: Any, low: int = 0) -> bool:
    """A whole number a player's entry counts (ping, kills): from ``low`` to MAX_COUNT."""
    return is_int(v) and low <= v <= limits.MAX_COUNT


RATING_ALLOWED = f"a number from -{limits.MAX_RATING:,} to {limits.MAX_RATING:,}"
K_ALLOWED = f"a number > 0 and at most {limits.MAX_K:,}"
COUNT_ALLOWED = f"an integer from 0 to {limits.MAX_COUNT:,}"


def one_of(*options: Any) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and v in options


def either(*checks: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: any(c(v) for c in checks)


def valid_bands(v: Any) -> bool:
    """A K band list: [[min_rating, k], ...], min ratings strictly increasing, k > 0."""
    if not isinstance(v, list) or not v:
        return False
    lows = []
    for band in v:
        if not (isinstance(band, list) and len(band) == 2 and rating_value(band[0]) and k_value(band[1])):
            return False
        lows.append(band[0])
    return all(a < b for a, b in zip(lows, lows[1:]))


BANDS_ALLOWED = (f"a non-empty list of [min_rating, k] pairs, min_rating increasing (at most {limits.MAX_RATING:,} "
                 f"either side of 0), k > 0 and at most {limits.MAX_K:,}")


# --- shared math -------------------------------------------------------------------

def expected(r_a: float, r_b: float) -> float:
    """Logistic expected score of a against b on the 400-point scale (all the Elo seeds).

    Written as 10^-x / (1 + 10^-x) past x = 300, where 10^x would overflow a float
    (ratings 120,000 apart); below it the seeds' form, to the last bit.
    """
    x = (r_b - r_a) / 400.0
    if x > 300.0:
        t = 10.0 ** -x
        return t / (1.0 + t)
    return 1.0 / (1.0 + 10.0 ** x)


class RatingDiverged(ArithmeticError):
    """A system's own math left the finite numbers in one rating event (docs/configuration).

    Raised by ``System.rate`` with the event's key (a match id or a rating period) and the
    value that ran away; the build reports it as a problem of the league.
    """

    def __init__(self, event: str, what: str, advice: str | None = None) -> None:
        self.event = event
        self.what = what
        # What the curator can change, when the system knows better than the build's default.
        self.advice = advice
        super().__init__(f"{what} left the finite numbers in {event}")


def k_from_bands(bands: Sequence[Sequence[float]], rating: float) -> float:
    """K of the last band whose min_rating is at most ``rating`` (the first band below all)."""
    k = bands[0][1]
    for low, band_k in bands:
        if rating >= low:
            k = band_k
        else:
            break
    return float(k)


def round_half_away(x: float) -> int:
    """Round to the nearest integer, halves away from zero (not Python's banker's rounding)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


# --- the interface every system implements -----------------------------------------

class System(Protocol):
    """A rating system: holds its parameters; rating a history is a pure function.

    ``name`` is the contract's system name; ``terms`` the extra columns of
    changes.csv; ``params`` the declared parameters; ``integer_ratings`` whether
    ratings are whole numbers (written without decimals).
    """

    name: ClassVar[str]
    params: ClassVar[tuple[Param, ...]]
    terms: ClassVar[tuple[str, ...]]
    standing_terms: ClassVar[tuple[str, ...]]  # extra columns of standings.csv (rd, volatility)
    match_keys: ClassVar[tuple[str, ...]]
    integer_ratings: ClassVar[bool]
    has_outcomes: ClassVar[bool]            # wins/draws/losses make sense
    fields: ClassVar[tuple["Field", ...]]   # the keys of a player entry besides name
    example: ClassVar["Example"]            # a match for `sitegen new-match` to print
    has_initial: ClassVar[bool]             # league.toml's [initial] may name starting ratings
    starts: Mapping[str, Any]               # those starting ratings, by canonical name

    def __init__(self, **params: Any) -> None: ...

    def parse_start(self, value: Any, report: "Reporter") -> Any | None:
        """Check one value of league.toml's [initial]; the starting value, or None (reported)."""
        ...

    def match_example(self) -> "Example":
        """The match `sitegen new-match` prints for a league with these parameters."""
        ...

    def parse_match(self, raw: Mapping[str, Any], report: "Reporter") -> "ParsedMatch | None":
        """Check the system's part of a raw match table; report problems through ``report``."""
        ...

    def rate(self, matches: Sequence[Match]) -> list[RatingEvent]:
        """Rate matches given in history order; returns one event per rating update."""
        ...

    def standings(self, events: Sequence[RatingEvent]) -> list[Standing]:
        """Final ratings of every player who has played."""
        ...

    def outcome(self, match: Match, index: int) -> str | None:
        """'win', 'draw' or 'loss' for the player at ``index``, or None where it has no meaning."""
        ...

    def describe(self, entry: Mapping[str, Any]) -> str:
        """A participant's own numbers in words, for the pages ("20 goals, ping 35 ms, host")."""
        ...


@dataclass(frozen=True, slots=True)
class ParsedMatch:
    """The system-specific part of a match: raw player names (before aliases) and fields."""

    names: tuple[str, ...]
    entries: tuple[Mapping[str, Any], ...]
    extra: Mapping[str, Any] = field(default_factory=dict)
    # Where each name sits in the match table, for problems found after parsing
    # (a player listed twice); None means ("players", i, "name").
    name_paths: tuple[tuple[str | int, ...], ...] | None = None


class Reporter(Protocol):
    """How a system reports a problem in the match it is parsing: field path, message."""

    def __call__(self, path: tuple[str | int, ...], message: str) -> None: ...


def last_ratings(events: Sequence[RatingEvent]) -> tuple[dict[str, Change], dict[str, int]]:
    """The last change of each player and how many events they took part in."""
    last: dict[str, Change] = {}
    count: dict[str, int] = {}
    for event in events:
        for change in event.changes:
            last[change.player] = change
            count[change.player] = count.get(change.player, 0) + 1
    return last, count


# --- parsing the players of a match ------------------------------------------------

MAX_NAME = 64


def normalize_name(value: str) -> str:
    """Names are trimmed and compared after Unicode NFC normalisation (docs/curators)."""
    import unicodedata
    return unicodedata.normalize("NFC", value.strip())


def check_name(value: Any) -> str | None:
    """The problem with a player name, or None when it is valid."""
    if not isinstance(value, str):
        return f"must be a string (the player's name, in quotes), got {value_text(value)}"
    name = normalize_name(value)
    if not name:
        return "must be a non-empty name"
    if len(name) > MAX_NAME:
        return f"must be at most {MAX_NAME} characters, got {len(name)}"
    return None


def type_name(value: Any) -> str:
    """The kind of a TOML value in words ("a table", "a time of day"), never a Python type name."""
    if isinstance(value, bool):
        return "a true/false value"
    if isinstance(value, datetime):
        return "a date-time"
    if isinstance(value, date):
        return "a date"
    if isinstance(value, time):
        return "a time of day"
    return {int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a table"}.get(type(value), "nothing")


# --- values and keys in messages ---------------------------------------------------
#
# A curator reads "got '3'" as the number 3 and "got datetime.time(20, 5)" as noise:
# values are shown as TOML writes them, with what they are and, for text that looks
# like a number, a date or a boolean, that quotes are the mistake.

SHOWN_CHARS = 80       # longer text, lists and tables are cut or described, not printed whole
_NUMBER_TEXT = re.compile(r"[+-]?(?:\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?|inf|nan)\Z")
_DATE_TEXT = re.compile(r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|\d{1,2}:\d{2}")


def toml_text(value: Any) -> str:
    """A value in TOML notation: "text" (escaped), 3, 0.5, true, 2026-03-14, [1, 2], { a = 1 }."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)    # JSON escapes are TOML basic-string escapes
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return repr(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_text(v) for v in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{k if re.fullmatch(r'[A-Za-z0-9_-]+', k) else toml_text(k)} = {toml_text(v)}"
                          for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    return str(value)


def value_text(value: Any) -> str:
    """What a curator wrote, for "got ...": the value as TOML shows it and what it is.

    ``the text "3" (numbers are written without quotes)``, ``a time of day without a
    date (20:05:00)``, ``the list [0, "Gold"]``: never a Python repr or type name.
    """
    if isinstance(value, str):
        shown = toml_text(value if len(value) <= SHOWN_CHARS else value[:SHOWN_CHARS - 3] + "…")
        bare = value.strip()
        if _NUMBER_TEXT.match(bare):
            return f"the text {shown} (numbers are written without quotes)"
        if _DATE_TEXT.match(bare):
            return f"the text {shown} (dates are written without quotes)"
        if bare.lower() in ("true", "false"):
            return f"the text {shown} (true and false are written without quotes, in lower case)"
        return f"the text {shown}"
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return toml_text(value)
    if isinstance(value, datetime):
        return f"the date-time {toml_text(value)}"
    if isinstance(value, date):
        return f"the date {toml_text(value)}"
    if isinstance(value, time):
        return f"a time of day without a date ({toml_text(value)})"
    if isinstance(value, (list, dict)):
        kind = "list" if isinstance(value, list) else "table"
        shown = toml_text(value)
        if len(shown) <= SHOWN_CHARS:
            return f"the {kind} {shown}"
        return f"a list of {len(value)} values" if kind == "list" else f"a table with keys {', '.join(value)}"
    return "nothing"


def close_to(key: str, options: Iterable[str]) -> str | None:
    """The option a misspelt key most likely stands for (`player` -> `players`), or None."""
    lowered = {option.lower(): option for option in options}
    found = difflib.get_close_matches(key.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[found[0]] if found else None


def did_you_mean(key: str, options: Iterable[str]) -> str:
    """"did you mean 'players'? " for a close option, else ""."""
    near = close_to(key, options)
    return f"did you mean {near!r}? " if near is not None and near != key else ""


def spec_page(system: str) -> str:
    return f"see the {system} spec page (spec/{system}/ on the site)"


def elsewhere(key: str, kind: str, system: str) -> str:
    """"'goals' is a key of lunaro players; " when another system has the key ``kind`` is
    "players" (player fields) or "matches" (match keys) — a match pasted into the wrong league."""
    from sitegen.rating import SYSTEMS       # the registry imports this module: look it up when needed
    owners = []
    for name, cls in SYSTEMS.items():
        keys = {f.name for f in cls.fields} if kind == "players" else set(cls.match_keys)
        if name != system and key in keys:
            owners.append(name)
    if not owners:
        return ""
    return f"{key!r} is a key of {' and '.join(owners)} {kind}; "


def unknown_key(key: str, allowed: Sequence[str], *, kind: str = "players", system: str | None = None,
                hint: str = "") -> str:
    """The message for a key that is not allowed: a close match, whose key it is, what is allowed.

    ``kind`` names the tables checked ("matches", "players", "teams"); with ``system`` the
    message names the league's system and its spec page. ``hint`` is the caller's own
    explanation ("...; "), used when no key is close.
    """
    return _unknown_key(key, tuple(allowed), kind, system, hint)


@functools.lru_cache(maxsize=1024)
def _unknown_key(key: str, allowed: tuple[str, ...], kind: str, system: str | None, hint: str) -> str:
    # Cached: a converted history repeats one wrong key in every match, and the close-match
    # search costs more than locating the problem's line.
    if system is None:
        hint = did_you_mean(key, allowed) or hint
        return f"unknown key; {hint}allowed keys: {', '.join(allowed)}"
    # Another system's exact key (a match pasted into the wrong league) says more than a
    # close spelling: lunaro's `ping` is not a misspelt elo `points`.
    owned = elsewhere(key, kind, system) if kind in ("players", "matches") else ""
    hint = owned or did_you_mean(key, allowed) or hint
    return f"unknown key; {hint}{kind} of this {system} league have: {', '.join(allowed)} — {spec_page(system)}"


@dataclass(frozen=True, slots=True)
class Field:
    """A key of a player entry: whether it is required, its check and what is allowed."""

    name: str
    check: Callable[[Any], bool]
    allowed: str
    default: Any = None
    required: bool = True
    # False for a condition of the game (a ping) rather than its outcome: two entries of one
    # match that differ only there are still the same match entered twice.
    result: bool = True


@dataclass(frozen=True, slots=True)
class ExampleKey:
    """A match key of a system as `sitegen new-match` prints it: placeholder and what it is."""

    name: str
    value: Any                    # valid as it stands
    about: str                    # what it is and what is allowed, for the comment beside it
    optional: bool = False        # printed commented out


@dataclass(frozen=True, slots=True)
class Example:
    """A system's match as `sitegen new-match` prints it for a curator to fill in.

    ``entry`` gives every player field a placeholder that is valid for all players
    at once (a draw, a shared place), so a match with real names passes the check
    as printed. ``players`` is how many players (teams when ``teams``) a match
    has, (least, most), most None for no limit; ``rules`` are what the fields'
    own checks do not say.
    """

    players: tuple[int, int | None]
    entry: Mapping[str, Any]
    keys: tuple[ExampleKey, ...] = ()
    rules: tuple[str, ...] = ()
    teams: bool = False           # players are listed in teams of { won, players }
    team_key: str = "won"         # what ranks the teams: "won" (true or false) or "place" (1, 2, ...)


def player_shape(fields: Sequence[Field]) -> str:
    """A player table as a curator writes it: { name = "...", goals = ..., ping = ... }."""
    keys = ['name = "..."', *(f"{f.name} = ..." for f in fields if f.required)]
    return "{ " + ", ".join(keys) + " }"


def parse_entries(raw: Any, report: Reporter, fields: Sequence[Field], *,
                  key: str = "players", prefix: tuple[str | int, ...] = (),
                  min_count: int = 2, max_count: int | None = None, system: str | None = None):
    """Check a list of player tables; returns (names, entries) or None if it is unusable.

    Every problem is reported, not only the first. ``system`` names the league's
    system in messages about keys that do not belong (a match pasted into the wrong league).
    """
    here = prefix + (key,)
    if max_count == min_count:
        want = f"exactly {min_count}"
    elif max_count is None:
        want = f"at least {min_count}"
    else:
        want = f"{min_count} to {max_count}"
    if not isinstance(raw, list):
        shape = f"a list of {want} player{'s' if want != 'at least 1' else ''}, each {player_shape(fields)}"
        if raw is None:         # TOML has no null: the key is absent (or misspelt, reported on its own)
            report(here, f"is missing; must be {shape}")
        else:
            report(here, f"must be {shape}, got {value_text(raw)}")
        return None
    listed = len(raw)
    if listed < min_count or (max_count is not None and listed > max_count):
        report(here, f"must list {want} players, got {listed}")
    elif listed > limits.MAX_PLAYERS:
        # Checked before any player: a 10,000-player match is refused at once, not rated for minutes.
        report(here, f"must list at most {limits.MAX_PLAYERS:,} players, got {listed:,}")
        return None
    names: list[str] = []
    entries: list[dict[str, Any]] = []
    ok = True
    known = {"name"} | {f.name for f in fields}
    for i, player in enumerate(raw):
        at = here + (i,)
        if not isinstance(player, dict):
            report(at, f"must be a table like {player_shape(fields)}, got {value_text(player)}")
            ok = False
            continue
        for extra in sorted(set(player) - known):
            report(at + (extra,), unknown_key(extra, ["name", *(f.name for f in fields)], system=system))
            ok = False
        if "name" not in player:
            report(at + ("name",), "is missing; every player needs a name")
            ok = False
        else:
            problem = check_name(player["name"])
            if problem:
                report(at + ("name",), problem)
                ok = False
            else:
                names.append(normalize_name(player["name"]))
        entry: dict[str, Any] = {}
        for f in fields:
            if f.name not in player:
                if f.required:
                    report(at + (f.name,), f"is missing; must be {f.allowed}")
                    ok = False
                else:
                    entry[f.name] = f.default
                continue
            value = player[f.name]
            if not f.check(value):
                report(at + (f.name,), f"must be {f.allowed}, got {value_text(value)}")
                ok = False
            else:
                entry[f.name] = value
        entries.append(entry)
    if not ok or listed < min_count or (max_count is not None and listed > max_count):
        return None
    return tuple(names), tuple(entries)


def valid_fields(raw: Any, fields: Sequence[Field]) -> list[dict[str, Any]]:
    """Each player's fields that are valid on their own (defaults for absent optional ones).

    Lets a system check rules across players (two hosts, scores summing to 1) even when
    ``parse_entries`` failed on another field, so every problem shows in one run.
    Reports nothing: ``parse_entries`` reports the fields themselves.
    """
    out: list[dict[str, Any]] = []
    for player in raw if isinstance(raw, list) else []:
        entry: dict[str, Any] = {}
        if isinstance(player, dict):
            for f in fields:
                if f.name in player:
                    if f.check(player[f.name]):
                        entry[f.name] = player[f.name]
                elif not f.required:
                    entry[f.name] = f.default
        out.append(entry)
    return out


class MatchSystem:
    """Shared behaviour of systems that update ratings once per match."""

    integer_ratings: ClassVar[bool] = False
    has_outcomes: ClassVar[bool] = True
    match_keys: ClassVar[tuple[str, ...]] = ("players",)
    standing_terms: ClassVar[tuple[str, ...]] = ()
    # Decimals of a rating shown on its own (the board, a player's page): none on the
    # Elo-like scales of hundreds of points; more where a whole scale spans a few dozen.
    rating_places: ClassVar[int] = 0
    # Whether league.toml's [initial] may name starting ratings (docs/configuration): every
    # system with an initial rating; arena has none (a rating is a mean of game ratings).
    has_initial: ClassVar[bool] = True
    # The starting ratings of [initial], canonical name -> what ``parse_start`` returned.
    starts: Mapping[str, Any] = {}

    def parse_start(self, value: Any, report: Reporter) -> Any | None:
        """One value of [initial]: a rating this system can hold, or None (reported).

        The default: a finite number within MAX_RATING, as the ``initial`` parameter.
        """
        if not rating_value(value):
            report((), f"must be {RATING_ALLOWED} (the player's rating before their first match), "
                       f"got {value_text(value)}")
            return None
        return value

    def match_example(self) -> "Example":
        """The match `sitegen new-match` prints for a league with these parameters."""
        return self.example

    def standings(self, events: Sequence[RatingEvent]) -> list[Standing]:
        last, count = last_ratings(events)
        return [Standing(p, c.after, count[p]) for p, c in last.items()]

    def outcome(self, match: Match, index: int) -> str | None:
        return None

    def describe(self, entry: Mapping[str, Any]) -> str:
        return ", ".join(f"{k} {v}" for k, v in entry.items() if v is not None)

    # How a match reads to people: a title from its players and result, and one player's
    # result in a few characters. Each system says it its own way; these are the plain forms.
    def headline(self, match: Match) -> str:
        return versus(match.players)

    def result(self, match: Match, index: int) -> str:
        """"3–1", "2nd of 20"; "" where the win, draw or loss says it all."""
        return ""


EN_DASH = "\u2013"


def versus(names: Sequence[str], shown: int = 4) -> str:
    """"A vs B vs C", at most ``shown`` names and then how many more."""
    text = " vs ".join(names[:shown])
    return text + (f" and {len(names) - shown} more" if len(names) > shown else "")


def listing(names: Sequence[str], shown: int = 3) -> str:
    """"A", "A and B", "A, B and C", "A, B and 5 others"."""
    if len(names) > shown:
        return f"{', '.join(names[:shown - 1])} and {len(names) - shown + 1} others"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


_SMALL_WORDS = frozenset("a an and at de del di du en et in la le of on the to vs von".split())


def event_name(match: Match) -> str | None:
    """The event a match id names, for people: "2023-06-monaco-grand-prix" played in 2023 is
    "Monaco Grand Prix 2023". Only an id the curator wrote names anything: a default id
    (the file's path and the match's position) and an id of numbers and codes do not.
    """
    parts = match.file.split("/", 2)          # matches/<league>/<path in the league>
    if len(parts) == 3 and match.id == default_id(parts[2], match.position):
        return None
    words = [w for w in re.split(r"[-_.]+", match.id) if w]
    while words and not any(c.isalpha() for c in words[0]):
        words.pop(0)                          # a leading date or round number
    # Words of three letters or more make a name; "w10-eu-t1" is a code.
    if sum(1 for w in words if w.isalpha() and len(w) >= 3) < 2:
        return None
    text = " ".join(w if any(c.isupper() for c in w) else w if i and w in _SMALL_WORDS
                    else w.upper() if len(w) <= 2 and w.isalpha() else w.capitalize()
                    for i, w in enumerate(words))
    year = str(match.played.year)
    return text if year in words else f"{text} {year}"
