"""Validation (docs/curators): every rule, located by file, line, match and field.

Each case plants one problem in an otherwise valid site and checks the report:
the file relative to the root, the line where it can be known, the match (id or
position), the field, and that the message says what is allowed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest

from helpers import (
    league_toml, looks_like_traceback, problems_of, run_cli, tree_snapshot, write_files,
)
from sitegen.commands.build import check

# --- a valid site, and match files with known line numbers ----------------------------------

LU_LEAGUE = league_toml("lunaro")
EL_LEAGUE = league_toml("elo")

LU_P0 = '{ name = "A", goals = 20, ping = 0, host = true }'
LU_P1 = '{ name = "B", goals = 10, ping = 40 }'
EL_P0 = '{ name = "A", score = 1 }'
EL_P1 = '{ name = "B", score = 0 }'


def first_match(p0: str, p1: str) -> str:
    return f"[[match]]\nplayed = 2024-01-01\nplayers = [\n  {p0},\n  {p1},\n]\n"


LU_FIRST = first_match(LU_P0, LU_P1)
EL_FIRST = first_match(EL_P0, EL_P1)


def match_file(p0: str, p1: str, *, first: str, played: str = "played = 2024-01-02",
               extra: str = 'notes = "n"', players: str | None = None) -> str:
    """Two matches; the second (match #2) is the one with the planted problem.

    line 1-6: match #1 (valid), line 8: [[match]], 9: played, 10: extra,
    11: players = [, 12: player 0, 13: player 1, 14: ]
    """
    body = players or f"players = [\n  {p0},\n  {p1},\n]"
    return f"{first}\n[[match]]\n{played}\n{extra}\n{body}\n"


def lu(p0=LU_P0, p1=LU_P1, **kw) -> dict[str, str]:
    return {"matches/lu/league.toml": LU_LEAGUE, "matches/lu/m.toml": match_file(p0, p1, first=LU_FIRST, **kw)}


def el(p0=EL_P0, p1=EL_P1, **kw) -> dict[str, str]:
    return {"matches/el/league.toml": EL_LEAGUE, "matches/el/m.toml": match_file(p0, p1, first=EL_FIRST, **kw)}


@dataclass
class Case:
    files: dict[str, str | bytes]
    file: str
    line: int | None
    field: str | None
    says: tuple[str, ...]                 # words of the message (what is wrong / allowed)
    match: str | None = None              # id or position shown for the match
    count: int = 1                        # problems the site has in all
    extra: dict = field(default_factory=dict)


LU_M, EL_M = "matches/lu/m.toml", "matches/el/m.toml"
M2 = "#2"

CASES = {
    # ---- common match keys
    "unknown match key": Case(lu(extra='colour = "red"'), LU_M, 10, "colour", ("unknown", "played", "players"), M2),
    "unknown elo match key from another system": Case(el(extra='platform = "pc"'), EL_M, 10, "platform",
                                                      ("unknown", "challenger"), M2),
    "missing played": Case(lu(played="# (no played)"), LU_M, 8, "played", ("missing", "2024-05-01"), M2),
    "played as a string": Case(lu(played='played = "2024-01-02"'), LU_M, 9, "played", ("date",), M2),
    "played time only": Case(lu(played="played = 12:30:00"), LU_M, 9, "played", ("date",), M2),
    "played as a number": Case(lu(played="played = 20240102"), LU_M, 9, "played", ("date",), M2),
    "id with a space": Case(lu(extra='id = "bad id"'), LU_M, 10, "id", ("letters", "digits", "64"), "bad id"),
    "id starting with a dash": Case(lu(extra='id = "-x"'), LU_M, 10, "id", ("starting with",), "-x"),
    "id with a slash": Case(lu(extra='id = "a/b"'), LU_M, 10, "id", ("letters",), "a/b"),
    "id too long": Case(lu(extra=f'id = "{"a" * 65}"'), LU_M, 10, "id", ("64",), "a" * 65),
    "id not a string": Case(lu(extra="id = 7"), LU_M, 10, "id", ("string",), M2),
    "explicit id equal to a default id": Case(lu(extra='id = "m-1"'), LU_M, 10, "id", ("duplicate", "m-1"),
                                             "m-1"),
    "notes not a string": Case(lu(extra="notes = 5"), LU_M, 10, "notes", ("string",), M2),
    "players not a list": Case(lu(players='players = "A vs B"'), LU_M, 11, "players", ("list",), M2),
    "players missing": Case(lu(players="# no players"), LU_M, 8, "players", ("list",), M2),
    "three lunaro players": Case(lu(p1=LU_P1 + ', { name = "C", goals = 1, ping = 3 }'), LU_M, 11, "players",
                                 ("exactly 2", "3"), M2),
    "one elo player": Case(el(p1="# nobody"), EL_M, 11, "players", ("exactly 2", "1"), M2),
    # ---- names
    "name missing": Case(lu(p1="{ goals = 10, ping = 40 }"), LU_M, 13, "players[1].name", ("missing",), M2),
    "name empty": Case(lu(p1='{ name = "", goals = 10, ping = 40 }'), LU_M, 13, "players[1].name",
                       ("non-empty",), M2),
    "name whitespace only": Case(lu(p1='{ name = " \\t ", goals = 10, ping = 40 }'), LU_M, 13,
                                 "players[1].name", ("non-empty",), M2),
    "name too long": Case(lu(p1=f'{{ name = "{"n" * 65}", goals = 10, ping = 40 }}'), LU_M, 13,
                          "players[1].name", ("64",), M2),
    "name not a string": Case(el(p0="{ name = 5, score = 1 }"), EL_M, 12, "players[0].name", ("string",), M2),
    "same player twice": Case(lu(p1='{ name = "A", goals = 10, ping = 40 }'), LU_M, 13, "players[1].name",
                              ("'A'", "once"), M2),
    "same player twice after trimming": Case(el(p1='{ name = " A ", score = 0 }'), EL_M, 13, "players[1].name",
                                             ("once",), M2),
    "same player twice via NFD/NFC": Case(el(p0='{ name = "Zo\u00eb", score = 1 }',
                                             p1='{ name = "Zoe\u0308", score = 0 }'),
                                          EL_M, 13, "players[1].name", ("once",), M2),
    "same player twice via an alias": Case(
        {**el(p1='{ name = "Al", score = 0 }'), "matches/players.toml": '[players."A"]\naliases = ["Al"]\n'},
        EL_M, 13, "players[1].name", ("'Al'", "alias", "once"), M2),
    "unknown player key": Case(lu(p1='{ name = "B", goals = 10, ping = 40, score = 1 }'), LU_M, 13,
                               "players[1].score", ("unknown", "goals", "ping", "host"), M2),
    "player not a table": Case(el(p1='"B"'), EL_M, 13, "players[1]", ("table",), M2),
    # ---- lunaro
    "goals above 22": Case(lu(p1='{ name = "B", goals = 23, ping = 40 }'), LU_M, 13, "players[1].goals",
                           ("0..22",), M2),
    "goals negative": Case(lu(p1='{ name = "B", goals = -1, ping = 40 }'), LU_M, 13, "players[1].goals",
                           ("0..22",), M2),
    "goals a float": Case(lu(p1='{ name = "B", goals = 3.0, ping = 40 }'), LU_M, 13, "players[1].goals",
                          ("integer", "0..22"), M2),
    "goals a boolean": Case(lu(p0='{ name = "A", goals = true, ping = 0 }'), LU_M, 12, "players[0].goals",
                            ("integer", "0..22"), M2),
    "goals missing": Case(lu(p1='{ name = "B", ping = 40 }'), LU_M, 13, "players[1].goals", ("missing", "0..22"),
                          M2),
    "two players with 20 or more": Case(lu(p1='{ name = "B", goals = 21, ping = 40 }'), LU_M, 13,
                                        "players[1].goals", ("20",), M2),
    "ping negative": Case(lu(p1='{ name = "B", goals = 10, ping = -5 }'), LU_M, 13, "players[1].ping",
                          ("from 0 to 1,000,000",), M2),
    "ping a float": Case(lu(p1='{ name = "B", goals = 10, ping = 40.5 }'), LU_M, 13, "players[1].ping",
                         ("integer",), M2),
    "ping missing": Case(lu(p1='{ name = "B", goals = 10 }'), LU_M, 13, "players[1].ping", ("missing",), M2),
    "two hosts": Case(lu(p1='{ name = "B", goals = 10, ping = 0, host = true }'), LU_M, 13, "players[1].host",
                      ("one",), M2),
    "host with ping": Case(lu(p0='{ name = "A", goals = 20, ping = 30, host = true }'), LU_M, 12,
                           "players[0].ping", ("host", "0"), M2),
    "host not a boolean": Case(lu(p0='{ name = "A", goals = 20, ping = 0, host = "yes" }'), LU_M, 12,
                               "players[0].host", ("true or false",), M2),
    # ---- elo
    "score 2": Case(el(p0='{ name = "A", score = 2 }'), EL_M, 12, "players[0].score", ("1, 0.5 or 0",), M2),
    "score 0.25": Case(el(p0='{ name = "A", score = 0.25 }', p1='{ name = "B", score = 0.75 }'), EL_M, 12,
                       "players[0].score", ("1, 0.5 or 0",), M2, count=2),
    "score a string": Case(el(p0='{ name = "A", score = "1" }'), EL_M, 12, "players[0].score", ("1, 0.5 or 0",),
                           M2),
    "score a boolean": Case(el(p0='{ name = "A", score = true }'), EL_M, 12, "players[0].score",
                            ("1, 0.5 or 0",), M2),
    "scores 1 and 1": Case(el(p1='{ name = "B", score = 1 }'), EL_M, 13, "players[1].score", ("sum to 1",), M2),
    "scores 0.5 and 0": Case(el(p0='{ name = "A", score = 0.5 }'), EL_M, 13, "players[1].score",
                             ("sum to 1",), M2),
    "challenger not a player": Case(el(extra='challenger = "Q"'), EL_M, 10, "challenger",
                                    ("'Q'", "'A'", "'B'"), M2),
    "challenger not a string": Case(el(extra="challenger = 3"), EL_M, 10, "challenger", ("string",), M2),
    # ---- match files
    "toml syntax error": Case({"matches/lu/league.toml": LU_LEAGUE,
                               "matches/lu/m.toml": '[[match]]\nplayed = 2024-01-01\nplayers = [ { name = "A", } ]\n'},
                              LU_M, 3, None, ("invalid TOML",)),
    "toml syntax error at the end": Case({"matches/lu/league.toml": LU_LEAGUE,
                                          "matches/lu/m.toml": '[[match]]\nplayers = [ { name = "A" }\n'},
                                         LU_M, 2, None, ("invalid TOML", "'[' opened on line 2 is never closed")),
    "invalid utf-8": Case({"matches/lu/league.toml": LU_LEAGUE,
                           "matches/lu/m.toml": b'[[match]]\nnotes = "caf\xe9"\n'}, LU_M, None, None, ("UTF-8",)),
    "file with no match": Case({**lu(), "matches/lu/empty.toml": "# nothing yet\n"}, "matches/lu/empty.toml",
                               None, None, ("[[match]]",)),
    "unknown top-level key in a match file": Case({**lu(), "matches/lu/t.toml": 'title = "x"\n'},
                                                  "matches/lu/t.toml", 1, "title", ("[[match]]",)),
    "match file outside a league": Case({**lu(), "matches/loose.toml": 'x = 1\n'}, "matches/loose.toml", None,
                                        None, ("league folder",)),
    # ---- league.toml (lines: 1 name, 2 system, 3 extra, 4 [params], 5.. params)
    "unknown league key": Case({**lu(), "matches/lu/league.toml": league_toml("lunaro", extra="colour = 1\n")},
                               "matches/lu/league.toml", 3, "colour", ("unknown", "name", "system", "params")),
    "unknown system": Case({**lu(), "matches/lu/league.toml": 'name = "L"\nsystem = "glicko3"\n'},
                           "matches/lu/league.toml", 2, "system", ("glicko3", "elo", "lunaro")),
    "system not a string": Case({**lu(), "matches/lu/league.toml": 'name = "L"\nsystem = 5\n'},
                                "matches/lu/league.toml", 2, "system", ("elo", "lunaro")),
    "system missing": Case({**lu(), "matches/lu/league.toml": 'name = "L"\n'}, "matches/lu/league.toml", None,
                           "system", ("missing", "elo", "lunaro")),
    "name missing in league.toml": Case({**lu(), "matches/lu/league.toml": 'system = "lunaro"\n'},
                                        "matches/lu/league.toml", None, "name", ("missing",)),
    "name empty in league.toml": Case({**lu(), "matches/lu/league.toml": 'name = " "\nsystem = "lunaro"\n'},
                                      "matches/lu/league.toml", 1, "name", ("non-empty",)),
    "description not a string": Case(
        {**lu(), "matches/lu/league.toml": league_toml("lunaro", extra="description = 5\n")},
        "matches/lu/league.toml", 3, "description", ("string",)),
    "unknown parameter": Case({**lu(), "matches/lu/league.toml": league_toml("lunaro", params="k = 50\nkk = 1")},
                              "matches/lu/league.toml", 6, "params.kk",
                              ("unknown", "initial", "k", "k_bands", "ping_influence")),
    "parameter of another system": Case(
        {**el(), "matches/el/league.toml": league_toml("elo", params="ping_influence = 300")},
        "matches/el/league.toml", 5, "params.ping_influence", ("unknown", "k_of")),
    "k negative": Case({**lu(), "matches/lu/league.toml": league_toml("lunaro", params="k = -5")},
                       "matches/lu/league.toml", 5, "params.k", ("> 0", '"bands"', "-5")),
    "k misspelt": Case({**el(), "matches/el/league.toml": league_toml("elo", params='initial = 1500\nk = "fid"')},
                       "matches/el/league.toml", 6, "params.k", ('"fide"', "fid")),
    "k a boolean": Case({**el(), "matches/el/league.toml": league_toml("elo", params="k = true")},
                        "matches/el/league.toml", 5, "params.k", ("number",)),
    "k_bands unsorted": Case(
        {**lu(), "matches/lu/league.toml": league_toml("lunaro", params="k_bands = [[1500, 20], [0, 40]]")},
        "matches/lu/league.toml", 5, "params.k_bands", ("increasing",)),
    "k_bands malformed": Case(
        {**lu(), "matches/lu/league.toml": league_toml("lunaro", params='k_bands = [[0, "forty"]]')},
        "matches/lu/league.toml", 5, "params.k_bands", ("[min_rating, k]",)),
    "initial a boolean (lunaro)": Case(
        {**lu(), "matches/lu/league.toml": league_toml("lunaro", params="initial = true")},
        "matches/lu/league.toml", 5, "params.initial", ("whole number",)),
    "initial a boolean (elo)": Case(
        {**el(), "matches/el/league.toml": league_toml("elo", params="initial = true")},
        "matches/el/league.toml", 5, "params.initial", ("number",)),
    "initial a string": Case(
        {**el(), "matches/el/league.toml": league_toml("elo", params='initial = "1500"')},
        "matches/el/league.toml", 5, "params.initial", ("number",)),
    "k_of misspelt": Case({**el(), "matches/el/league.toml": league_toml("elo", params='k_of = "both"')},
                          "matches/el/league.toml", 5, "params.k_of", ('"challenger"', '"each"')),
    "ping_influence zero": Case(
        {**lu(), "matches/lu/league.toml": league_toml("lunaro", params="ping_influence = 0")},
        "matches/lu/league.toml", 5, "params.ping_influence", ("from 1 to 1,000,000",)),
    "provisional_games a float": Case(
        {**el(), "matches/el/league.toml": league_toml("elo", params="provisional_games = 30.5")},
        "matches/el/league.toml", 5, "params.provisional_games", ("whole number",)),
    "params not a table": Case({**lu(), "matches/lu/league.toml": league_toml("lunaro", extra="params = 5\n")},
                               "matches/lu/league.toml", 3, "params", ("table",)),
    "tiers not increasing": Case(
        {**lu(), "matches/lu/league.toml": league_toml(
            "lunaro", extra='tiers = [\n  [0, "Bronze"],\n  [1500, "Gold"],\n  [1200, "Silver"],\n]\n')},
        "matches/lu/league.toml", 6, "tiers[2]", ("increase",)),
    "tiers malformed pair": Case(
        {**lu(), "matches/lu/league.toml": league_toml("lunaro", extra='tiers = [[0, "Bronze"], ["Gold", 1500]]\n')},
        "matches/lu/league.toml", 3, "tiers[1]", ('[min_rating, "Name"]',)),
    "tiers not a list": Case(
        {**lu(), "matches/lu/league.toml": league_toml("lunaro", extra='tiers = "gold"\n')},
        "matches/lu/league.toml", 3, "tiers", ("list",)),
    "league.toml syntax error": Case({**lu(), "matches/lu/league.toml": 'name = "L"\nsystem = lunaro\n'},
                                     "matches/lu/league.toml", 2, None, ("invalid TOML",)),
    "missing league.toml": Case({**lu(), "matches/nolg/m.toml": match_file(LU_P0, LU_P1, first=LU_FIRST)},
                                "matches/nolg", None, None, ("league.toml",)),
    "bad league slug": Case({"matches/Bad_Slug/league.toml": LU_LEAGUE,
                             "matches/Bad_Slug/m.toml": match_file(LU_P0, LU_P1, first=LU_FIRST)},
                            "matches/Bad_Slug", None, None, ("Bad_Slug", "slug", "lower-case")),
    "league slug starting with a dash": Case({"matches/-x/league.toml": LU_LEAGUE,
                                              "matches/-x/m.toml": match_file(LU_P0, LU_P1, first=LU_FIRST)},
                                             "matches/-x", None, None, ("slug",)),
    # ---- players.toml
    "unknown key in a player": Case(
        {**el(), "matches/players.toml": '[players."A"]\nregion = "EU"\ncolour = "red"\n'},
        "matches/players.toml", 3, "colour", ("unknown", "platform", "region", "aliases")),
    "unknown top-level key in players.toml": Case(
        {**el(), "matches/players.toml": 'version = 2\n[players."A"]\nregion = "EU"\n'},
        "matches/players.toml", 1, "version", ("players",)),
    "alias of two players": Case(
        {**el(), "matches/players.toml": '[players."ann"]\naliases = ["x"]\n\n[players."bob"]\naliases = ["x"]\n'},
        "matches/players.toml", 5, "aliases[0]", ("'x'", "'ann'")),
    "alias equal to another's name": Case(
        {**el(), "matches/players.toml": '[players."ann"]\naliases = ["bob"]\n\n[players."bob"]\nregion = "EU"\n'},
        "matches/players.toml", 4, "'bob'", ("'bob'", "'ann'")),
    "alias equal to another's name, NFD": Case(
        {**el(), "matches/players.toml": '[players."Zo\u00eb"]\n\n[players."x"]\naliases = ["Zoe\u0308"]\n'},
        "matches/players.toml", 4, "aliases[0]", ("already used",)),
    "aliases not a list": Case(
        {**el(), "matches/players.toml": '[players."A"]\naliases = "Al"\n'},
        "matches/players.toml", 2, "aliases", ("list",)),
    "alias empty": Case(
        {**el(), "matches/players.toml": '[players."A"]\naliases = ["Al", "  "]\n'},
        "matches/players.toml", 2, "aliases[1]", ("non-empty",)),
    "platform not a string": Case(
        {**el(), "matches/players.toml": '[players."A"]\nplatform = 3\n'},
        "matches/players.toml", 2, "platform", ("string",)),
    "players.toml syntax error": Case(
        {**el(), "matches/players.toml": '[players."A"]\naliases = ["Al" "B"]\n'},
        "matches/players.toml", 2, None, ("invalid TOML",)),
    # ---- pyproject.toml [tool.sitegen]
    "unknown site setting": Case({**el(), "pyproject.toml": '[project]\nname = "x"\n\n[tool.sitegen]\ntitel = "x"\n'},
                                 "pyproject.toml", None, "tool.sitegen.titel", ("unknown", "title", "base_url")),
    "site setting not a string": Case({**el(), "pyproject.toml": "[tool.sitegen]\ntitle = 5\n"},
                                      "pyproject.toml", None, "tool.sitegen.title", ("string",)),
}


def find(problems, case: Case):
    """The problem the case planted: same file, and the field (or the words) it names."""
    for p in problems:
        if p.file != case.file:
            continue
        if case.field is not None and (p.field is None or not p.field.endswith(case.field)):
            continue
        if all(w.lower() in p.message.lower() for w in case.says):
            return p
    return None


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_each_rule(make_site, case: Case):
    root = make_site(case.files)
    problems = problems_of(root)
    text = "\n".join(map(str, problems))
    assert len(problems) == case.count, text
    p = find(problems, case)
    assert p is not None, text
    if case.line is not None:
        assert p.line == case.line, text
    if case.match is not None:
        assert p.match is not None and case.match in p.match, text
    # the report line: "FILE[:LINE]: [match M: ][FIELD: ]message"
    line = str(p)
    assert line.startswith(case.file + (f":{case.line}: " if case.line else ""))
    if case.field:
        assert f"{p.field}: " in line
    assert str(root) not in line


@pytest.mark.parametrize("files", [
    lu(p0='{ name = "A", goals = 22, ping = 0 }', p1='{ name = "B", goals = 19, ping = 40 }'),
    lu(p0='{ name = "A", goals = 19, ping = 0 }', p1='{ name = "B", goals = 19, ping = 0 }'),
    lu(p0='{ name = "A", goals = 0, ping = 0, host = false }', p1='{ name = "B", goals = 0, ping = 999 }'),
    lu(extra=f'id = "{"a" * 64}"'),
    lu(extra='id = "A.b_c-9"'),
    lu(p0=f'{{ name = "{"n" * 64}", goals = 20, ping = 0 }}'),
    lu(p0=f'{{ name = "  {"n" * 64}  ", goals = 20, ping = 0 }}'),        # 64 after trimming
    el(p0='{ name = "A", score = 0.5 }', p1='{ name = "B", score = 0.5 }'),
    el(p0='{ name = "A", score = 1.0 }', p1='{ name = "B", score = 0.0 }'),
    el(extra='challenger = "B"'),
    el(extra='challenger = " B "'),
    {**el(extra='challenger = "Bee"'), "matches/players.toml": '[players."B"]\naliases = ["Bee"]\n'},
    lu(played="played = 2024-01-02T10:00:00.123456+05:45"),
    {**lu(), "matches/lu/league.toml": league_toml("lunaro", params='k = "bands"\nk_bands = [[0, 40]]\n'
                                                                   "initial = 0\nping_influence = 12.5")},
    {**el(), "matches/el/league.toml": league_toml("elo", params="k = 16.5\ninitial = -100\nmaster_rating = 1600")},
    {**el(), "matches/el/league.toml": league_toml(
        "elo", extra='description = "**Bold**"\ntiers = [[0, "Bronze"], [1200.5, "Silver"]]\n')},
    {**el(), "matches/players.toml": '[players."A"]\nplatform = "pc"\nregion = "EU"\naliases = []\n'},
    {**el(), "pyproject.toml": '[project]\nname = "x"\n[tool.sitegen]\ntitle = "T"\nbase_url = "https://x.org/"\n'},
    {**el(), "matches/el/.drafts/x.toml": "not toml at all ["},     # hidden folders are not read
], ids=["22-19", "19-19", "0-0 host false", "id of 64", "id chars", "name of 64", "name of 64 trimmed",
        "draw", "float scores", "challenger", "challenger trimmed", "challenger alias", "fractional seconds",
        "lunaro params", "elo params", "tiers and description", "players.toml", "pyproject", "hidden folder"])
def test_valid_edge_cases(make_site, files):
    check(make_site(files))


def test_duplicate_explicit_ids_in_two_files(make_site):
    root = make_site({**lu(extra='id = "final"'),
                      "matches/lu/n.toml": '[[match]]\nid = "final"\nplayed = 2024-01-05\n'
                                           'players = [{ name = "C", goals = 1, ping = 0 }, '
                                           '{ name = "D", goals = 2, ping = 0 }]\n'})
    problems = problems_of(root)
    assert len(problems) == 1
    p = problems[0]
    assert (p.file, p.line, p.field) == ("matches/lu/n.toml", 2, "id")
    assert "duplicate" in p.message and "'final'" in p.message and "matches/lu/m.toml" in p.message


def test_duplicate_default_id_across_files(make_site):
    # "a-b.toml" and "a/b.toml" both give the default id "a-b-1"
    one = '[[match]]\nplayed = 2024-01-05\nplayers = [{ name = "C", goals = 1, ping = 0 }, ' \
          '{ name = "D", goals = 2, ping = 0 }]\n'
    root = make_site({"matches/lu/league.toml": LU_LEAGUE, "matches/lu/a-b.toml": one, "matches/lu/a/b.toml": one})
    problems = problems_of(root)
    assert len(problems) == 1 and "a-b-1" in problems[0].message and "duplicate" in problems[0].message


def test_problems_in_a_match_with_an_explicit_id_name_it(make_site):
    root = make_site(lu(extra='id = "semi-final"', p1='{ name = "B", goals = 99, ping = 0 }'))
    (p,) = problems_of(root)
    assert "semi-final" in p.match
    assert str(p).startswith("matches/lu/m.toml:13: match ")


def test_match_tables_written_as_array_of_tables(make_site):
    text = ('[[match]]\nplayed = 2024-01-01\n\n'
            '[[match.players]]\nname = "A"\ngoals = 20\nping = 0\n\n'
            '[[match.players]]\nname = "B"\ngoals = 25\nping = 0\n')
    root = make_site({"matches/lu/league.toml": LU_LEAGUE, "matches/lu/m.toml": text})
    (p,) = problems_of(root)
    assert (p.line, p.field) == (11, "players[1].goals")


def test_bad_league_toml_does_not_hide_the_problems_of_its_matches(make_site):
    root = make_site({**lu(p1='{ name = "B", goals = 30, ping = 40 }'),
                      "matches/lu/league.toml": league_toml("lunaro", params="k = -5")})
    found = {(p.file, p.field) for p in problems_of(root)}
    assert found == {("matches/lu/league.toml", "params.k"), (LU_M, "players[1].goals")}


# --- every problem of a site in one run, through the command line ---------------------------

PLANTED = {
    "pyproject.toml": "[tool.sitegen]\ntitle = \"T\"\nlogo = \"x.png\"\n",
    "matches/players.toml": '[players."ann"]\naliases = ["an"]\n\n[players."bob"]\naliases = ["an"]\n',
    "matches/lu/league.toml": 'name = "Lu"\nsystem = "lunaro"\n\n[params]\nk = 50\nping_influense = 300\n',
    "matches/lu/2024/jan.toml": (
        "[[match]]\n"                                                        # 1
        "played = 2024-01-01\n"                                              # 2
        "players = [\n"                                                      # 3
        '  { name = "x", goals = 23, ping = 0 },\n'                          # 4  goals
        '  { name = "y", goals = 3, ping = -1 },\n'                          # 5  ping
        "]\n"                                                                # 6
        "\n"
        "[[match]]\n"                                                        # 8
        'id = "jan 2"\n'                                                     # 9  id
        "played = 2024-01-02\n"
        'players = [{ name = "x", goals = 1, ping = 0, host = true }, '
        '{ name = "y", goals = 2, ping = 0, host = true }]\n'                # 11 two hosts
        "\n"
        "[[match]]\n"                                                        # 13 played missing
        'players = [{ name = "x", goals = 1, ping = 0 }, { name = "y", goals = 2, ping = 0 }]\n'
    ),
    "matches/lu/feb.toml": "[[match]]\nplayed = 2024-02-01\nplayers = [{ name = \"x\", goals = 1 ping = 0 }]\n",
    "matches/el/league.toml": 'name = "El"\nsystem = "elo"\n\n[params]\nk = "fid"\n',
    "matches/el/m.toml": (
        "[[match]]\n"                                                        # 1
        "played = 2024-01-01\n"                                              # 2
        'challenger = "zed"\n'                                               # 3  challenger
        'players = [{ name = "p", score = 1 }, { name = "q", score = 0 }]\n'
        "\n"
        "[[match]]\n"                                                        # 6
        "played = 2024-01-02\n"
        'players = [{ name = "p", score = 1 }, { name = "q", score = 1 }]\n'  # 8  sum
        "\n"
        "[[match]]\n"                                                        # 10
        "played = 2024-01-03\n"
        'note = "typo"\n'                                                    # 12 unknown key
        'players = [{ name = "p", score = 1 }, { name = "q", score = 0 }]\n'
    ),
    "matches/Ranked/league.toml": 'name = "R"\nsystem = "glicko9"\n',
    "matches/orphan/m.toml": "[[match]]\nplayed = 2024-01-01\n",
}

EXPECTED = [
    # (line prefix, words of the rest)
    ("pyproject.toml: ", ("tool.sitegen.logo", "unknown")),
    ("matches/players.toml:5: ", ("aliases[0]", "'an'", "'ann'")),
    ("matches/lu/league.toml:6: ", ("params.ping_influense", "unknown", "ping_influence")),
    ("matches/lu/2024/jan.toml:4: ", ("#1", "jan-1", "players[0].goals", "0..22")),
    ("matches/lu/2024/jan.toml:5: ", ("#1", "players[1].ping", "from 0 to 1,000,000")),
    ("matches/lu/2024/jan.toml:9: ", ("jan 2", "id", "letters")),
    ("matches/lu/2024/jan.toml:11: ", ("players[1].host", "one")),
    ("matches/lu/2024/jan.toml:13: ", ("#3", "2024-jan-3", "played", "missing")),
    ("matches/lu/feb.toml:3: ", ("invalid TOML",)),
    ("matches/el/league.toml:5: ", ("params.k", '"fide"')),
    ("matches/el/m.toml:3: ", ("#1", "m-1", "challenger", "'zed'", "'p'", "'q'")),
    ("matches/el/m.toml:8: ", ("#2", "players[1].score", "sum to 1")),
    ("matches/el/m.toml:12: ", ("#3", "note", "unknown", "notes")),
    ("matches/Ranked: ", ("slug",)),
    ("matches/Ranked/league.toml:2: ", ("system", "glicko9", "elo", "lunaro")),
    ("matches/orphan: ", ("league.toml",)),
]


def test_every_problem_is_reported_in_one_run(make_site):
    root = make_site(PLANTED)
    result = run_cli("check", "--root", str(root))
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    assert not looks_like_traceback(result.stderr), result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    problem_lines = [line for line in lines if not line.startswith("sitegen:")]
    for prefix, words in EXPECTED:
        hits = [line for line in problem_lines
                if line.startswith(prefix) and all(w in line[len(prefix):] for w in words)]
        assert len(hits) == 1, (prefix, words, result.stderr)
    assert len(problem_lines) == len(EXPECTED), result.stderr
    # every line begins with a path relative to the root, never the absolute one
    assert str(root) not in result.stderr
    for line in problem_lines:
        assert re.match(r"(matches/|pyproject\.toml)", line), line
    assert any(str(len(EXPECTED)) in line for line in lines if line.startswith("sitegen:"))


def test_build_reports_the_same_problems(make_site, tmp_path):
    root = make_site(PLANTED)
    checked = run_cli("check", "--root", str(root))
    built = run_cli("build", "--root", str(root), "--out", str(tmp_path / "out"))
    assert built.returncode == 1
    assert not looks_like_traceback(built.stderr)
    problem = [line for line in checked.stderr.splitlines() if not line.startswith("sitegen:")]
    assert [line for line in built.stderr.splitlines() if not line.startswith("sitegen:")] == problem
    assert not (tmp_path / "out").exists()
    assert not (root / "_site").exists()


VALID = {
    "matches/players.toml": '[players."ann"]\naliases = ["an"]\n',
    "matches/lu/league.toml": league_toml("lunaro"),
    "matches/lu/m.toml": match_file(LU_P0, LU_P1, first=LU_FIRST),
    "matches/el/league.toml": league_toml("elo"),
    "matches/el/m.toml": match_file(EL_P0, EL_P1, first=EL_FIRST),
}


def test_build_on_invalid_input_leaves_the_old_output_untouched(make_site):
    root = make_site(VALID)
    first = run_cli("build", "--root", str(root))
    assert first.returncode == 0, first.stderr
    out = root / "_site"
    before = tree_snapshot(out)
    assert "data/lu/standings.csv" in before and "index.html" in before
    mtimes = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    inode = out.stat().st_ino
    write_files(root, {"matches/lu/m.toml": match_file(LU_P0, '{ name = "B", goals = 50, ping = 40 }', first=LU_FIRST)})
    second = run_cli("build", "--root", str(root))
    assert second.returncode == 1
    assert "matches/lu/m.toml:13:" in second.stderr and "players[1].goals" in second.stderr
    assert not looks_like_traceback(second.stderr)
    assert tree_snapshot(out) == before
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == mtimes
    assert out.stat().st_ino == inode
    # and nothing was left beside it (but the build cache, which the first build wrote)
    assert sorted(p.name for p in root.iterdir()) == [".sitegen-cache", "_site", "matches"]


def test_check_writes_nothing(make_site):
    for files in (VALID, PLANTED):
        root = make_site(files)
        before = tree_snapshot(root)
        result = run_cli("check", "--root", str(root))
        assert result.returncode == (0 if files is VALID else 1), result.stderr
        assert tree_snapshot(root) == before


def test_check_valid_site_exit_0(make_site):
    result = run_cli("check", "--root", str(make_site(VALID)))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


@pytest.mark.parametrize("command", ["check", "build"])
def test_root_without_matches(tmp_path, command):
    root = tmp_path / "empty"
    root.mkdir()
    result = run_cli(command, "--root", str(root))
    assert result.returncode == 1
    assert not looks_like_traceback(result.stderr)
    first = result.stderr.splitlines()[0]
    assert first.startswith("matches") and "matches/" in first and "not found" in first
    assert sorted(root.iterdir()) == []


def test_root_that_does_not_exist(tmp_path):
    result = run_cli("check", "--root", str(tmp_path / "nowhere"))
    assert result.returncode == 1
    assert "matches" in result.stderr and not looks_like_traceback(result.stderr)


def test_rules_across_players_are_checked_even_when_a_field_is_bad(make_site):
    root = make_site(lu(p0='{ name = "A", goals = 21, ping = 5, host = true }',
                        p1='{ name = "B", goals = 20, ping = 0, host = true, colour = 1 }'))
    found = {(p.line, p.field) for p in problems_of(root)}
    assert found == {(13, "players[1].colour"), (13, "players[1].goals"), (13, "players[1].host"),
                     (12, "players[0].ping")}


def test_elo_score_sum_is_checked_even_when_a_field_is_bad(make_site):
    root = make_site(el(p0='{ name = "A", score = 1, goals = 3 }', p1='{ name = "B", score = 1 }'))
    found = {(p.line, p.field) for p in problems_of(root)}
    assert found == {(12, "players[0].goals"), (13, "players[1].score")}


def test_comments_between_array_elements_do_not_shift_the_line(make_site):
    """A comment line before a player, or after the previous one, belongs to neither player."""
    root = make_site({
        "matches/duel/league.toml": league_toml("lunaro"),
        "matches/duel/a.toml": (
            "[[match]]\n"
            "played = 2024-01-01\n"
            "players = [\n"
            "  # the host\n"
            '  { name = "A", goals = 20, ping = 0 },  # won on stream\n'
            "  # the visitor\n"
            '  { name = "B", goals = "x", ping = 40 },\n'
            "]\n"),
    })
    [problem] = problems_of(root)
    assert (problem.line, problem.field) == (7, "players[1].goals")


# --- messages a newcomer can act on: the exact line for each common mistake -------------------

STOPS = "reading stops at the first syntax error, so this file's other problems show once it is fixed"
TWO = '  { name = "Kestrel", goals = 20, ping = 0 },\n  { name = "Ana", goals = 14, ping = 80 },\n'


def lines_of(make_site, files: dict[str, str | bytes]) -> list[str]:
    return [str(p) for p in problems_of(make_site(files))]


@pytest.mark.parametrize("text, line", [
    # a quote never closed: tomllib says "Illegal character '\n'"
    ('[[match]]\nplayed = 2026-03-14\nplayers = [\n  { name = "Kestrel, goals = 20, ping = 0 },\n'
     '  { name = "Ana", goals = 14, ping = 80 },\n]\n',
     'matches/lu/m.toml:4: invalid TOML: the quoted text on line 4 has no closing quote (it starts '
     '"Kestrel, goals…); add the closing " where the text ends, on the same line; ' + STOPS),
    ('[[match]]\nnotes = """Final.\nplayed = 2026-03-14\n',
     'matches/lu/m.toml:2: invalid TOML: the text opened with """ on line 2 is never closed; end it with """; '
     + STOPS),
    # a ']' never written: tomllib says "Invalid value (at end of document)", with no line
    ('[[match]]\nplayed = 2026-03-14\nplayers = [\n' + TWO,
     "matches/lu/m.toml:3: invalid TOML: the '[' opened on line 3 is never closed; close it after its last value; "
     + STOPS),
    # ... or "Invalid value" at the next [[match]], which the unclosed array swallowed
    ('[[match]]\nplayed = 2026-03-14\nplayers = [\n' + TWO + '\n[[match]]\nplayed = 2026-03-15\nplayers = [\n'
     + TWO + ']\n',
     "matches/lu/m.toml:3: invalid TOML: the '[' opened on line 3 is never closed; close it after its last value; "
     + STOPS),
    ('[[match]]\nplayed = 2026-03-14\nplayers = [\n  { name = "Kestrel", goals = 20, ping = 0 ],\n',
     "matches/lu/m.toml:4: invalid TOML: the '{' opened on line 4 is never closed; close it after its last value; "
     + STOPS),
    ("[[match]]\nid = [1]]\n",
     "matches/lu/m.toml:2: invalid TOML: the ']' on line 2 closes nothing: a '[' is missing before it, or it is "
     "one too many; " + STOPS),
    ('[[match]]\nplayed = 2026-03-14\nplayers = [\n  { name = "Kestrel", goals = 20,\n    ping = 0 },\n]\n',
     "matches/lu/m.toml:4: invalid TOML: a table in braces { ... } must be on one line: the '{' on line 4 closes "
     "on line 5; " + STOPS),
    # dates: tomllib says "Expected newline or end of document after a statement" for all of these
    ("[[match]]\nplayed = 2026-03-14T20:05+01:00\n",
     "matches/lu/m.toml:2: invalid TOML: 2026-03-14T20:05+01:00 is not a date TOML can read (the time needs "
     "seconds); write 2026-03-14T20:05:00+01:00 (or the date alone, 2026-03-14); " + STOPS),
    ("[[match]]\nplayed = 14/03/2026\n",
     "matches/lu/m.toml:2: invalid TOML: 14/03/2026 is not a date TOML can read (dates are written "
     "year-month-day, with '-'); write 2026-03-14 (or with the time, seconds included, such as "
     "2026-03-14T20:05:00+01:00); " + STOPS),
    ("[[match]]\nplayed = 2026-14-03\n",
     "matches/lu/m.toml:2: invalid TOML: 2026-14-03 is not a date TOML can read (there is no month 14: dates are "
     "year-month-day); write 2026-03-14 (or with the time, seconds included, such as 2026-03-14T20:05:00+01:00); "
     + STOPS),
    ("[[match]]\nplayed = 2026-03-14 20:05\n",
     "matches/lu/m.toml:2: invalid TOML: 2026-03-14 20:05 is not a date TOML can read (the time needs seconds); "
     "write 2026-03-14T20:05:00+01:00, with the UTC offset of the time's zone (Z for UTC), or the date alone, "
     "2026-03-14; " + STOPS),
    ("[[match]]\nplayed = 2026-03-14T20:05:00+0100\n",
     "matches/lu/m.toml:2: invalid TOML: 2026-03-14T20:05:00+0100 is not a date TOML can read (the UTC offset is "
     "written with ':', such as +01:00); write 2026-03-14T20:05:00+01:00 (or the date alone, 2026-03-14); "
     + STOPS),
    # ambiguous or impossible: how dates are written, without a guess
    ("[[match]]\nplayed = 03/04/2026\n",
     "matches/lu/m.toml:2: invalid TOML: 03/04/2026 is not a date TOML can read (dates are written "
     "year-month-day, with '-'); write a date-time with seconds and the UTC offset, such as "
     "2026-03-14T20:05:00+01:00, or a date, such as 2026-03-14 (year-month-day); " + STOPS),
    ("[[match]]\nplayed = 2026-02-30\n",
     "matches/lu/m.toml:2: invalid TOML: 2026-02-30 is not a date TOML can read (there is no such day); write a "
     "date-time with seconds and the UTC offset, such as 2026-03-14T20:05:00+01:00, or a date, such as "
     "2026-03-14 (year-month-day); " + STOPS),
    ("[[match]]\nplayed = 20:05\n",
     "matches/lu/m.toml:2: invalid TOML: 20:05 is not a value TOML can read: a time needs a date before it; "
     "write a date-time with seconds and the UTC offset, such as 2026-03-14T20:05:00+01:00, or a date, such as "
     "2026-03-14 (year-month-day); " + STOPS),
    ('[[match]]\nplayed = 2026-03-14\nnotes = Final\n',
     'matches/lu/m.toml:3: invalid TOML: Final is not a TOML value: text is written in quotes, "Final"; ' + STOPS),
    # no better hint: tomllib's own words
    ('[[match]]\nplayed = 2024-01-01\nplayers = [ { name = "A", } ]\n',
     "matches/lu/m.toml:3: invalid TOML: Invalid initial character for a key part; " + STOPS),
    ("[[match]\nplayed = 2024-01-01\n",
     "matches/lu/m.toml:1: invalid TOML: Expected ']]' at the end of an array declaration; " + STOPS),
], ids=["quote", "multi-line quote", "bracket at the end", "bracket before the next match", "brace",
        "extra bracket", "braces on two lines", "time without seconds", "day/month/year", "month 14",
        "space and no seconds", "offset without colon", "ambiguous day and month", "february 30", "time only",
        "text without quotes", "tomllib's words", "table header"])
