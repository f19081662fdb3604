"""Names that look like another player's (sitegen/load/names.py): notes of `sitegen check`, never problems."""

from __future__ import annotations

import re
import shutil
import time
from collections import Counter
from pathlib import Path

import pytest

from helpers import REPO, league_toml, lunaro_match, run_cli
from sitegen.commands.build import check
from sitegen.commands.cli import main
from sitegen.load.names import Lookalikes, fold, notes, one_slip

KESTREL_ROSTER = '[players."Kestrel"]\nregion = "OCE"\naliases = ["k3str3l"]\n\n[players."Tōru"]\n'


def duel_site(make_site, extra: str, *, games: int = 6, roster: str = KESTREL_ROSTER) -> Path:
    """A lunaro league where Kestrel has played ``games`` games against Ana; ``extra`` ends the file."""
    history = "".join(lunaro_match(f"2024-01-{d:02d}T20:00:00Z", "Kestrel", 20, 0, "Ana Lucía", 10, 40, host=0)
                      for d in range(1, games + 1))
    return make_site({"matches/duel/league.toml": league_toml("lunaro", name="Duel"),
                      "matches/players.toml": roster,
                      "matches/duel/2024/01.toml": history + extra})


def lines_of(root: Path) -> list[str]:
    return [str(n) for n in notes(check(root))]


# --- what counts as the same name, or one slip away --------------------------------------------

def test_fold_ignores_case_accents_invisible_characters_spacing_and_width():
    assert fold("Tōru") == fold("Toru") == fold("TORU") == "toru"
    assert fold("  Ana \t Lucía ") == fold("ana lucia") == "ana lucia"
    assert fold("Kes\u200btrel") == fold("Ｋｅｓｔｒｅｌ") == "kestrel"       # zero-width space, full width
    assert fold("Łoś") == "los" and fold("Bjørn") == "bjorn" and fold("Straße") == "strasse"
    assert fold("김민준") == fold("김민준") and fold("김민준") != fold("김민주")


@pytest.mark.parametrize("a, b, slip", [
    ("kestral", "kestrel", True),          # a letter changed
    ("kestrl", "kestrel", True),           # dropped
    ("kesstrel", "kestrel", True),         # added
    ("kesterl", "kestrel", True),          # two neighbours swapped
    ("kestrel", "kestrel", False),         # the same is no slip
    ("kestarl", "kestrel", False),         # two letters changed
    ("tony crook", "tony brooks", False),  # a letter changed and one added
    ("kestrel", "kestrelxx", False),
    ("", "a", True),
])
def test_one_slip(a, b, slip):
    assert one_slip(a, b) is slip and one_slip(b, a) is slip


def test_suggestions_prefer_players_toml_then_most_games():
    look = Lookalikes(Counter({"Kestrel": 41, "kestrel": 1, "Kestral": 1, "Sol": 12, "sol": 1, "Kesrel": 4}))
    assert look.suggest("kestrel", 1).name == "Kestrel"
    assert look.suggest("Kestral", 1).name == "Kestrel"          # one slip from Kestrel (41) and Kesrel (4)
    assert look.suggest("Kestral", 2).name == "Kestrel"
    assert look.suggest("sol", 1).name == "Sol"                  # same to a reader: no length limit
    assert look.suggest("Kestrel", 41) is None                   # more than 2 games: never looked at
    # A slip counts only against a name with at least 3 games and 3 times as many.
    few = Lookalikes(Counter({"Kestrel": 5, "Kestral": 2}))
    assert few.suggest("Kestral", 2) is None and few.suggest("Kestral", 1).name == "Kestrel"
    assert Lookalikes(Counter({"Kestrel": 2, "Kestral": 1})).suggest("Kestral", 1) is None
    # Short names are one slip from too many others.
    assert Lookalikes(Counter({"Kait": 40, "Kai": 1})).suggest("Kai", 1) is None


# --- notes of `sitegen check` --------------------------------------------------------------------

MISSPELT = """\
[[match]]
played = 2024-02-01T20:00:00Z
players = [
  { name = "Ana Lucía", goals = 20, ping = 35 },
  { name = "kestrel", goals = 7, ping = 0, host = true },
]

[[match]]
id = "rematch"
played = 2024-02-02T20:00:00Z
players = [
  { name = "Kestral", goals = 20, ping = 0, host = true },
  { name = "Toru", goals = 12, ping = 50 },
]
"""


