"""Hostile and unlucky input: each case once ended in a traceback, a hang, a silent read of a
file outside the site or a match rated twice. Now each is a problem line (exit 1) naming the
file, and where it applies the line, match and field; a bug is exit 3 with one line.

The output folder and `sitegen serve` have their own modules (test_output_safety.py,
test_serve.py); linear reporting is in test_report_scale.py.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

import pytest

from helpers import league_toml, looks_like_traceback, problems_of, run_cli, tree_snapshot, write_files
from sitegen.commands import cli
from sitegen.rating import limits
from sitegen.commands.build import build, check
from sitegen.load.problems import InvalidInput
from sitegen.rating.base import expected
from sitegen.rating.glicko2 import Glicko, expected_score, new_volatility

ELO = league_toml("elo", name="Duel")


def elo(played: str, a: str = "Ann", b: str = "Bo", *, extra: str = "") -> str:
    return (f"[[match]]\n{extra}played = {played}\n"
            f'players = [{{ name = "{a}", score = 1 }}, {{ name = "{b}", score = 0 }}]\n\n')


def site(tmp_path: Path, files: dict[str, str | bytes], name: str = "site") -> Path:
    return write_files(tmp_path / name, {"matches/duel/league.toml": ELO, **files})


def lines(root: Path) -> list[str]:
    return [str(p) for p in problems_of(root)]


# --- dates at the edges of what Python's datetime holds --------------------------------

@pytest.mark.parametrize("played", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00",
                                    "0001-01-02", "0999-12-31T23:59:59Z", "9999-01-01"])
def test_played_outside_the_range_is_a_problem_with_the_range(tmp_path, played):
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-01") + elo(played)})
    found = lines(root)
    assert len(found) == 1
    assert found[0].startswith("matches/duel/a.toml:6: match #2 (a-2): played: ")
    assert "from 1000-01-01 to 9998-12-31 (UTC)" in found[0]


def test_the_range_edges_themselves_build(tmp_path):
    """Year 1000 and 9998 build: the board's movement window, the career's year ranges and the
    ISO weeks all stay inside datetime's range (year 1 crashed the build after a clean check)."""
    root = site(tmp_path, {"matches/duel/a.toml": elo("1000-01-01T01:30:00+01:00") + elo("1000-01-02")
                           + elo("9998-12-31T23:59:59-00:00", "Bo", "Ann")})
    out = build(root, tmp_path / "out")
    assert "data/duel/standings.csv" in out.sizes


def test_glicko2_weeks_at_both_edges(tmp_path):
    root = write_files(tmp_path / "g", {
        "matches/w/league.toml": league_toml("glicko2", params='period = "week"'),
        "matches/w/a.toml": "".join(
            f'[[match]]\nplayed = {p}\nplayers = [{{ name = "A", score = 2 }}, {{ name = "B", score = 1 }}]\n'
            for p in ("1000-01-01", "9998-12-31"))})
    build(root, tmp_path / "out")
    changes = (tmp_path / "out/data/w/changes.csv").read_text(encoding="utf-8")
    assert "9998-W53" in changes and "1000-W01" in changes


# --- TOML that the parser cannot take ----------------------------------------------------

def test_nesting_500_deep_is_a_problem_not_a_recursion_error(tmp_path):
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-01") + "x = " + "[" * 600 + "]" * 600 + "\n"})
    assert lines(root) == [f"matches/duel/a.toml:5: is nested more than {limits.MAX_NESTING} levels deep "
                           "(lists or tables inside one another, or the parts of a dotted key): a match file "
                           "needs four; flatten it"]


def test_nesting_just_past_the_limit_is_refused_and_inside_it_is_read(tmp_path):
    deep = "x = " + "[" * (limits.MAX_NESTING) + "]" * (limits.MAX_NESTING) + "\n"
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-01") + deep})
    assert "nested more than" in lines(root)[0]
    fine = "x = " + "[" * 3 + "]" * 3 + "\n"
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-01") + fine}, name="fine")
    assert [(p.line, p.field) for p in problems_of(root)] == [(5, "x")]       # read: only the key is unknown


