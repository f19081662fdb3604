"""`sitegen diff REV_A [REV_B]`: the ratings at two revisions of a site repository, compared.

The elo leagues use k = 32 for both players (k_of = "each") and start at 1500, so
every number is checked by hand: a win between equals is worth exactly 16 points.
Where the arithmetic is not by hand (glicko2), the diff is checked against the
standings of two builds.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path

import markdown as python_markdown
import pytest

from gitrepo import commit_all, git, init_repo
from helpers import elo_match, league_data, league_toml, looks_like_traceback, rows_of, run_cli, write_files
from sitegen.commands.cli import main
from sitegen.commands.diff import InvalidRevisions, RevisionError, compare, diff_revisions
from sitegen.commands.diff_report import CSV_HEADER, MD_RESERVE, markdown, render
from sitegen.rating import Match
from sitegen.commands.revision import WORKING_TREE, Revision

ELO = league_toml("elo", name="Duel", params='k = 32\nk_of = "each"',
                  extra='tiers = [[0, "Bronze"], [1510, "Silver"]]\n')


def commit(repo: Path, files: dict[str, str | None], n: int, root: str = "") -> str:
    """Write (None: delete) files under repo/root and commit them as the n-th commit (fixed dates)."""
    base = repo / root if root else repo
    for rel, text in files.items():
        if text is None:
            (base / rel).unlink()
    write_files(base, {k: v for k, v in files.items() if v is not None})
    return commit_all(repo, f"commit {n}", when=f"2026-01-{n:02d}T12:00:00+00:00")


def diff_csv(root: Path, a: str, b: str | None = None) -> list[dict[str, str]]:
    text = render(diff_revisions(root, a, b), "csv")
    assert text.splitlines()[0] == ",".join(CSV_HEADER)
    return list(csv.DictReader(io.StringIO(text, newline="")))


def players_of(rows: list[dict[str, str]], league: str = "duel") -> list[tuple]:
    return [(r["key"], r["change"], r["rating_before"], r["rating_after"], r["delta"], r["rank_before"],
             r["rank_after"], r["tier_before"], r["tier_after"])
            for r in rows if r["kind"] == "player" and r["league"] == league]


def matches_of(rows: list[dict[str, str]], league: str = "duel") -> list[tuple]:
    return [(r["key"], r["change"], r["fields"]) for r in rows if r["kind"] == "match" and r["league"] == league]


@pytest.fixture
def two_commits(tmp_path):
    """Commit 1: a beats b, c beats d (a, c 1516; b, d 1484). Commit 2 adds a beats c."""
    repo = init_repo(tmp_path / "repo")
    m1 = elo_match("2024-01-01", "a", 1, "b", 0, id="m1")
    m2 = elo_match("2024-01-02", "c", 1, "d", 0, id="m2")
    first = commit(repo, {"matches/duel/league.toml": ELO, "matches/duel/2024.toml": m1 + m2}, 1)
    second = commit(repo, {"matches/duel/2024.toml": m1 + m2 + elo_match("2024-01-03", "a", 1, "c", 0, id="m3")},
                    2)
    return repo, first, second


# --- a match added, in all four formats ------------------------------------------------------

def test_added_match_csv_by_hand_and_against_two_builds(two_commits, tmp_path):
    repo, first, _ = two_commits
    rows = diff_csv(repo, "HEAD~1")
    assert matches_of(rows) == [("m3", "added", "")]
    m3 = next(r for r in rows if r["key"] == "m3")
    assert (m3["file_before"], m3["file_after"], m3["played_before"], m3["played_after"]) == \
        ("", "matches/duel/2024.toml", "", "2024-01-03T00:00:00Z")
    # a and c were level at 1516 (rank 1, Silver): a beats c, 16 points each way. b and d do not move.
    # c drops a place and a tier; the same rank 1 for a, listed for the rating.
    assert players_of(rows) == [
        ("c", "changed", "1516.000000", "1500.000000", "-16.000000", "1", "2", "Silver", "Bronze"),
        ("a", "changed", "1516.000000", "1532.000000", "16.000000", "1", "1", "Silver", "Silver"),
    ]
    assert [(r["games_before"], r["games_after"]) for r in rows if r["kind"] == "player"] == [("1", "2")] * 2

    # The same numbers as standings.csv of a build of each commit.
    before = {r["player"]: r for r in rows_of(league_data(export_commit(repo, first, tmp_path / "b1"), "duel"),
                                                "standings")}
    after = {r["player"]: r for r in rows_of(league_data(repo, "duel"), "standings")}
    for r in rows:
        if r["kind"] == "player":
            name = r["key"]
            assert (r["rating_before"], r["rank_before"]) == (before[name]["rating"], before[name]["rank"])
            assert (r["rating_after"], r["rank_after"]) == (after[name]["rating"], after[name]["rank"])
    unchanged = {n for n in after
                 if before[n]["rating"] == after[n]["rating"] and before[n]["rank"] == after[n]["rank"]}
    assert unchanged == {"b", "d"}


def export_commit(repo: Path, commit_sha: str, dest: Path) -> Path:
    """The commit's files as a plain folder, for an independent build."""
    dest.mkdir(parents=True)
    git(repo, "--work-tree", str(dest), "checkout", commit_sha, "--", ".")
    git(repo, "reset", "-q")           # the throw-away repository's index only
    return dest


def test_added_match_json(two_commits):
    repo, first, second = two_commits
    doc = json.loads(render(diff_revisions(repo, "HEAD~1", "HEAD"), "json"))
    assert list(doc) == ["before", "after", "totals", "leagues"]
    assert doc["before"] == {"revision": "HEAD~1", "commit": first, "label": f"HEAD~1 ({first[:7]})"}
    assert doc["after"] == {"revision": "HEAD", "commit": second, "label": f"HEAD ({second[:7]})"}
    assert doc["totals"] == {"leagues": {"added": 0, "removed": 0, "changed": 0},
                             "matches": {"added": 1, "removed": 0, "changed": 0, "moved": 0},
                             "players": {"changed": 2, "added": 0, "removed": 0}}
    [league] = doc["leagues"]
    assert list(league) == ["league", "name", "system", "change", "settings", "name_before", "name_after",
                            "system_before", "system_after", "counts", "matches", "players"]
    assert (league["league"], league["name"], league["system"], league["change"]) == ("duel", "Duel", "elo", None)
    assert league["matches"] == [{"id": "m3", "change": "added", "fields": [], "file_before": None,
                                  "file_after": "matches/duel/2024.toml", "played_before": None,
                                  "played_after": "2024-01-03T00:00:00Z", "result_before": None,
                                  "result_after": "a 1–0 c"}]
    assert league["players"] == [
        {"player": "c", "change": "changed", "rating_before": 1516.0, "rating_after": 1500.0, "delta": -16.0,
         "rank_before": 1, "rank_after": 2, "tier_before": "Silver", "tier_after": "Bronze",
         "games_before": 1, "games_after": 2},
        {"player": "a", "change": "changed", "rating_before": 1516.0, "rating_after": 1532.0, "delta": 16.0,
         "rank_before": 1, "rank_after": 1, "tier_before": "Silver", "tier_after": "Silver",
         "games_before": 1, "games_after": 2},
    ]


