"""Site settings, league.toml and players.toml as validated, frozen values.

Every problem is collected (never only the first): an unknown key, an unknown
system or an unknown parameter is an error, since a typo must never fall back
silently to a default (docs/configuration).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sitegen.load.markcheck import MarkupError, check_markdown
from sitegen.load.site import LeagueSource, SiteSource, TomlFile
from sitegen.load.problems import Problems
from sitegen.load.provenance import normalize_repo_url, repo_url_problem
from sitegen.load.urls import is_http_url
from sitegen.rating import limits
from sitegen.rating import SYSTEMS, System
from sitegen.rating.base import (
    MAX_NAME, check_name, did_you_mean, is_number, normalize_name, toml_text, type_name, value_text,
)


@dataclass(frozen=True, slots=True)
class BoardSettings:
    """How a leaderboard reads a league: who is inactive or provisional, how far movement looks back."""

    inactive_days: int = 365          # no match this long before the league's last: shown apart
    movement_days: int = 30           # rank movement, movers and activity over this window
    provisional_games: int = 10       # fewer games: provisional (systems without their own rule)
    provisional_rd: float = 110       # glicko2: RD above this is provisional, as lichess marks it


@dataclass(frozen=True, slots=True)
class SiteSettings:
    title: str = "Leaderboards"
    description: str = "Ratings computed from match results kept in git."
    base_url: str = ""
    repo_url: str = ""
    board: BoardSettings = BoardSettings()
    # [tool.sitegen.leagues.<slug>], already merged over ``board``.
    leagues: dict[str, BoardSettings] = field(default_factory=dict)

    def board_for(self, slug: str) -> BoardSettings:
        return self.leagues.get(slug, self.board)


SETTINGS_KEYS = {
    "title": "a string",
    "description": "a string",
    "base_url": "a URL such as https://example.org/leagues/",
    "repo_url": "the repository's URL, such as https://github.com/owner/repo",
}


def _positive_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


BOARD_KEYS = {
    "inactive_days": (lambda v: _positive_int(v) and v <= limits.MAX_DAYS,
                      f"a whole number of days from 1 to {limits.MAX_DAYS:,}"),
    "movement_days": (lambda v: _positive_int(v) and v <= limits.MAX_DAYS,
                      f"a whole number of days from 1 to {limits.MAX_DAYS:,}"),
    "provisional_games": (lambda v: _positive_int(v) and v <= limits.MAX_COUNT,
                          f"a whole number of games from 1 to {limits.MAX_COUNT:,}"),
    "provisional_rd": (lambda v: is_number(v) and 0 < v <= limits.MAX_RATING, "a number > 0 (a rating deviation)"),
}
ALL_SETTINGS = (*SETTINGS_KEYS, *BOARD_KEYS, "leagues")


@dataclass(frozen=True, slots=True)
class Tier:
    min_rating: float
    name: str
    index: int          # 1-based position, for the badge colour


@dataclass(frozen=True, slots=True)
class LeagueConfig:
    slug: str
    name: str
    system_name: str
    system: System
    params: dict[str, Any]          # every parameter, defaults filled in
    explicit: frozenset[str]        # the parameters league.toml sets itself
    description: str = ""
    tiers: tuple[Tier, ...] = ()
    file: str = ""
    # [initial]: each canonical name given a starting rating -> the key league.toml writes
    # (the name or an alias), to report a name that plays no match of the league.
    initial_keys: dict[str, str] = field(default_factory=dict)
    # [tune]: a curator's parameter sweep for the accuracy page, (parameter, values) in the
    # file's order; () when league.toml has none.
    tune: tuple[tuple[str, tuple[Any, ...]], ...] = ()

    @property
    def description_html(self) -> str:
        """The description as HTML, rendered when a page shows it: `sitegen check` only checks it."""
        return _description_html(self.description)

    def tier_of(self, rating: float | None) -> Tier | None:
        """The last tier whose lower bound the rating reaches (docs/configuration)."""
        found = None
        if rating is None:
            return None
        for tier in self.tiers:
            if rating >= tier.min_rating:
                found = tier
        return found


@functools.lru_cache(maxsize=256)
def _description_html(text: str) -> str:
    from sitegen.load.markup import render_markdown

    # Curators' markdown: raw HTML is shown as text, never passed through.
    return render_markdown(text, allow_html=False).html if text else ""


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    name: str
    platform: str | None = None
    region: str | None = None
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Roster:
    """players.toml: who is who. ``canonical`` maps every alias to its player's name."""

    players: dict[str, PlayerInfo] = field(default_factory=dict)
    canonical: dict[str, str] = field(default_factory=dict)

    def resolve(self, name: str) -> str:
        return self.canonical.get(name, name)

    def info(self, name: str) -> PlayerInfo:
        return self.players.get(name) or PlayerInfo(name)


