"""`sitegen new-match`: a [[match]] table per system, appended safely; the curators' guide's examples."""

from __future__ import annotations

import re
import shlex
import tomllib
import unicodedata
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from helpers import REPO, league_data, league_toml, looks_like_traceback, problems_of, rows_of, run_cli
from sitegen.commands.build import check
from sitegen.commands.cli import main
from sitegen.commands.newmatch import parse_played, run
from sitegen.load.tomlwrite import string as toml_string

# One league of each system, each with a match already, and a player with a former name.
SYSTEMS = {"duels": "lunaro", "battles": "elo", "royale": "placement", "worlds": "glicko2", "arena": "arena"}
SITE = {
    **{f"matches/{slug}/league.toml": league_toml(system) for slug, system in SYSTEMS.items()},
    "matches/players.toml": '[players."Kestrel"]\naliases = ["k3str3l"]\n',
    "matches/duels/2024/01.toml": ('[[match]]\nplayed = 2024-01-05T20:00:00Z\nplayers = [\n'
                                   '  { name = "Kestrel", goals = 20, ping = 0, host = true },\n'
                                   '  { name = "Ana", goals = 12, ping = 80 },\n]\n'),
    "matches/battles/2024/01.toml": ('[[match]]\nid = "opening"\nplayed = 2024-01-05\nplayers = [\n'
                                     '  { name = "Kestrel", score = 1 },\n  { name = "Ana", score = 0 },\n]\n'),
    "matches/royale/2024/01.toml": ('[[match]]\nplayed = 2024-01-05T20:00:00Z\nplayers = [\n'
                                    '  { name = "Kestrel", place = 1 },\n  { name = "Ana", place = 2 },\n'
                                    '  { name = "Sol", place = 3 },\n]\n'),
    "matches/worlds/2024/01.toml": ('[[match]]\nplayed = 2024-01-05T20:00:00Z\nplayers = [\n'
                                    '  { name = "Kestrel", score = 300 },\n  { name = "Ana", score = 100 },\n]\n'),
    "matches/arena/2024/01.toml": ('[[match]]\nplayed = 2024-01-05T20:00:00Z\nscore_to_win = 25\nteams = [\n'
                                   '  { won = true, players = [{ name = "Kestrel", kills = 25, deaths = 3 }] },\n'
                                   '  { won = false, players = [{ name = "Ana", kills = 10, deaths = 9 }] },\n]\n'),
}

# What each system's match accepts (docs/curators), written out here rather than
# read from the code, so the printed shape is checked against the contract.
MATCH_KEYS = {
    "lunaro": {"players"}, "elo": {"players", "challenger"}, "placement": {"players", "platform"},
    "glicko2": {"players"}, "arena": {"score_to_win", "teams"},
}
REQUIRED = {"lunaro": {"players"}, "elo": {"players"}, "placement": {"players"}, "glicko2": {"players"},
            "arena": {"score_to_win", "teams"}}
PLAYER_KEYS = {
    "lunaro": {"name", "goals", "ping", "host"}, "elo": {"name", "score"}, "placement": {"name", "place"},
    "glicko2": {"name", "score"}, "arena": {"name", "kills", "deaths", "assists", "betrayals"},
}
NOW = datetime(2026, 3, 14, 20, 5, 37, 123456, tzinfo=timezone(timedelta(hours=1)))


@pytest.fixture
def site(make_site):
    return make_site(SITE)


def new_match(capsys, root: Path, league: str, *args: str, now: datetime | None = None):
    """Run `sitegen new-match` in-process: (exit code, stdout, stderr)."""
    if now is None:
        code = main(["new-match", league, "--root", str(root), *args])
    else:   # the same command with a fixed clock
        ns = parse_args(["new-match", league, "--root", str(root), *args])
        code = run(ns.root, ns.league, players=ns.player or [], teams=ns.team or [], played=ns.played,
                   match_id=ns.id, target=ns.append, now=now)
    out = capsys.readouterr()
    return code, out.out, out.err


def parse_args(argv):
    from sitegen.commands.cli import parser
    return parser().parse_args(argv)


def players_of(match: dict) -> list[dict]:
    if "teams" in match:
        return [p for team in match["teams"] for p in team["players"]]
    return match["players"]


def names_for(system: str) -> list[str]:
    return ["--player", "Kestrel", "--player", "Ana"] + (["--player", "Sol"] if system == "placement" else [])


