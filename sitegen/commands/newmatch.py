"""`sitegen new-match`: a [[match]] table of a league's system, for a curator to fill in.

The table is written from the system's own declarations (``fields`` and
``example``), so it has exactly the keys the validator accepts, each with a
comment saying what it is and what is allowed. With names it is valid as printed
(neutral placeholders: a draw, a shared place); without them the names are
empty strings, which `sitegen check` refuses until they are filled in.
"""

from __future__ import annotations

import difflib
import shlex
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from sitegen.load.config import Roster, league_config, roster
from sitegen.load.matchtoml import match_table
from sitegen.rating import limits
from sitegen.load.site import load_site, read_toml, where_to_run
from sitegen.load.problems import InvalidInput, Problems, plural
from sitegen.rating import System
from sitegen.rating.base import Example, check_name, normalize_name
from sitegen.load.validate import MATCH_ID, MAX_ID, default_id, to_utc

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A bad argument or an unknown league: exit 2, as argparse does for its own errors."""


def parse_played(text: str) -> datetime | date:
    """--played: a date, a local date-time or one with an offset, as TOML and ISO 8601 write them.

    A date outside what the check accepts is refused here, rather than printed into a match
    that would then fail the check.
    """
    when = _parse_played(text)
    if to_utc(when) is None:
        raise UsageError(f"--played {text!r} is outside the dates sitegen rates: played must fall "
                         f"{limits.PLAYED_RANGE}")
    return when


def _parse_played(text: str) -> datetime | date:
    value = text.strip()
    try:
        return date.fromisoformat(value)
    except ValueError:
        pass
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        when = None
    offset = when.utcoffset() if when is not None else None
    if when is not None and not (offset and offset.seconds % 60):     # TOML offsets are whole minutes
        return when
    raise UsageError(f"--played {text!r} is not a date or date-time; use 2024-05-01T19:30:00+02:00 "
                     "(with its UTC offset), 2024-05-01T17:30:00Z (UTC), 2024-05-01T19:30 "
                     "(taken as UTC) or 2024-05-01 (00:00 UTC)")


# --- the league --------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class LeagueFacts:
    """What new-match needs of a league: its system, who is who, the names and ids in use."""

    slug: str
    folder: Path
    system: type[System]
    roster: Roster
    names: frozenset[str]            # canonical names of everyone in the league's match files
    ids: dict[str, str]              # every match id (explicit or default) -> its file
    counts: dict[str, int]           # matches in each file, by path relative to the league folder
    # The match to print, by the league's own parameters (an elo league with a margin rule
    # prints points); None: the system's example.
    example: Example | None = None


def read_league(root: Path, slug: str) -> LeagueFacts:
    """Load the league ``slug`` of the site at ``root``; UsageError if there is no such league."""
    problems = Problems()
    site = load_site(root, problems)
    leagues = {lg.slug: lg for lg in site.leagues}
    if slug not in leagues:
        if not (root / "matches").is_dir():
            raise UsageError(f"no matches/ folder in {root}; {where_to_run(root)}")
        if not leagues:
            raise UsageError(f"no league folder in {root / 'matches'}; a league is a folder "
                             "matches/<league>/ with a league.toml")
        raise UsageError(f"unknown league {slug!r}; leagues: {', '.join(leagues)}")
    source = leagues[slug]
    own = Problems()
    config = league_config(source, own)
    if config is None:
        league_toml = f"matches/{slug}/league.toml"
        mine = [p for p in problems if p.file in (league_toml, f"matches/{slug}")]
        raise InvalidInput(mine + list(own))
    who = roster(site.players, Problems())      # a broken players.toml is check's to report
    names: set[str] = set()
    ids: dict[str, str] = {}
    counts: dict[str, int] = {}
    for source_file in source.match_files:
        f = source_file.read(Problems())        # a file that cannot be read is check's to report
        if f is None:
            continue
        league_rel = f.rel.split("/", 2)[2]
        matches = f.data.get("match")
        matches = matches if isinstance(matches, list) else []
        counts[league_rel] = len(matches)
        for position, raw in enumerate(matches, 1):
            if not isinstance(raw, dict):
                continue
            explicit = raw.get("id")
            ids.setdefault(explicit if isinstance(explicit, str) else default_id(league_rel, position), f.rel)
            for name in _names_in(raw):
                names.add(who.resolve(normalize_name(name)))
    return LeagueFacts(slug, source.folder, type(config.system), who, frozenset(names), ids, counts,
                       config.system.match_example())


def _names_in(raw: dict[str, Any]) -> list[str]:
    groups = [raw.get("players")]
    teams = raw.get("teams")
    if isinstance(teams, list):
        groups += [t.get("players") for t in teams if isinstance(t, dict)]
    return [p["name"] for group in groups if isinstance(group, list)
            for p in group if isinstance(p, dict) and isinstance(p.get("name"), str)]


# --- the match ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Draft:
    text: str                 # the [[match]] table, ending in a newline
    match_id: str | None      # --id
    named: bool               # the players' names are filled in
    notes: tuple[str, ...]    # for the curator: aliases resolved, names new to the league


def draft(facts: LeagueFacts, *, players: Sequence[str] = (), teams: Sequence[Sequence[str]] = (),
          played: str | None = None, match_id: str | None = None,
          now: datetime | None = None) -> Draft:
    """The [[match]] table of the league's system, with these players (or empty names)."""
    example = facts.example or facts.system.example
    if teams and not example.teams:
        raise UsageError(f"--team is for team games; {facts.slug!r} is rated with {facts.system.name}, "
                         "whose players are given with --player")
    if teams and players:
        raise UsageError("give the players either with --team (one per team) or with --player "
                         "(a free-for-all: each player a team of one), not both")
    if match_id is not None and (not MATCH_ID.match(match_id) or len(match_id) > MAX_ID):
        raise UsageError(f"--id {match_id!r}: use letters, digits, '.', '_' and '-', starting with a letter "
                         f"or digit, at most {MAX_ID} characters")
    if match_id is not None and match_id in facts.ids:
        raise UsageError(f"--id {match_id!r} is already used in {facts.ids[match_id]}; ids are unique "
                         "within a league")
    if played is None:
        when: datetime | date = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(
            second=0, microsecond=0)
    else:
        when = parse_played(played)

    notes: list[str] = []
    if teams:
        groups = [list(t) for t in teams]
    else:   # arena players given one by one: a free-for-all, each a team of one
        groups = [[p] for p in players] if example.teams else [list(players)]
    named = bool(players or teams)
    least, most = example.players
    what = "teams" if example.teams else "players"
    if not named:
        groups = [[""]] * least if example.teams else [[""] * least]
    elif example.teams and any(not team for team in groups):
        raise UsageError("every --team needs at least one player name")
    count = len(groups) if example.teams else len(groups[0])
    if named and (count < least or (most is not None and count > most)):
        want = f"exactly {least}" if most == least else f"at least {least}"
        raise UsageError(f"{_a(facts.system.name)} match has {want} {what}; got {count}")
    seen: set[str] = set()
    resolved: list[list[str]] = []      # canonical names ("" to fill in), by team
    for group in groups:
        resolved.append([])
        for given in group:
            if not named:
                resolved[-1].append("")
                continue
            problem = check_name(given)
            if problem:
                raise UsageError(f"player name {given!r} {problem}")
            name = normalize_name(given)
            canonical = facts.roster.resolve(name)
            if canonical in seen:
                via = f" (an alias of {canonical!r})" if name != canonical else ""
                raise UsageError(f"{name!r}{via} is given twice; a player may appear only once in a match")
            seen.add(canonical)
            if canonical != name:
                notes.append(f"{name!r} is an alias of {canonical!r} in matches/players.toml; "
                             f"the match names {canonical!r}")
            elif canonical not in facts.names:
                close = difflib.get_close_matches(canonical, sorted(facts.names | set(facts.roster.players)),
                                                  n=1, cutoff=0.75)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                notes.append(f"{canonical!r} has no match in {facts.slug} yet{hint} "
                             "(fine for a new player)")
            resolved[-1].append(canonical)
    text = match_table(facts.system, example, resolved, when, played is None, match_id)
    return Draft(text, match_id, named, tuple(notes))


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


