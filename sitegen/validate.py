"""Raw match tables -> typed matches, in history order, with every problem reported.

The common keys (id, played, notes) are checked here; each system checks its
own part (players, teams, system keys) through ``System.parse_match``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timezone
from typing import Any

from .config import LeagueConfig, Roster
from .load import LeagueSource, TomlFile
from .problems import Problems
from .rating.base import Match, type_name

MATCH_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")
MAX_ID = 64
COMMON_KEYS = ("id", "played", "notes")


@dataclass(frozen=True, slots=True)
class League:
    """A league ready to rate: its config and its matches in history order."""

    config: LeagueConfig
    matches: tuple[Match, ...]


def to_utc(value: Any) -> datetime | None:
    """TOML offset date-time, local date-time (UTC) or local date (00:00 UTC) -> aware UTC."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)
    if isinstance(value, date):
        return datetime.combine(value, time(0, 0), tzinfo=timezone.utc)
    return None


def default_id(league_rel: str, position: int) -> str:
    """`2024/week-03.toml`, 2nd match -> `2024-week-03-2` (CONTRACT section 3)."""
    stem = league_rel[: -len(".toml")] if league_rel.endswith(".toml") else league_rel
    return f"{stem.replace('/', '-')}-{position}"


def league_matches(source: LeagueSource, config: LeagueConfig, roster: Roster,
                   problems: Problems) -> League:
    """Check every match of a league and return them in history order."""
    system = config.system
    allowed = COMMON_KEYS + system.match_keys
    keyed: list[tuple[tuple, Match]] = []
    seen_ids: dict[str, str] = {}
    for f in source.match_files:
        league_rel = f.rel.split("/", 2)[2]   # matches/<league>/<path> -> <path>
        keyed.extend(_file_matches(f, league_rel, config, roster, allowed, seen_ids, problems))
    keyed.sort(key=lambda item: item[0])
    return League(config, tuple(m for _, m in keyed))


def _file_matches(f: TomlFile, league_rel: str, config: LeagueConfig, roster: Roster,
                  allowed: tuple[str, ...], seen_ids: dict[str, str], problems: Problems):
    data = f.data
    for key in sorted(set(data) - {"match"}):
        problems.add(f.rel, "unknown key; a match file holds only [[match]] tables",
                     line=f.locate(key), field=key)
    raw_matches = data.get("match", [])
    if not isinstance(raw_matches, list):
        problems.add(f.rel, "must be [[match]] tables", line=f.locate("match"), field="match")
        return []
    if not raw_matches and not (set(data) - {"match"}):
        problems.add(f.rel, "holds no [[match]] table; remove the file or add a match")
    out = []
    starts = f.table_lines("match")
    for index, raw in enumerate(raw_matches):
        position = index + 1
        table = ("match", index)
        fallback_id = default_id(league_rel, position)
        label = f"#{position}"
        if not isinstance(raw, dict):
            problems.add(f.rel, f"must be a table, got {type_name(raw)}", line=f.locate(table=table),
                         match=label)
            continue
        explicit = raw.get("id")
        if isinstance(explicit, str) and explicit:
            label = f"{explicit!r} (#{position})"
        else:
            label = f"#{position} ({fallback_id})"
        before = len(problems)

        def report(path: tuple[str | int, ...], message: str, *, _label=label, _table=table) -> None:
            problems.add(f.rel, message, line=f.locate(*path, table=_table), match=_label,
                         field=_field(path))

        for key in sorted(set(raw) - set(allowed)):
            report((key,), f"unknown key; allowed keys: {', '.join(allowed)}")

        match_id = fallback_id
        if explicit is not None:
            if not isinstance(explicit, str) or not MATCH_ID.match(explicit) or len(explicit) > MAX_ID:
                report(("id",), f"must be a string of letters, digits, '.', '_' and '-', starting with a "
                                f"letter or digit, at most {MAX_ID} characters; got {explicit!r}")
            else:
                match_id = explicit
        if len(match_id) > MAX_ID and explicit is None:
            report(("id",), f"the default id {match_id!r} is longer than {MAX_ID} characters; "
                            "give the match an explicit id")
        if match_id in seen_ids:
            report(("id",), f"duplicate match id {match_id!r}, already used in {seen_ids[match_id]}; "
                            "ids must be unique within the league")
        else:
            seen_ids[match_id] = f.rel

        played = None
        if "played" not in raw:
            report(("played",), "is missing; must be a date-time such as 2024-05-01T19:30:00+02:00 "
                                "or a date such as 2024-05-01")
        else:
            played = to_utc(raw["played"])
            if played is None:
                report(("played",), f"must be a TOML date-time (2024-05-01T19:30:00+02:00, "
                                    f"2024-05-01T19:30:00) or date (2024-05-01), got {raw['played']!r}")
        notes = raw.get("notes")
        if notes is not None and not isinstance(notes, str):
            report(("notes",), f"must be a string, got {type_name(notes)}")

        parsed = config.system.parse_match(raw, report)
        if parsed is not None:
            names = tuple(roster.resolve(n) for n in parsed.names)
            seen: dict[str, int] = {}
            for i, (written, name) in enumerate(zip(parsed.names, names)):
                if name in seen:
                    via = f" (alias of {name!r})" if written != name else ""
                    report(parsed.name_paths[i] if parsed.name_paths else ("players", i, "name"),
                           f"{written!r}{via} already plays in this match as player {seen[name] + 1}; "
                           "a player may appear only once")
                else:
                    seen[name] = i
            extra = dict(parsed.extra)
            challenger = extra.get("challenger")
            if challenger is not None:
                extra["challenger"] = roster.resolve(challenger)
                if extra["challenger"] not in names:
                    report(("challenger",), f"{challenger!r} does not play in this match; must be one of "
                                            f"{', '.join(repr(n) for n in parsed.names)}")
        if len(problems) > before or parsed is None or played is None:
            continue
        m = Match(id=match_id, played=played, file=f.rel, position=position, notes=notes,
                  players=names, entries=parsed.entries, extra=extra, line=starts[index] if index < len(starts) else None)
        # History order: played, then file path within the league, then position.
        out.append(((played, league_rel, position), m))
    return out


def _field(path: tuple[str | int, ...]) -> str:
    out = ""
    for seg in path:
        out += f"[{seg}]" if isinstance(seg, int) else (f".{seg}" if out else seg)
    return out