def test_a_100_kb_dotted_key_is_refused_before_parsing(tmp_path):
    """tomllib takes about a minute for this key (quadratic in its parts); it is never parsed."""
    key = "a" + ".a" * 50_000 + " = 1\n"
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-01") + key})
    start = time.process_time()
    found = lines(root)
    assert found == [f"matches/duel/a.toml:5: is nested more than {limits.MAX_NESTING} levels deep (lists or "
                     "tables inside one another, or the parts of a dotted key): a match file needs four; "
                     "flatten it"]
    # Not a timing assertion on the machine: the parser would have taken tens of seconds of CPU.
    assert time.process_time() - start < 30


def test_dots_in_strings_and_floats_are_not_key_parts(tmp_path):
    notes = "." * 100
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-01", extra=f'notes = "{notes}"\n')
                           + '[[match]]\nplayed = 2024-01-02\nnotes = """\n' + "a." * 60 + '\n"""\n'
                           'players = [{ name = "Ann", score = 0.5 }, { name = "Bo", score = 0.5 }]\n'})
    assert len(check(root).leagues[0].matches) == 2


def test_a_byte_order_mark_is_accepted(tmp_path):
    root = site(tmp_path, {"matches/duel/a.toml": b"\xef\xbb\xbf" + elo("2024-01-01").encode()})
    assert len(check(root).leagues[0].matches) == 1


def test_invalid_utf8_names_its_line(tmp_path):
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-01").encode() + b'# \xff\n'})
    assert lines(root) == ["matches/duel/a.toml:5: is not valid UTF-8 (byte 101); save the file as UTF-8"]


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 1000)
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-01") * 20})
    assert lines(root) == ["matches/duel/a.toml: is 0 MiB; a file may hold at most 0 MiB: split it into "
                           "several files"]


# --- folders the build cannot read ---------------------------------------------------------

def test_an_unreadable_league_folder_is_a_problem(tmp_path, monkeypatch):
    """PermissionError from listing a folder (simulated: the tests may run as root)."""
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-01"),
                           "matches/locked/league.toml": ELO, "matches/locked/x/a.toml": elo("2024-01-01")})
    real = os.scandir

    def scandir(path):
        if Path(path).name == "x":
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr("sitegen.load.files.os.scandir", scandir)
    assert lines(root) == ["matches/locked/x: cannot be read (permission denied): give the user running "
                           "sitegen read access, or move it out of the site"]


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root reads any folder")
def test_an_unreadable_league_folder_for_real(tmp_path):
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-01"), "matches/duel/x/b.toml": elo("2024-01-02")})
    (root / "matches/duel/x").chmod(0)
    try:
        result = run_cli("check", "--root", str(root))
    finally:
        (root / "matches/duel/x").chmod(0o755)
    assert result.returncode == 1 and "matches/duel/x: cannot be read (permission denied)" in result.stderr


# --- symbolic links and special files ------------------------------------------------------