def site_settings(source: SiteSource, problems: Problems) -> SiteSettings:
    values: dict[str, Any] = {}
    board: dict[str, Any] = {}
    overrides: dict[str, Any] = {}
    for key, value in source.settings.items():
        if key in BOARD_KEYS:
            board.update(_board_values(source, {key: value}, "tool.sitegen", problems))
        elif key == "leagues":
            if isinstance(value, dict):
                overrides = value
            else:
                problems.add(source.settings_file, "must be tables like [tool.sitegen.leagues.<slug>], "
                             f"got {type_name(value)}", field="tool.sitegen.leagues")
        elif key not in SETTINGS_KEYS:
            problems.add(source.settings_file, f"unknown key; allowed keys: {', '.join(ALL_SETTINGS)}",
                         field=f"tool.sitegen.{key}")
        elif not isinstance(value, str):
            problems.add(source.settings_file, f"must be {SETTINGS_KEYS[key]}, got {type_name(value)}",
                         field=f"tool.sitegen.{key}")
        elif key in URL_SETTINGS and value:
            check, normalize = URL_SETTINGS[key]
            problem = check(value)
            if problem:
                problems.add(source.settings_file, problem, field=f"tool.sitegen.{key}")
            else:
                values[key] = normalize(value)
        else:
            values[key] = value
    site_board = BoardSettings(**board)
    leagues = {lg.slug: lg for lg in source.leagues}
    per_league: dict[str, BoardSettings] = {}
    for slug, table in overrides.items():
        where = f"tool.sitegen.leagues.{slug}"
        if slug not in leagues:
            problems.add(source.settings_file, f"no league folder matches/{slug}/; leagues: "
                         f"{', '.join(sorted(leagues)) or 'none'}", field=where)
        elif not isinstance(table, dict):
            problems.add(source.settings_file, f"must be a table of {', '.join(BOARD_KEYS)}, "
                         f"got {type_name(table)}", field=where)
        else:
            own = _board_values(source, table, where, problems)
            _check_applies(source, leagues[slug], own, where, problems)
            per_league[slug] = BoardSettings(**{**board, **own})
    return SiteSettings(**values, board=site_board, leagues=per_league)


def base_url_problem(value: str) -> str | None:
    """What is wrong with a base URL (`base_url` or `--base-url`), or None.

    Feeds, the sitemap and the 404 page build absolute addresses from it, so it must
    be an absolute http(s) URL naming a host; a query or fragment would end up
    inside every address.
    """
    if not is_http_url(value.strip()):
        return ("must be an absolute http(s) URL such as https://owner.github.io/repo/ "
                f"(no query or fragment), got {value!r}")
    return None


def normalize_base_url(value: str) -> str:
    """The URL with exactly one trailing slash: the site's root folder (`.../repo` -> `.../repo/`)."""
    return value.strip().rstrip("/") + "/"


# The settings that are URLs: how each is checked and the form it is kept in.
URL_SETTINGS = {
    "base_url": (base_url_problem, normalize_base_url),
    "repo_url": (repo_url_problem, normalize_repo_url),
}


def _board_values(source: SiteSource, table: dict[str, Any], where: str,
                  problems: Problems) -> dict[str, Any]:
    """The valid leaderboard keys of one table; every bad one reported at its field."""
    out = {}
    for key, value in table.items():
        if key not in BOARD_KEYS:
            problems.add(source.settings_file, f"unknown key; allowed keys: {', '.join(BOARD_KEYS)}",
                         field=f"{where}.{key}")
            continue
        check, allowed = BOARD_KEYS[key]
        if not check(value):
            problems.add(source.settings_file, f"must be {allowed}, got {value!r}", field=f"{where}.{key}")
        else:
            out[key] = value
    return out


