"""The output folder (docs/configuration): replaced only when it is absent, empty or a site
sitegen wrote; anything else is refused with exit 1 and left byte for byte as it was. The
swap of a finished build is one step (renameat2 RENAME_EXCHANGE on Linux), and the staging
folders a killed build leaves are removed by the next build.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gitrepo import commit_all, init_repo
from helpers import REPO, league_toml, looks_like_traceback, run_cli, tree_snapshot, write_files
from sitegen.output import write
from sitegen.commands.build import build
from sitegen.load.problems import InvalidInput

SITE = {
    "matches/duel/league.toml": league_toml("lunaro", name="Duel"),
    "matches/duel/2024.toml": '[[match]]\nplayed = 2024-01-01\n'
                              'players = [{ name = "ana", goals = 20, ping = 10 }, '
                              '{ name = "bo", goals = 12, ping = 30 }]\n',
}


def site(root: Path) -> Path:
    return write_files(root, SITE)


def refused(root: Path, out: Path | str, *, cwd: Path | None = None, words: str = "output folder"):
    """Build into ``out``: exit 1, one problem naming why, no traceback."""
    result = run_cli("build", "--root", str(root), "--out", str(out), cwd=cwd or root)
    assert result.returncode == 1, result.stdout + result.stderr
    assert words in result.stderr and not looks_like_traceback(result.stderr), result.stderr
    return result


def staging(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if re.match(rf"\.{re.escape(out.name)}\.(new|old)-", p.name))


# --- refused, and left untouched ------------------------------------------------------------

def test_the_git_folder_of_a_real_repository_is_refused_and_untouched(tmp_path):
    root = init_repo(tmp_path / "repo")
    site(root)
    commit_all(root, "matches")
    before = tree_snapshot(root / ".git")
    result = refused(root, ".git")
    assert "git repository's own folder" in result.stderr and "--out with a new or empty folder" in result.stderr
    assert tree_snapshot(root / ".git") == before
    # Any folder inside it too.
    refused(root, ".git/site", words="inside a git repository's own folder")
    assert tree_snapshot(root / ".git") == before
    assert not (root / ".git" / "site").exists()


def test_a_folder_holding_a_git_repository_is_refused_even_with_the_marker(tmp_path):
    root = site(tmp_path / "site")
    assert run_cli("build", "--root", str(root)).returncode == 0
    out = root / "_site"
    init_repo(out / "vendor" / "lib")          # a clone inside an old build
    before = tree_snapshot(out)
    result = refused(root, out, words="holds a git repository")
    assert str(out / "vendor" / "lib" / ".git") in result.stderr
    assert tree_snapshot(out) == before
    # A gh-pages worktree as the output: its .git is a file.
    other = tmp_path / "pages"
    write_files(other, {".git": "gitdir: /elsewhere/.git/worktrees/pages\n", write.MARKER: write.MARKER_TEXT})
    before = tree_snapshot(other)
    refused(root, other, words="holds a git repository")
    assert tree_snapshot(other) == before


@pytest.mark.parametrize("walk", ["beside", "one core", "child failed"])
def test_a_nested_repository_found_beside_the_check_is_refused_first(tmp_path, monkeypatch, walk):
    # The walk for a nested .git runs in a child while the input is checked (OutputCheck): however
    # it runs, a repository deep in an old build is refused, before a bad match file is reported,
    # and nothing in the folder or beside it is touched.
    from sitegen.load import forked
    root = site(tmp_path / "site")
    out = tmp_path / "out"
    build(root, out)
    init_repo(out / "players" / "a" / "b" / "vendor")
    (root / "matches" / "duel" / "2024.toml").write_text("[[match]]\nplayed = 'not a date'\n", encoding="utf-8")
    if walk == "one core":
        monkeypatch.setattr(forked, "cores", lambda: 1)
    elif walk == "child failed":
        monkeypatch.setattr(forked, "start", lambda job: forked.Child(*_failed_child()))
    before = tree_snapshot(out)
    with pytest.raises(InvalidInput) as caught:
        build(root, out)
    [problem] = caught.value.problems
    nested = out / "players" / "a" / "b" / "vendor" / ".git"
    assert problem.message.startswith(f"the output folder holds a git repository ({nested})")
    assert tree_snapshot(out) == before and staging(out) == []
    # Without the nested repository, the bad match file is what the build reports.
    import shutil
    shutil.rmtree(out / "players" / "a")
    with pytest.raises(InvalidInput) as caught:
        build(root, out)
    assert all("2024.toml" in p.file for p in caught.value.problems), caught.value.problems


def _failed_child() -> tuple[int, int]:
    """A child that exits 1 at once, as forked.start's child does when its job raises."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        os._exit(1)
    os.close(writer)
    return pid, reader