def test_toml_syntax_error_says_what_to_fix(make_site, text, line):
    assert lines_of(make_site, {"matches/lu/league.toml": LU_LEAGUE, "matches/lu/m.toml": text}) == [line]


def test_a_syntax_error_hides_no_other_files_problems(make_site):
    """Reading stops in the broken file only: the other files, even of a league whose league.toml
    cannot be read (its system is on a line of its own), are all checked in the same run."""
    root = make_site({
        **lu(p1='{ name = "B", goals = 30, ping = 40 }'),
        "matches/lu/broken.toml": "[[match]]\nplayed = 2026-03-14T20:05+01:00\n",
        "matches/el/league.toml": 'name = "El"\nsystem = "elo"\ndescription = """Ranked.\n\nOne\nline"""\n[params\n',
        "matches/el/m.toml": match_file(EL_P0, '{ name = "B", score = 1 }', first=EL_FIRST),
        "matches/players.toml": '[players."A"]\naliases = ["Al"\n',
    })
    found = [(p.file, p.line, p.field) for p in problems_of(root)]
    assert found == [
        ("matches/el/league.toml", 7, None),
        (EL_M, 13, "players[1].score"),
        ("matches/lu/broken.toml", 2, None),
        (LU_M, 13, "players[1].goals"),
        ("matches/players.toml", 2, None),
    ]


