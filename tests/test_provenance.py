"""Provenance: every match page names its file, line and the commit that last changed the
file; matches.csv and matches.json carry that commit; the home page names the build's date
and commit. A commit is never claimed for content it does not hold.

Repositories come from tests/gitrepo.py: fixed dates, so the SHAs are the same on every
machine, and no user git config.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from gitrepo import commit_all, git, git_env, init_repo
from helpers import elo_match, league_toml, problems_of, read_csv, run_cli, write_files
from sitegen.model.groups import anchor
from sitegen.commands.build import build
from sitegen.load.problems import InvalidInput

URL = "https://github.com/owner/leagues"
PYPROJECT = f'[tool.sitegen]\ntitle = "Provenance"\nrepo_url = "{URL}/"\n'
A = elo_match("2024-01-01", "Ana", 1, "Bo", 0) + elo_match("2024-01-02", "Bo", 1, "Cy", 0)
B = elo_match("2024-01-03", "Cy", 1, "Ana", 0)
B2 = B + elo_match("2024-01-04", "Ana", 0.5, "Cy", 0.5)
JAN, FEB = "2026-01-01T12:00:00+00:00", "2026-02-03T14:05:00+00:00"


def site_files(b: str = B) -> dict[str, str]:
    return {"pyproject.toml": PYPROJECT, "matches/lg/league.toml": league_toml("elo"),
            "matches/lg/a.toml": A, "matches/lg/b.toml": b}


def match_lines(text: str) -> list[int]:
    """1-based line of every [[match]] table."""
    return [i for i, line in enumerate(text.split("\n"), start=1) if line.strip() == "[[match]]"]


@pytest.fixture
def repo(tmp_path) -> tuple[Path, str, str]:
    """A site at the top of a repository: a.toml and b.toml committed in January, b.toml
    changed in February. Returns (root, January's SHA, February's SHA)."""
    root = init_repo(tmp_path / "repo")
    write_files(root, site_files())
    jan = commit_all(root, "Results of the first days", when=JAN)
    write_files(root, {"matches/lg/b.toml": B2})
    feb = commit_all(root, "Add the draw of 4 January", when=FEB)
    return root, jan, feb


def built(root: Path, out: Path, **kwargs) -> Path:
    build(root, out, **kwargs)
    return out


def page(out: Path, match_id: str) -> str:
    """The page of the match's file that holds the match (its anchor)."""
    for f in sorted((out / "leagues" / "lg" / "matches").rglob("index.html")):
        text = f.read_text(encoding="utf-8")
        if f'<tbody id="{anchor(match_id)}">' in text:
            return text
    raise AssertionError(f"no page holds match {match_id!r}")


def matches_csv(out: Path) -> dict[str, dict[str, str]]:
    return {r["match_id"]: r for r in read_csv((out / "data/lg/matches.csv").read_text(encoding="utf-8"))}


def matches_json(out: Path) -> dict[str, dict]:
    return {r["match_id"]: r for r in json.loads((out / "data/lg/matches.json").read_text(encoding="utf-8"))}