def _check_applies(source: SiteSource, league: LeagueSource, own: dict[str, Any], where: str,
                   problems: Problems) -> None:
    """A per-league key the league's system would ignore is a mistake, not a silent no-op."""
    system = league.config.data.get("system") if league.config else None
    cls = SYSTEMS.get(system) if isinstance(system, str) else None
    if cls is None or league.config is None:    # league.toml reports its own system problem
        return
    by_rd = "rd" in cls.standing_terms       # glicko2: provisional by its rating deviation
    if "provisional_rd" in own and not by_rd:
        with_rd = " and ".join(n for n, c in SYSTEMS.items() if "rd" in c.standing_terms)
        problems.add(source.settings_file, f"applies only to leagues with an RD ({with_rd}); {league.slug!r} "
                     f"is rated with {system}", field=f"{where}.provisional_rd")
    if "provisional_games" in own and by_rd:
        problems.add(source.settings_file, f"{league.slug!r} is rated with {system}, where a rating is "
                     "provisional by its RD; set provisional_rd instead", field=f"{where}.provisional_games")
    elif "provisional_games" in own and any(p.name == "provisional_games" for p in cls.params):
        problems.add(source.settings_file, f"{league.slug!r} is rated with {system}, which has its own "
                     f"provisional_games parameter; set it under [params] in {league.config.rel}",
                     field=f"{where}.provisional_games")


LEAGUE_KEYS = ("name", "system", "description", "params", "tiers", "initial", "tune")
# [tune] is replayed at every build, once per combination of its values: a handful of
# parameters with a few values each. A big league takes a second or so a replay.
MAX_TUNE = 24


def league_config(league: LeagueSource, problems: Problems, roster: Roster | None = None) -> LeagueConfig | None:
    """Validate one league.toml; returns None (with problems recorded) if its system is unknown.

    A league.toml with other problems still gives a config (bad values replaced by
    defaults) so that its match files are checked too; the problems stop the build.
    ``roster`` resolves the aliases [initial] may use (none: names as written).
    """
    src = league.config
    if src is None:
        return _salvaged_config(league)
    data = src.data
    count = len(problems)

    def bad(key: str, message: str, *path: str | int) -> None:
        field = key + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)   # tiers[2]
        problems.add(src.rel, message, line=src.locate(key, *path), field=field)

    for key in sorted(set(data) - set(LEAGUE_KEYS)):
        bad(key, _unknown_league_key(key, data, league.slug))
    name = data.get("name")
    if name is None:
        problems.add(src.rel, "is missing; the league's display name is required", field="name", line=1)
    elif not isinstance(name, str) or not name.strip():
        bad("name", f"must be a non-empty string, got {value_text(name)}")
    description = data.get("description", "")
    if not isinstance(description, str):
        bad("description", f"must be a markdown string, got {value_text(description)}")
        description = ""
    system_name = data.get("system")
    cls = None
    if system_name is None:
        problems.add(src.rel, f"is missing; must be one of: {', '.join(sorted(SYSTEMS))}", field="system", line=1)
    elif not isinstance(system_name, str) or system_name not in SYSTEMS:
        bad("system", f"unknown rating system {system_name!r}; must be one of: {', '.join(sorted(SYSTEMS))}")
    else:
        cls = SYSTEMS[system_name]

    raw_params = data.get("params", {})
    params: dict[str, Any] = {}
    if not isinstance(raw_params, dict):
        bad("params", f"must be a table ([params]), got {value_text(raw_params)}")
        raw_params = {}
    if cls is not None:
        declared = {p.name: p for p in cls.params}
        for key in sorted(raw_params):
            if key not in declared:
                bad("params", f"unknown parameter for system {system_name!r}; {did_you_mean(key, declared)}"
                              f"allowed: {', '.join(declared)}", key)
        for p in cls.params:
            if p.name in raw_params:
                value = raw_params[p.name]
                if not p.check(value):
                    bad("params", f"must be {p.allowed}, got {value_text(value)}", p.name)
                    params[p.name] = p.default
                    continue
                params[p.name] = value
            else:
                params[p.name] = p.default

    tiers = _tiers(data.get("tiers", []), bad)
    tune = _tune(data.get("tune"), cls, bad) if cls is not None else ()
    try:
        check_markdown(description, allow_html=False)
    except MarkupError as exc:
        bad("description", str(exc))
    if cls is None:
        return None
    # With problems recorded the build stops anyway, but a known system still
    # checks the league's match files (bad parameters fall back to defaults), so
    # that every problem is reported in one run (docs/curators).
    if len(problems) > count and not (isinstance(name, str) and name.strip()):
        name = league.slug
    # A missing or bad name is a problem recorded above, so it is the slug by now; a known
    # system was looked up by its name.
    assert isinstance(name, str) and isinstance(system_name, str)
    system = cls(**params)
    starts, initial_keys = _initial(src, system, roster or Roster(), problems)
    if starts:
        system = cls(**params, starts=starts)
    return LeagueConfig(
        slug=league.slug, name=name.strip(), system_name=system_name, system=system,
        params=params, explicit=frozenset(raw_params), description=description,
        tiers=tiers, file=src.rel, initial_keys=initial_keys, tune=tune,
    )