@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_links_out_of_the_site_are_refused_and_never_read(tmp_path):
    secret = write_files(tmp_path / "home", {"secret.toml": elo("2024-01-01", "Secret", "Leak"),
                                             "notes.md": "# Private\n", "x.html": "private"})
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-02")})
    (root / "matches/duel/leak.toml").symlink_to(secret / "secret.toml")
    (root / "matches/duel/far").symlink_to(secret, target_is_directory=True)
    (root / "matches/elsewhere").symlink_to(secret, target_is_directory=True)
    (root / "content").mkdir()
    (root / "content/private.md").symlink_to(secret / "notes.md")
    (root / "templates").mkdir()
    (root / "templates/assets").symlink_to(secret, target_is_directory=True)
    outside = str(secret.resolve())
    assert lines(root) == [
        f"content/private.md: is a symbolic link to {outside}/notes.md, outside the site: sitegen reads only "
        "files inside the site's folder; copy the file in, or remove the link",
        f"matches/duel/far: is a symbolic link to {outside}, outside the site: sitegen reads only files inside "
        "the site's folder; copy the file in, or remove the link",
        f"matches/duel/leak.toml: is a symbolic link to {outside}/secret.toml, outside the site: sitegen reads "
        "only files inside the site's folder; copy the file in, or remove the link",
        f"matches/elsewhere: is a symbolic link to {outside}, outside the site: sitegen reads only files "
        "inside the site's folder; copy the file in, or remove the link",
        f"templates/assets: is a symbolic link to {outside}, outside the site: sitegen reads only files "
        "inside the site's folder; copy the file in, or remove the link",
    ]
    result = run_cli("build", "--root", str(root))
    assert result.returncode == 1 and not (root / "_site").exists()
    assert "Secret" not in result.stderr + result.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_links_inside_the_site_are_followed_and_a_loop_ends(tmp_path):
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-02"), "shared/b.toml": elo("2024-01-03")})
    (root / "matches/duel/b.toml").symlink_to(root / "shared/b.toml")
    (root / "matches/duel/loop").symlink_to(root / "matches/duel", target_is_directory=True)
    assert [m.id for m in check(root).leagues[0].matches] == ["a-1", "b-1"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_and_a_folder_named_toml_are_reported_not_skipped(tmp_path):
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-02"), "matches/duel/b.toml/c.toml": elo("2024-01-03")})
    os.mkfifo(root / "matches/duel/pipe.toml")
    os.mkfifo(root / "matches/duel/pipe")
    result = run_cli("check", "--root", str(root), timeout=60)     # reading a FIFO would block forever
    assert result.returncode == 1
    assert result.stderr.splitlines()[:3] == [
        "matches/duel/b.toml: is a folder, but its name ends in .toml: files named *.toml are read as input; "
        "rename the folder",
        "matches/duel/pipe: is a FIFO (named pipe), not a file: sitegen reads only regular files; remove it",
        "matches/duel/pipe.toml: is a FIFO (named pipe), not a file: sitegen reads only regular files; remove it",
    ]


# --- the same match twice -------------------------------------------------------------------

def test_the_same_match_pasted_twice_names_both_places(tmp_path):
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-01T20:00:00+01:00"),
                           "matches/duel/b.toml": elo("2024-01-02") + elo("2024-01-01T19:00:00Z", "Bo", "Ann")
                           + elo("2024-01-01T19:00:00Z")})
    assert lines(root) == [
        "matches/duel/b.toml:9: match #3 (b-3): the same match as 'a-1' at matches/duel/a.toml:1 (same played, "
        "players and results): remove the copy, or give both matches explicit ids if they really are two matches"]


def test_two_explicit_ids_are_two_matches_and_one_is_not_enough(tmp_path):
    both = elo("2024-01-01", extra='id = "r1"\n') + elo("2024-01-01", extra='id = "r2"\n')
    assert len(check(site(tmp_path, {"matches/duel/a.toml": both})).leagues[0].matches) == 2
    one = elo("2024-01-01", extra='id = "r1"\n') + elo("2024-01-01")
    assert len(lines(site(tmp_path, {"matches/duel/a.toml": one}, name="one"))) == 1


def test_a_different_result_or_time_is_another_match(tmp_path):
    other = elo("2024-01-01") + elo("2024-01-01", "Bo", "Ann") + elo("2024-01-01T00:00:01Z")
    assert len(check(site(tmp_path, {"matches/duel/a.toml": other})).leagues[0].matches) == 3


def test_a_lunaro_ping_is_not_a_result(tmp_path):
    def lu(ping: int) -> str:
        return ('[[match]]\nplayed = 2024-01-01\nplayers = [{ name = "A", goals = 20, ping = %d }, '
                '{ name = "B", goals = 3, ping = 40 }]\n' % ping)
    root = write_files(tmp_path / "lu", {"matches/lu/league.toml": league_toml("lunaro"),
                                         "matches/lu/a.toml": lu(10) + lu(90)})
    assert "the same match as 'a-1'" in lines(root)[0]


# --- limits ----------------------------------------------------------------------------------

def test_a_match_of_10000_players_is_refused_at_once(tmp_path):
    players = ", ".join(f'{{ name = "p{i}", place = {i + 1} }}' for i in range(10_000))
    root = write_files(tmp_path / "big", {
        "matches/br/league.toml": league_toml("placement"),
        "matches/br/a.toml": f"[[match]]\nplayed = 2024-01-01\nplayers = [{players}]\n"})
    assert lines(root) == ["matches/br/a.toml:3: match #1 (a-1): players: must list at most 1,000 players, got 10,000"]