def test_a_bare_repository_is_refused(tmp_path):
    root = site(tmp_path / "site")
    bare = tmp_path / "mirror.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    before = tree_snapshot(bare)
    refused(root, bare, words="git repository's own folder")
    refused(root, bare / "site", words="inside a git repository's own folder")
    assert tree_snapshot(bare) == before


def test_a_home_like_folder_is_refused_and_untouched(tmp_path):
    root = site(tmp_path / "site")
    home = write_files(tmp_path / "alice", {".bashrc": "export EDITOR=vi\n", "Documents/notes.txt": "notes",
                                            "photos/cat.jpg": b"\xff\xd8\xff\xe0 jpeg"})
    before = tree_snapshot(home)
    result = refused(root, home, words="not a site sitegen wrote")
    assert ".sitegen-site" in result.stderr and "move those files elsewhere" in result.stderr
    assert tree_snapshot(home) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alice", "site"]     # no staging folder left


def test_the_real_home_folder_is_refused(tmp_path, monkeypatch):
    root = site(tmp_path / "site")
    home = tmp_path / "home"
    home.mkdir()        # even empty
    monkeypatch.setenv("HOME", str(home))
    with pytest.raises(InvalidInput) as info:
        build(root, home)
    assert "your home folder" in info.value.problems[0].message
    assert list(home.iterdir()) == []


def test_docs_with_a_readme_is_refused_and_untouched(tmp_path):
    root = site(tmp_path / "site")
    write_files(root, {"docs/README.md": "# How we run the league\n"})
    before = tree_snapshot(root)
    refused(root, "docs", words="not a site sitegen wrote")
    assert tree_snapshot(root) == before


def test_a_file_is_refused_and_untouched(tmp_path):
    root = site(tmp_path / "site")
    target = write_files(tmp_path, {"notes.txt": "keep me\n"}) / "notes.txt"
    result = refused(root, target, words="is a file, not a folder")
    assert target.read_text() == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "site"]
    assert "--out with a new or empty folder" in result.stderr


@pytest.mark.parametrize("out", ["..", "../..", ".", "matches", "matches/duel", "content", "templates",
                                 "pyproject.toml"])
def test_the_root_its_parents_and_its_inputs_are_refused_even_when_empty_or_marked(tmp_path, out):
    root = site(tmp_path / "a" / "site")
    write_files(root, {"content/.keep": "", "templates/.keep": "", "pyproject.toml": "[tool.sitegen]\n"})
    # The marker does not make a folder of the site's own files replaceable.
    write_files(root, {f"{out}/{write.MARKER}": write.MARKER_TEXT} if out in ("content", "templates") else {})
    before = tree_snapshot(tmp_path)
    refused(root, out)
    assert tree_snapshot(tmp_path) == before


def test_the_current_folder_is_refused(tmp_path):
    root = site(tmp_path / "site")
    here = tmp_path / "here"
    here.mkdir()
    refused(root, ".", cwd=here, words="the current folder")
    assert here.is_dir() and list(here.iterdir()) == []
    result = run_cli("build", "--root", str(root), "--out", "public", cwd=here)    # a folder inside it is fine
    assert result.returncode == 0, result.stderr
    assert (here / "public" / "index.html").is_file()