def test_unreadable_league_toml_without_a_system_line_stops_at_its_own_problem(make_site):
    root = make_site({**el(p1='{ name = "B", score = 1 }'),
                      "matches/el/league.toml": 'name = "El"\nsystem = elo\n'})
    assert [str(p) for p in problems_of(root)] == [
        'matches/el/league.toml:2: invalid TOML: elo is not a TOML value: text is written in quotes, "elo"; '
        + STOPS]


def test_values_of_the_wrong_type_are_described_for_people(make_site):
    text = ('[[match]]\n'
            'played = "2026-03-14T20:05:00+01:00"\n'
            'players = [\n'
            '  { name = "Kestrel", goals = "3", ping = 0 },\n'
            '  { name = "Ana", goals = 14, ping = 80, host = "true" },\n'
            ']\n'
            '\n'
            '[[match]]\n'
            'played = 20:05:00\n'
            'notes = ["a", "b"]\n'
            'players = [\n'
            '  { name = "Kestrel", goals = 3, ping = 0 },\n'
            '  { name = 5, goals = 14, ping = { ms = 80 } },\n'
            ']\n'
            '\n'
            '[[match]]\n'
            'played = "2026-03-14 20:05"\n'
            'id = 2026-03-14\n'
            'players = [{ name = "Kestrel", goals = 1.5, ping = 0 }, { name = "Ana", goals = 1, ping = 80 }]\n')
    lines = lines_of(make_site, {"matches/lu/league.toml": LU_LEAGUE, "matches/lu/t.toml": text})
    assert lines == [
        'matches/lu/t.toml:2: match #1 (t-1): played: must be a TOML date-time (2024-05-01T19:30:00+02:00, '
        '2024-05-01T19:30:00) or date (2024-05-01), got the text "2026-03-14T20:05:00+01:00" (dates are written '
        'without quotes); write played = 2026-03-14T20:05:00+01:00',
        'matches/lu/t.toml:4: match #1 (t-1): players[0].goals: must be an integer 0..22, got the text "3" '
        '(numbers are written without quotes)',
        'matches/lu/t.toml:5: match #1 (t-1): players[1].host: must be true or false, got the text "true" '
        '(true and false are written without quotes, in lower case)',
        "matches/lu/t.toml:9: match #2 (t-2): played: must be a TOML date-time (2024-05-01T19:30:00+02:00, "
        "2024-05-01T19:30:00) or date (2024-05-01), got a time of day without a date (20:05:00)",
        'matches/lu/t.toml:10: match #2 (t-2): notes: must be a string (text in quotes), got the list ["a", "b"]',
        "matches/lu/t.toml:13: match #2 (t-2): players[1].name: must be a string (the player's name, in quotes), "
        "got 5",
        "matches/lu/t.toml:13: match #2 (t-2): players[1].ping: must be an integer from 0 to 1,000,000 "
        "(milliseconds), got the table { ms = 80 }",
        "matches/lu/t.toml:17: match #3 (t-3): played: must be a TOML date-time (2024-05-01T19:30:00+02:00, "
        "2024-05-01T19:30:00) or date (2024-05-01), got the text \"2026-03-14 20:05\" (dates are written without "
        "quotes); write played = 2026-03-14T20:05:00+01:00, with the UTC offset of the time's zone (Z for UTC)",
        "matches/lu/t.toml:18: match #3 (t-3): id: must be a string of letters, digits, '.', '_' and '-', "
        "starting with a letter or digit, at most 64 characters; got the date 2026-03-14",
        "matches/lu/t.toml:19: match #3 (t-3): players[0].goals: must be an integer 0..22, got 1.5",
    ]