def provenance_of(text: str) -> str:
    """The page's provenance paragraph, tags removed and spaces collapsed ("" when there is none)."""
    found = re.search(r'<p class="provenance">(.*?)</p>', text, re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", found.group(1))).split()) if found else ""


def build_line(out: Path) -> str:
    found = re.search(r'<p class="build-info">(.*?)</p>', (out / "index.html").read_text(encoding="utf-8"), re.S)
    return " ".join(re.sub(r"<[^>]+>", "", found.group(1)).split()) if found else ""


# --- the commit that last changed each file ---------------------------------------------

def test_match_page_names_file_line_and_the_commit_that_last_changed_it(repo, tmp_path):
    root, jan, feb = repo
    out = built(root, tmp_path / "out")
    a_lines, b_lines = match_lines(A), match_lines(B2)
    assert a_lines == [1, 5] and b_lines == [1, 5]

    # a.toml was last changed in January, though February's commit is newer.
    text = page(out, "a-2")
    assert provenance_of(text) == (f"Provenance: matches/lg/a.toml, last changed in commit {jan[:7]} "
                                   "on 2026-01-01 12:00 UTC: Results of the first days.")
    assert f'<a href="{URL}/blob/{jan}/matches/lg/a.toml"><code>matches/lg/a.toml</code></a>' in text
    assert f'<a href="{URL}/blob/{jan}/matches/lg/a.toml#L5">line 5</a>' in text
    assert f'<a href="{URL}/commit/{jan}"><code>{jan[:7]}</code></a>' in text
    assert '<time datetime="2026-01-01T12:00:00Z">2026-01-01 12:00 UTC</time>' in text
    assert feb not in text and feb[:7] not in text

    # Both matches of b.toml: February's commit, each at its own line.
    for match_id, line in (("b-1", 1), ("b-2", 5)):
        text = page(out, match_id)
        assert provenance_of(text) == ("Provenance: matches/lg/b.toml, last changed in commit "
                                       f"{feb[:7]} on 2026-02-03 14:05 UTC: Add the draw of 4 January.")
        assert f'href="{URL}/blob/{feb}/matches/lg/b.toml#L{line}"' in text
        assert f'href="{URL}/commit/{feb}"' in text


def test_matches_csv_and_json_carry_the_full_commit(repo, tmp_path):
    root, jan, feb = repo
    out = built(root, tmp_path / "out")
    csv_text = (out / "data/lg/matches.csv").read_text(encoding="utf-8")
    assert csv_text.split("\n", 1)[0] == "match_id,played,file,commit"     # the first three columns (docs/auditors)
    want = {"a-1": jan, "a-2": jan, "b-1": feb, "b-2": feb}
    assert {k: r["commit"] for k, r in matches_csv(out).items()} == want
    assert {k: r["file"] for k, r in matches_csv(out).items()} == {
        "a-1": "matches/lg/a.toml", "a-2": "matches/lg/a.toml", "b-1": "matches/lg/b.toml", "b-2": "matches/lg/b.toml"}
    rows = json.loads((out / "data/lg/matches.json").read_text(encoding="utf-8"))
    assert [list(r) for r in rows] == [["match_id", "played", "file", "commit"]] * 4
    assert {r["match_id"]: r["commit"] for r in rows} == want
    assert all(re.fullmatch(r"[0-9a-f]{40}", sha) for sha in want.values())


def test_a_rating_leads_from_the_player_page_to_the_commit(repo, tmp_path):
    root, jan, feb = repo
    out = built(root, tmp_path / "out")
    player = (out / "leagues/lg/players/cy/index.html").read_text(encoding="utf-8")
    # Cy's games: a-2, b-1, b-2, each linked to its match page, which names its commit.
    linked = re.findall(r'href="\.\./\.\./matches/[^"#]+/#m-([^"]+)"', player)
    assert sorted(set(linked)) == ["a-2", "b-1", "b-2"]
    for match_id in set(linked):
        sha = jan if match_id.startswith("a") else feb
        assert f"/commit/{sha}" in page(out, match_id)


def test_the_home_page_names_the_build_date_and_commit(repo, tmp_path, monkeypatch):
    root, jan, feb = repo
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    out = built(root, tmp_path / "out")
    assert build_line(out) == f"Built 2026-02-03 from commit {feb[:7]}."
    home = (out / "index.html").read_text(encoding="utf-8")
    assert '<time datetime="2026-02-03T14:05:00Z">2026-02-03</time>' in home
    assert f'<a href="{URL}/commit/{feb}"><code>{feb[:7]}</code></a>' in home
    # The build line is on the home page only: other pages do not change with every commit.
    others = [p for p in out.rglob("*.html") if p != out / "index.html"]
    assert others and not any("build-info" in p.read_text(encoding="utf-8") for p in others)

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1714521600")      # 2024-05-01 00:00:00 UTC
    out = built(root, tmp_path / "epoch")
    assert build_line(out) == f"Built 2024-05-01 from commit {feb[:7]}."


@pytest.mark.parametrize("value", ["17e8", "-1", "1714521600.5", " 1714521600", "soon", "9" * 30])
def test_an_invalid_source_date_epoch_stops_the_build(repo, tmp_path, monkeypatch, value):
    root, _, _ = repo
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    with pytest.raises(InvalidInput) as info:
        build(root, tmp_path / "out")
    [problem] = info.value.problems
    assert problem.file == "SOURCE_DATE_EPOCH" and repr(value) in problem.message
    assert "whole number of seconds" in problem.message
    assert not (tmp_path / "out").exists()


def test_source_date_epoch_from_the_command_line(repo, tmp_path):
    root, _, feb = repo
    env = {"SOURCE_DATE_EPOCH": "0"}
    proc = _run_with(env, "build", "--root", str(root), "--out", str(tmp_path / "zero"))
    assert proc.returncode == 0, proc.stderr
    assert build_line(tmp_path / "zero") == f"Built 1970-01-01 from commit {feb[:7]}."
    proc = _run_with({"SOURCE_DATE_EPOCH": "yesterday"}, "build", "--root", str(root), "--out", str(tmp_path / "bad"))
    assert proc.returncode == 1
    assert proc.stderr.startswith("SOURCE_DATE_EPOCH: must be a whole number of seconds"), proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "bad").exists()


