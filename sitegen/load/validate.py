"""Raw match tables -> typed matches, in history order, with every problem reported.

The common keys (id, played, notes) are checked here; each system checks its
own part (players, teams, system keys) through ``System.parse_match``.
"""

from __future__ import annotations

import marshal
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from datetime import date, datetime, time, timezone
from typing import Any

from sitegen.rating import collector, limits
from sitegen.load.config import LeagueConfig, Roster, initial_field
from sitegen.load.site import DATE_TOKEN, LeagueSource, MatchFile, TomlFile, date_fix, reads_as_toml
from sitegen.load import forked, halves
from sitegen.load.filekeys import checked_head, checked_key, file_keys
from sitegen.load.gathered import Gathered, Kept
from sitegen.load.halves import Keyed, new_match
from sitegen.load.problems import Problems
from sitegen.load.duplicates import CLEAN, near, report_duplicates as _report_duplicates
from sitegen.rating.base import Match, ParsedMatch, default_id, did_you_mean, normalize_name, unknown_key, value_text

MATCH_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")
MAX_ID = 64
COMMON_KEYS = ("id", "played", "notes")
NAME_KEYS = ("challenger", "home")      # match keys whose value is a player of the match
UTC, EARLIEST, LATEST = timezone.utc, limits.EARLIEST, limits.LATEST
# Where a match id is first used (its file, its index there, whether the id is explicit),
# looked up as FILE:LINE only when another match uses it again (``_first_use``).
Seen = tuple[TomlFile, int, bool]


@dataclass(frozen=True, slots=True)
class League:
    """A league ready to rate: its config and its matches in history order."""

    config: LeagueConfig
    # A tuple, or on a rebuild the kept files' columns (rating/matchcolumns.py), which make a
    # match only where one is read.
    matches: Sequence[Match]
    # Each match file's checked key (load/filekeys.py) by its path, where the cache is used.
    keys: Mapping[str, str] | None = field(default=None, compare=False, repr=False)


def to_utc(value: Any) -> datetime | None:
    """TOML offset date-time, local date-time (UTC) or local date (00:00 UTC) -> aware UTC.

    None for any other value, and for a date outside ``limits.PLAYED_RANGE``: its year is
    looked at before the offset is applied, which would overflow at years 1 and 9999.
    """
    if isinstance(value, datetime):
        if not limits.EARLIEST.year <= value.year <= limits.LATEST.year:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        value = value.astimezone(timezone.utc)
    elif isinstance(value, date):
        if not limits.EARLIEST.year <= value.year <= limits.LATEST.year:
            return None
        value = datetime.combine(value, time(0, 0), tzinfo=timezone.utc)
    else:
        return None
    return value if limits.EARLIEST <= value <= limits.LATEST else None


def unquoted_date(value: Any) -> str:
    """For a date written in quotes: how to write ``played`` so that TOML reads a date."""
    bare = value.strip() if isinstance(value, str) else ""
    found = DATE_TOKEN.fullmatch(bare)
    if found is None or found.group("lone"):
        return ""
    fix = bare if reads_as_toml(bare) else date_fix(found)[1]
    if fix is None:
        return ""
    if "T" in fix and not re.search(r"(Z|[+-]\d\d:\d\d)\Z", fix):
        # Without an offset the time is taken as UTC: most curators mean their own zone.
        return f"; write played = {fix}+01:00, with the UTC offset of the time's zone (Z for UTC)"
    return f"; write played = {fix}"


def league_matches(source: LeagueSource, config: LeagueConfig, roster: Roster,
                   problems: Problems) -> League:
    """Check every match of a league and return them in history order."""
    with collector.kept():
        return _league_matches(source, config, roster, problems)