def test_a_marker_that_is_a_link_or_has_other_text_does_not_count(tmp_path):
    root = site(tmp_path / "site")
    real = write_files(tmp_path, {"real/.sitegen-site": write.MARKER_TEXT})
    linked = write_files(tmp_path, {"linked/index.html": "mine"}) / "linked"
    (linked / write.MARKER).symlink_to(real / "real" / write.MARKER)
    other = write_files(tmp_path, {"other/.sitegen-site": "my notes about sitegen-site 1\n"}) / "other"
    for folder in (linked, other):
        before = tree_snapshot(folder)
        refused(root, folder, words="not a site sitegen wrote")
        assert tree_snapshot(folder) == before


# --- accepted ---------------------------------------------------------------------------------

def test_an_absent_or_empty_folder_is_accepted_and_marked(tmp_path):
    root = site(tmp_path / "site")
    for out in (tmp_path / "new" / "deep" / "public", tmp_path / "empty"):
        if out.name == "empty":
            out.mkdir()
        result = run_cli("build", "--root", str(root), "--out", str(out), cwd=root)
        assert result.returncode == 0, result.stderr
        assert (out / "index.html").is_file()
        assert (out / write.MARKER).read_text(encoding="utf-8") == write.MARKER_TEXT
        assert (out / write.MARKER).read_text(encoding="utf-8").splitlines()[0] == "sitegen-site 1"
        assert staging(out) == []


def test_a_second_build_over_the_first_is_accepted(tmp_path):
    root = site(tmp_path / "site")
    assert run_cli("build", "--root", str(root)).returncode == 0
    out = root / "_site"
    (out / "stale.html").write_text("old", encoding="utf-8")
    first_inode = out.stat().st_ino
    assert run_cli("build", "--root", str(root)).returncode == 0
    assert not (out / "stale.html").exists() and (out / "index.html").is_file()
    assert out.stat().st_ino != first_inode          # a new folder was swapped in
    assert staging(out) == []


def test_a_big_sites_old_copy_is_removed_by_a_process_of_its_own(tmp_path, monkeypatch):
    """Past REMOVED_BESIDE files the old site is removed after the build returns, by a process
    that holds its lock meanwhile (another build leaves it alone) and keeps no pipe open."""
    root = site(tmp_path / "site")
    out = tmp_path / "_site"
    build(root, out)
    (out / "stale.html").write_text("old", encoding="utf-8")
    monkeypatch.setattr(write, "REMOVED_BESIDE", 1)
    removed: list[tuple[Path, bool]] = []
    real = write._remove_beside

    def remove_beside(folder: Path, lock: int) -> bool:
        removed.append((folder, real(folder, lock)))
        return removed[-1][1]
    monkeypatch.setattr(write, "_remove_beside", remove_beside)
    real_rmtree = write.shutil.rmtree
    here: list[str] = []
    monkeypatch.setattr(write.shutil, "rmtree", lambda path, **kw: (here.append(str(path)), real_rmtree(path, **kw)))
    build(root, out)
    assert len(removed) == 1 and removed[0][1] and ".old-" in removed[0][0].name
    assert str(removed[0][0]) not in here, "not removed by the build's own process"
    assert not (out / "stale.html").exists() and (out / "index.html").is_file()
    deadline = time.monotonic() + 60
    while staging(out) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert staging(out) == [], "the old site was removed"


def test_a_site_of_an_older_sitegen_without_the_marker_is_accepted(tmp_path):
    root = site(tmp_path / "site")
    assert run_cli("build", "--root", str(root)).returncode == 0
    out = root / "_site"
    (out / write.MARKER).unlink()              # as the previous version wrote it
    assert write.old_site_signature(out)
    assert run_cli("build", "--root", str(root)).returncode == 0
    assert write.has_marker(out)
    # Without sitegen's standings header it is someone's own site.
    (out / write.MARKER).unlink()
    standings = out / "data" / "duel" / "standings.csv"
    standings.write_text("place,name\n1,ana\n", encoding="utf-8")
    before = tree_snapshot(out)
    refused(root, out, words="remove that folder once")
    assert tree_snapshot(out) == before