def test_value_text_never_shows_python():
    from datetime import date, datetime, time, timedelta, timezone

    from sitegen.rating.base import value_text

    cases = {
        "3": 'the text "3" (numbers are written without quotes)',
        "2026-03-14": 'the text "2026-03-14" (dates are written without quotes)',
        "Zoë \"Z\"\t": 'the text "Zoë \\"Z\\"\\t"',
        "n" * 81: 'the text "' + "n" * 77 + '…"',
        True: "true",
        0.5: "0.5",
        float("inf"): "inf",
        -7: "-7",
        datetime(2026, 3, 14, 20, 5, tzinfo=timezone(timedelta(hours=1))): "the date-time 2026-03-14T20:05:00+01:00",
        datetime(2026, 3, 14, 20, 5): "the date-time 2026-03-14T20:05:00",
        date(2026, 3, 14): "the date 2026-03-14",
        time(20, 5): "a time of day without a date (20:05:00)",
        (): None,
    }
    cases.pop(())
    for value, shown in cases.items():
        assert value_text(value) == shown, value
    assert value_text([0, "Gold"]) == 'the list [0, "Gold"]'
    assert value_text({"name": "B", "x y": 1}) == 'the table { name = "B", "x y" = 1 }'
    assert value_text(list(range(40))) == "a list of 40 values"
    assert value_text({f"key{i}": i for i in range(20)}).startswith("a table with keys key0, key1, ")
    for shown in map(value_text, [None, {}, [], [time(1, 2)], {"a": {"b": date(2026, 1, 1)}}]):
        assert not re.search(r"NoneType|dict|datetime|\(\d+, \d+\)", shown), shown