def _league_matches(source: LeagueSource, config: LeagueConfig, roster: Roster, problems: Problems) -> League:
    system = config.system
    allowed = COMMON_KEYS + system.match_keys
    keyed: list[tuple[tuple, Match, bool]] = []
    seen_ids: dict[str, Seen] = {}     # id -> where it is first used, FILE:LINE
    played_names: set[str] = set()                  # canonical names of every match's players
    shared = Shared()
    head = checked_head(source)
    done = _from_cache(source.match_files, head, config, roster, allowed, shared)
    halves = None if done is not None else _in_halves(source.match_files, config, roster, allowed, shared, head)
    before = len(problems)
    matches: Sequence[Match]
    if done is not None:
        matches, explicit, played_names = done.matches, done.explicit, done.played
    else:
        if halves is not None:
            keyed, played_names = halves
        else:
            for source_file in source.match_files:
                f = source_file.read(problems)
                if f is not None:
                    keyed.extend(_checked_file(f, head, source_file, config, roster, allowed, seen_ids,
                                               played_names, problems, shared))
        keyed.sort(key=lambda item: item[0])
        matches = tuple(m for _, m, _ in keyed)
        explicit = {m.id for _, m, given in keyed if given}
    cache = source.match_files[0].cache if source.match_files else None
    if done is not None and done.known_apart:
        # Every kept file was in a league that reported no duplicate: only the changed files'
        # matches can be the same as another (load/duplicates.py).
        _report_duplicates(near(matches, done.changed), explicit, system, problems)
    else:
        _report_duplicates(matches, explicit, system, problems)
    _report_unplayed_starts(source, config, played_names, problems)
    # Each file's checked key: as read for the check, or made as each file was checked clean.
    keys = done.keys if done is not None else shared.keys if len(shared.keys) == len(source.match_files) else None
    if cache is not None and head is not None and len(problems) == before:
        keys = keys if keys is not None else file_keys(source.match_files, head)
        if keys is not None and cache.get(CLEAN, head.hex()) != frozenset(keys.values()):
            cache.put(CLEAN, head.hex(), frozenset(keys.values()))
    return League(config, matches, keys)


# A match's empty system keys: one mapping for every match that has none (read, never written).
NO_EXTRA: dict[str, Any] = {}


class Shared:
    """One copy of each value that many matches of a league hold alike, kept instead of a copy
    per match: a player's name (a string each time the file names them), a player's fields
    (``{"score": 1}``: a dict each, 184 bytes, for every player of a million matches) and a
    match's tuple of them."""

    __slots__ = ("names", "entries", "kept", "players", "tuples", "keys")

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.entries: dict[tuple, Mapping[str, Any]] = {}
        # The entries kept, by identity: a system that gives the same entry object for many
        # matches (elo's plain scores) finds it here at once, without its key made again.
        self.kept: dict[int, Mapping[str, Any]] = {}
        self.players: dict[str, str] = {}       # a name as a match gives it -> its player's one copy
        self.tuples: dict[tuple[int, ...], tuple[Mapping[str, Any], ...]] = {}   # by its entries' ids
        self.keys: dict[str, str] = {}          # the checked key of each file checked clean, by path

    def name(self, name: str) -> str:
        """The one copy of a player's name: interned, so that marshal (halves.py) writes it as
        interned and reads it back as this very object, where a kept file's matches are made."""
        return self.names.setdefault(name, sys.intern(name))

    def player(self, written: str, resolve: Callable[[str], str]) -> str:
        """The one copy of the player that ``written`` names through players.toml (``resolve``)."""
        name = self.players[written] = self.name(resolve(written))
        return name

    def fields(self, entries: Iterable[Mapping[str, Any]]) -> tuple[Mapping[str, Any], ...]:
        """A match's entries as their one copies (``entry``), in one tuple for every match with
        the same copies: a kept file's matches share it as read (halves.unpack)."""
        ours = tuple([self.entry(e) for e in entries])
        kept = self.kept
        if all(kept.get(id(e)) is e for e in ours):       # kept alive by ``entries``: the ids are theirs
            return self.tuples.setdefault(tuple(map(id, ours)), ours)
        return ours

    def entry(self, entry: Mapping[str, Any]) -> Mapping[str, Any]:
        """The first entry with the same keys, values and value types (1, 1.0 and True stay
        apart); an entry with an unhashable value or a float zero (-0.0 equals 0.0) is its own."""
        if self.kept.get(id(entry)) is entry:
            return entry
        values = tuple(entry.values())
        types = tuple(map(type, values))
        if float in types and 0.0 in values:
            return entry
        try:
            kept = self.entries.setdefault((tuple(entry), values, types), entry)
        except TypeError:
            return entry
        if kept is entry:       # alive as long as ``entries`` holds it: its id stays its own
            self.kept[id(entry)] = entry
        return kept