# --- the printed table -------------------------------------------------------------------------

@pytest.mark.parametrize("slug,system", SYSTEMS.items())
@pytest.mark.parametrize("named", [False, True])
def test_printed_match_has_exactly_the_keys_of_its_system(capsys, site, slug, system, named):
    code, out, err = new_match(capsys, site, slug, "--played", "2024-02-01T19:00:00+01:00",
                               *(names_for(system) if named else []))
    assert code == 0, err
    parsed = tomllib.loads(out)
    assert list(parsed) == ["match"] and len(parsed["match"]) == 1
    match = parsed["match"][0]
    assert REQUIRED[system] | {"played"} <= set(match) <= MATCH_KEYS[system] | {"played", "id", "notes"}
    assert match["played"] == datetime(2024, 2, 1, 19, 0, tzinfo=timezone(timedelta(hours=1)))
    for player in players_of(match):
        assert set(player) == PLAYER_KEYS[system]
    expected = ["Kestrel", "Ana", "Sol"][: 3 if system == "placement" else 2] if named else ["", ""]
    assert [p["name"] for p in players_of(match)] == expected
    if system == "arena":
        assert [set(t) for t in match["teams"]] == [{"won", "players"}] * 2
        assert [t["won"] for t in match["teams"]] == [True, False]
        assert match["score_to_win"] == 50
    # Every line that sets a value the curator supplies carries a comment, or sits under one.
    for line in out.splitlines():
        if line.startswith(("played", "score_to_win", "won", "id")):
            assert "  # " in line, line
    assert out.endswith("]\n")


def test_lunaro_comments_say_what_is_allowed(capsys, site):
    code, out, _ = new_match(capsys, site, "duels", "--played", "2024-02-01")
    assert code == 0
    assert "#   goals: an integer 0..22\n" in out
    assert "#   ping: an integer from 0 to 1,000,000 (milliseconds)\n" in out
    assert "#   host: true or false (optional, default false)\n" in out
    assert "at most one player has 20 goals or more" in out
    assert "played = 2024-02-01" in out and "a date: taken as 00:00 UTC" in out


def test_played_defaults_to_now_in_utc_to_the_minute(capsys, site):
    code, out, _ = new_match(capsys, site, "battles", now=NOW)
    assert code == 0
    assert tomllib.loads(out)["match"][0]["played"] == datetime(2026, 3, 14, 19, 5, tzinfo=timezone.utc)
    assert "played = 2026-03-14T19:05:00Z" in out


@pytest.mark.parametrize("text,value,shown", [
    ("2024-05-01T19:30:00+02:00", datetime(2024, 5, 1, 19, 30, tzinfo=timezone(timedelta(hours=2))),
     "2024-05-01T19:30:00+02:00"),
    ("2024-05-01T17:30:00Z", datetime(2024, 5, 1, 17, 30, tzinfo=timezone.utc), "2024-05-01T17:30:00Z"),
    ("2024-05-01 19:30", datetime(2024, 5, 1, 19, 30), "2024-05-01T19:30:00"),
    ("2024-05-01", date(2024, 5, 1), "2024-05-01"),
])
def test_played_forms(capsys, site, text, value, shown):
    assert parse_played(text) == value
    code, out, _ = new_match(capsys, site, "duels", "--played", text)
    assert code == 0
    assert f"played = {shown} " in out
    assert tomllib.loads(out)["match"][0]["played"] == value


@pytest.mark.parametrize("bad", ["yesterday", "2024-13-01", "2024-05-01T25:00", "", "2024-05-01\nid = 'x'",
                                 "2024-05-01T19:30:00+02:00:30"])
def test_bad_played_is_a_usage_error(capsys, site, bad):
    code, out, err = new_match(capsys, site, "duels", "--played", bad)
    assert code == 2 and out == ""
    assert "--played" in err and "2024-05-01T19:30:00+02:00" in err


def test_unknown_league_lists_the_leagues(capsys, site):
    code, out, err = new_match(capsys, site, "dules")
    assert code == 2 and out == ""
    assert "unknown league 'dules'; leagues: arena, battles, duels, royale, worlds" in err