def test_player_instead_of_players(make_site):
    text = '[[match]]\nplayed = 2024-01-01\nplayer = [{ name = "Zugzwang", score = 1 }, { name = "B", score = 0 }]\n'
    assert lines_of(make_site, {"matches/el/league.toml": EL_LEAGUE, "matches/el/p.toml": text}) == [
        'matches/el/p.toml:1: match #1 (p-1): players: is missing; must be a list of exactly 2 players, each '
        '{ name = "...", score = ... }',
        "matches/el/p.toml:3: match #1 (p-1): player: unknown key; did you mean 'players'? matches of this elo "
        "league have: id, played, notes, players, challenger, home, season, weight — see the elo spec page "
        "(spec/elo/ on the site)",
    ]


def test_player_listed_twice_names_the_other_entry(make_site):
    text = ('[[match]]\nplayed = 2024-01-01\nplayers = [\n  { name = "B", score = 0 },\n'
            '  { name = "Zugzwang", score = 1 },\n  { name = "Zugzwang", score = 0 },\n]\n')
    placement = text.replace("score = 1", "place = 1").replace("score = 0", "place = 2")
    files = {"matches/br/league.toml": league_toml("placement"), "matches/br/p.toml": placement}
    assert lines_of(make_site, files) == [
        "matches/br/p.toml:6: match #1 (p-1): players[2].name: 'Zugzwang' is already listed as players[1]; "
        "a player may appear only once in a match"]