def _report_unplayed_starts(source: LeagueSource, config: LeagueConfig, played: set[str],
                            problems: Problems) -> None:
    """A name in [initial] that plays no match of the league: a typo must not pass (section 8)."""
    for name, key in config.initial_keys.items():
        if name in played:
            continue
        via = f" (an alias of {name!r} in matches/players.toml)" if normalize_name(key) != name else ""
        line = source.config.locate("initial", key) if source.config is not None else None
        problems.add(config.file, f"{normalize_name(key)!r}{via} plays in no match of this league; "
                                  f"{did_you_mean(name, sorted(played))}[initial] gives starting ratings "
                                  "to the league's players only", line=line, field=initial_field(key))


# Bytes of match files above which a league's files are read and checked in two halves, the
# second in a forked child on the second core (``_in_halves``): below (about 20,000 short
# matches), the fork costs more than it saves.
HALVES_FROM = 2_000_000


def _validated(files: tuple[MatchFile, ...], config: LeagueConfig, roster: Roster, allowed: tuple[str, ...],
               shared: Shared, head: bytes | None) -> tuple[list[Keyed], set[str], set[str]] | None:
    """``files`` read and checked on their own: (keyed matches, names played, ids), None at any problem."""
    problems = Problems()
    seen_ids: dict[str, Seen] = {}
    played: set[str] = set()
    keyed: list[Keyed] = []
    for source_file in files:
        f = source_file.read(problems)
        if f is not None:
            keyed.extend(_checked_file(f, head, source_file, config, roster, allowed, seen_ids, played, problems,
                                       shared))
    return None if problems else (keyed, played, set(seen_ids))


# --- checked files kept by the build cache --------------------------------------------------
# A file's checked matches are kept (load/cache.py, as halves.pack's columns) under the digest
# of its text, its path and the league's other inputs (league.toml, players.toml): a rebuild
# makes the matches of an unchanged file from its columns, a tenth of checking them again.
# Only a file that had no problem is kept; where a kept file's ids meet another file's, or
# many files changed, every file is checked as without the cache, so problems are found
# and worded as ever.

def _checked_file(f: TomlFile, head: bytes | None, source_file: MatchFile, config: LeagueConfig, roster: Roster,
                  allowed: tuple[str, ...], seen_ids: dict[str, Seen], played_names: set[str],
                  problems: Problems, shared: Shared) -> list[Keyed]:
    """``_file_matches``, its matches kept in the cache where the file had no problem."""
    before, known = len(problems), len(seen_ids)
    names: set[str] = set()
    keyed = _file_matches(f, config, roster, allowed, seen_ids, names, problems, shared)
    played_names |= names
    if head is not None and source_file.cache is not None and len(problems) == before:
        ids = set(islice(reversed(seen_ids), len(seen_ids) - known))      # this file's: the last ones in
        key = shared.keys[f.rel] = checked_key(head, f.rel, f.text)
        source_file.cache.put("checked", key, halves.pack(keyed, names, ids))
    return keyed


# Above this share of a league's files changed, they are checked as without the cache (on two
# cores where the league is long): the files kept are then too few to be worth a pass alone.
CHANGED_AT_MOST = 0.1


def _from_cache(files: tuple[MatchFile, ...], head: bytes | None, config: LeagueConfig, roster: Roster,
                allowed: tuple[str, ...], shared: Shared) -> Kept | None:
    """The league's matches as columns from the files kept, and the few changed ones checked
    here (``Kept``); None, and every file is checked, where too many changed, their ids meet,
    or any file has a problem."""
    if head is None or not files:
        return None
    cache = files[0].cache
    assert cache is not None
    kept: list[bytes | None] = []
    keys = file_keys(files, head)
    if keys is None:
        return None
    for key in keys.values():
        hit = cache.get("checked", key)
        kept.append(hit if isinstance(hit, bytes) else None)
    misses = sum(hit is None for hit in kept)
    if misses == len(files) or misses > max(1, CHANGED_AT_MOST * len(files)):
        return None
    # Where every kept file was in a league checked without a problem (load/duplicates.py),
    # their ids are known apart: only the changed files' ids are looked for among theirs.
    clean = cache.get(CLEAN, head.hex())
    known_apart = isinstance(clean, frozenset) and clean.issuperset(k for k, hit in zip(keys.values(), kept) if hit)
    # The names played are only looked at for the [initial] players (_report_unplayed_starts).
    names = bool(config.initial_keys)
    gathered = Gathered()
    changed: list[Match] = []
    played: set[str] = set()
    ids: set[str] = set()
    kept_ids: list[list[str]] = []
    for source_file, hit in zip(files, kept):
        their_ids: Iterable[str]
        their_played: Iterable[str]
        if hit is not None:
            try:
                columns = halves.unpack_columns(hit, shared.name, shared.fields, NO_EXTRA, shared.names.get)
            except Exception:       # noqa: BLE001 - a damaged entry: checked as without the cache
                return None
            gathered.add_unpacked(columns)
            # The names played are read only where they are looked at: with the players, from their bytes.
            their_played, their_ids = (columns.played if names else ()), columns.used
        else:
            problems = Problems()
            f = source_file.read(problems)
            seen: dict[str, Seen] = {}
            names_of: set[str] = set()
            theirs = [] if f is None else _checked_file(f, head, source_file, config, roster, allowed, seen,
                                                         names_of, problems, shared)
            if f is None or problems:
                return None
            gathered.add_keyed(theirs)
            their_played, their_ids = list(names_of), list(seen)
            changed += [m for _, m, _ in theirs]
        if names:
            played.update(their_played)
        if known_apart and hit is not None:
            kept_ids.append(their_ids)
            continue
        if not ids.isdisjoint(their_ids):
            return None
        ids.update(their_ids)
    if any(not ids.isdisjoint(theirs) for theirs in kept_ids):
        return None
    try:
        matches, explicit = gathered.in_history_order()
    except Exception:       # noqa: BLE001 - a damaged entry's times: checked as without the cache
        return None
    return Kept(matches, explicit, played, keys, known_apart, changed)