def test_league_with_unknown_system_is_invalid_input(capsys, make_site):
    root = make_site({"matches/x/league.toml": 'name = "X"\nsystem = "chess"\n'})
    code, out, err = new_match(capsys, root, "x")
    assert code == 1 and out == ""
    assert "matches/x/league.toml:2: system: unknown rating system 'chess'" in err


@pytest.mark.parametrize("slug,args,message", [
    ("duels", ["--player", "A", "--player", "B", "--player", "C"], "a lunaro match has exactly 2 players; got 3"),
    ("battles", ["--player", "A"], "an elo match has exactly 2 players; got 1"),
    ("royale", ["--player", "A"], "a placement match has at least 2 players; got 1"),
    ("arena", ["--team", "A", "B"], "an arena match has at least 2 teams; got 1"),
    ("duels", ["--team", "A", "--team", "B"], "--team is for team games"),
    ("arena", ["--team", "A", "--player", "B"], "not both"),
    ("duels", ["--player", "Kestrel", "--player", "k3str3l"], "'k3str3l' (an alias of 'Kestrel') is given twice"),
    ("royale", ["--player", "A", "--player", " "], "player name ' ' must be a non-empty name"),
    ("royale", ["--player", "A", "--player", "x" * 65], "must be at most 64 characters"),
    ("battles", ["--id", "opening"], "--id 'opening' is already used in matches/battles/2024/01.toml"),
    ("battles", ["--id", "no spaces"], "--id 'no spaces': use letters, digits"),
    ("duels", ["--id", "2024-01-1"], "already used in matches/duels/2024/01.toml"),   # a default id
])
def test_bad_arguments_are_usage_errors(capsys, site, slug, args, message):
    code, out, err = new_match(capsys, site, slug, *args)
    assert code == 2 and out == ""
    assert message in err


def test_alias_is_printed_as_the_canonical_name_with_a_note(capsys, site):
    code, out, err = new_match(capsys, site, "battles", "--player", "k3str3l", "--player", "Ana")
    assert code == 0
    assert [p["name"] for p in tomllib.loads(out)["match"][0]["players"]] == ["Kestrel", "Ana"]
    assert '  { name = "Kestrel", score = 0.5 },\n' in out and "k3str3l" not in out
    assert "'k3str3l' is an alias of 'Kestrel' in matches/players.toml" in err


def test_a_name_new_to_the_league_gets_a_note_with_the_closest_name(capsys, site):
    code, _, err = new_match(capsys, site, "battles", "--player", "Kestral", "--player", "Ana")
    assert code == 0
    assert err.strip() == ("sitegen: note: 'Kestral' has no match in battles yet; did you mean 'Kestrel'? "
                           "(fine for a new player)")


# --- TOML escaping -------------------------------------------------------------------------------

HOSTILE = ['Say "hi"', "back\\slash\\", "</script><b>x</b>", "{{ name }} | `tick`", "tab\there",
           "bell\u0007del\u007f", "Zoë 東京 🎮", "e\u0301 combined", "# not a comment", "'single' = 1"]


@pytest.mark.parametrize("name", HOSTILE)
def test_toml_string_round_trips(name):
    text = toml_string(name)
    assert "\n" not in text and "\u0007" not in text and "\u007f" not in text
    assert tomllib.loads(f"v = {text}")["v"] == name


def test_hostile_names_appended_pass_the_check(capsys, site):
    args = [a for n in HOSTILE for a in ("--player", n)]
    code, out, err = new_match(capsys, site, "royale", *args, "--played", "2024-02-01",
                               "--append", str(site / "matches/royale/2024/02.toml"))
    assert code == 0, err
    league = next(lg for lg in check(site).leagues if lg.config.slug == "royale")
    added = league.matches[-1]
    # Names are trimmed and NFC-normalised, as the validator reads them.
    assert added.players == tuple(unicodedata.normalize("NFC", n) for n in HOSTILE)
    assert added.id == "2024-02-1" and added.file == "matches/royale/2024/02.toml"


# --- appending -----------------------------------------------------------------------------------