def test_check_notes_misspelt_names_on_their_lines(make_site):
    root = duel_site(make_site, MISSPELT)
    text = (root / "matches/duel/2024/01.toml").read_text(encoding="utf-8").splitlines()
    line = {name: next(i + 1 for i, t in enumerate(text) if f'"{name}"' in t)
            for name in ("kestrel", "Kestral", "Toru")}
    assert line == {"kestrel": 29, "Kestral": 36, "Toru": 37}
    assert lines_of(root) == [
        "matches/duel/2024/01.toml:29: match #7 (2024-01-7): players[1].name: 'kestrel' plays for the first "
        "time; did you mean 'Kestrel' (6 games)?",
        "matches/duel/2024/01.toml:36: match 'rematch' (#8): players[0].name: 'Kestral' plays for the first "
        "time; did you mean 'Kestrel' (6 games)?",
        # Tōru is in players.toml but has no game in this league yet.
        "matches/duel/2024/01.toml:37: match 'rematch' (#8): players[1].name: 'Toru' plays for the first "
        "time; did you mean 'Tōru' (in matches/players.toml)?",
    ]


def test_a_name_played_twice_is_noted_at_both_games_and_three_games_not_at_all(make_site):
    twice = "".join(lunaro_match(f"2024-02-0{d}", "Kestrel", 20, 0, "kestrel", 1, 10, id=f"k{d}") for d in (1, 2))
    assert lines_of(duel_site(make_site, twice)) == [
        f"matches/duel/2024/01.toml:{n}: match 'k{d}' (#{6 + d}): players[1].name: 'kestrel' has only 2 games "
        "in this league; did you mean 'Kestrel' (8 games)?" for d, n in ((1, 28), (2, 33))]
    thrice = twice + lunaro_match("2024-02-03", "Kestrel", 20, 0, "kestrel", 1, 10, id="k3")
    assert lines_of(duel_site(make_site, thrice)) == []


def test_alias_spelt_differently_suggests_the_alias_and_its_player(make_site):
    root = duel_site(make_site, lunaro_match("2024-02-01", "K3STR3L", 20, 0, "Ana Lucía", 1, 10))
    assert lines_of(root) == [
        "matches/duel/2024/01.toml:27: match #7 (2024-01-7): players[0].name: 'K3STR3L' plays for the first "
        "time; did you mean 'k3str3l', an alias of 'Kestrel' (6 games)?"]


def test_no_note_for_the_alias_itself_a_listed_player_spacing_or_distinct_names(make_site):
    extra = (lunaro_match("2024-02-01", "k3str3l", 20, 0, "Ana Lucía", 1, 10)      # an alias: Kestrel
             + lunaro_match("2024-02-02", "Tōru", 20, 0, "Ana Lucía", 1, 10)       # listed, first game
             + lunaro_match("2024-02-03", "  Kestrel ", 20, 0, "Ana Lucía", 1, 10)  # trimmed: Kestrel
             + lunaro_match("2024-02-04", "Kestrel Two", 20, 0, "Ana Lucía", 1, 10))
    assert lines_of(duel_site(make_site, extra)) == []


def test_two_new_names_the_same_to_a_reader_are_both_noted(make_site):
    extra = (lunaro_match("2024-02-01", "Mira", 20, 0, "Ana Lucía", 1, 10)
             + lunaro_match("2024-02-02", "MIRA", 20, 0, "Ana Lucía", 1, 10))
    assert [n.split(": ", 3)[3] for n in lines_of(duel_site(make_site, extra))] == [
        "'Mira' plays for the first time; did you mean 'MIRA' (1 game)?",
        "'MIRA' plays for the first time; did you mean 'Mira' (1 game)?"]


def test_arena_notes_name_the_team_and_player(make_site):
    games = "".join(f"""
[[match]]
played = 2024-05-0{d}T19:00:00Z
score_to_win = 25
teams = [
  {{ won = true, players = [{{ name = "Frag Queen", kills = 25, deaths = 3 }}] }},
  {{ won = false, players = [{{ name = "Needler Ned", kills = 10, deaths = 9 }}] }},
]
""" for d in range(1, 5))
    typo = """
[[match]]
played = 2024-05-09T19:00:00Z
score_to_win = 50

[[match.teams]]
won = true
players = [
  { name = "Needler Ned", kills = 21, deaths = 6 },
]

[[match.teams]]
won = false
players = [
  { name = "Beam Rifle Bo", kills = 4, deaths = 17 },
  { name = "Frag  queen", kills = 15, deaths = 9 },
]
"""
    root = make_site({"matches/arena/league.toml": league_toml("arena"), "matches/arena/s1.toml": games + typo})
    assert lines_of(root) == [
        "matches/arena/s1.toml:48: match #5 (s1-5): teams[1].players[1].name: 'Frag  queen' plays for the "
        "first time; did you mean 'Frag Queen' (4 games)?"]
    assert (root / "matches/arena/s1.toml").read_text().splitlines()[47].strip().startswith('{ name = "Frag  queen"')


