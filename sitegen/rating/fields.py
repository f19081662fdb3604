"""Declared inputs of a system: parameters, player fields, checks and the match a curator fills in."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields as dataclass_fields
from typing import Any, TypeGuard

from sitegen.rating import limits
from sitegen.rating.values import Reporter
from sitegen.rating.wording import unknown_key, value_text

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


def is_int(v: Any) -> TypeGuard[int]:
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


def count(v: Any, low: int = 0) -> TypeGuard[int]:
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


# --- parsing the players of a match ------------------------------------------------

MAX_NAME = 64


def normalize_name(value: str) -> str:
    """Names are trimmed and compared after Unicode NFC normalisation (docs/curators)."""
    name = value.strip()
    if name.isascii():          # NFC leaves ASCII as it is: most names, a million times a long history
        return name
    import unicodedata
    return unicodedata.normalize("NFC", name)


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
                  min_count: int = 2, max_count: int | None = None, system: str | None = None,
                  ) -> tuple[tuple[str, ...], tuple[dict[str, Any], ...]] | None:
    """Check a list of player tables; returns (names, entries) or None if it is unusable.

    Every problem is reported, not only the first. ``system`` names the league's
    system in messages about keys that do not belong (a match pasted into the wrong league).
    """
    here = prefix + (key,)
    if not isinstance(raw, list):
        want = _wanted(min_count, max_count)
        shape = f"a list of {want} player{'s' if want != 'at least 1' else ''}, each {player_shape(fields)}"
        if raw is None:         # TOML has no null: the key is absent (or misspelt, reported on its own)
            report(here, f"is missing; must be {shape}")
        else:
            report(here, f"must be {shape}, got {value_text(raw)}")
        return None
    listed = len(raw)
    if listed < min_count or (max_count is not None and listed > max_count):
        report(here, f"must list {_wanted(min_count, max_count)} players, got {listed}")
    elif listed > limits.MAX_PLAYERS:
        # Checked before any player: a 10,000-player match is refused at once, not rated for minutes.
        report(here, f"must list at most {limits.MAX_PLAYERS:,} players, got {listed:,}")
        return None
    names: list[str] = []
    entries: list[dict[str, Any]] = []
    ok = True
    known = _known_keys(fields)
    for i, player in enumerate(raw):
        at = here + (i,)
        if not isinstance(player, dict):
            report(at, f"must be a table like {player_shape(fields)}, got {value_text(player)}")
            ok = False
            continue
        if not player.keys() <= known:
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


# The keys a player table may hold, by the fields of a system (a class's own tuple): made once,
# not for each of a history's matches. Each entry keeps its fields, so that their id is not reused.
_KNOWN_KEYS: dict[int, tuple[Sequence[Field], frozenset[str]]] = {}


def _known_keys(fields: Sequence[Field]) -> frozenset[str]:
    held = _KNOWN_KEYS.get(id(fields))
    if held is None or held[0] is not fields:
        if len(_KNOWN_KEYS) > 64:           # fields made afresh for each call: no use keeping them
            _KNOWN_KEYS.clear()
        held = _KNOWN_KEYS[id(fields)] = (fields, frozenset(["name", *(f.name for f in fields)]))
    return held[1]


def _wanted(min_count: int, max_count: int | None) -> str:
    """How many players a match lists, as a problem says it: "exactly 2", "at least 2", "2 to 4"."""
    if max_count == min_count:
        return f"exactly {min_count}"
    if max_count is None:
        return f"at least {min_count}"
    return f"{min_count} to {max_count}"


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



def slot_maker(cls: type, names: tuple[str, ...]) -> Callable[..., Any]:
    """``cls(*values)``, the values in the order of ``names``, for a frozen dataclass with slots,
    made without its ``__init__``: that sets each field through ``object.__setattr__``, which
    costs a long history's checking as much as reading a match. Each slot is set by its own
    descriptor instead, to the same object (equal, the same repr). ``cls`` itself where its
    fields or slots are not ``names``, or it has a ``__post_init__``."""
    if (tuple(f.name for f in dataclass_fields(cls)) != names or getattr(cls, "__slots__", ()) != names
            or hasattr(cls, "__post_init__")):
        return cls
    # One line a field, as dataclasses writes its __init__: a loop over the fields costs a third more.
    args = [f"v{i}" for i in range(len(names))]
    body = "".join(f"    s{i}(o, v{i})\n" for i in range(len(names)))
    scope: dict[str, Any] = {"new": object.__new__, "cls": cls}
    scope.update({f"s{i}": getattr(cls, name).__set__ for i, name in enumerate(names)})
    exec(f"def make({', '.join(args)}):\n    o = new(cls)\n{body}    return o\n", scope)  # noqa: S102
    return scope["make"]