def test_added_match_text_and_markdown(two_commits):
    repo, first, second = two_commits
    diff = diff_revisions(repo, "HEAD~1")
    out = render(diff, "text")
    lines = out.splitlines()
    assert lines[0] == f"Ratings at HEAD~1 ({first[:7]}) -> the working tree"
    assert lines[1] == "Total: 1 match added; 2 players changed."
    assert "== duel: Duel (elo)" in lines
    assert re.search(r"^  \+  m3 +added +2024-01-03 00:00 UTC +a 1–0 c +matches/duel/2024\.toml$", out, re.M)
    assert re.search(r"^  ~  c +1516\.00 -> 1500\.00 +-16\.00 +1 -> 2 +Silver -> Bronze$", out, re.M)
    assert re.search(r"^  ~  a +1516\.00 -> 1532\.00 +\+16\.00 +1 +Silver$", out, re.M)
    assert not re.search(r"^  ~  [bd] ", out, re.M)

    md = render(diff, "markdown")
    assert md.startswith(f"## Ratings: `HEAD~1` ({first[:7]}) → the working tree\n")
    assert "**Total:** 1 match added; 2 players changed." in md
    assert "### Duel (`duel`, elo)" in md
    assert "| m3 | added | 2024-01-03 00:00 UTC | a 1–0 c | matches/duel/2024.toml |" in md
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    assert "| c | 1516.00 → 1500.00 | -16.00 | 1 → 2 | Silver → Bronze |" in rows
    assert "| a | 1516.00 → 1532.00 | +16.00 | 1 | Silver |" in rows
    assert len(rows) == 2 + 1 + 2          # two header rows, one match, two players
    # A GitHub job summary renders it: two tables, every cell as written.
    html = python_markdown.markdown(md, extensions=["tables"])
    assert html.count("<table>") == 2 and "<td>1516.00 → 1500.00</td>" in html


def test_cli_formats_and_exit_code(two_commits):
    repo, _, _ = two_commits
    result = run_cli("diff", "HEAD~1", "HEAD", "--root", str(repo), "--format", "csv")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout, newline="")))
    assert [(r["kind"], r["key"], r["delta"]) for r in rows] == [("match", "m3", ""), ("player", "c", "-16.000000"),
                                                                  ("player", "a", "16.000000")]
    assert result.stderr == ""


# --- editing history: the ripple ------------------------------------------------------------------

def test_editing_an_old_match_ripples_through_later_matches(tmp_path):
    repo = init_repo(tmp_path / "repo")
    m = [elo_match("2024-01-01", "a", 1, "b", 0, id="m1"),   # a 1516, b 1484
         elo_match("2024-01-02", "a", 1, "c", 0, id="m2"),   # c meets a: depends on m1
         elo_match("2024-01-03", "d", 1, "e", 0, id="m3")]   # d, e: never meet a, b or c
    commit(repo, {"matches/duel/league.toml": ELO, "matches/duel/old.toml": m[0],
                  "matches/duel/new.toml": m[1] + m[2]}, 1)
    # The old result is corrected: b won m1.
    commit(repo, {"matches/duel/old.toml": elo_match("2024-01-01", "a", 0, "b", 1, id="m1")}, 2)
    rows = diff_csv(repo, "HEAD~1", "HEAD")
    assert matches_of(rows) == [("m1", "changed", "players.score")]
    # Before: a 1516 beats c 1500: E = 1/(1+10^(-16/400)) = 0.523010, a +32 * 0.476990 = +15.263693.
    # After: a 1484 beats c 1500: E = 0.476990, a +32 * 0.523010 = +16.736307 (c loses as much).
    assert players_of(rows) == [
        ("b", "changed", "1484.000000", "1516.000000", "32.000000", "4", "1", "Bronze", "Silver"),
        ("a", "changed", "1531.263693", "1500.736307", "-30.527386", "1", "3", "Silver", "Bronze"),
        ("c", "changed", "1484.736307", "1483.263693", "-1.472614", "3", "5", "Bronze", "Bronze"),
        # d did not play m1 or m2 and keeps 1516; b joins d at the top: rank 2 -> 1.
        ("d", "changed", "1516.000000", "1516.000000", "0.000000", "2", "1", "Silver", "Silver"),
    ]
    # e (1484 throughout, rank 4 before and after) is not listed.
    assert "e" not in {r["key"] for r in rows}


def test_removing_a_match(two_commits):
    repo, _, _ = two_commits
    m1 = elo_match("2024-01-01", "a", 1, "b", 0, id="m1")
    commit(repo, {"matches/duel/2024.toml": m1 + elo_match("2024-01-03", "a", 1, "c", 0, id="m3")}, 3)
    rows = diff_csv(repo, "HEAD~1")
    assert matches_of(rows) == [("m2", "removed", "")]
    m2 = next(r for r in rows if r["key"] == "m2")
    assert (m2["file_before"], m2["file_after"], m2["played_before"]) == ("matches/duel/2024.toml", "",
                                                                          "2024-01-02T00:00:00Z")
    # Without m2, d is gone and c meets a as a newcomer at 1500: a +15.263693, c -15.263693.
    # b keeps 1484 and rank 3: not listed.
    assert players_of(rows) == [
        ("c", "changed", "1500.000000", "1484.736307", "-15.263693", "2", "2", "Bronze", "Bronze"),
        ("a", "changed", "1532.000000", "1531.263693", "-0.736307", "1", "1", "Silver", "Silver"),
        ("d", "removed", "1484.000000", "", "", "3", "", "Bronze", ""),
    ]