def test_duplicate_id_names_the_line_of_its_first_use(make_site):
    # Different days: the same match entered twice is a problem of its own.
    one = '[[match]]\n{id}played = 2024-01-0{day}\nplayers = [{{ name = "C", goals = 1, ping = 0 }}, ' \
          '{{ name = "D", goals = 2, ping = 0 }}]\n\n'
    root = make_site({"matches/lu/league.toml": LU_LEAGUE,
                      "matches/lu/a.toml": one.format(id="", day=1) + one.format(id="", day=2)
                      + one.format(id='id = "final"\n', day=3),
                      "matches/lu/b.toml": one.format(id='id = "a-2"\n', day=4)
                      + one.format(id='id = "final"\n', day=5)})
    assert [str(p) for p in problems_of(root)] == [
        "matches/lu/b.toml:2: match 'a-2' (#1): id: duplicate match id 'a-2', already used in matches/lu/a.toml:5; "
        "ids must be unique within the league",
        "matches/lu/b.toml:7: match 'final' (#2): id: duplicate match id 'final', already used in "
        "matches/lu/a.toml:10; ids must be unique within the league",
    ]


def test_league_folder_without_league_toml_close_to_a_league(make_site):
    root = make_site({**lu(), "matches/lunaro-duels/league.toml": LU_LEAGUE,
                      "matches/lunaro-duel/2026/03.toml": LU_FIRST, "matches/other/x.toml": LU_FIRST})
    assert [str(p) for p in problems_of(root)] == [
        "matches/lunaro-duel: league.toml not found: every league folder needs one (name and system), and its "
        "match files are not checked without it; did you mean matches/lunaro-duels/?",
        "matches/other: league.toml not found: every league folder needs one (name and system), and its match "
        "files are not checked without it",
    ]