def _run_with(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    import sys

    from helpers import REPO
    full = {**os.environ, **env, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "sitegen", *args], env=full, capture_output=True, text=True,
                          timeout=300)


# --- content no commit holds ----------------------------------------------------------------

def test_changed_staged_and_untracked_files_name_no_commit(repo, tmp_path, monkeypatch):
    root, jan, feb = repo
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    write_files(root, {"matches/lg/a.toml": A + elo_match("2024-01-05", "Bo", 0, "Ana", 1),    # changed
                       "matches/lg/c.toml": elo_match("2024-01-06", "Cy", 1, "Bo", 0)})      # untracked
    out = built(root, tmp_path / "out")
    commits = {k: r["commit"] for k, r in matches_csv(out).items()}
    assert commits == {"a-1": "", "a-2": "", "a-3": "", "b-1": feb, "b-2": feb, "c-1": ""}
    assert matches_json(out)["a-1"]["commit"] is None and matches_json(out)["b-1"]["commit"] == feb
    for match_id, file in (("a-1", "a.toml"), ("a-3", "a.toml"), ("c-1", "c.toml")):
        text = page(out, match_id)
        assert provenance_of(text).startswith(f"Provenance: matches/lg/{file} has ")
        assert provenance_of(text).endswith(" has uncommitted changes: no commit holds the version rated here.")
        assert jan not in text and feb not in text and "/blob/" not in text and "/commit/" not in text
    assert build_line(out) == f"Built 2026-02-03 from commit {feb[:7]} with uncommitted changes."

    # Staged is not committed either.
    git(root, "add", "matches/lg/a.toml", "matches/lg/c.toml")
    out = built(root, tmp_path / "staged")
    assert {k: r["commit"] for k, r in matches_csv(out).items()} == commits

    # Committed, they name the new commit.
    third = commit_all(root, "More results", when="2026-03-01T09:00:00+00:00")
    out = built(root, tmp_path / "committed")
    assert {k: r["commit"] for k, r in matches_csv(out).items()} == {
        "a-1": third, "a-2": third, "a-3": third, "b-1": feb, "b-2": feb, "c-1": third}
    assert build_line(out) == f"Built 2026-03-01 from commit {third[:7]}."


def test_a_change_elsewhere_in_the_site_marks_only_the_build_line(repo, tmp_path, monkeypatch):
    root, jan, feb = repo
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    write_files(root, {"content/about.md": "# About\n\nOur leagues.\n"})
    out = built(root, tmp_path / "out")
    assert {k: r["commit"] for k, r in matches_csv(out).items()} == {"a-1": jan, "a-2": jan, "b-1": feb, "b-2": feb}
    assert build_line(out) == f"Built 2026-02-03 from commit {feb[:7]} with uncommitted changes."
    # The output folder is not an input: a previous build inside the root (untracked) changes nothing.
    about = commit_all(root, "About page", when="2026-02-04T00:00:00+00:00")
    built(root, root / "_site")
    assert "_site/" in git(root, "status", "--porcelain")
    assert build_line(built(root, root / "_site")) == f"Built 2026-02-04 from commit {about[:7]}."