@pytest.mark.parametrize("slug,system", SYSTEMS.items())
def test_appended_match_with_names_passes_the_check(capsys, site, slug, system):
    target = site / "matches" / slug / "2024" / "02.toml"
    code, out, err = new_match(capsys, site, slug, *names_for(system), "--played", "2024-02-01T19:00:00Z",
                               "--append", str(target))
    assert code == 0, err
    article = "an" if system in ("elo", "arena") else "a"
    assert out.splitlines()[0] == (f"sitegen: created matches/{slug}/2024/02.toml: {article} {system} match, "
                                   f"id 2024-02-1, lines 1-{target.read_text().count(chr(10))}")
    assert "then run: sitegen check --root " in out
    league = next(lg for lg in check(site).leagues if lg.config.slug == slug)
    assert [m.id for m in league.matches] == ["opening" if slug == "battles" else "2024-01-1", "2024-02-1"]
    assert league.matches[-1].players == tuple(["Kestrel", "Ana", "Sol"][: 3 if system == "placement" else 2])


def test_neutral_placeholders_rate_as_a_draw(capsys, make_site):
    """Two newcomers at the initial rating: the placeholder result moves neither."""
    files = {"matches/b/league.toml": league_toml("elo"), "matches/d/league.toml": league_toml("lunaro"),
             "matches/r/league.toml": league_toml("placement", params="initial = 1000")}
    root = make_site(files)
    for slug in "bdr":
        code, _, err = new_match(capsys, root, slug, "--player", "P", "--player", "Q", "--played", "2024-02-01",
                                 "--append", str(root / "matches" / slug / "m.toml"))
        assert code == 0, err
    elo = rows_of(league_data(root, "b"), "changes")
    assert [(r["player"], r["score"], r["rating_after"]) for r in elo] == [
        ("P", "0.500000", "1500.000000"), ("Q", "0.500000", "1500.000000")]
    lunaro = rows_of(league_data(root, "d"), "changes")
    assert [(r["score"], r["rating_after"]) for r in lunaro] == [("0.500000", "1500"), ("0.500000", "1500")]
    royale = rows_of(league_data(root, "r"), "changes")
    assert [(r["score"], r["expected"], r["rating_after"]) for r in royale] == [
        ("0.500000", "0.500000", "1000.000000")] * 2


@pytest.mark.parametrize("slug,system", SYSTEMS.items())
def test_without_names_the_check_names_the_empty_name_fields(capsys, site, slug, system):
    code, out, err = new_match(capsys, site, slug, "--played", "2024-02-01",
                               "--append", str(site / "matches" / slug / "2024" / "02.toml"))
    assert code == 0, err
    assert "Fill in the players' names and the numbers" in out
    problems = [str(p) for p in problems_of(site)]
    fields = (["teams[0].players[0].name", "teams[1].players[0].name"] if system == "arena"
              else ["players[0].name", "players[1].name"])
    # Each problem points at the line of its player's row.
    text = (site / "matches" / slug / "2024" / "02.toml").read_text().splitlines()
    rows = [n for n, line in enumerate(text, 1) if line.startswith('  { name = ""')]
    assert problems == [f"matches/{slug}/2024/02.toml:{row}: match #1 (2024-02-1): {field}: "
                        "must be a non-empty name" for row, field in zip(rows, fields)]


def test_append_to_a_file_without_a_trailing_newline(capsys, site):
    target = site / "matches/duels/2024/01.toml"
    target.write_bytes(target.read_bytes().rstrip(b"\n"))        # ends in "]"
    before = target.read_bytes()
    code, out, err = new_match(capsys, site, "duels", "--player", "Ana", "--player", "Kestrel",
                               "--played", "2024-01-06", "--append", str(target))
    assert code == 0, err
    text = target.read_bytes()
    lines = text.count(b"\n")
    assert text.startswith(before + b"\n\n[[match]]\n") and text.endswith(b"]\n")
    assert out.startswith("sitegen: appended to matches/duels/2024/01.toml: a lunaro match, id 2024-01-2, "
                          f"lines 8-{lines}")
    assert text.split(b"\n")[6:8] == [b"", b"[[match]]"]
    assert [m.id for m in check(site).leagues[2].matches] == ["2024-01-1", "2024-01-2"]


def test_append_to_a_file_with_a_comment_last_and_crlf_line_ends(capsys, site):
    target = site / "matches/battles/2024/01.toml"
    target.write_bytes(target.read_bytes().replace(b"\n", b"\r\n") + b"# more to come")
    code, _, err = new_match(capsys, site, "battles", "--player", "Ana", "--player", "Kestrel",
                             "--played", "2024-01-06", "--id", "rematch", "--append", str(target))
    assert code == 0, err
    text = target.read_bytes()
    assert b"# more to come\r\n\r\n[[match]]\r\n" in text
    assert b"\n" not in text.replace(b"\r\n", b"")                 # no bare LF added
    assert [m.id for m in check(site).leagues[1].matches] == ["opening", "rematch"]


