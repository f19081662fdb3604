"""The command line (docs/configuration): help, defaults, exit codes, the built-in theme."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import elo_match, league_toml, looks_like_traceback, lunaro_match, run_cli, tree_snapshot
from sitegen.commands.cli import main
from sitegen.load.content import BUILTIN
from sitegen.output.content import load_content
from sitegen.load.problems import Problems

ONLY_MATCHES = {
    "matches/duel/league.toml": league_toml("lunaro", name="Lunaro Duels"),
    "matches/duel/2024/week-01.toml": (lunaro_match("2024-01-01T19:00:00+01:00", "quonnz", 22, 0, "Yujas", 19, 180,
                                                    host=0)
                                       + lunaro_match("2024-01-02", "Yujas", 20, 40, "koza1brada", 3, 60)),
    "matches/ranked/league.toml": league_toml("elo", name="Ranked Battle"),
    "matches/ranked/m.toml": elo_match("2024-01-01", "p", 1, "q", 0),
}


# --- help ---------------------------------------------------------------------------------

def test_top_level_help(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: sitegen")
    for command in ("build", "check", "serve"):
        assert command in out


@pytest.mark.parametrize("command", ["build", "check", "serve"])
def test_command_help(capsys, command):
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: sitegen {command}")
    assert "--root" in out
    if command in ("build", "serve"):
        assert "--out" in out and "_site" in out


def test_help_through_python_m():
    result = run_cli("--help")
    assert result.returncode == 0
    assert "build" in result.stdout and "check" in result.stdout and "serve" in result.stdout


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("sitegen ")


def test_unknown_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["publish"])
    assert info.value.code not in (0, None)
    assert "usage:" in capsys.readouterr().err


# --- build ---------------------------------------------------------------------------------

def spec_pages() -> list:
    return [p for p in load_content(Path("/nonexistent-root"), [], Problems()) if p.path.startswith("spec/")]


def test_build_a_root_with_only_matches_uses_the_built_in_theme(make_site):
    root = make_site(ONLY_MATCHES)
    result = run_cli("build", cwd=root)          # --root defaults to the current folder
    assert result.returncode == 0, result.stderr
    assert not looks_like_traceback(result.stderr)
    out = root / "_site"                         # --out defaults to ROOT/_site
    assert (out / "index.html").is_file()
    assert (out / "assets" / "site.css").is_file()
    assert (out / "assets" / "site.css").stat().st_size > 0
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "Lunaro Duels" in html and "Ranked Battle" in html
    assert html.lstrip().lower().startswith("<!doctype html")
    for slug in ("duel", "ranked"):
        for table in ("standings", "changes", "matches"):
            assert (out / "data" / slug / f"{table}.csv").is_file()
    specs = sorted(BUILTIN.glob("spec/*.md"))
    assert [p.path for p in spec_pages()] == [f"spec/{f.name}" for f in specs]
    for page in spec_pages():
        assert (out / page.url / "index.html").is_file(), page.url
    assert sorted(p.name for p in root.iterdir()) == [".sitegen-cache", "_site", "matches"]


def test_built_in_spec_pages_exist():
    names = {f.stem for f in BUILTIN.glob("spec/*.md")}
    assert {"lunaro", "elo"} <= names


def test_build_with_root_and_out(make_site, tmp_path):
    root = make_site(ONLY_MATCHES)
    out = tmp_path / "elsewhere" / "public"
    result = run_cli("build", "--root", str(root), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert (out / "index.html").is_file()
    assert not (root / "_site").exists()


def test_build_in_process_exit_codes(make_site, capsys):
    root = make_site(ONLY_MATCHES)
    assert main(["build", "--root", str(root)]) == 0
    assert (root / "_site" / "data" / "duel" / "standings.csv").is_file()
    assert main(["check", "--root", str(root)]) == 0
    (root / "matches" / "duel" / "bad.toml").write_text("[[match]]\nplayed = 2024-01-09\n", encoding="utf-8")
    assert main(["check", "--root", str(root)]) == 1
    assert main(["build", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert "matches/duel/bad.toml" in err and "players" in err


def test_rebuild_replaces_the_output(make_site):
    root = make_site(ONLY_MATCHES)
    assert run_cli("build", "--root", str(root)).returncode == 0
    stale = root / "_site" / "stale.txt"
    stale.write_text("old", encoding="utf-8")
    (root / "matches" / "ranked" / "m.toml").write_text(
        elo_match("2024-01-01", "p", 1, "q", 0) + elo_match("2024-01-02", "p", 1, "r", 0), encoding="utf-8")
    assert run_cli("build", "--root", str(root)).returncode == 0
    assert not stale.exists()
    text = (root / "_site" / "data" / "ranked" / "matches.csv").read_text(encoding="utf-8")
    assert text.count("\n") == 3


def test_site_content_replaces_a_built_in_page(make_site):
    root = make_site({**ONLY_MATCHES, "content/spec/elo.md": "# Our Elo\n\nHouse rules: K is always 20.\n"})
    assert run_cli("build", "--root", str(root)).returncode == 0
    page = next(p for p in spec_pages() if p.path == "spec/elo.md")
    html = (root / "_site" / page.url / "index.html").read_text(encoding="utf-8")
    assert "House rules: K is always 20." in html


def test_check_exit_codes(make_site):
    root = make_site(ONLY_MATCHES)
    ok = run_cli("check", "--root", str(root))
    assert ok.returncode == 0 and ok.stderr == ""
    assert not (root / "_site").exists()
    (root / "matches" / "ranked" / "league.toml").write_text('name = "R"\nsystem = "elo"\nk = 5\n',
                                                              encoding="utf-8")
    bad = run_cli("check", "--root", str(root))
    assert bad.returncode == 1
    assert bad.stderr.startswith("matches/ranked/league.toml:3: k: unknown key")
    assert not looks_like_traceback(bad.stderr)


@pytest.mark.parametrize("out", [".", "..", "matches", "matches/duel", "matches/duel/site", "content", "templates"])
def test_build_refuses_an_output_folder_holding_the_sites_own_files(make_site, out):
    root = make_site({**ONLY_MATCHES, "content/about.md": "# About\n", "templates/.keep": ""})
    before = tree_snapshot(root)
    result = run_cli("build", "--root", str(root), "--out", out, cwd=root)
    assert result.returncode == 1
    assert "output folder" in result.stderr and not looks_like_traceback(result.stderr)
    assert tree_snapshot(root) == before