def _in_halves(files: tuple[MatchFile, ...], config: LeagueConfig, roster: Roster, allowed: tuple[str, ...],
               shared: Shared, head: bytes | None = None) -> tuple[list[Keyed], set[str]] | None:
    """A long league's matches checked on two cores: the first half of its files here, the
    second in a forked child that sends its matches back as columns (``halves.pack``, a tenth
    of checking them). None, and the caller checks every file in turn, where there is one core
    or the league is short, and wherever either half has a problem or both use one id: the
    problems are then found and worded exactly as one pass finds them."""
    sizes = [f.size for f in files]
    total = sum(sizes)
    if total < HALVES_FROM or len(files) < 2:
        return None
    cut, first = 1, sizes[0]
    while cut < len(files) - 1 and first + sizes[cut] <= total // 2:
        first += sizes[cut]
        cut += 1
    second = files[cut:]

    def job() -> bytes:
        own = Shared()
        done = _validated(second, config, roster, allowed, own, head)
        return b"" if done is None else marshal.dumps((halves.pack(*done), own.keys))     # and its files' keys

    child = forked.start(job)
    if child is None:
        return None
    try:
        mine = _validated(files[:cut], config, roster, allowed, shared, head)
    except BaseException:
        child.stop()
        raise
    data = child.wait()
    if mine is None or not data:
        return None
    keyed, played, ids = mine
    packed, their_keys = marshal.loads(data)
    shared.keys.update(their_keys)
    theirs, their_played, their_ids = halves.unpack(packed, shared.name, shared.fields, NO_EXTRA)
    if not ids.isdisjoint(their_ids):
        return None
    return keyed + theirs, played | their_played