def _conflicting_branches(root: Path) -> tuple[str, str]:
    """main and side both change b.toml (main also a.toml); side's commit is the newer one.
    Leaves main checked out in the middle of merging side, b.toml in conflict."""
    init_repo(root)
    write_files(root, site_files())
    commit_all(root, "base", when=JAN)
    git(root, "checkout", "-q", "-b", "side")
    write_files(root, {"matches/lg/b.toml": B + elo_match("2024-01-09", "Bo", 1, "Cy", 0)})
    side = commit_all(root, "side: b", when="2026-01-20T00:00:00+00:00")
    git(root, "checkout", "-q", "main")
    write_files(root, {"matches/lg/b.toml": B2, "matches/lg/a.toml": A + "\n"})
    main = commit_all(root, "main: a and b", when="2026-01-10T00:00:00+00:00")
    merging = subprocess.run(["git", "-C", str(root), "merge", "-q", "side"], capture_output=True, text=True,
                             env=git_env("2026-01-25T00:00:00+00:00"))
    assert merging.returncode != 0 and "CONFLICT" in merging.stdout + merging.stderr
    return main, side


def test_a_merge_that_keeps_one_sides_version_names_that_sides_commit(tmp_path):
    root = tmp_path / "repo"
    main, side = _conflicting_branches(root)
    write_files(root, {"matches/lg/b.toml": B2})              # the conflict resolved with main's version
    merge = commit_all(root, "merge side", when="2026-01-25T00:00:00+00:00")
    assert git(root, "rev-list", "--parents", "-1", "HEAD").split() == [merge, main, side]
    commits = {k: r["commit"] for k, r in matches_csv(built(root, tmp_path / "out")).items()}
    # side's commit is newer than main's, but it does not hold the b.toml that was rated.
    assert commits == {"a-1": main, "a-2": main, "b-1": main, "b-2": main}


def test_a_merge_that_writes_its_own_version_names_the_merge(tmp_path):
    root = tmp_path / "repo"
    main, side = _conflicting_branches(root)
    write_files(root, {"matches/lg/b.toml": B + elo_match("2024-01-10", "Cy", 0, "Bo", 1)})   # neither side's
    merge = commit_all(root, "merge side", when="2026-01-25T00:00:00+00:00")
    commits = {k: r["commit"] for k, r in matches_csv(built(root, tmp_path / "out")).items()}
    assert commits == {"a-1": main, "a-2": main, "b-1": merge, "b-2": merge}


def test_a_root_in_a_subfolder_links_the_path_in_the_repository(tmp_path):
    top = init_repo(tmp_path / "repo")
    write_files(top, {"README.md": "leagues\n", **{f"sites/our leagues/{k}": v for k, v in site_files().items()}})
    sha = commit_all(top, "Leagues in a subfolder", when=JAN)
    root = top / "sites" / "our leagues"
    out = built(root, tmp_path / "out")
    rows = matches_csv(out)
    assert {r["file"] for r in rows.values()} == {"matches/lg/a.toml", "matches/lg/b.toml"}   # root-relative
    assert {r["commit"] for r in rows.values()} == {sha}
    text = page(out, "b-1")
    assert f'href="{URL}/blob/{sha}/sites/our%20leagues/matches/lg/b.toml#L1"' in text
    assert provenance_of(text).startswith(f"Provenance: matches/lg/b.toml, last changed in commit {sha[:7]}")