def test_rank_only_changes_of_players_not_in_the_change(tmp_path):
    repo = init_repo(tmp_path / "repo")
    m = elo_match("2024-01-01", "a", 1, "b", 0, id="m1") + elo_match("2024-01-02", "c", 0.5, "d", 0.5, id="m2")
    commit(repo, {"matches/duel/league.toml": ELO, "matches/duel/2024.toml": m}, 1)
    # Newcomers e and f: e ties a at the top, and c, d, b each drop a place without playing.
    commit(repo, {"matches/duel/more.toml": elo_match("2024-01-03", "e", 1, "f", 0, id="m3")}, 2)
    rows = diff_csv(repo, "HEAD~1", "HEAD")
    assert players_of(rows) == [
        ("b", "changed", "1484.000000", "1484.000000", "0.000000", "4", "5", "Bronze", "Bronze"),
        ("c", "changed", "1500.000000", "1500.000000", "0.000000", "2", "3", "Bronze", "Bronze"),
        ("d", "changed", "1500.000000", "1500.000000", "0.000000", "2", "3", "Bronze", "Bronze"),
        ("e", "added", "", "1516.000000", "", "", "1", "", "Silver"),
        ("f", "added", "", "1484.000000", "", "", "5", "", "Bronze"),
    ]
    # Text: the new players in the table, marked new; the rank-only moves after it, in one short
    # block as the leaderboard now lists them.
    diff = diff_revisions(repo, "HEAD~1", "HEAD")
    out = render(diff, "text")
    assert out.split("== duel: Duel (elo)\n")[1] == (
        "1 match added\n"
        "  +  m3  added  2024-01-03 00:00 UTC  e 1–0 f  matches/duel/more.toml\n"
        "3 players changed, 2 added\n"
        "     player  rating        delta  rank    tier         note\n"
        "  +  e       - -> 1516.00         - -> 1  - -> Silver  new player\n"
        "  +  f       - -> 1484.00         - -> 5  - -> Bronze  new player\n"
        "3 players moved only in rank, rating unchanged:\n"
        "  = c 2 -> 3, d 2 -> 3, b 4 -> 5\n")
    # Markdown: the new players in the table, the rank-only moves folded in their own block.
    md = render(diff, "markdown")
    assert md.split("**Players:** 3 players changed, 2 added\n")[1] == (
        "\n| Match | Change | Played | Players and result | File |\n|---|---|---|---|---|\n"
        "| m3 | added | 2024-01-03 00:00 UTC | e 1–0 f | matches/duel/more.toml |\n\n"
        "| Player | Rating | Δ | Rank | Tier | Note |\n|---|---|---|---|---|---|\n"
        "| e | - → 1516.00 |  | - → 1 | - → Silver | **new player** |\n"
        "| f | - → 1484.00 |  | - → 5 | - → Bronze | **new player** |\n\n"
        "<details><summary>3 players moved only in rank (rating unchanged)</summary>\n\n"
        "| Player | Rating | Rank | Tier |\n|---|---|---|---|\n"
        "| c | 1500.00 | 2 → 3 | Bronze |\n| d | 1500.00 | 2 → 3 | Bronze |\n| b | 1484.00 | 4 → 5 | Bronze |\n\n"
        "</details>\n")
    html = python_markdown.markdown(md, extensions=["tables"])
    assert "<td><strong>new player</strong></td>" in html
    cmarkgfm = pytest.importorskip("cmarkgfm", reason="cmarkgfm (GitHub's Markdown parser) is not installed")
    from cmarkgfm.cmark import Options

    html = cmarkgfm.github_flavored_markdown_to_html(md, options=Options.CMARK_OPT_UNSAFE)
    # GitHub reads the table inside <details> too (it follows a blank line).
    assert html.count("<table>") == 3 and html.count("<tr>") == 2 + 3 + 4
    assert "<summary>3 players moved only in rank (rating unchanged)</summary>" in html


def test_tier_change_from_league_toml_alone(two_commits):
    repo, _, _ = two_commits
    # After commit 2: a 1532, c 1500, b and d 1484. Silver now starts at 1490.
    commit(repo, {"matches/duel/league.toml": ELO.replace("1510", "1490")}, 3)
    rows = diff_csv(repo, "HEAD~1")
    assert [(r["kind"], r["key"], r["change"], r["fields"]) for r in rows if r["kind"] == "league"] == \
        [("league", "duel", "changed", "tiers")]
    assert matches_of(rows) == []
    assert players_of(rows) == [
        ("c", "changed", "1500.000000", "1500.000000", "0.000000", "2", "2", "Bronze", "Silver")]


# --- other systems ---------------------------------------------------------------------------------

def arena_game(played: str, id: str, winner: str, loser: str) -> str:
    """A free-for-all to 25 where nobody scored: raw 0, so a game rating of exactly 1000 for
    the winner and 0.96 * 1000 = 960 for the loser."""
    return (f'[[match]]\nid = "{id}"\nplayed = {played}\nscore_to_win = 25\nteams = [\n'
            f'  {{ won = true, players = [{{ name = "{winner}", kills = 0, deaths = 0 }}] }},\n'
            f'  {{ won = false, players = [{{ name = "{loser}", kills = 0, deaths = 0 }}] }},\n]\n\n')


def glicko_match(played: str, id: str, a: str, sa: int, b: str, sb: int) -> str:
    return (f'[[match]]\nid = "{id}"\nplayed = {played}\n'
            f'players = [{{ name = "{a}", score = {sa} }}, {{ name = "{b}", score = {sb} }}]\n\n')


def test_arena_and_glicko2_leagues(tmp_path):
    repo = init_repo(tmp_path / "repo")
    glicko = league_toml("glicko2", name="Worlds", params='period = "match"')
    g1 = glicko_match("2024-01-01", "g1", "north", 300, "south", 100)
    commit(repo, {"matches/halo/league.toml": league_toml("arena", name="Halo"),
                  "matches/halo/games.toml": arena_game("2024-01-01", "h1", "x", "y"),
                  "matches/worlds/league.toml": glicko, "matches/worlds/w.toml": g1}, 1)
    before = {r["player"]: r for r in rows_of(league_data(repo, "worlds"), "standings")}
    commit(repo, {"matches/halo/games.toml": arena_game("2024-01-01", "h1", "x", "y")
                  + arena_game("2024-01-02", "h2", "y", "x"),
                  "matches/worlds/w.toml": g1 + glicko_match("2024-01-02", "g2", "south", 250, "west", 50)}, 2)
    after = {r["player"]: r for r in rows_of(league_data(repo, "worlds"), "standings")}
    rows = diff_csv(repo, "HEAD~1", "HEAD")
    assert [r["league"] for r in rows] == ["halo"] * 3 + ["worlds"] * 3
    # Arena: x 1000 then 960, y 960 then 1000: both average 980 and share rank 1.
    assert matches_of(rows, "halo") == [("h2", "added", "")]
    assert players_of(rows, "halo") == [
        ("y", "changed", "960.000000", "980.000000", "20.000000", "2", "1", "", ""),
        ("x", "changed", "1000.000000", "980.000000", "-20.000000", "1", "1", "", ""),
    ]
    # Glicko-2: every number as the two builds' standings.csv have it.
    worlds = {r["key"]: r for r in rows if r["league"] == "worlds" and r["kind"] == "player"}
    # north sits out g2: its rating and rank stay (only its RD grows), so it is not listed.
    assert set(worlds) == {"south", "west"}
    assert (before["north"]["rating"], before["north"]["rank"]) == (after["north"]["rating"], after["north"]["rank"])
    for name, r in worlds.items():
        assert r["rating_after"] == after[name]["rating"] and r["rank_after"] == after[name]["rank"]
        if name in before:
            assert r["rating_before"] == before[name]["rating"]
            assert float(r["delta"]) == pytest.approx(float(after[name]["rating"]) - float(before[name]["rating"]),
                                                      abs=2e-6)
    assert worlds["west"]["change"] == "added" and float(worlds["south"]["delta"]) > 0


def test_lunaro_ratings_are_whole_numbers(tmp_path):
    from helpers import lunaro_match

    repo = init_repo(tmp_path / "repo")
    league = league_toml("lunaro", name="Lunaro")
    m1 = lunaro_match("2024-01-01", "p", 10, 0, "q", 10, 0, host=0)
    commit(repo, {"matches/lun/league.toml": league, "matches/lun/m.toml": m1}, 1)
    # p wins 20-0 at equal ability: S = 1, E = 0.5, K = 50: +25 and -25.
    commit(repo, {"matches/lun/m.toml": m1 + lunaro_match("2024-01-02", "p", 20, 0, "q", 0, 0, host=0)}, 2)
    rows = diff_csv(repo, "HEAD~1", "HEAD")
    # The same 25 points each way; q also loses a place, so q comes first.
    assert players_of(rows, "lun") == [("q", "changed", "1500", "1475", "-25", "1", "2", "", ""),
                                       ("p", "changed", "1500", "1525", "25", "1", "1", "", "")]
    doc = json.loads(render(diff_revisions(repo, "HEAD~1", "HEAD"), "json"))
    assert doc["leagues"][0]["players"][1]["rating_after"] == 1525
    assert isinstance(doc["leagues"][0]["players"][1]["delta"], int)
    assert re.search(r"^  ~  p +1500 -> 1525 +\+25  1$", render(diff_revisions(repo, "HEAD~1", "HEAD"), "text"), re.M)