def _file_matches(f: TomlFile, config: LeagueConfig, roster: Roster,
                  allowed: tuple[str, ...], seen_ids: dict[str, Seen], played_names: set[str],
                  problems: Problems, shared: Shared) -> list[Keyed]:
    league_rel = f.rel.split("/", 2)[2]   # matches/<league>/<path> -> <path>
    data = f.data
    # Where an id was first used is located in the text when a later match repeats it: the
    # ids keep the file without its tables, which go when its matches are made.
    where = TomlFile(f.path, f.rel, f.text, {})
    for key in sorted(set(data) - {"match"}):
        problems.add(f.rel, f"unknown key; {did_you_mean(key, ['match'])}a match file holds only "
                            "[[match]] tables", line=f.locate(key), field=key)
    raw_matches = data.get("match", [])
    if not isinstance(raw_matches, list):
        problems.add(f.rel, f"must be [[match]] tables, got {value_text(raw_matches)}", line=f.locate("match"),
                     field="match")
        return []
    if not raw_matches and not (set(data) - {"match"}):
        problems.add(f.rel, "holds no [[match]] table; remove the file or add a match")
    out: list[Keyed] = []
    starts = f.table_lines("match")
    known = frozenset(allowed)
    resolve = roster.resolve
    parse_match = config.system.parse_match
    id_stem = default_id(league_rel, 0)[:-1]      # "<path>-": the default id of every match, less its position
    one_name, one_fields = shared.name, shared.fields
    known_player, one_player = shared.players.__getitem__, shared.player
    lines = len(starts)
    rel = f.rel
    add_played = played_names.update
    append = out.append
    quiet = _Quiet()
    for index, raw in enumerate(raw_matches):
        position = index + 1
        fallback_id = f"{id_stem}{position}"
        # The well-formed match, checked without the reporting machinery; anything amiss and
        # it is checked again below, where every problem is found and worded.
        if type(raw) is dict and raw.keys() <= known:
            explicit = raw.get("id")
            match_id = fallback_id if explicit is None else explicit
            when = raw.get("played")
            played = (when if type(when) is datetime and when.tzinfo is UTC and EARLIEST <= when <= LATEST
                      else to_utc(when))
            notes = raw.get("notes")
            # The id's type first: only then may it be looked up (a list or table as id is not hashable).
            if (played is not None and (notes is None or type(notes) is str)
                    and (explicit is None and len(match_id) <= MAX_ID
                         or type(explicit) is str and len(explicit) <= MAX_ID and MATCH_ID.match(explicit))
                    and match_id not in seen_ids):
                quiet.heard = False
                parsed = parse_match(raw, quiet)
                if parsed is not None and not quiet.heard:
                    try:
                        names = tuple(map(known_player, parsed.names))
                    except KeyError:        # a name first met: resolved, and kept for the next
                        names = tuple([one_player(n, resolve) for n in parsed.names])
                    extra = parsed.extra
                    if ((names[0] != names[1] if len(names) == 2 else len(set(names)) == len(names))
                            and (not extra or _named_within(extra, names, resolve))):
                        seen_ids[match_id] = (where, index, explicit is not None)
                        add_played(names)
                        m = new_match(match_id, played, rel, position, notes, names,
                                      one_fields(parsed.entries),
                                      _resolved(extra, resolve) if extra else NO_EXTRA,
                                      starts[index] if index < lines else None)
                        append(((played, league_rel, position), m, explicit is not None))
                        continue
        table = ("match", index)
        if not isinstance(raw, dict):
            problems.add(f.rel, f"must be a table, got {value_text(raw)}", line=f.locate(table=table),
                         match=f"#{position}")
            continue
        explicit = raw.get("id")
        before = len(problems)

        # A problem's line and label are worked out only when there is one.
        def report(path: tuple[str | int, ...], message: str, *, _raw=raw, _position=position,
                   _fallback=fallback_id, _table=table) -> None:
            problems.add(f.rel, message, line=f.locate(*path, table=_table),
                         match=match_label(_raw, _position, _fallback), field=field_path(path))

        if not raw.keys() <= known:
            for key in sorted(set(raw) - known):
                report((key,), unknown_key(key, allowed, kind="matches", system=config.system_name))

        match_id = fallback_id
        if explicit is not None:
            if not isinstance(explicit, str) or not MATCH_ID.match(explicit) or len(explicit) > MAX_ID:
                report(("id",), f"must be a string of letters, digits, '.', '_' and '-', starting with a "
                                f"letter or digit, at most {MAX_ID} characters; got {value_text(explicit)}")
            else:
                match_id = explicit
        if len(match_id) > MAX_ID and explicit is None:
            report(("id",), f"the default id {match_id!r} is longer than {MAX_ID} characters; "
                            "give the match an explicit id")
        if match_id in seen_ids:
            report(("id",), f"duplicate match id {match_id!r}, already used in "
                            f"{_first_use(*seen_ids[match_id])}; ids must be unique within the league")
        else:
            seen_ids[match_id] = (where, index, match_id == explicit)

        played = None
        if "played" not in raw:
            report(("played",), "is missing; must be a date-time such as 2024-05-01T19:30:00+02:00 "
                                "or a date such as 2024-05-01")
        else:
            played = to_utc(raw["played"])
            if played is None and isinstance(raw["played"], date):
                report(("played",), f"{value_text(raw['played'])} is outside the dates sitegen rates: "
                                    f"played must fall {limits.PLAYED_RANGE}")
            elif played is None:
                report(("played",), f"must be a TOML date-time (2024-05-01T19:30:00+02:00, "
                                    f"2024-05-01T19:30:00) or date (2024-05-01), got "
                                    f"{value_text(raw['played'])}{unquoted_date(raw['played'])}")
        notes = raw.get("notes")
        if notes is not None and not isinstance(notes, str):
            report(("notes",), f"must be a string (text in quotes), got {value_text(notes)}")

        parsed = parse_match(raw, report)
        if parsed is not None:
            names = tuple([one_name(n) for n in map(resolve, parsed.names)])
            if len(set(names)) < len(names):
                _report_listed_twice(parsed, names, report)
            extra = dict(parsed.extra)
            # Match keys that name a player (elo's challenger and home), through players.toml.
            for key in NAME_KEYS:
                given = extra.get(key)
                if given is None:
                    continue
                extra[key] = roster.resolve(given)
                if extra[key] not in names:
                    report((key,), f"{given!r} does not play in this match; must be one of "
                                   f"{', '.join(repr(n) for n in parsed.names)}")
            played_names.update(names)
        else:
            # Names of a match the system could not read, for the [initial] check: best effort.
            raw_players = raw.get("players")
            for player in raw_players if isinstance(raw_players, list) else ():
                if isinstance(player, dict) and isinstance(player.get("name"), str):
                    played_names.add(roster.resolve(normalize_name(player["name"])))
        if len(problems) > before or parsed is None or played is None:
            continue
        m = Match(id=match_id, played=played, file=f.rel, position=position, notes=notes,
                  players=names, entries=one_fields(parsed.entries),
                  extra=extra or NO_EXTRA,
                  line=starts[index] if index < len(starts) else None)
        # History order: played, then file path within the league, then position.
        out.append(((played, league_rel, position), m, match_id == explicit))
    return out