def test_a_repository_without_commits_names_none(tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    root = init_repo(tmp_path / "repo")
    write_files(root, site_files())
    out = built(root, tmp_path / "out")
    assert {r["commit"] for r in matches_csv(out).values()} == {""}
    assert provenance_of(page(out, "a-1")).endswith(" has uncommitted changes: no commit holds the version rated here.")
    assert build_line(out) == ""          # no commit, no SOURCE_DATE_EPOCH: no date at all


def test_a_shallow_clone_names_its_oldest_commit_for_older_files(repo, tmp_path):
    root, jan, feb = repo
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{root}", str(clone))
    commits = {k: r["commit"] for k, r in matches_csv(built(clone, tmp_path / "out")).items()}
    # January's commit is not in the clone: a.toml is dated to the commit the clone starts at
    # (which holds its content), as the README says; fetch-depth: 0 avoids it.
    assert commits == {"a-1": feb, "a-2": feb, "b-1": feb, "b-2": feb}


def test_file_names_that_look_like_patterns_or_need_escaping(tmp_path):
    root = init_repo(tmp_path / "repo")
    write_files(root, {**site_files(), "matches/lg/[x] #1?.toml": B.replace("2024-01-03", "2024-01-07")})
    sha = commit_all(root, "odd names", when=JAN)
    out = built(root, tmp_path / "out")
    assert {r["commit"] for r in matches_csv(out).values()} == {sha}
    text = page(out, "[x] #1?-1")
    assert f'href="{URL}/blob/{sha}/matches/lg/%5Bx%5D%20%231%3F.toml#L1"' in text


# --- no git -----------------------------------------------------------------------------------

@pytest.fixture
def plain_site(make_site, monkeypatch):
    """The same site in a folder git must not look above (tmp_path is not in a repository)."""
    root = make_site(site_files())
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(root.parent))
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    return root


def test_outside_a_repository_there_is_no_provenance_and_no_noise(plain_site, tmp_path, capfd):
    out = built(plain_site, tmp_path / "out")
    assert {r["commit"] for r in matches_csv(out).values()} == {""}
    assert {r["commit"] for r in matches_json(out).values()} == {None}
    text = page(out, "a-2")
    assert provenance_of(text) == "" and "uncommitted" not in text and "/blob/" not in text
    # The file and the line are all the same.
    assert "Source: <code>matches/lg/a.toml</code>" in text
    assert "<code>a-2</code> · match 2, line 5</th>" in text
    assert build_line(out) == ""
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""


def test_without_git_installed_there_is_no_provenance_and_no_noise(repo, tmp_path, monkeypatch, capfd):
    root, _, _ = repo
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    out = built(root, tmp_path / "out")
    assert {r["commit"] for r in matches_csv(out).values()} == {""}
    assert provenance_of(page(out, "a-1")) == "" and build_line(out) == ""
    assert capfd.readouterr().err == ""