def initial_field(key: str, *path: str) -> str:
    """How problems name an entry of [initial]: initial.Name or initial."Two words" (as TOML
    quotes the key), then a key of its table: initial.Ann.rd."""
    shown = key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else toml_text(key)
    return ".".join(("initial", shown, *path))


def _initial(src: TomlFile, system: System, roster: Roster,
             problems: Problems) -> tuple[dict[str, Any], dict[str, str]]:
    """league.toml's [initial] (docs/configuration): each named player's rating before their
    first match, checked by the system (``parse_start``). Names are trimmed and NFC-normalised
    like match names; an alias of players.toml counts for its player (interpretation), so one
    player given twice, by name and alias, is a problem. Whether each name plays in the league
    is checked with the matches (validate.py)."""
    raw = src.data.get("initial")
    if raw is None:
        return {}, {}
    if not system.has_initial:
        problems.add(src.rel, f"{system.name} has no starting rating: a player's rating is the mean of "
                              "their own game ratings, from their first game on; remove [initial]",
                     line=src.locate("initial"), field="initial")
        return {}, {}
    if not isinstance(raw, dict):
        hint = ""
        if any(p.name == "initial" for p in system.params):
            hint = "; the rating every new player starts at is a parameter: write it under [params]"
        problems.add(src.rel, f'must be a table of starting ratings by player ([initial], then "Name" = 1650 '
                              f"on lines of their own), got {value_text(raw)}{hint}",
                     line=src.locate("initial"), field="initial")
        return {}, {}
    starts: dict[str, Any] = {}
    keys: dict[str, str] = {}
    for key, value in raw.items():      # the file's order; the output never depends on it

        def report(path: tuple[str | int, ...], message: str, *, _key: str = key) -> None:
            problems.add(src.rel, message, line=src.locate("initial", _key, *path) or src.locate("initial", _key),
                         field=initial_field(_key, *map(str, path)))

        problem = check_name(key)
        if problem:
            report((), f"player name {problem}")
            continue
        name = roster.resolve(normalize_name(key))
        if name in keys:
            first = keys[name]
            aliases = [k for k in (first, key) if normalize_name(k) != name]
            are = "is an alias" if len(aliases) == 1 else "are aliases"
            via = f" ({' and '.join(repr(a) for a in aliases)} {are} " \
                  f"of {name!r} in matches/players.toml)" if aliases else ""
            report((), f"{name!r} is already given a starting rating as {first!r}{via}; give each player "
                       "one starting rating")
            continue
        keys[name] = key
        start = system.parse_start(value, report)
        if start is not None:
            starts[name] = start
    return starts, keys