# --- appending to a match file -----------------------------------------------------

@dataclass(frozen=True, slots=True)
class Appended:
    file: str                 # relative to the site root
    first_line: int
    last_line: int
    match_id: str
    created: bool


def append(root: Path, facts: LeagueFacts, target: Path, match: Draft) -> Appended:
    """Append the match to ``target``, a match file of the league (created with its folders if need be).

    Refuses a file the league does not read (outside its folder, league.toml, not .toml,
    hidden) with UsageError, and a file the table cannot be added to as valid TOML with
    InvalidInput; nothing is written then.
    """
    path = target if target.is_absolute() else Path.cwd() / target
    path = path.resolve()
    folder = facts.folder.resolve()
    where = f"matches/{facts.slug}/"
    try:
        inside = path.relative_to(folder)
    except ValueError:
        hint = ""
        if not target.is_absolute() and target.parts and target.parts[0] != "..":
            hint = f" (did you mean {where}{target.as_posix()}?)"
        raise UsageError(f"refusing to append to {target}: it is outside {where}, the folder of "
                         f"league {facts.slug!r}{hint}") from None
    league_rel = inside.as_posix()
    if path.is_dir():
        raise UsageError(f"refusing to append to {target}: it is a folder")
    if path.name == "league.toml":
        raise UsageError(f"refusing to append to {target}: league.toml holds the league's settings, "
                         "not matches")
    if path.suffix != ".toml":
        raise UsageError(f"refusing to append to {target}: match files end in .toml (others are not read)")
    if any(part.startswith(".") for part in inside.parts):
        raise UsageError(f"refusing to append to {target}: files and folders starting with '.' are not read")

    rel = path.relative_to(root.resolve()).as_posix() if path.is_relative_to(root.resolve()) else str(path)
    created = not path.exists()
    text = ""
    if not created:
        problems = Problems()
        parsed = read_toml(root.resolve(), path, problems)
        if parsed is None:
            raise InvalidInput([p for p in problems])
        text = parsed.text
    newline = "\r\n" if "\r\n" in text else "\n"   # keep the file's own line ends
    if not text:
        gap = ""
    elif text.endswith(newline * 2):
        gap = ""
    elif text.endswith(newline):
        gap = newline
    else:
        gap = newline * 2                           # end the last line, then a blank one
    addition = gap + match.text.replace("\n", newline)
    try:
        tomllib.loads(text + addition)
    except tomllib.TOMLDecodeError as exc:
        problems = Problems()
        problems.add(rel, f"a [[match]] table cannot be appended here ({exc}); the file must hold only "
                          "[[match]] tables")
        raise InvalidInput(problems) from None

    position = facts.counts.get(league_rel, 0) + 1
    match_id = match.match_id or default_id(league_rel, position)
    if match.match_id is None and match_id in facts.ids:
        raise UsageError(f"the match would get the default id {match_id!r}, already used in "
                         f"{facts.ids[match_id]}; give it another with --id")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as fh:
        fh.write(addition.encode("utf-8"))
    first = (text + gap).count("\n") + 1
    last = first + match.text.count("\n") - 1
    return Appended(rel, first, last, match_id, created)