def test_a_link_to_an_earlier_build_is_followed_and_kept(tmp_path):
    root = site(tmp_path / "site")
    real = tmp_path / "www" / "site"
    assert run_cli("build", "--root", str(root), "--out", str(real)).returncode == 0
    link = tmp_path / "public"
    link.symlink_to(real, target_is_directory=True)
    assert run_cli("build", "--root", str(root), "--out", str(link)).returncode == 0
    assert link.is_symlink() and (link / "index.html").is_file()
    # A link to a user's folder is judged by that folder: refused.
    mine = write_files(tmp_path, {"mine/todo.txt": "x"}) / "mine"
    other = tmp_path / "other"
    other.symlink_to(mine, target_is_directory=True)
    refused(root, other, words="not a site sitegen wrote")
    assert (mine / "todo.txt").read_text() == "x" and other.is_symlink()


def test_a_folder_that_gains_user_files_during_the_build_is_left_alone(tmp_path):
    out = tmp_path / "out"
    output = write.Output(out)
    output.add("index.html", "new")
    write_files(out, {"thesis.tex": "years of work"})        # appears while the build writes
    with pytest.raises(InvalidInput) as info:
        output.commit()
    output.discard()
    assert "during the build" in info.value.problems[0].message
    assert tree_snapshot(out) == {"thesis.tex": b"years of work"}
    assert staging(out) == []


# --- the swap ---------------------------------------------------------------------------------