def _unknown_league_key(key: str, data: dict[str, Any], slug: str) -> str:
    """An unknown league.toml key, with the likely mistake: a pasted match, a parameter outside [params]."""
    if key == "match":
        return (f"unknown key: matches go in their own file in the league folder, such as "
                f"matches/{slug}/{_month_file(data.get('match'))}, not in league.toml")
    system = data.get("system")
    cls = SYSTEMS.get(system) if isinstance(system, str) else None
    if cls is not None and any(p.name == key for p in cls.params):
        return f"unknown key; {key!r} is a parameter of {system}: write it under [params]"
    return f"unknown key; {did_you_mean(key, LEAGUE_KEYS)}league.toml has: {', '.join(LEAGUE_KEYS)}"


MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")


def _month_file(matches: Any) -> str:
    """The month file of the first pasted match (2026/03-march.toml), by its own date."""
    first = matches[0] if isinstance(matches, list) and matches else None
    played = first.get("played") if isinstance(first, dict) else None
    if isinstance(played, date):        # a datetime is a date too
        return f"{played.year}/{played.month:02d}-{MONTHS[played.month - 1]}.toml"
    return "YEAR/MM-month.toml"


def _salvaged_config(league: LeagueSource) -> LeagueConfig | None:
    """A league.toml TOML cannot read (reported as it was read) that names a known system on
    a line of its own: defaults for the rest, so that its match files are still checked."""
    cls = SYSTEMS.get(league.salvaged_system) if league.salvaged_system else None
    if cls is None:
        return None
    params = {p.name: p.default for p in cls.params}
    return LeagueConfig(slug=league.slug, name=league.slug, system_name=cls.name, system=cls(**params),
                        params=params, explicit=frozenset(), file=f"matches/{league.slug}/league.toml")


def _tune(raw: Any, cls: type[System], bad) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    """[tune]: `param = [values]`, each value one the parameter accepts (as under [params]).

    The accuracy page shows the league replayed with every combination of the values
    (`sitegen tune` as the build runs it); the league's own parameters are unchanged.
    """
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        bad("tune", f"must be a table of parameters and the values to try ([tune], then k = [10, 20, 32] on "
                    f"lines of their own), got {value_text(raw)}")
        return ()
    if not cls.predicts:
        why = f" ({cls.no_prediction})" if cls.no_prediction else ""
        bad("tune", f"{cls.name} predicts no pairs{why}: there is nothing to score a parameter by; remove [tune]")
        return ()
    declared = {p.name: p for p in cls.params}
    out = []
    combinations = 1
    for key, values in raw.items():
        if key not in declared:
            bad("tune", f"unknown parameter for system {cls.name!r}; {did_you_mean(key, declared)}"
                        f"allowed: {', '.join(declared)}", key)
            continue
        p = declared[key]
        if not isinstance(values, list) or not values:
            bad("tune", f"must be a non-empty list of values to try, such as {key} = [{toml_text(p.default)}], "
                        f"got {value_text(values)}", key)
            continue
        good = []
        for i, v in enumerate(values):
            if not p.check(v):
                bad("tune", f"must be {p.allowed}, got {value_text(v)}", key, i)
            elif v in good:
                bad("tune", f"{toml_text(v)} is listed twice", key, i)
            else:
                good.append(v)
        if len(good) == len(values):
            out.append((key, tuple(good)))
            combinations *= len(good)
    if combinations > MAX_TUNE:
        bad("tune", f"{combinations} combinations of values; every build replays each, so at most {MAX_TUNE}")
        return ()
    return tuple(out)


MAX_TIERS = 100      # the seed's ladder has seven


def _tiers(raw: Any, bad) -> tuple[Tier, ...]:
    allowed = 'a list of [min_rating, "Name"] pairs with increasing min_rating'
    if not isinstance(raw, list):
        bad("tiers", f"must be {allowed}, got {value_text(raw)}")
        return ()
    tiers: list[Tier] = []
    if len(raw) > MAX_TIERS:
        bad("tiers", f"must list at most {MAX_TIERS} tiers, got {len(raw):,}")
        return ()
    for i, item in enumerate(raw):
        if not (isinstance(item, list) and len(item) == 2 and is_number(item[0])
                and isinstance(item[1], str) and item[1].strip()):
            bad("tiers", f"must be a [min_rating, \"Name\"] pair, got {value_text(item)}", i)
            continue
        if abs(item[0]) > limits.MAX_RATING or len(item[1].strip()) > MAX_NAME:
            bad("tiers", f"must be a [min_rating, \"Name\"] pair with min_rating from -{limits.MAX_RATING:,} "
                         f"to {limits.MAX_RATING:,} and a name of at most {MAX_NAME} characters", i)
            continue
        if tiers and item[0] <= tiers[-1].min_rating:
            bad("tiers", f"lower bounds must increase: {item[0]!r} follows {tiers[-1].min_rating!r}", i)
            continue
        tiers.append(Tier(item[0], item[1].strip(), len(tiers) + 1))
    return tuple(tiers)