# --- the command -------------------------------------------------------------------

def run(root: Path, league: str, *, players: Sequence[str] = (), teams: Sequence[Sequence[str]] = (),
        played: str | None = None, match_id: str | None = None, target: Path | None = None,
        now: datetime | None = None) -> int:
    """`sitegen new-match`: print the table (or append it to ``target``); returns the exit code."""
    try:
        facts = read_league(root, league)
        match = draft(facts, players=players, teams=teams, played=played, match_id=match_id, now=now)
        for note in match.notes:
            print(f"sitegen: note: {note}", file=sys.stderr)
        if target is None:
            sys.stdout.write(match.text)
            return EXIT_OK
        done = append(root, facts, target, match)
    except UsageError as exc:
        print(f"sitegen new-match: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except InvalidInput as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        n = len(exc.problems)
        print(f"sitegen: {plural(n, 'problem')} found; nothing was written.", file=sys.stderr)
        return EXIT_INVALID
    verb = "created" if done.created else "appended to"
    print(f"sitegen: {verb} {done.file}: {_a(facts.system.name)} match, id {done.match_id}, "
          f"lines {done.first_line}-{done.last_line}")
    todo = "numbers" if match.named else "players' names and the numbers"
    check = "sitegen check" if root.resolve() == Path.cwd().resolve() else \
        f"sitegen check --root {shlex.quote(str(root))}"
    print(f"Fill in the {todo} (the comments say what is allowed), then run: {check}")
    return EXIT_OK