def test_source_date_epoch_alone_gives_a_date_without_a_commit(plain_site, tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1714566000")        # 2024-05-01 13:40 UTC
    assert build_line(built(plain_site, tmp_path / "out")) == "Built 2024-05-01."


# --- repo_url and --repo-url -----------------------------------------------------------------

@pytest.mark.parametrize("value", [
    "javascript:alert(1)", "ftp://example.org/repo", "github.com/owner/repo", "https://",
    "https://token:x-oauth@github.com/owner/repo", "https://github.com/owner/repo?tab=1",
    "https://github.com/owner/repo#readme", 'https://github.com/o/r"><script>alert(1)</script>',
    "https://github.com/owner/re po", "https://github.com:port/owner/repo",
])
def test_a_bad_repo_url_is_a_problem(make_site, value):
    pyproject = '[tool.sitegen]\nrepo_url = ' + json.dumps(value) + "\n"
    root = make_site({**site_files(), "pyproject.toml": pyproject})
    [problem] = problems_of(root)
    assert (problem.file, problem.field) == ("pyproject.toml", "tool.sitegen.repo_url")
    assert "absolute http(s) URL" in problem.message and repr(value) in problem.message


def test_repo_url_must_be_a_string(make_site):
    root = make_site({**site_files(), "pyproject.toml": "[tool.sitegen]\nrepo_url = 42\n"})
    [problem] = problems_of(root)
    assert problem.field == "tool.sitegen.repo_url" and "got an integer" in problem.message


def test_a_repo_url_with_markup_characters_is_escaped_in_links(repo, tmp_path):
    root, jan, _ = repo
    out = built(root, tmp_path / "out", repo_url="https://git.example.org/a&b/o'r.git/")
    text = page(out, "a-1")
    assert f'href="https://git.example.org/a&amp;b/o&#39;r/commit/{jan}"' in text
    assert f'href="https://git.example.org/a&amp;b/o&#39;r/blob/{jan}/matches/lg/a.toml#L1"' in text


def test_commit_subjects_are_shown_as_text(tmp_path):
    root = init_repo(tmp_path / "repo")
    write_files(root, site_files())
    subject = '<script>alert("x")</script> {{ 7*7 }} & `code` | \u05e9\u05dc\u05d5\u05dd'
    commit_all(root, subject + "\n\nbody line that is not shown", when=JAN)
    text = page(built(root, tmp_path / "out"), "a-1")
    assert "<script>" not in text and "body line" not in text
    assert ('<q dir="auto">&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; {{ 7*7 }} &amp; `code` | '
            '\u05e9\u05dc\u05d5\u05dd</q>') in text


def test_repo_url_option_overrides_the_setting_and_is_checked(repo, tmp_path):
    root, jan, _ = repo
    out = tmp_path / "cli"
    proc = run_cli("build", "--root", str(root), "--out", str(out), "--repo-url", "https://example.org/x/y.git")
    assert proc.returncode == 0, proc.stderr
    assert f'href="https://example.org/x/y/commit/{jan}"' in page(out, "a-1") and URL not in page(out, "a-1")

    # An empty --repo-url drops the links, not the provenance.
    proc = run_cli("build", "--root", str(root), "--out", str(tmp_path / "plain"), "--repo-url", "")
    assert proc.returncode == 0, proc.stderr
    text = page(tmp_path / "plain", "a-1")
    assert "/commit/" not in text and "/blob/" not in text and f"<code>{jan[:7]}</code>" in text

    for bad in ("ftp://example.org/x", "https://user:secret@example.org/x", "example.org/x"):
        proc = run_cli("build", "--root", str(root), "--out", str(tmp_path / "bad"), "--repo-url", bad)
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr.startswith("--repo-url: must be the repository's absolute http(s) URL"), proc.stderr
        assert "Traceback" not in proc.stderr
        assert not (tmp_path / "bad").exists()


def test_provenance_reads_the_history_once_not_once_per_file(repo, monkeypatch):
    from sitegen.load import git as sitegen_git
    from sitegen.load import provenance

    root, jan, feb = repo
    calls = []
    real = sitegen_git.run

    def counting(cwd, *args, **kwargs):
        calls.append(args[0])
        return real(cwd, *args, **kwargs)

    monkeypatch.setattr(sitegen_git, "run", counting)
    prov = provenance.read(root)
    assert prov.commit_of("matches/lg/a.toml").sha == jan and prov.commit_of("matches/lg/b.toml").sha == feb
    assert sorted(calls) == ["log", "log", "ls-tree", "rev-parse", "status"]     # HEAD, history, tree, ...


def test_a_symlinked_match_file_names_no_commit(tmp_path):
    # git holds the link, not the content that was rated: no commit, and no "uncommitted" either.
    root = init_repo(tmp_path / "repo")
    write_files(root, {**site_files(), "shared/b.toml": B})
    (root / "matches/lg/b.toml").unlink()
    (root / "matches/lg/b.toml").symlink_to("../../shared/b.toml")
    sha = commit_all(root, "b.toml shared", when=JAN)
    out = built(root, tmp_path / "out")
    assert {k: r["commit"] for k, r in matches_csv(out).items()} == {"a-1": sha, "a-2": sha, "b-1": ""}
    assert provenance_of(page(out, "b-1")) == "" and provenance_of(page(out, "a-1")) != ""