PLAYER_KEYS = ("platform", "region", "aliases")


def roster(src: TomlFile | None, problems: Problems) -> Roster:
    """Validate players.toml; a name used by two players (as name or alias) is an error."""
    if src is None:
        return Roster()
    data = src.data
    for key in sorted(set(data) - {"players"}):
        problems.add(src.rel, f"unknown key; {did_you_mean(key, ['players'])}players.toml holds only "
                              "[players.\"NAME\"] tables", line=src.locate(key), field=key)
    raw = data.get("players", {})
    if not isinstance(raw, dict):
        problems.add(src.rel, f"must be tables like [players.\"NAME\"], got {value_text(raw)}", field="players",
                     line=src.locate("players"))
        return Roster()
    players: dict[str, PlayerInfo] = {}
    owner: dict[str, str] = {}     # every name and alias -> the player it belongs to

    # Lines are looked up only for a problem: locating is a scan of the file, and a
    # valid players.toml of hundreds of players would pay for it on every check.
    def claim(name: str, who: str, where: str, line: Callable[[], int | None]) -> None:
        if name in owner and owner[name] != who:
            problems.add(src.rel, f"{name!r} is already used by player {owner[name]!r}; "
                                  "a name or alias may belong to one player only",
                         line=line(), field=where)
        elif name in owner:
            problems.add(src.rel, f"{name!r} is listed twice for the same player",
                         line=line(), field=where)
        else:
            owner[name] = who

    for key in raw:     # TOML keeps the file's order; the output never depends on it
        entry = raw[key]
        where = f"players.{key!r}"
        problem = check_name(key)
        if problem:
            problems.add(src.rel, f"player name {problem}", line=src.locate("players", key), field=where)
            continue
        name = normalize_name(key)
        if not isinstance(entry, dict):
            problems.add(src.rel, f"must be a table, got {value_text(entry)}",
                         line=src.locate("players", key), field=where)
            continue
        for extra in sorted(set(entry) - set(PLAYER_KEYS)):
            problems.add(src.rel, f"unknown key; {did_you_mean(extra, PLAYER_KEYS)}allowed keys: "
                                  f"{', '.join(PLAYER_KEYS)}",
                         line=src.locate("players", key, extra), field=f"{where}.{extra}")
        info: dict[str, Any] = {}
        for text_key in ("platform", "region"):
            if text_key in entry:
                if isinstance(entry[text_key], str) and entry[text_key].strip():
                    info[text_key] = entry[text_key].strip()
                else:
                    problems.add(src.rel, f"must be a non-empty string, got {value_text(entry[text_key])}",
                                 line=src.locate("players", key, text_key), field=f"{where}.{text_key}")
        aliases: list[str] = []
        raw_aliases = entry.get("aliases", [])
        if not isinstance(raw_aliases, list):
            problems.add(src.rel, f"must be a list of names, got {value_text(raw_aliases)}",
                         line=src.locate("players", key, "aliases"), field=f"{where}.aliases")
            raw_aliases = []
        claim(name, name, where, functools.partial(src.locate, "players", key))
        for i, alias in enumerate(raw_aliases):
            problem = check_name(alias)
            if problem:
                problems.add(src.rel, f"alias {problem}", line=src.locate("players", key, "aliases"),
                             field=f"{where}.aliases[{i}]")
                continue
            alias = normalize_name(alias)
            claim(alias, name, f"{where}.aliases[{i}]", functools.partial(src.locate, "players", key, "aliases"))
            aliases.append(alias)
        players[name] = PlayerInfo(name, info.get("platform"), info.get("region"), tuple(aliases))
    canonical = {alias: p.name for p in players.values() for alias in p.aliases}
    return Roster(players, canonical)