def test_a_200_player_lobby_is_fine(tmp_path):
    players = ", ".join(f'{{ name = "p{i}", place = {i + 1} }}' for i in range(200))
    root = write_files(tmp_path / "lobby", {
        "matches/br/league.toml": league_toml("placement"),
        "matches/br/a.toml": f"[[match]]\nplayed = 2024-01-01\nplayers = [{players}]\n"})
    assert len(check(root).leagues[0].matches[0].players) == 200


@pytest.mark.parametrize("system, params, field, says", [
    ("elo", "k = 1e308", "params.k", "at most 10,000"),
    ("elo", "k = inf", "params.k", "at most 10,000"),
    ("elo", "initial = 1e300", "params.initial", "from -1,000,000 to 1,000,000"),
    ("lunaro", "ping_influence = 1e-300", "params.ping_influence", "from 1 to 1,000,000"),
    ("lunaro", "k_bands = [[0, 1e308]]", "params.k_bands", "at most 10,000"),
    ("placement", "floor = -1e308", "params.floor", "from -1,000,000 to 1,000,000"),
    ("glicko2", "tau = 1e308", "params.tau", "from 0.01 to 5"),
    ("glicko2", "epsilon = 1e-300", "params.epsilon", "1e-12"),
    ("glicko2", "initial_rd = nan", "params.initial_rd", "at most 1,000"),
    ("arena", "death_weight = 1e308", "params.death_weight", "from 0 to 1,000"),
])
def test_parameters_are_finite_and_in_range(tmp_path, system, params, field, says):
    root = write_files(tmp_path / "p", {"matches/x/league.toml": league_toml(system, params=params)})
    found = problems_of(root)
    assert [p.field for p in found] == [field]
    assert says in found[0].message


def test_huge_counts_are_refused(tmp_path):
    root = write_files(tmp_path / "lu", {"matches/lu/league.toml": league_toml("lunaro"),
                                         "matches/lu/a.toml": '[[match]]\nplayed = 2024-01-01\nplayers = ['
                                         '{ name = "A", goals = 20, ping = 100000000000000000000000 }, '
                                         '{ name = "B", goals = 3, ping = 40 }]\n'})
    assert [p.field for p in problems_of(root)] == ["players[0].ping"]


# --- math that runs away ----------------------------------------------------------------------

def test_logistic_expectations_never_overflow():
    assert expected(0, 1e6) == pytest.approx(0.0) and expected(1e6, 0) == 1.0
    assert expected(1500, 1700) == 1.0 / (1.0 + 10.0 ** 0.5)          # the seeds' form, to the bit
    far = Glicko(-1e6, 30, 0.06)
    assert expected_score(far, Glicko(1e6, 30, 0.06)) == pytest.approx(0.0)
    assert expected_score(Glicko(1e6, 30, 0.06), far) == 1.0


def test_volatility_iteration_survives_a_huge_delta():
    sigma = new_volatility(0.06, 0.3, 0.05, 1e200, tau=0.6, epsilon=1e-6)
    assert math.isfinite(sigma) or sigma == math.inf


def glicko_lobby(tmp_path: Path, period: str) -> Path:
    """100-player matches whose order flips every match: the volatility runs away (issue: OverflowError)."""
    tables = []
    for i in range(8):
        players = ", ".join(f'{{ name = "p{j}", score = {(100 - j) if i % 2 else j} }}' for j in range(100))
        tables.append(f'[[match]]\nid = "m{i}"\nplayed = 2024-01-0{i % 7 + 1}\nplayers = [{players}]\n')
    return write_files(tmp_path / period, {
        "matches/wvw/league.toml": league_toml("glicko2", params=f'period = "{period}"'),
        "matches/wvw/a.toml": "\n".join(tables)})


def test_glicko2_volatility_that_runs_away_names_the_league_and_match(tmp_path):
    root = glicko_lobby(tmp_path, "match")
    result = run_cli("build", "--root", str(root))
    assert result.returncode == 1, result.stderr
    assert not looks_like_traceback(result.stderr)
    first = result.stderr.splitlines()[0]
    assert first.startswith("matches/wvw/a.toml:")
    assert "league 'wvw'" in first and "leaves the finite numbers in match 'm" in first and "lower tau" in first
    assert not (root / "_site").exists()


def test_the_same_results_in_one_weekly_period_build(tmp_path):
    root = glicko_lobby(tmp_path, "week")        # 2024-01-01 to 07: one ISO week, one update
    build(root, tmp_path / "out")