def test_append_keeps_a_blank_line_between_matches_and_adds_no_more(capsys, site):
    target = site / "matches/worlds/2024/01.toml"
    target.write_text(target.read_text() + "\n")                  # already ends in a blank line
    before = target.read_text()
    code, _, _ = new_match(capsys, site, "worlds", "--player", "Ana", "--player", "Kestrel",
                           "--played", "2024-01-06", "--append", str(target))
    assert code == 0
    assert target.read_text().startswith(before + "[[match]]\n")


def test_append_relative_to_the_current_folder(capsys, site, monkeypatch):
    monkeypatch.chdir(site)
    code, out, err = new_match(capsys, site, "arena", "--team", "Kestrel", "Sol", "--team", "Ana",
                               "--played", "2024-02-01", "--append", "matches/arena/2024/02/cup.toml")
    assert code == 0, err
    assert out.endswith("then run: sitegen check\n")
    added = check(site).leagues[0].matches[-1]
    assert added.id == "2024-02-cup-1" and added.players == ("Kestrel", "Sol", "Ana")
    assert [e["team"] for e in added.entries] == [1, 1, 2]
    assert [e["won"] for e in added.entries] == [True, True, False]


@pytest.mark.parametrize("target,message", [
    ("matches/duels/x.toml", "it is outside matches/battles/, the folder of league 'battles'"),
    ("matches/players.toml", "it is outside matches/battles/"),
    ("matches/battles/../duels/x.toml", "it is outside matches/battles/"),
    ("elsewhere.toml", "it is outside matches/battles/"),
    ("2024/02.toml", "(did you mean matches/battles/2024/02.toml?)"),
    ("matches/battles/league.toml", "league.toml holds the league's settings"),
    ("matches/battles/2024/sub/league.toml", "league.toml holds the league's settings"),
    ("matches/battles/2024/02.txt", "match files end in .toml"),
    ("matches/battles/.drafts/02.toml", "starting with '.' are not read"),
    ("matches/battles/2024", "it is a folder"),
])
def test_append_refuses_files_the_league_does_not_read(capsys, site, monkeypatch, target, message):
    monkeypatch.chdir(site)
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    code, out, err = new_match(capsys, site, "battles", "--player", "Ana", "--player", "Kestrel",
                               "--append", target)
    assert code == 2 and out == ""
    assert f"refusing to append to {target}: " in err and message in err
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before


def test_append_outside_the_league_through_a_symlink_is_refused(capsys, site, tmp_path):
    (site / "matches/battles/out").symlink_to(tmp_path, target_is_directory=True)
    code, _, err = new_match(capsys, site, "battles", "--append", str(site / "matches/battles/out/x.toml"))
    assert code == 2 and "is outside matches/battles/" in err
    assert not (tmp_path / "x.toml").exists()


@pytest.mark.parametrize("content,message", [
    ("[[match]\nplayed = 2024-01-01\n", "matches/duels/2024/01.toml:1: invalid TOML: "),
    ('match = [{ played = 2024-01-01 }]\n', "matches/duels/2024/01.toml: a [[match]] table cannot be appended here"),
])
def test_append_leaves_a_file_it_cannot_extend_untouched(capsys, site, content, message):
    target = site / "matches/duels/2024/01.toml"
    target.write_text(content)
    code, out, err = new_match(capsys, site, "duels", "--append", str(target))
    assert code == 1 and out == ""
    assert message in err and "nothing was written" in err
    assert target.read_text() == content


def test_cli_end_to_end(site):
    """Through `python -m sitegen`: help, the printed table, no traceback on errors."""
    result = run_cli("new-match", "--help")
    assert result.returncode == 0 and "--team NAME [NAME ...]" in result.stdout
    result = run_cli("new-match", "duels", "--root", str(site), "--player=-dash", "--player", "Ana")
    assert result.returncode == 0, result.stderr
    assert tomllib.loads(result.stdout)["match"][0]["players"][0]["name"] == "-dash"
    result = run_cli("new-match", "nope", "--root", str(site))
    assert result.returncode == 2 and not looks_like_traceback(result.stderr)