# --- which files: working tree, explicit revisions, a subfolder ---------------------------------------

def test_working_tree_holds_uncommitted_and_untracked_files(two_commits):
    repo, first, second = two_commits
    m1 = elo_match("2024-01-01", "a", 1, "b", 0, id="m1")
    m2 = elo_match("2024-01-02", "c", 1, "d", 0, id="m2")
    # Uncommitted: m3 becomes a draw. Untracked: a new file with m4.
    write_files(repo, {"matches/duel/2024.toml": m1 + m2 + elo_match("2024-01-03", "a", 0.5, "c", 0.5, id="m3"),
                       "matches/duel/extra.toml": elo_match("2024-01-04", "b", 1, "d", 0, id="m4")})
    assert matches_of(diff_csv(repo, first, second)) == [("m3", "added", "")]
    assert matches_of(diff_csv(repo, "HEAD")) == [("m3", "changed", "players.score"), ("m4", "added", "")]
    assert matches_of(diff_csv(repo, first)) == [("m3", "added", ""), ("m4", "added", "")]
    # Committed HEAD against the files on disk: the draw undoes a's win over c.
    players = {p[0]: p for p in players_of(diff_csv(repo, "HEAD"))}
    assert players["a"][2:5] == ("1532.000000", "1516.000000", "-16.000000")
    assert players["c"][2:5] == ("1500.000000", "1516.000000", "16.000000")
    # m4: b and d both 1484: b +16, d -16.
    assert players["b"][2:5] == ("1484.000000", "1500.000000", "16.000000")
    assert players["d"][2:5] == ("1484.000000", "1468.000000", "-16.000000")


def test_site_root_in_a_subfolder_of_the_repository(tmp_path):
    repo = init_repo(tmp_path / "repo")
    write_files(repo, {"README.md": "not a site\n", "matches/ignored.toml": "this is not read\n"})
    commit(repo, {"matches/duel/league.toml": ELO,
                  "matches/duel/a.toml": elo_match("2024-01-01", "a", 1, "b", 0, id="m1")}, 1, root="site")
    commit(repo, {"matches/duel/a.toml": elo_match("2024-01-01", "a", 0, "b", 1, id="m1")}, 2, root="site")
    rows = diff_csv(repo / "site", "HEAD~1")
    assert matches_of(rows) == [("m1", "changed", "players.score")]
    assert next(r for r in rows if r["key"] == "m1")["file_after"] == "matches/duel/a.toml"
    assert players_of(rows)[0][:5] == ("a", "changed", "1516.000000", "1484.000000", "-32.000000")


def test_a_revision_without_matches_is_an_empty_site_and_leagues_are_added(tmp_path):
    repo = init_repo(tmp_path / "repo")
    commit(repo, {"README.md": "nothing yet\n"}, 1)
    commit(repo, {"matches/duel/league.toml": ELO,
                  "matches/duel/a.toml": elo_match("2024-01-01", "a", 1, "b", 0, id="m1")}, 2)
    rows = diff_csv(repo, "HEAD~1", "HEAD")
    assert [(r["kind"], r["key"], r["change"]) for r in rows] == [
        ("league", "duel", "added"), ("match", "m1", "added"), ("player", "a", "added"), ("player", "b", "added")]
    assert rows[2]["rating_after"] == "1516.000000" and rows[3]["rating_after"] == "1484.000000"
    # And back: the league is removed, with every match and player.
    back = diff_csv(repo, "HEAD", "HEAD~1")
    assert [(r["kind"], r["key"], r["change"]) for r in back] == [
        ("league", "duel", "removed"), ("match", "m1", "removed"), ("player", "a", "removed"),
        ("player", "b", "removed")]


def test_moved_match_and_a_notes_edit_change_no_rating(two_commits):
    repo, _, _ = two_commits
    m1 = elo_match("2024-01-01", "a", 1, "b", 0, id="m1")
    m2 = elo_match("2024-01-02", "c", 1, "d", 0, id="m2").replace("played", 'notes = "replayed"\nplayed')
    commit(repo, {"matches/duel/2024.toml": m1 + m2,
                  "matches/duel/january.toml": elo_match("2024-01-03", "a", 1, "c", 0, id="m3")}, 3)
    rows = diff_csv(repo, "HEAD~1")
    assert matches_of(rows) == [("m2", "changed", "notes"), ("m3", "moved", "file")]
    m3 = next(r for r in rows if r["key"] == "m3")
    assert (m3["file_before"], m3["file_after"]) == ("matches/duel/2024.toml", "matches/duel/january.toml")
    assert players_of(rows) == []
    out = render(diff_revisions(repo, "HEAD~1"), "text")
    assert "\nno player's rating, rank or tier changed\n" in out
    assert re.search(r"^  >  m3 +moved .*matches/duel/2024\.toml -> matches/duel/january\.toml$", out, re.M)


# --- nothing changed ---------------------------------------------------------------------------------

def test_no_change_in_every_format(two_commits):
    repo, _, second = two_commits
    diff = diff_revisions(repo, "HEAD")
    assert render(diff, "text") == (f"No changes from HEAD ({second[:7]}) to the working tree: the same matches "
                                    "and the same ratings in every league.\n")
    assert render(diff, "markdown") == (f"No changes from `HEAD` ({second[:7]}) to the working tree: the same "
                                        "matches and the same ratings in every league.\n")
    assert render(diff, "csv") == ",".join(CSV_HEADER) + "\n"
    doc = json.loads(render(diff, "json"))
    assert doc["leagues"] == [] and doc["after"] == {"revision": None, "commit": None,
                                                     "label": "the working tree"}
    assert all(n == 0 for kind in doc["totals"].values() for n in kind.values())


# --- errors ------------------------------------------------------------------------------------------

def test_unknown_revision_is_a_usage_error(two_commits):
    repo, _, _ = two_commits
    result = run_cli("diff", "no-such-branch", "--root", str(repo))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [f"sitegen diff: unknown revision 'no-such-branch': no such commit in "
                                          f"{repo.resolve()}"]
    result = run_cli("diff", "HEAD", "HEAD~7", "--root", str(repo))
    assert result.returncode == 2 and "unknown revision 'HEAD~7'" in result.stderr
    assert not looks_like_traceback(result.stderr)