# --- a bug is exit 3, one line ------------------------------------------------------------------

def test_an_internal_error_exits_3_with_one_line_and_the_debug_hint(tmp_path, monkeypatch, capsys):
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-01")})

    def broken(*args, **kwargs):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr("sitegen.commands.build.rated_league", broken)
    for command in (["build", "--root", str(root)], ["check", "--root", str(root)]):
        monkeypatch.delenv("SITEGEN_DEBUG", raising=False)
        code = cli.main(command)
        err = capsys.readouterr().err
        if command[0] == "check":
            assert code == 0
            continue
        assert code == 3
        assert err.splitlines() == ["sitegen: internal error (ZeroDivisionError: float division by zero): this is "
                                    "a bug in sitegen, not a problem in your files; rerun with SITEGEN_DEBUG=1 "
                                    "for the traceback"]
    monkeypatch.setenv("SITEGEN_DEBUG", "1")
    assert cli.main(["build", "--root", str(root)]) == 3
    err = capsys.readouterr().err
    assert looks_like_traceback(err) and "SITEGEN_DEBUG=1 for" not in err


@pytest.mark.parametrize("command", ["check", "build", "diff", "new-match"])
def test_every_command_exits_3_on_a_bug(tmp_path, monkeypatch, capsys, command):
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-01")})
    # The bug planted in both TOML readers: the compiled one reads a clean file first (load/fasttoml.py).
    monkeypatch.setattr("sitegen.load.site.tomllib.loads", lambda *a, **k: 1 / 0)
    monkeypatch.setattr("sitegen.load.site.fasttoml.loads", lambda *a, **k: 1 / 0)
    argv = {"check": ["check", "--root", str(root)], "build": ["build", "--root", str(root)],
            "diff": ["diff", "--root", str(root), "HEAD"], "new-match": ["new-match", "--root", str(root), "duel"]}
    code = cli.main(argv[command])
    err = capsys.readouterr().err
    if command == "diff" and code == 2:          # not a git repository: refused before reading
        pytest.skip("diff needs a repository; its reading is the check's")
    assert code == 3, err
    assert "internal error (ZeroDivisionError" in err and not looks_like_traceback(err)


def test_invalid_input_leaves_a_published_site_untouched(tmp_path):
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-01")})
    out = tmp_path / "out"
    build(root, out)
    before = tree_snapshot(out)
    (root / "matches/duel/a.toml").write_text(elo("0001-01-01T00:00:00+01:00"), encoding="utf-8")
    with pytest.raises(InvalidInput):
        build(root, out)
    assert tree_snapshot(out) == before


def test_new_match_refuses_a_played_outside_the_range(tmp_path, capsys):
    root = site(tmp_path, {"matches/duel/a.toml": elo("2024-01-01")})
    code = cli.main(["new-match", "--root", str(root), "duel", "--played", "0001-01-01T00:00:00+01:00"])
    err = capsys.readouterr().err
    assert code == 2 and "from 1000-01-01 to 9998-12-31 (UTC)" in err and not looks_like_traceback(err)


def test_serve_refuses_a_port_out_of_range_as_a_bad_command_line(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["serve", "--port", "99999"])
    assert info.value.code == 2 and "not a port" in capsys.readouterr().err


@pytest.mark.parametrize("description, says", [
    ("[" * 5000, "brackets [ ] nested more than 32 deep"),       # quadratic in Python-Markdown
    ("- " * 1000 + "x", "nested more than 32 levels deep"),       # one list inside another, a RecursionError
    (">" * 2000, "nested more than 32 levels deep"),
])
def test_a_description_nested_too_deep_is_a_problem(tmp_path, description, says):
    root = write_files(tmp_path / "d", {"matches/x/league.toml": f'name = "X"\nsystem = "elo"\n'
                                                                 f'description = "{description}"\n'})
    found = problems_of(root)
    assert [p.field for p in found] == ["description"] and says in found[0].message


def test_a_league_toml_nested_too_deep_on_its_system_line(tmp_path):
    root = write_files(tmp_path / "s", {"matches/x/league.toml": "system = " + "[" * 1000 + "]" * 1000 + "\n"})
    result = run_cli("check", "--root", str(root))
    assert result.returncode == 1 and "nested more than 32 levels deep" in result.stderr