def _two_commits(out: Path) -> write.Output:
    first = write.Output(out)
    first.add("index.html", "one")
    first.commit()
    second = write.Output(out)
    second.add("index.html", "two")
    second.commit()
    return second


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is Linux's")
def test_on_linux_the_new_site_is_exchanged_in_one_step(tmp_path, monkeypatch):
    assert write._RENAMEAT2 is not None
    out = tmp_path / "_site"
    calls, renames = [], []
    real_renameat2, real_rename = write._renameat2, os.rename

    def spy_renameat2(a, b, flags):
        calls.append((Path(a).name, Path(b).name, flags))
        return real_renameat2(a, b, flags)

    def spy_rename(a, b):
        renames.append((Path(a).name, Path(b).name))
        return real_rename(a, b)

    monkeypatch.setattr(write, "_renameat2", spy_renameat2)
    monkeypatch.setattr(write.os, "rename", spy_rename)
    second = _two_commits(out)
    assert second.exchanged
    assert len(calls) == 1 and calls[0][1] == "_site" and calls[0][2] == write.RENAME_EXCHANGE
    assert calls[0][0].startswith("._site.new-")
    assert not any(a == "_site" for a, _ in renames)        # the output itself is never moved aside
    assert (out / "index.html").read_text() == "two" and write.has_marker(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_site"]


@pytest.mark.parametrize("code", [errno.EINVAL, errno.ENOSYS])
def test_where_the_exchange_is_refused_two_renames_do_it(tmp_path, monkeypatch, code):
    def refuse(a, b, flags):
        raise OSError(code, os.strerror(code), str(a), None, str(b))

    monkeypatch.setattr(write, "_renameat2", refuse)
    out = tmp_path / "_site"
    second = _two_commits(out)
    assert not second.exchanged
    assert (out / "index.html").read_text() == "two" and write.has_marker(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_site"]


def test_when_the_fallback_cannot_move_the_new_site_in_the_old_one_is_put_back(tmp_path, monkeypatch):
    def refuse(a, b, flags):
        raise OSError(errno.EINVAL, "Invalid argument", str(a), None, str(b))

    real_rename = os.rename

    def rename(a, b):
        if Path(a).name.startswith("._site.new-") and Path(b).name == "_site":
            raise OSError(errno.EIO, "I/O error", str(a), None, str(b))
        return real_rename(a, b)

    out = tmp_path / "_site"
    first = write.Output(out)
    first.add("index.html", "one")
    first.commit()
    monkeypatch.setattr(write, "_renameat2", refuse)
    monkeypatch.setattr(write.os, "rename", rename)
    second = write.Output(out)
    second.add("index.html", "two")
    with pytest.raises(OSError):
        second.commit()
    second.discard()
    assert (out / "index.html").read_text() == "one" and write.has_marker(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_site"]


def test_another_exchange_error_is_not_hidden(tmp_path, monkeypatch):
    def fail(a, b, flags):
        raise OSError(errno.EIO, "I/O error", str(a), None, str(b))

    monkeypatch.setattr(write, "_renameat2", fail)
    out = tmp_path / "_site"
    first = write.Output(out)
    first.add("index.html", "one")
    first.commit()
    second = write.Output(out)
    second.add("index.html", "two")
    with pytest.raises(OSError):
        second.commit()
    second.discard()
    assert (out / "index.html").read_text() == "one"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_site"]


# --- debris of killed builds ----------------------------------------------------------------

from test_serve import big_site   # noqa: E402 - the same slow-to-build league as the serve tests


def kill_while_staging(root: Path, out: Path) -> None:
    """Start `sitegen build`, SIGKILL it while it writes its staging folder."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.Popen([sys.executable, "-m", "sitegen", "build", "--root", str(root), "--out", str(out)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 60
        while not [n for n in staging(out) if ".new-" in n and len(list((out.parent / n).iterdir())) > 3]:
            assert proc.poll() is None, "the build ended before it could be killed"
            assert time.monotonic() < end, "no staging folder after 60 s"
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_killed_build_leaves_the_old_site_and_the_next_build_removes_its_debris(tmp_path):
    root = big_site(tmp_path / "site")
    out = root / "_site"
    assert run_cli("build", "--root", str(root)).returncode == 0
    complete = tree_snapshot(out)
    kill_while_staging(root, out)
    assert tree_snapshot(out) == complete                  # the old site, whole
    debris = staging(out)
    assert len(debris) == 1 and debris[0].startswith("._site.new-")
    assert write.has_marker(out.parent / debris[0])
    # Someone's own folder that happens to match the pattern is not sitegen's: kept.
    write_files(root, {"._site.new-mine/notes.txt": "mine"})
    assert run_cli("build", "--root", str(root)).returncode == 0
    assert staging(out) == ["._site.new-mine"]
    assert tree_snapshot(out) == complete                  # same input, same bytes


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_first_build_killed_leaves_no_output_and_the_next_one_builds_it(tmp_path):
    root = big_site(tmp_path / "site")
    out = tmp_path / "public"
    kill_while_staging(root, out)
    assert not out.exists() and len(staging(out)) == 1
    assert run_cli("build", "--root", str(root), "--out", str(out)).returncode == 0
    assert staging(out) == [] and (out / "index.html").is_file() and write.has_marker(out)


@pytest.mark.skipif(write.fcntl is None, reason="no flock here")
def test_the_staging_folder_of_a_build_still_running_is_kept(tmp_path):
    out = tmp_path / "_site"
    running = write.Output(out)
    running.add("index.html", "still writing")           # its staging folder exists, locked
    mine = staging(out)
    assert len(mine) == 1
    done = write.Output(out)
    done.add("index.html", "done")
    done.commit()
    assert staging(out) == mine                          # not removed: its build is alive
    running.discard()
    assert staging(out) == []
    # An unlocked one, with the marker, is debris.
    left = tmp_path / "._site.old-abcd1234"
    write_files(left, {write.MARKER: write.MARKER_TEXT, "index.html": "old"})
    assert write.remove_debris(out) == [left] and not left.exists()


def test_a_file_given_in_parts_is_written_whole_and_linked_only_when_unchanged(tmp_path):
    out = tmp_path / "out"
    first = write.Output(out)
    first.add_parts("data/x/changes.csv", iter([b"a,b\n", b"1,2\n", b""]))
    first.add_parts("data/x/matches.csv", [b"id\n", b"m-1\n"])
    first.commit()
    assert (out / "data/x/changes.csv").read_bytes() == b"a,b\n1,2\n"
    second = write.Output(out, reuse=True)
    second.add_parts("data/x/changes.csv", [b"a,b\n1,2\n"])         # the same bytes, cut elsewhere
    second.add_parts("data/x/matches.csv", [b"id\n", b"m-2\n"])     # the same size, other bytes
    assert second.linked == 1
    assert second.sizes["data/x/changes.csv"] == 8
    second.commit()
    assert (out / "data/x/matches.csv").read_bytes() == b"id\nm-2\n"
    assert (out / "data/x/changes.csv").read_bytes() == b"a,b\n1,2\n"