def test_not_a_git_repository_and_no_git(tmp_path, monkeypatch, capsys):
    site = write_files(tmp_path / "plain", {"matches/duel/league.toml": ELO})
    result = run_cli("diff", "HEAD", "--root", str(site))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [f"sitegen diff: {site.resolve()} is not inside a git work tree; "
                                          "sitegen diff compares revisions of the site's repository"]
    # A bare repository has no work tree: git's own reason is given.
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    result = run_cli("diff", "HEAD", "--root", str(bare))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [f"sitegen diff: {bare.resolve()} is not inside a git work tree (git: this "
                                          "operation must be run in a work tree); sitegen diff compares revisions "
                                          "of the site's repository"]
    # No git on PATH: said as such, not as a missing repository.
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert main(["diff", "HEAD", "--root", str(site)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == ["sitegen diff: git is not installed (or not on PATH); sitegen diff reads the "
                                "site's git history"]


def test_invalid_match_at_either_revision_exits_1_naming_the_revision(two_commits):
    repo, _, second = two_commits
    bad = ('[[match]]\nid = "bad"\nplayed = 2024-02-01\n'
           'players = [{ name = "a", score = 2 }, { name = "b", score = 0 }]\n')
    write_files(repo, {"matches/duel/bad.toml": bad})
    result = run_cli("diff", "HEAD", "--root", str(repo))
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 2
    assert re.fullmatch(r"at the working tree: matches/duel/bad\.toml:4: match 'bad' \(#1\): players\[0\]\.score: .+",
                        lines[0])
    assert lines[1] == "sitegen: 1 problem found at the working tree; nothing compared."
    assert not looks_like_traceback(result.stderr)
    # Committed, the same problem is reported at that commit, with its short SHA.
    third = commit(repo, {}, 3)
    result = run_cli("diff", "HEAD~1", "HEAD", "--root", str(repo))
    assert result.returncode == 1
    assert result.stderr.splitlines()[0].startswith(f"at HEAD ({third[:7]}): matches/duel/bad.toml:4: ")
    assert second != third


def test_symlink_out_of_matches_at_a_revision_is_not_followed(two_commits):
    repo, _, _ = two_commits
    write_files(repo, {"outside.toml": elo_match("2024-02-01", "a", 1, "b", 0, id="x")})
    os.symlink("../../outside.toml", repo / "matches/duel/link.toml")
    commit(repo, {}, 3)
    with pytest.raises(InvalidRevisions) as info:
        diff_revisions(repo, "HEAD~1", "HEAD")
    [line] = info.value.lines()
    assert line.startswith("at HEAD (") and ": matches/duel/link.toml: not read: " in line


# --- Markdown: hostile names and the size cap ---------------------------------------------------------

HOSTILE = "<img src=x onerror=alert(1)>|**x**"
LINKY = "<script>x</script>![i](x) https://ex.com www.ex.com"
LEAGUE_NAME = "<b>Duel</b> `rm` [x](y) #"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """A diff whose names, league name and tier names are all markup."""
    repo = init_repo(tmp_path_factory.mktemp("hostile") / "repo")
    league = league_toml("elo", name=LEAGUE_NAME, params='k = 32\nk_of = "each"',
                         extra='tiers = [[0, "_Low_|"], [1510, "$High$ \\\\"]]\n')
    commit(repo, {"matches/duel/league.toml": league,
                  "matches/duel/a.toml": elo_match("2024-01-01", HOSTILE, 1, "b~~c~~", 0, id="m_1_")}, 1)
    commit(repo, {"matches/duel/a.toml": elo_match("2024-01-01", HOSTILE, 1, "b~~c~~", 0, id="m_1_")
                  + elo_match("2024-01-02", "\\u001b[31mred", 1, HOSTILE, 0, id="m2")
                  + elo_match("2024-01-03", LINKY, 1, "b~~c~~", 0, id="m3")}, 2)
    return diff_revisions(repo, "HEAD~1", "HEAD")


def literal_text(html: str) -> str:
    import html as html_module

    return html_module.unescape(re.sub(r"<[^>]+>", "", html))


def test_markdown_shows_hostile_names_literally(hostile):
    md = render(hostile, "markdown")
    for raw in ("<img", "<b>", "<script", "**x**", "`rm`", "[x]", "~~", "$High$", "_Low_", "\u001b", "https:",
                "www."):
        assert raw not in md
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    assert len(rows) == 2 + 2 + 4
    # Every table row has exactly its columns: no '|' of a name splits a cell (players: a Note
    # column, as two of them are new).
    assert all(row.count("|") == (6 if "Match" in row or row.startswith("| m") else 7) for row in rows), rows
    html = python_markdown.markdown(md, extensions=["tables"])
    assert "<img" not in html and "<b>" not in html and "<strong>x" not in html and "<del>" not in html
    assert "<script" not in html and "<a " not in html
    text = literal_text(html)
    for shown in (HOSTILE, "b~~c~~", "$High$ \\", "_Low_|", LEAGUE_NAME, LINKY,
                  "\\u001b[31mred"):         # the escape character itself is never written
        assert shown in text


def test_markdown_as_github_renders_it(hostile):
    """GitHub's own parser (cmark-gfm, with its table, strikethrough and autolink extensions)."""
    cmarkgfm = pytest.importorskip("cmarkgfm", reason="cmarkgfm (GitHub's Markdown parser) is not installed")
    from cmarkgfm.cmark import Options

    html = cmarkgfm.github_flavored_markdown_to_html(render(hostile, "markdown"), options=Options.CMARK_OPT_UNSAFE)
    assert html.count("<table>") == 2 and html.count("<tr>") == 2 + 2 + 4      # headers, matches, players
    for tag in ("<img", "<b>", "<script", "<del>", "<a ", "<em>", "<code>rm", "<strong>x"):
        assert tag not in html
    text = literal_text(html)
    for shown in (HOSTILE, "b~~c~~", "$High$ \\", "_Low_|", LEAGUE_NAME, LINKY):
        assert shown in text


def test_text_spells_out_control_characters(hostile):
    out = render(hostile, "text")
    assert "\u001b" not in out and "\\u001b[31mred" in out
    # Every line starts with fixed text or a change mark, never with a name.
    assert all(re.match(r"(Ratings at |Total: |== |\d+ (match|player)|no player's |league\.toml |  [-+~>= ]|$)", line)
               for line in out.splitlines()), out
    assert HOSTILE in out and LINKY in out


def test_markdown_folds_long_lists_and_stays_under_its_cap(tmp_path):
    repo = init_repo(tmp_path / "repo")
    games = "".join(elo_match(f"2024-01-01T00:{i:02d}:00", f"p{i:02d}", 1, f"q{i:02d}", 0, id=f"g{i}")
                    for i in range(30))
    commit(repo, {"matches/duel/league.toml": ELO}, 1)
    write_files(repo, {"matches/duel/g.toml": games})
    diff = diff_revisions(repo, "HEAD")
    md = markdown(diff)
    assert md.count("<details><summary>20 more matches</summary>") == 1
    assert md.count("<details><summary>50 more players</summary>") == 1
    assert md.count("</details>") == 2
    assert "left out" not in md
    # With a small cap the rows stop, the output stays under it and says what was left out.
    small = markdown(diff, limit=MD_RESERVE + 1_500)
    assert len(small.encode("utf-8")) < MD_RESERVE + 1_500
    left = int(re.search(r"\*\*(\d+) rows left out:\*\*", small).group(1))
    rows = [line for line in md.splitlines() if re.match(r"\| [gpq]", line)]
    shown = [line for line in small.splitlines() if re.match(r"\| [gpq]", line)]
    assert len(rows) == 90 and 0 < len(shown) < 90 and len(shown) + left == 90
    assert shown == rows[:len(shown)]           # the first rows, none skipped
    notes = re.findall(r"^\*(\d+) of (\d+) (matches|players) left out", small, re.M)
    assert sum(int(n) for n, _, _ in notes) == left and ("60", "players") in {(t, k) for _, t, k in notes}
    assert small.count("<details>") == small.count("</details>")


def test_compare_is_deterministic_and_pure(two_commits):
    repo, _, _ = two_commits
    first, second = diff_revisions(repo, "HEAD~1", "HEAD"), diff_revisions(repo, "HEAD~1", "HEAD")
    for fmt in ("text", "markdown", "csv", "json"):
        assert render(first, fmt) == render(second, fmt)
    empty = compare(Revision("x", "0" * 40), {}, WORKING_TREE, {})
    assert empty.leagues == () and render(empty, "csv") == ",".join(CSV_HEADER) + "\n"
    with pytest.raises(RevisionError):
        diff_revisions(repo, "--output=/tmp/x")


# --- text and Markdown: new players, rank-only moves, wide characters ---------------------------------

def test_new_players_are_marked_new_and_a_likely_misspelling_named(tmp_path):
    repo = init_repo(tmp_path / "repo")
    # Kestrel and a draw four times: both stay at 1500, Kestrel with 4 games.
    draws = "".join(elo_match(f"2024-01-0{d}", "Kestrel", 0.5, "a", 0.5, id=f"m{d}") for d in range(1, 5))
    commit(repo, {"matches/duel/league.toml": ELO, "matches/duel/2024.toml": draws}, 1)
    # kestrel beats newcomer b (1500 each: +16 and -16); Kestral and newcomer c draw (1500 each).
    commit(repo, {"matches/duel/2024.toml": draws + elo_match("2024-02-01", "kestrel", 1, "b", 0, id="k1")
                  + elo_match("2024-02-02", "Kestral", 0.5, "c", 0.5, id="k2")}, 2)
    diff = diff_revisions(repo, "HEAD~1", "HEAD")
    out = render(diff, "text")
    assert out.split("2 matches added\n")[1].split("\n", 2)[2] == (
        "2 players changed, 4 added\n"
        "     player   rating        delta  rank    tier         note\n"
        "  +  kestrel  - -> 1516.00         - -> 1  - -> Silver  new player; did you mean 'Kestrel' (4 games)?\n"
        "  +  Kestral  - -> 1500.00         - -> 2  - -> Bronze  new player; did you mean 'Kestrel' (4 games)?\n"
        "  +  c        - -> 1500.00         - -> 2  - -> Bronze  new player\n"
        "  +  b        - -> 1484.00         - -> 6  - -> Bronze  new player\n"
        "2 players moved only in rank, rating unchanged:\n"
        "  = Kestrel 1 -> 2, a 1 -> 2\n")
    md = render(diff, "markdown")
    assert ("| kestrel | - → 1516.00 |  | - → 1 | - → Silver | **new player**; did you mean 'Kestrel' (4 games)? |"
            in md.splitlines())
    assert "| c | - → 1500.00 |  | - → 2 | - → Bronze | **new player** |" in md.splitlines()
    # CSV and JSON keep every row, their columns and their order as before: no notes in them.
    rows = diff_csv(repo, "HEAD~1", "HEAD")
    assert players_of(rows) == [
        ("Kestrel", "changed", "1500.000000", "1500.000000", "0.000000", "1", "2", "Bronze", "Bronze"),
        ("a", "changed", "1500.000000", "1500.000000", "0.000000", "1", "2", "Bronze", "Bronze"),
        ("kestrel", "added", "", "1516.000000", "", "", "1", "", "Silver"),
        ("Kestral", "added", "", "1500.000000", "", "", "2", "", "Bronze"),
        ("c", "added", "", "1500.000000", "", "", "2", "", "Bronze"),
        ("b", "added", "", "1484.000000", "", "", "6", "", "Bronze"),
    ]
    doc = json.loads(render(diff, "json"))
    assert [list(p) for p in doc["leagues"][0]["players"]] == [[
        "player", "change", "rating_before", "rating_after", "delta", "rank_before", "rank_after", "tier_before",
        "tier_after", "games_before", "games_after"]] * 6
    assert "did you mean" not in render(diff, "csv") + render(diff, "json")


def display_column(line: str, part: str) -> int:
    """The terminal column where ``part`` starts in ``line``, by the text output's own widths."""
    from sitegen.commands.diff_report import _width

    return _width(line[:line.index(part)])


def test_text_columns_line_up_by_display_width(tmp_path):
    repo = init_repo(tmp_path / "repo")
    names = ["김민준", "Zoë", "Ｋａｉ", "e\u0301\u0323z", "Kai\u200b", "Ana"]     # wide, full width, marks, invisible
    commit(repo, {"matches/duel/league.toml": ELO}, 1)
    write_files(repo, {"matches/duel/a.toml": "".join(
        elo_match(f"2024-01-0{i + 1}", name, 1, f"p{i}", 0, id=f"m{i}") for i, name in enumerate(names))})
    out = render(diff_revisions(repo, "HEAD"), "text")
    rows = [line for line in out.splitlines() if line.startswith("  +  ") and " -> " in line and "matches/" not in line]
    assert len(rows) == 12
    for part in (" -> ", "- -> ", "new player"):
        assert len({display_column(row, part) for row in rows}) == 1, (part, rows)
    header = next(line for line in out.splitlines() if line.lstrip().startswith("player"))
    assert display_column(header, "rating") == display_column(rows[0], "- -> ")
    assert display_column(header, "note") == display_column(rows[0], "new player")
    # By hand: the widest name, 김민준 or Ｋａｉ, takes 6 columns.
    assert display_column(rows[0], "- -> ") == len("  +  ") + 6 + 2


@pytest.mark.parametrize("char, width", [("김", 2), ("Ｋ", 2), ("😀", 2), ("a", 1), ("é", 1), ("\u0301", 0),
                                         ("\u200b", 0), ("\ufe0f", 0), ("\u1161", 0), ("\u20dd", 0)])
def test_character_widths(char, width):
    from sitegen.commands.diff_report import _char_width

    assert _char_width(char) == width


def test_rank_only_moves_in_markdown_stay_under_the_cap(tmp_path):
    repo = init_repo(tmp_path / "repo")
    # 40 players level at 1500 after draws; then a newcomer wins: 40 players drop a rank, none a point.
    draws = "".join(elo_match(f"2024-01-01T00:{i:02d}:00", f"p{i:02d}", 0.5, f"q{i:02d}", 0.5, id=f"d{i}")
                    for i in range(20))
    commit(repo, {"matches/duel/league.toml": ELO, "matches/duel/d.toml": draws}, 1)
    write_files(repo, {"matches/duel/w.toml": elo_match("2024-02-01", "new", 1, "other", 0, id="w")})
    diff = diff_revisions(repo, "HEAD")
    md = markdown(diff)
    assert md.count("<details><summary>40 players moved only in rank (rating unchanged)</summary>") == 1
    assert len(re.findall(r"^\| [pq]\d\d \| 1500\.00 \| 1 → 2 \| Bronze \|$", md, re.M)) == 40
    small = markdown(diff, limit=MD_RESERVE + 900)
    assert len(small.encode("utf-8")) < MD_RESERVE + 900
    assert small.count("<details>") == small.count("</details>")
    shown = len(re.findall(r"^\| [pq]\d\d \|", small, re.M))
    left = int(re.search(r"\*\*(\d+) rows left out:\*\*", small).group(1))
    assert shown < 40 and shown + left == 40
    assert f"*{40 - shown} of 40 players left out: this summary stays under 1 MiB.*" in small


def test_run_from_a_subfolder_is_a_usage_error_not_no_changes(two_commits):
    """Inside matches/<league>/ both sides would read as empty sites and compare equal."""
    repo, _, _ = two_commits
    league = next(p for p in (repo / "matches").iterdir() if p.is_dir())
    result = run_cli("diff", "HEAD~1", cwd=league)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"sitegen diff: no matches/ folder in {league.resolve()} at HEAD~1 ({_short(repo, 'HEAD~1')}) or the "
        "working tree; run sitegen from the site's top folder (the one holding matches/) or pass --root DIR; "
        "../.. holds matches/ (--root ../..)"]


def _short(repo, rev: str) -> str:
    return git(repo, "rev-parse", rev).strip()[:7]


# --- matches shown with their players and result; times with their zone ------------------------------

PLACEMENT_LOBBY = ('[[match]]\nid = "p1"\nplayed = 2024-01-01\nplayers = [{ name = "Cy", place = 3 }, '
                   '{ name = "Ann", place = 1 }, { name = "Bo", place = 2 }, { name = "Dan", place = 2 }, '
                   '{ name = "Eve", place = 5 }]\n\n')
GLICKO_LOBBY = ('[[match]]\nid = "g1"\nplayed = 2024-01-01\nplayers = [{ name = "Ann", score = 310 }, '
                '{ name = "Bo", score = 1200.5 }, { name = "Cy", score = 120 }, { name = "Dan", score = 290.0 }]\n\n')
ARENA_TEAMS = ('[[match]]\nid = "a1"\nplayed = 2024-01-01\nscore_to_win = 25\nteams = [\n'
               '  { won = false, players = [{ name = "Ann", kills = 5, deaths = 3 }, '
               '{ name = "Bo", kills = 4, deaths = 2 }] },\n'
               '  { won = true, players = [{ name = "Cy", kills = 12, deaths = 1 }, '
               '{ name = "Dan", kills = 13, deaths = 5 }] },\n'
               '  { won = false, players = [{ name = "Eve", kills = 1, deaths = 9 }] },\n]\n\n')

RESULTS = {           # league -> (match id, its players and result)
    "duel": ("e1", "Ann ½–½ Bo"),
    "lun": ("l1", "Ann 20–3 Bo"),
    "ffa": ("p1", "1. Ann, 2. Bo, 2. Dan, +2 more"),
    "worlds": ("g1", "Bo 1,200.5, Ann 310, Dan 290, +1 more"),
    "halo": ("a1", "team 2 (Cy, Dan) beat team 1 (Ann, Bo), team 3 (Eve); kills 25–9–1"),
}


@pytest.fixture(scope="module")
def every_system(tmp_path_factory):
    """Five leagues, one of each system, with no matches at HEAD; one match each on disk."""
    from helpers import lunaro_match

    repo = init_repo(tmp_path_factory.mktemp("systems") / "repo")
    commit(repo, {"matches/duel/league.toml": ELO, "matches/lun/league.toml": league_toml("lunaro"),
                  "matches/ffa/league.toml": league_toml("placement"),
                  "matches/worlds/league.toml": league_toml("glicko2", params='period = "match"'),
                  "matches/halo/league.toml": league_toml("arena")}, 1)
    write_files(repo, {
        # 21:30 at UTC+2 is 19:30 UTC.
        "matches/duel/m.toml": elo_match("2024-05-01T21:30:15+02:00", "Ann", 0.5, "Bo", 0.5, id="e1"),
        "matches/lun/m.toml": lunaro_match("2024-01-01", "Ann", 20, 0, "Bo", 3, 35, host=0, id="l1"),
        "matches/ffa/m.toml": PLACEMENT_LOBBY, "matches/worlds/m.toml": GLICKO_LOBBY,
        "matches/halo/m.toml": ARENA_TEAMS})
    return diff_revisions(repo, "HEAD")


def test_every_system_shows_players_and_result_in_text(every_system):
    out = render(every_system, "text")
    for league, (mid, shown) in RESULTS.items():
        when = "2024-05-01 19:30:15 UTC" if league == "duel" else "2024-01-01 00:00 UTC"
        assert re.search(rf"^  \+  {mid} +added +{re.escape(when)} +{re.escape(shown)} +matches/{league}/m\.toml$",
                         out, re.M), (league, out)
    # Every time says its zone: no bare "HH:MM" anywhere.
    assert re.findall(r"\d\d:\d\d(?::\d\d)?(?![:\d]| UTC)", out) == []


def test_every_system_shows_players_and_result_in_markdown(every_system):
    cmarkgfm = pytest.importorskip("cmarkgfm", reason="cmarkgfm (GitHub's Markdown parser) is not installed")
    from cmarkgfm.cmark import Options

    md = render(every_system, "markdown")
    html = cmarkgfm.github_flavored_markdown_to_html(md, options=Options.CMARK_OPT_UNSAFE)
    rows = [[literal_text(cell) for cell in re.findall(r"<td>(.*?)</td>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", html, re.S)]
    assert [h for h in re.findall(r"<th>(.*?)</th>", html) if h in ("Played", "Players and result")] == \
        ["Played", "Players and result"] * 5
    for league, (mid, shown) in RESULTS.items():
        when = "2024-05-01 19:30:15 UTC" if league == "duel" else "2024-01-01 00:00 UTC"
        assert [mid, "added", when, shown, f"matches/{league}/m.toml"] in rows, league


def test_every_system_result_in_csv_and_json(every_system):
    rows = list(csv.DictReader(io.StringIO(render(every_system, "csv"), newline="")))
    assert list(rows[0])[-2:] == ["result_before", "result_after"]
    got = {r["league"]: (r["key"], r["result_before"], r["result_after"], r["played_after"])
           for r in rows if r["kind"] == "match"}
    assert got == {league: (mid, "", shown, "2024-05-01T19:30:15Z" if league == "duel" else "2024-01-01T00:00:00Z")
                   for league, (mid, shown) in RESULTS.items()}
    # Player rows leave them empty.
    assert {(r["result_before"], r["result_after"]) for r in rows if r["kind"] == "player"} == {("", "")}
    doc = json.loads(render(every_system, "json"))
    for lg in doc["leagues"]:
        [m] = lg["matches"]
        assert list(m)[-2:] == ["result_before", "result_after"]
        assert (m["result_before"], m["result_after"]) == (None, RESULTS[lg["league"]][1])


def test_a_changed_result_shows_both_and_an_unchanged_one_once(two_commits):
    repo, _, _ = two_commits
    m1 = elo_match("2024-01-01", "a", 1, "b", 0, id="m1")
    # m2: c and d swap the result; m3 moves to another file and an hour later in another zone.
    write_files(repo, {"matches/duel/2024.toml": m1 + elo_match("2024-01-02", "c", 0, "d", 1, id="m2"),
                       "matches/duel/late.toml": elo_match("2024-01-03T02:00:00+01:00", "a", 1, "c", 0, id="m3")})
    diff = diff_revisions(repo, "HEAD")
    out = render(diff, "text")
    assert re.search(r"^  ~  m2 +changed: players\.score +2024-01-02 00:00 UTC +c 1–0 d -> c 0–1 d +"
                     r"matches/duel/2024\.toml$", out, re.M), out
    assert re.search(r"^  ~  m3 +changed: played, file +2024-01-03 00:00 UTC -> 2024-01-03 01:00 UTC +a 1–0 c +"
                     r"matches/duel/2024\.toml -> matches/duel/late\.toml$", out, re.M), out
    md = render(diff, "markdown")
    assert "| m2 | changed&#58; players.score | 2024-01-02 00:00 UTC | c 1–0 d → c 0–1 d | matches/duel/2024.toml |" \
        in md.splitlines()
    rows = {r["key"]: r for r in diff_csv(repo, "HEAD")}
    assert (rows["m2"]["result_before"], rows["m2"]["result_after"]) == ("c 1–0 d", "c 0–1 d")
    assert (rows["m3"]["result_before"], rows["m3"]["result_after"]) == ("a 1–0 c", "a 1–0 c")


def _match(players: list[str], entries: list[dict]) -> Match:
    return Match("x", datetime(2024, 1, 1, tzinfo=timezone.utc), "matches/x.toml", 1, None, tuple(players),
                 tuple(entries))


def _arena(teams: list[list[str]], won: int) -> Match:
    names = [n for team in teams for n in team]
    entries = [{"kills": 2 * t + 1, "deaths": 0, "assists": 0, "betrayals": 0, "team": t + 1, "won": t == won}
               for t, team in enumerate(teams) for _ in team]
    return _match(names, entries)


@pytest.mark.parametrize("system, match, shown", [
    ("elo", _match(["Ann", "Bo"], [{"score": 0}, {"score": 1}]), "Ann 0–1 Bo"),
    ("elo", _match(["Ann", "Bo"], [{"score": 0.5}, {"score": 0.5}]), "Ann ½–½ Bo"),
    ("lunaro", _match(["Ann", "Bo"], [{"goals": 3, "ping": 0, "host": True}, {"goals": 20, "ping": 9}]),
     "Ann 3–20 Bo"),
    ("placement", _match(["a", "b", "c"], [{"place": 2}, {"place": 1}, {"place": 2}]),
     "1. b, 2. a, 2. c"),
    ("placement", _match([f"p{i}" for i in range(10)], [{"place": 10 - i} for i in range(10)]),
     "1. p9, 2. p8, 3. p7, +7 more"),
    ("glicko2", _match(["a", "b"], [{"score": 0}, {"score": 0.25}]), "b 0.25, a 0"),
    # A free-for-all: one player a team, named alone.
    ("arena", _arena([["a"], ["b"], ["c"], ["d"], ["e"]], won=3), "d beat a, b, +2 more teams; kills 7–1–3"),
    ("arena", _arena([["a", "b", "c", "d", "e"], ["f"]], won=0),
     "team 1 (a, b, c, +2 more) beat team 2 (f); kills 5–3"),
])
def test_result_per_system(system, match, shown):
    from sitegen.commands.diff import result
    from sitegen.rating import SYSTEMS

    assert result(match, SYSTEMS[system]()) == shown


def test_result_escapes_names_and_nothing_else():
    from sitegen.commands.diff import result
    from sitegen.rating import SYSTEMS

    def escape(name: str) -> str:
        return f"<{name}>"

    assert result(_arena([["a", "b"], ["c"]], won=1), SYSTEMS["arena"](), escape) == \
        "team 2 (<c>) beat team 1 (<a>, <b>); kills 3–2"
    lobby = _match([f"p{i}" for i in range(4)], [{"place": i + 1} for i in range(4)])
    assert result(lobby, SYSTEMS["placement"](), escape) == "1. <p0>, 2. <p1>, 3. <p2>, +1 more"
    duel = _match(["Ann", "Bo"], [{"score": 1}, {"score": 0}])
    assert result(duel, SYSTEMS["elo"](), escape) == "<Ann> 1–0 <Bo>"


# --- revision labels in Markdown headings -----------------------------------------------------------

HOSTILE_BRANCH = "x`y``<img/src=x>&amp;_z_|#"


@pytest.mark.parametrize("rev_a, rev_b", [
    ("HEAD~1", "HEAD"),
    ("HEAD^", "main"),
    ("HEAD^{/commi*t 1}", "HEAD"),                 # a commit found by its message: ^, {, *, a space
    ("_a_<i>&amp;`|#$", HOSTILE_BRANCH),          # branch names: _, <, &, backticks, |, #, $
    ("`lead", "HEAD~0"),
])
def test_markdown_heading_reads_as_the_revision_labels(two_commits, rev_a, rev_b):
    cmarkgfm = pytest.importorskip("cmarkgfm", reason="cmarkgfm (GitHub's Markdown parser) is not installed")
    from cmarkgfm.cmark import Options

    repo, first, second = two_commits
    for branch, at in (("_a_<i>&amp;`|#$", first), (HOSTILE_BRANCH, second), ("`lead", first)):
        git(repo, "branch", "-f", branch, at)
    diff = diff_revisions(repo, rev_a, rev_b)
    assert diff.leagues, "the two revisions differ"
    labels = (diff.before.label, diff.after.label)
    assert labels == (f"{rev_a} ({first[:7]})", f"{rev_b} ({second[:7]})")
    md = render(diff, "markdown")
    heading = md.splitlines()[0]
    assert heading.startswith("## Ratings: ") and "&#" not in heading      # no reference to show in the source
    html = cmarkgfm.github_flavored_markdown_to_html(md, options=Options.CMARK_OPT_UNSAFE)
    [h2] = re.findall(r"<h2>(.*?)</h2>", html)
    assert literal_text(h2) == f"Ratings: {labels[0]} → {labels[1]}"
    assert re.sub(r"</?code>", "", h2).count("<") == 0           # no tag but the code spans: no <img>, <i>, <em>
    # Reversed, the same labels in the other order; the same revision twice: the one-line "no changes".
    back = cmarkgfm.github_flavored_markdown_to_html(render(diff_revisions(repo, rev_b, rev_a), "markdown"))
    assert literal_text(re.findall(r"<h2>(.*?)</h2>", back)[0]) == f"Ratings: {labels[1]} → {labels[0]}"
    same = cmarkgfm.github_flavored_markdown_to_html(render(diff_revisions(repo, rev_a, rev_a), "markdown"))
    assert literal_text(same).strip() == (f"No changes from {labels[0]} to {labels[0]}: the same matches and the same "
                                          "ratings in every league.")


def test_markdown_labels_in_the_source_read_as_given(two_commits):
    repo, first, _ = two_commits
    md = render(diff_revisions(repo, "HEAD~1"), "markdown")
    assert md.splitlines()[0] == f"## Ratings: `HEAD~1` ({first[:7]}) → the working tree"
    # A full SHA is labelled by its short form, which needs no code span.
    md = render(diff_revisions(repo, first, "HEAD"), "markdown")
    assert md.splitlines()[0].startswith(f"## Ratings: {first[:7]} → `HEAD` (")


def test_the_auditors_guide_documents_the_csv_header():
    guide = (Path(__file__).resolve().parents[1] / "content" / "docs" / "auditors.md").read_text(encoding="utf-8")
    section = guide.split("\n## Rating diffs\n")[1].split("\n## ")[0]
    assert f"`{','.join(CSV_HEADER)}`" in section