def test_match_pasted_into_league_toml(make_site):
    league = LU_LEAGUE + "\n[[match]]\nplayed = 2026-03-14T20:05:00+01:00\n" \
                         'players = [{ name = "A", goals = 1, ping = 0 }, { name = "B", goals = 2, ping = 0 }]\n'
    assert lines_of(make_site, {**lu(), "matches/lu/league.toml": league}) == [
        "matches/lu/league.toml:4: match: unknown key: matches go in their own file in the league folder, such as "
        "matches/lu/2026/03-march.toml, not in league.toml"]


def test_match_of_another_system_names_the_league_system(make_site):
    text = '[[match]]\nplayed = 2024-01-01\nplatform = "pc"\nplayers = [\n' + TWO + ']\n'
    assert lines_of(make_site, {"matches/el/league.toml": EL_LEAGUE, "matches/el/m.toml": text}) == [
        "matches/el/m.toml:3: match #1 (m-1): platform: unknown key; 'platform' is a key of placement matches; "
        "matches of this elo league have: id, played, notes, players, challenger, home, season, weight — "
        "see the elo spec page (spec/elo/ on the site)",
    ] + [
        f"matches/el/m.toml:{5 + i}: match #1 (m-1): players[{i}].{key}: unknown key; '{key}' is a key of lunaro "
        "players; players of this elo league have: name, score, points — see the elo spec page (spec/elo/ on the site)"
        if key != "score" else
        f"matches/el/m.toml:{5 + i}: match #1 (m-1): players[{i}].score: is missing; must be 1, 0.5 or 0"
        for i in (0, 1) for key in ("goals", "ping", "score")
    ]