class _Quiet:
    """A reporter that only notes that it heard a problem (the well-formed path's)."""

    __slots__ = ("heard",)

    def __init__(self) -> None:
        self.heard = False

    def __call__(self, path: tuple[str | int, ...], message: str) -> None:
        self.heard = True


def _named_within(extra: Mapping[str, Any], names: tuple[str, ...], resolve: Callable[[str], str]) -> bool:
    """Whether each match key naming a player (NAME_KEYS) names one of the match's players."""
    return all(extra.get(key) is None or resolve(extra[key]) in names for key in NAME_KEYS)


def _resolved(extra: Mapping[str, Any], resolve: Callable[[str], str]) -> dict[str, Any]:
    """A match's system keys, those naming a player through players.toml, as the general path."""
    extra = dict(extra)
    for key in NAME_KEYS:
        given = extra.get(key)
        if given is not None:
            extra[key] = resolve(given)
    return extra


def _report_listed_twice(parsed: ParsedMatch, names: tuple[str, ...],
                         report: Callable[[tuple[str | int, ...], str], None]) -> None:
    """Each player a match lists again (directly or by an alias), at the second listing."""
    paths = parsed.name_paths or tuple(("players", i, "name") for i in range(len(names)))
    seen: dict[str, int] = {}
    for i, (written, name) in enumerate(zip(parsed.names, names)):
        if name in seen:
            via = f" (alias of {name!r})" if written != name else ""
            # The other entry by its field path, counted from 0 like the field itself.
            report(paths[i], f"{written!r}{via} is already listed as {field_path(paths[seen[name]][:-1])}; "
                             "a player may appear only once in a match")
        else:
            seen[name] = i


def _first_use(f: TomlFile, index: int, explicit: bool) -> str:
    """FILE:LINE of a match's id: an explicit id's own line, else where the match's table starts.

    Looked up only for a duplicate: locating scans the file.
    """
    line = f.locate("id", table=("match", index)) if explicit else None
    if line is None:
        starts = f.table_lines("match")
        line = starts[index] if index < len(starts) else f.locate(table=("match", index))
    return f"{f.rel}:{line}" if line else f.rel


def match_label(raw: dict[str, Any], position: int, fallback_id: str) -> str:
    """How problems name a match: its explicit id and position, or its position and default id."""
    explicit = raw.get("id")
    if isinstance(explicit, str) and explicit:
        return f"{explicit!r} (#{position})"
    return f"#{position} ({fallback_id})"


def field_path(path: tuple[str | int, ...]) -> str:
    """("teams", 0, "players", 1, "name") -> "teams[0].players[1].name", as problems write it."""
    out = ""
    for seg in path:
        out += f"[{seg}]" if isinstance(seg, int) else (f".{seg}" if out else seg)
    return out