def test_check_prints_notes_after_the_verdict_and_exits_0(make_site, capsys):
    root = duel_site(make_site, MISSPELT)
    assert main(["check", "--root", str(root)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[0] == "sitegen: 1 leagues, 8 matches: all valid"
    assert [line.split(": ")[1] for line in lines[1:4]] == ["matches/duel/2024/01.toml:29",
                                                            "matches/duel/2024/01.toml:36",
                                                            "matches/duel/2024/01.toml:37"]
    assert all(line.startswith("note: ") for line in lines[1:4])
    assert lines[4:] == ["sitegen: 3 notes: as written, each name is a player of its own (names are "
                         "case-sensitive); correct it if the other player is meant."]


def test_check_without_notes_prints_the_verdict_only(make_site, capsys):
    assert main(["check", "--root", str(duel_site(make_site, ""))]) == 0
    assert capsys.readouterr().out == "sitegen: 1 leagues, 6 matches: all valid\n"


def test_notes_on_a_runner_are_warnings_on_their_lines(make_site, capsys, monkeypatch):
    # A name holding everything a workflow command reacts to.
    hostile = "kestrel::error::x,%0A"
    root = duel_site(make_site, MISSPELT.replace('"kestrel"', '"KESTREL::error::x,%0A"').replace(
        '"Toru"', f'"{hostile}"'))
    for name in ("GITHUB_STEP_SUMMARY",):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(root.parent))
    assert main(["check", "--root", str(root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    # The verdict, then the notes between a stop and a resume of workflow commands, then the warnings.
    assert lines[0].endswith("all valid")
    token = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", lines[1]).group(1)
    assert lines[6] == f"::{token}::"
    assert [line.split(": ")[1] for line in lines[2:5]] == [f"matches/duel/2024/01.toml:{n}" for n in (29, 36, 37)]
    assert lines[5].startswith("sitegen: 3 notes: ")
    warnings = lines[7:]
    prefix = f"::warning file={root.name}/matches/duel/2024/01.toml"
    assert warnings[0] == (f"{prefix},line=29,title=sitegen%3A match #7 (2024-01-7)%2C field players[1].name::"
                           "'KESTREL::error::x,%250A' plays for the first time; did you mean "
                           "'kestrel::error::x,%250A' (1 game)?")
    assert warnings[1].startswith(f"{prefix},line=36,title=sitegen%3A match 'rematch' (#8)%2C field players[0]")
    assert warnings[2] == (f"{prefix},line=37,title=sitegen%3A match 'rematch' (#8)%2C field players[1].name::"
                           "'kestrel::error::x,%250A' plays for the first time; did you mean "
                           "'KESTREL::error::x,%250A' (1 game)?")
    assert len(warnings) == 3


# --- the demo's real names ---------------------------------------------------------------------

DEMO = REPO / "matches"


@pytest.mark.skipif(not (DEMO / "formula-1").is_dir(), reason="the demo's formula-1 league is not here")
def test_no_note_on_the_demo_drivers_one_slip_apart_or_two(tmp_path):
    """864 real drivers, 277 of them with one or two races: real names two slips apart
    (Tony Crook, Tony Brooks) are no note, and the whole league is looked at in well under a second."""
    shutil.copytree(DEMO / "formula-1", tmp_path / "matches" / "formula-1")
    site = check(tmp_path)
    games = Counter(n for m in site.leagues[0].matches for n in m.players)
    assert games["Tony Crook"] == 2 and games["Tony Brooks"] == 39 and games["Mike Sparken"] == 1
    start = time.perf_counter()
    assert notes(site) == []
    assert time.perf_counter() - start < 1.0
    # One slip from a driver of 39 races is noted.
    (tmp_path / "matches/formula-1/9999.toml").write_text(
        '[[match]]\nplayed = 2999-01-01\nplayers = [{ name = "Tony Brookes", place = 1 },'
        ' { name = "Tony Crook", place = 2 }]\n', encoding="utf-8")
    assert [str(n) for n in notes(check(tmp_path))] == [
        "matches/formula-1/9999.toml:3: match #1 (9999-1): players[0].name: 'Tony Brookes' plays for the first "
        "time; did you mean 'Tony Brooks' (39 games)?"]


def test_check_in_a_child_process_keeps_exit_0_and_problem_lines_on_stderr(make_site):
    root = duel_site(make_site, MISSPELT)
    result = run_cli("check", "--root", str(root))
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.count("\nnote: ") == 3
    bad = duel_site(make_site, MISSPELT + lunaro_match("2024-03-01", "Kestrel", 30, 0, "Ana Lucía", 1, 10))
    result = run_cli("check", "--root", str(bad))
    # Invalid input: the contract's lines only, no notes.
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.splitlines()[-1] == "sitegen: 1 problem found."