@pytest.mark.parametrize("files, line", [
    ({"matches/lu/league.toml": league_toml("lunaro", extra="sytem = 1\n")},
     "matches/lu/league.toml:3: sytem: unknown key; did you mean 'system'? league.toml has: name, system, "
     "description, params, tiers, initial, tune"),
    ({"matches/lu/league.toml": league_toml("lunaro", extra="k = 40\n")},
     "matches/lu/league.toml:3: k: unknown key; 'k' is a parameter of lunaro: write it under [params]"),
    ({"matches/lu/league.toml": league_toml("lunaro", params="ping_infuence = 200")},
     "matches/lu/league.toml:5: params.ping_infuence: unknown parameter for system 'lunaro'; did you mean "
     "'ping_influence'? allowed: initial, k, k_bands, ping_influence"),
    ({"matches/players.toml": '[player."A"]\nregion = "EU"\n'},
     "matches/players.toml:1: player: unknown key; did you mean 'players'? players.toml holds only "
     '[players."NAME"] tables'),
    ({"matches/players.toml": '[players."A"]\nalias = ["Al"]\n'},
     "matches/players.toml:2: players.'A'.alias: unknown key; did you mean 'aliases'? allowed keys: platform, "
     "region, aliases"),
    ({"matches/lu/n.toml": "[[matches]]\nplayed = 2024-01-01\n"},
     "matches/lu/n.toml:1: matches: unknown key; did you mean 'match'? a match file holds only [[match]] tables"),
    ({"matches/lu/m.toml": match_file(LU_P0, '{ name = "B", Goals = 10, ping = 40 }', first=LU_FIRST)},
     "matches/lu/m.toml:13: match #2 (m-2): players[1].Goals: unknown key; did you mean 'goals'? players of this "
     "lunaro league have: name, goals, ping, host — see the lunaro spec page (spec/lunaro/ on the site)"),
], ids=["league key", "parameter outside [params]", "parameter", "players.toml table", "player key",
        "match file table", "player field in another case"])
def test_unknown_keys_suggest_the_closest(make_site, files, line):
    lines = lines_of(make_site, {**lu(), **files})
    assert line in lines, lines


def test_check_from_a_subfolder_says_where_to_run(make_site, tmp_path):
    root = make_site(VALID)
    inside = root / "matches" / "lu"
    result = run_cli("check", cwd=inside)
    assert result.returncode == 1 and not looks_like_traceback(result.stderr)
    assert result.stderr.splitlines()[0] == (
        "matches: folder not found: a site needs a matches/ folder with one folder per league; run sitegen from "
        "the site's top folder (the one holding matches/) or pass --root DIR; ../.. holds matches/ (--root ../..)")
    empty = tmp_path / "nothing"
    empty.mkdir()
    result = run_cli("check", "--root", str(empty), cwd=empty)
    assert result.stderr.splitlines()[0] == (
        "matches: folder not found: a site needs a matches/ folder with one folder per league; run sitegen from "
        "the site's top folder (the one holding matches/) or pass --root DIR")


def test_files_that_look_like_match_files_but_are_not_read(make_site):
    root = make_site({
        **lu(),
        "matches/lu/2026/04-april.toml.txt": LU_FIRST,
        "matches/lu/2026/04-April.TOML": LU_FIRST,
        "matches/lu/x.Toml": LU_FIRST,
        "matches/lu/README.md": "How we name files.\n",
        "matches/lu/2026/notes.txt": "rematch pending\n",
        "matches/lu/.drafts/05.TOML": "not read",
        "matches/lu/.05-may.toml": "not read [",
        "matches/.03-march.toml": "not read [",
        "matches/NOTES.toml.bak": "x",
    })
    assert [str(p) for p in problems_of(root)] == [
        "matches/NOTES.toml.bak: is not read: match files must end in .toml (lower case); rename it to NOTES.toml "
        "if it holds matches",
        "matches/lu/2026/04-April.TOML: is not read: match files must end in .toml (lower case); rename it to "
        "04-April.toml if it holds matches",
        "matches/lu/2026/04-april.toml.txt: is not read: match files must end in .toml (lower case); rename it to "
        "04-april.toml if it holds matches",
        "matches/lu/x.Toml: is not read: match files must end in .toml (lower case); rename it to x.toml if it "
        "holds matches",
    ]


def test_players_toml_lines_are_looked_up_only_for_problems(make_site, monkeypatch):
    from sitegen.load import config as cfg
    from sitegen.load.site import TomlFile, read_toml
    from sitegen.load.problems import Problems

    calls = []
    located = TomlFile.locate
    monkeypatch.setattr(TomlFile, "locate", lambda self, *a, **k: calls.append(a) or located(self, *a, **k))
    valid = "".join(f'[players."p{i}"]\nregion = "EU"\naliases = ["a{i}", "b{i}"]\n\n' for i in range(50))
    root = make_site({"matches/players.toml": valid + '[players."q"]\naliases = ["a3"]\n'})
    problems = Problems()
    src = read_toml(root, root / "matches" / "players.toml", problems)
    who = cfg.roster(src, problems)
    assert who.resolve("b49") == "p49"
    assert [str(p) for p in problems] == [
        "matches/players.toml:202: players.'q'.aliases[0]: 'a3' is already used by player 'p3'; a name or alias "
        "may belong to one player only"]
    assert calls == [("players", "q", "aliases")]


def test_match_key_below_a_team_header_says_where_it_belongs(make_site):
    text = ("[[match]]\nplayed = 2024-05-03T20:15:00Z\n\n[[match.teams]]\nwon = true\n"
            'players = [{ name = "Vale", kills = 21, deaths = 7 }]\nscore_to_win = 25\n\n'
            '[[match.teams]]\nwon = false\nplayers = [{ name = "Kite", kills = 19, deaths = 17 }]\n')
    assert lines_of(make_site, {"matches/arena/league.toml": league_toml("arena"), "matches/arena/w.toml": text}) == [
        "matches/arena/w.toml:7: match #1 (w-1): score_to_win: is missing; must be an integer from 1 to 1,000,000 "
        "(the score that wins the game)",
        "matches/arena/w.toml:7: match #1 (w-1): teams[0].score_to_win: unknown key; 'score_to_win' is a key of the "
        "match: write it above the first [[match.teams]] header, or before teams = [...]; teams of this arena "
        "league have: won, players — see the arena spec page (spec/arena/ on the site)",
    ]


def test_a_league_without_a_system_still_has_its_unreadable_match_files_reported(make_site):
    # Match files are read as they are checked; a league that cannot be checked (no league.toml)
    # still has each of its files read, so an invalid one is reported with the missing league.toml.
    root = make_site({
        **lu(),
        "matches/nolg/a.toml": match_file(LU_P0, LU_P1, first=LU_FIRST),
        "matches/nolg/b.toml": "[[match]]\nplayed = [\n",
        "matches/nolg/c.toml": b"[[match]]\nnotes = \"\xff\"\n",
    })
    shown = [str(p) for p in problems_of(root)]
    assert any(s.startswith("matches/nolg: ") and "league.toml" in s for s in shown), shown
    assert any(s.startswith("matches/nolg/b.toml:") and "invalid TOML" in s for s in shown), shown
    assert any(s.startswith("matches/nolg/c.toml:2: ") and "UTF-8" in s for s in shown), shown
    assert not any(s.startswith("matches/nolg/a.toml") for s in shown), shown


def test_a_league_read_file_by_file_holds_no_file_s_tables(make_site, monkeypatch):
    # Each file's parsed tables go once its matches are made: only the text stays, for
    # locating a later duplicate id.
    from sitegen.load import site as site_module
    import gc
    read: list = []
    original = site_module.MatchFile.read

    def reading(self, problems):
        f = original(self, problems)
        read.append(f)
        return f

    monkeypatch.setattr(site_module.MatchFile, "read", reading)
    root = make_site({**lu(), "matches/lu/b.toml": LU_FIRST.replace("2024-01-01", "2024-03-02")})
    check(root, cache=False)
    assert len(read) == 2 and all(f is not None for f in read)
    gc.collect()
    # Nothing but this test's list refers to a file read: the matches keep none of its tables.
    assert all(len(gc.get_referrers(f)) == 1 for f in read)


@pytest.mark.parametrize("given", ['["a"]', "{ x = 1 }", "[[1], 2]"])
def test_an_id_that_is_a_list_or_a_table_is_reported_not_a_crash(make_site, given):
    # The well-formed path looks an id up only once it is known to be text.
    root = make_site({**el(), "matches/el/n.toml":
                      f'[[match]]\nid = {given}\nplayed = 2024-05-01\nplayers = [{EL_P0}, {EL_P1}]\n'})
    shown = [str(p) for p in problems_of(root)]
    assert any(s.startswith("matches/el/n.toml:2: ") and "id" in s for s in shown), shown
