"""`check --strict` and `build --strict` (names that look like another player's are problems) and
the stage lines on stderr (sitegen/commands/progress.py): shown on a terminal, with --progress; never in
a pipe, in CI or with --quiet."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tomllib

import pytest

from helpers import REPO, league_toml, lunaro_match, run_cli, tree_snapshot
from sitegen.commands.cli import main
from sitegen.load.names import toml_key
from sitegen.commands.progress import Progress, in_ci, wanted

ROSTER = '[players."Kestrel"]\nregion = "OCE"\naliases = ["k3str3l"]\n'


def duel_site(make_site, extra: str = "", *, roster: str = ROSTER):
    """Kestrel has 6 games against 'Ana Lucía' (2 games would make her rare: 6 keeps her known)."""
    history = "".join(lunaro_match(f"2024-01-{d:02d}T20:00:00Z", "Kestrel", 20, 0, "Ana Lucía", 10, 40, host=0)
                      for d in range(1, 7))
    return make_site({"matches/duel/league.toml": league_toml("lunaro", name="Duel"),
                      "matches/players.toml": roster,
                      "matches/duel/2024/01.toml": history + extra})


TYPO = lunaro_match("2024-02-01T20:00:00Z", "Kestrel", 20, 0, "Ana Lucia", 3, 40, host=0, id="typo")


# --- --strict ------------------------------------------------------------------------------------

def test_strict_check_makes_each_note_a_problem_with_the_fix(make_site, capsys):
    root = duel_site(make_site, TYPO)
    assert main(["check", "--root", str(root)]) == 0          # without --strict: a note, exit 0
    assert "note: " in capsys.readouterr().out
    assert main(["check", "--strict", "--root", str(root)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "matches/duel/2024/01.toml:28: match 'typo' (#7): players[1].name: 'Ana Lucia' plays for the first "
        "time; did you mean 'Ana Lucía' (6 games)? Correct the name, or, if 'Ana Lucia' really is a new "
        "player, list them in matches/players.toml: [players.\"Ana Lucia\"]",
        "sitegen: 1 problem found."]


def test_strict_check_without_notes_is_the_plain_verdict(make_site, capsys):
    root = duel_site(make_site)
    assert main(["check", "--strict", "--root", str(root)]) == 0
    assert capsys.readouterr() == ("sitegen: 1 leagues, 6 matches: all valid\n", "")


@pytest.mark.parametrize("roster", [
    ROSTER + '\n[players."Ana Lucia"]\n',                                   # a new player, listed
    ROSTER + '\n[players."Ana Lucía"]\naliases = ["Ana Lucia"]\n',          # the same player, by an alias
])
def test_listing_the_name_in_players_toml_silences_it(make_site, capsys, roster):
    root = duel_site(make_site, TYPO, roster=roster)
    assert main(["check", "--strict", "--root", str(root)]) == 0
    assert capsys.readouterr() == ("sitegen: 1 leagues, 7 matches: all valid\n", "")


def test_listing_a_new_player_does_not_move_the_note_onto_the_older_rare_one(make_site, capsys):
    """Both names rare: 'Ana Lucía' with 2 games, then 'Ana Lucia' new. Listing the new player
    says they are two players; the older name is not noted instead."""
    games = "".join(lunaro_match(f"2024-03-0{d}", "Kestrel", 20, 0, "Ana Lucía", 1, 10, host=0) for d in (1, 2))
    extra = games + lunaro_match("2024-03-05", "Kestrel", 20, 0, "Ana Lucia", 1, 10, host=0)
    root = make_site({"matches/duel/league.toml": league_toml("lunaro"), "matches/duel/a.toml": extra,
                      "matches/players.toml": ROSTER})
    assert main(["check", "--strict", "--root", str(root)]) == 1
    assert "'Ana Lucia' plays for the first time; did you mean 'Ana Lucía' (2 games)?" in capsys.readouterr().err
    (root / "matches/players.toml").write_text(ROSTER + '\n[players."Ana Lucia"]\n', encoding="utf-8")
    assert main(["check", "--strict", "--root", str(root)]) == 0
    assert capsys.readouterr().err == ""


def test_strict_problems_on_a_runner_are_error_annotations(make_site, capsys, monkeypatch):
    root = duel_site(make_site, TYPO)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(root.parent))
    assert main(["check", "--strict", "--root", str(root)]) == 1
    out = capsys.readouterr().out.splitlines()
    errors = [line for line in out if line.startswith("::error ")]
    assert errors == [f"::error file={root.name}/matches/duel/2024/01.toml,line=28,title=sitegen%3A match "
                      "'typo' (#7)%2C field players[1].name::'Ana Lucia' plays for the first time; did you mean "
                      "'Ana Lucía' (6 games)? Correct the name, or, if 'Ana Lucia' really is a new player, list "
                      "them in matches/players.toml: [players.\"Ana Lucia\"]"]
    assert not any(line.startswith("::warning") for line in out)


def test_strict_build_stops_before_writing_and_plain_build_goes_on(make_site, capsys, tmp_path):
    root = duel_site(make_site)
    (root / "matches/duel/2024/02.toml").write_text(
        lunaro_match("2024-02-02", "Kestrel", 20, 0, "kestrel", 1, 10, host=0), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["build", "--root", str(root), "--out", str(out)]) == 0    # a note is no problem
    assert capsys.readouterr().err == ""
    before = tree_snapshot(out)
    assert main(["build", "--strict", "--root", str(root), "--out", str(out)]) == 1
    got, err = capsys.readouterr()
    assert got == ""
    assert err.splitlines() == [
        "matches/duel/2024/02.toml:3: match #1 (2024-02-1): players[1].name: 'kestrel' plays for the first "
        "time; did you mean 'Kestrel' (7 games)? Correct the name, or, if 'kestrel' really is a new player, "
        "list them in matches/players.toml: [players.\"kestrel\"]",
        "sitegen: 1 problem found; the previous output was left untouched."]
    assert tree_snapshot(out) == before


def test_hostile_names_are_escaped_and_the_players_toml_key_reads_back(make_site, capsys):
    name = "ana\u202e lucía"         # a bidirectional override: the same name to a reader
    root = duel_site(make_site, lunaro_match("2024-02-01", "Kestrel", 20, 0, name, 1, 10, host=0))
    assert main(["check", "--strict", "--root", str(root)]) == 1
    line = capsys.readouterr().err.splitlines()[0]
    assert "\u202e" not in line
    assert line.endswith("players[1].name: 'ana\\u202e lucía' plays for the first time; did you mean "
                         "'Ana Lucía' (6 games)? Correct the name, or, if 'ana\\u202e lucía' really is a new "
                         "player, list them in matches/players.toml: [players.\"ana\\u202E lucía\"]")
    key = re.search(r"\[players\.(\".*\")\]$", line).group(1)
    assert tomllib.loads(f"[players.{key}]") == {"players": {name: {}}}
    hostile = 'Ana "Lu"\\ci\u202ea\x1b[31m\U000e0001'
    assert toml_key(hostile) == '"Ana \\"Lu\\"\\\\ci\\u202Ea\\u001B[31m\\U000E0001"'
    assert tomllib.loads(f"[players.{toml_key(hostile)}]") == {"players": {hostile: {}}}


def test_strict_is_a_bad_option_for_other_commands(capsys):
    with pytest.raises(SystemExit) as info:
        main(["serve", "--strict"])
    assert info.value.code == 2


# --- progress ------------------------------------------------------------------------------------

STAGES = [r"reading matches/…", r"checked 7 matches in 1 league", r"rating 1 league…",
          r"writing the data files…", r"rendering pages…", r"moving [\d,]+ files into .+…", r"done"]


def stage_lines(err: str) -> list[str]:
    lines = err.splitlines()
    for line in lines:
        assert re.match(r"sitegen: \[ *\d+\.\ds\] ", line), line
    return [line.split("] ", 1)[1] for line in lines]


def test_build_with_progress_says_each_stage_in_order(make_site, tmp_path):
    root = duel_site(make_site, TYPO)
    done = run_cli("build", "--progress", "--root", str(root), "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    stages = stage_lines(done.stderr)
    assert len(stages) == len(STAGES)
    for line, pattern in zip(stages, STAGES):
        assert re.fullmatch(pattern, line), (line, pattern)
    files = int(re.search(r"moving ([\d,]+) files", done.stderr).group(1).replace(",", ""))
    assert done.stdout == f"sitegen: built {files} files into {tmp_path / 'out'}\n"
    seconds = [float(s) for s in re.findall(r"\[ *(\d+\.\d)s\]", done.stderr)]
    assert seconds == sorted(seconds)


def test_check_with_progress_reads_and_checks_then_the_verdict_on_stdout(make_site):
    done = run_cli("check", "--progress", "--root", str(duel_site(make_site)))
    assert done.returncode == 0
    assert stage_lines(done.stderr) == ["reading matches/…", "checked 6 matches in 1 league"]
    assert done.stdout == "sitegen: 1 leagues, 6 matches: all valid\n"


def test_without_a_terminal_nothing_extra_is_printed(make_site, tmp_path):
    root = duel_site(make_site)
    out = tmp_path / "out"
    done = run_cli("build", "--root", str(root), "--out", str(out))
    assert done.returncode == 0 and done.stderr == ""
    assert re.fullmatch(rf"sitegen: built \d+ files into {re.escape(str(out))}\n", done.stdout)
    done = run_cli("check", "--root", str(root))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "sitegen: 1 leagues, 6 matches: all valid\n"


def test_progress_and_invalid_input_keep_the_problem_lines_whole(make_site, tmp_path):
    root = duel_site(make_site, lunaro_match("2024-03-01", "Kestrel", 30, 0, "Ana Lucía", 1, 10))
    done = run_cli("build", "--progress", "--root", str(root), "--out", str(tmp_path / "out"))
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert stage_lines("\n".join(lines[:1])) == ["reading matches/…"]
    assert lines[1].startswith("matches/duel/2024/01.toml:")
    assert lines[-1] == "sitegen: 1 problem found; the previous output was left untouched."


def run_on_a_terminal(*args: str, env_extra: dict[str, str]) -> tuple[int, str, str]:
    """Run sitegen with stderr on a pseudo-terminal (stdout a pipe): (exit code, stdout, stderr)."""
    import pty

    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(env_extra)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    leader, follower = pty.openpty()
    try:
        child = subprocess.Popen([sys.executable, "-m", "sitegen", *args], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=follower, env=env)
    finally:
        os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:           # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    out = child.stdout.read().decode("utf-8")
    child.stdout.close()
    code = child.wait(timeout=300)
    return code, out, b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminals as on Linux")
def test_on_a_terminal_the_stages_show_unless_ci_or_quiet(make_site, tmp_path):
    root = duel_site(make_site)
    out = str(tmp_path / "out")
    code, stdout, stderr = run_on_a_terminal("build", "--root", str(root), "--out", out, env_extra={})
    assert code == 0 and stdout.startswith("sitegen: built ")
    # The running count rewrites its line in place; the line ends with the final count.
    assert stderr.endswith("\n")
    final = [line.rsplit("\r", 1)[-1] for line in stderr[:-1].split("\n")]    # not splitlines: it splits at \r
    assert [line.split("] ", 1)[1] for line in final][:4] == [
        "reading matches/…", "checked 6 matches in 1 league", "rating 1 league…", "writing the data files…"]
    rendered = final[4].split("] ", 1)[1]
    files = int(re.search(r"moving ([\d,]+) files", stderr).group(1).replace(",", ""))
    assert rendered == f"rendering pages… {files:,} files"
    assert final[-1].endswith("] done")
    for extra, args in (({"CI": "true"}, ()), ({}, ("--quiet",))):
        code, stdout, stderr = run_on_a_terminal("build", *args, "--root", str(root), "--out", out,
                                                 env_extra=extra)
        assert (code, stderr) == (0, ""), (extra, args)
        assert stdout.startswith("sitegen: built ")


def test_wanted_and_ci():
    tty = io.StringIO()
    tty.isatty = lambda: True
    assert wanted(None, tty, {}) is True
    assert wanted(None, tty, {"CI": "true"}) is False and wanted(None, tty, {"CI": "1"}) is False
    assert wanted(None, tty, {"CI": "false"}) is True and wanted(None, tty, {"CI": ""}) is True
    assert wanted(None, io.StringIO(), {}) is False
    assert wanted(True, io.StringIO(), {"CI": "true"}) is True and wanted(False, tty, {}) is False
    assert in_ci({"CI": "True"}) and not in_ci({})


def test_a_disabled_progress_writes_nothing_but_still_vets_the_site():
    stream = io.StringIO()
    seen = []
    p = Progress(False, stream, after_check=seen.append)
    p.stage("x")
    p.checked(type("S", (), {"leagues": ()})())
    p.done()
    p.close()
    assert stream.getvalue() == "" and len(seen) == 1