# --- The curators' guide: every example checked, every shown output reproduced -------------------
#
# Each ```toml block of the guide starts with a `# matches/...` line naming its file. A block
# followed by a ```console block is a mistake shown on purpose: the console block's commands run
# on a site holding it and must print exactly what the guide shows. Every other block must pass
# `sitegen check` together with the rest, in a league of each system named as in the demo.

# The guide is a page of the built site (/docs/curators/), written in content/docs/curators.md.
GUIDE = REPO / "content" / "docs" / "curators.md"
GUIDE_LEAGUES = {"lunaro-duels": "lunaro", "ranked-battle": "elo", "battle-royale": "placement",
                 "world-vs-world": "glicko2", "arena": "arena"}
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)


def guide_blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(GUIDE.read_text(encoding="utf-8"))]


def block_path(text: str) -> str:
    first = text.splitlines()[0]
    assert re.fullmatch(r"# matches/\S+\.toml", first), f"a toml block must start with its file: {first!r}"
    return first[2:]


def guide_cases() -> tuple[dict[str, str], list[tuple[dict[str, str], str]]]:
    """(the valid files by path, [(files shown with a console block, the console block)])."""
    blocks = guide_blocks()
    valid: dict[str, str] = {}
    shown: list[tuple[dict[str, str], str]] = []
    for i, (lang, text) in enumerate(blocks):
        following = blocks[i + 1] if i + 1 < len(blocks) else ("", "")
        if lang == "toml" and following[0] == "console":
            shown.append(({block_path(text): text}, following[1]))
        elif lang == "toml":
            path = block_path(text)
            valid[path] = valid[path] + "\n" + text if path in valid else text
        elif lang == "console" and blocks[i - 1][0] != "toml":
            shown.append(({}, text))
    return valid, shown


def guide_site(make_site, files: dict[str, str]) -> Path:
    leagues = {f"matches/{slug}/league.toml": league_toml(system, name=slug)
               for slug, system in GUIDE_LEAGUES.items()}
    return make_site({**leagues, **files})


def test_guide_examples_pass_the_check_one_league_of_each_system(make_site):
    valid, shown = guide_cases()
    root = guide_site(make_site, valid)
    site = check(root)
    counts = {lg.config.slug: len(lg.matches) for lg in site.leagues}
    # One example at least for every system, and each of them checked.
    assert counts == {"arena": 2, "battle-royale": 1, "lunaro-duels": 2, "ranked-battle": 2, "world-vs-world": 1}
    assert "matches/players.toml" in valid


def test_guide_console_output_is_what_sitegen_prints(make_site, capsys, monkeypatch):
    valid, shown = guide_cases()
    messages: list[str] = []
    for n, (files, console) in enumerate(shown):
        root = guide_site(make_site, {**valid, **files})
        monkeypatch.chdir(root)
        expected: list[str] = []
        got: list[str] = []
        for chunk in re.split(r"^\$ ", console, flags=re.M)[1:]:
            command, *output = chunk.rstrip("\n").split("\n")
            argv = shlex.split(command)
            assert argv[0] == "sitegen" and argv[1] in ("check", "new-match"), command
            main(argv[1:])
            out = capsys.readouterr()
            expected += output
            got += (out.err + out.out).splitlines()
        assert got == expected, f"console block {n + 1} of {GUIDE.name}"
        assert expected, f"console block {n + 1} of {GUIDE.name} shows no output"
        messages.extend(expected)
    # The mistakes the guide promises to show, each with sitegen's own words.
    for kind in ("must be an integer", "is missing", "unknown key", "duplicate match id",
                 "is already listed as", "unknown parameter", "must be a non-empty name", "invalid TOML"):
        assert any(kind in line for line in messages), kind


def test_run_from_a_league_folder_says_where_to_run(capsys, site, monkeypatch):
    monkeypatch.chdir(site / "matches" / "duels")
    code, out, err = new_match(capsys, site / "matches" / "duels", "duels")
    assert code == 2 and out == ""
    assert err.strip().endswith("no matches/ folder in " + str((site / "matches" / "duels").resolve())
                                + "; run sitegen from the site's top folder (the one holding matches/) or pass "
                                "--root DIR; ../.. holds matches/ (--root ../..)")
