"""A big league's changes.csv and matches.csv grow by their new rows (output/memo.py, model/ledger.py):
after a match appended at the end, each is the published file's first rows and the rows that
follow, and the site is byte for byte a cold build's; where the match's file has a new commit,
matches.csv keeps only the rows before that file's first match."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

import sitegen.model.ledger as ledger_module
from sitegen.commands import build as build_module
from sitegen.commands.build import build
from sitegen.load.cache import FOLDER
from sitegen.model.ledger import matches_kept
from sitegen.load.provenance import Commit, Provenance
from sitegen.output import parallel
from sitegen.output.write import _write

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gitrepo import commit_all, init_repo  # noqa: E402
from test_incremental import assert_same_as_cold  # noqa: E402
from test_kept_pages import append_copy, edit_notes, swap_first_two  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "small"


@pytest.fixture
def site(tmp_path: Path, monkeypatch) -> Path:
    from sitegen.model import scale

    monkeypatch.setattr(scale, "BIG_LEAGUE_ROWS", 1)       # every league big: no JSON or Parquet twin
    # In one process, so that what the data files' process is asked to do can be seen here.
    monkeypatch.setattr(parallel, "cores", lambda: 1)
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns(FOLDER))
    return root


@pytest.fixture
def after(monkeypatch) -> list[dict]:
    """Each league_files call's ``after``: the rows each grown file's new parts start at."""
    seen: list[dict] = []
    original = ledger_module.league_files

    def noting(rated, provenance=None, roster=None, after=None):
        seen.append({"league": rated.league.config.slug, **(after or {})})
        return original(rated, provenance, roster, after=after)

    monkeypatch.setattr(ledger_module, "league_files", noting)
    return seen


def rows(path: Path) -> int:
    return path.read_bytes().count(b"\n") - 1


def of(seen: list[dict], league: str) -> dict:
    return next(s for s in reversed(seen) if s["league"] == league)


def test_matches_csv_grows_by_its_new_rows_and_is_made_whole_after_other_edits(site, tmp_path, after):
    out = tmp_path / "out"
    build(site, out)
    assert of(after, "ladder") == {"league": "ladder"}         # nothing published yet
    for edit in (append_copy, edit_notes, append_copy, swap_first_two):
        old = {t: (out / f"data/ladder/{t}.csv").read_bytes() for t in ("changes", "matches")}
        edit(site, "ladder")
        build(site, out)
        if edit is append_copy:
            assert of(after, "ladder") == {"league": "ladder", "changes": old["changes"].count(b"\n") - 1,
                                           "matches": old["matches"].count(b"\n") - 1}
            for table in ("changes", "matches"):
                new = (out / f"data/ladder/{table}.csv").read_bytes()
                assert new.startswith(old[table]) and len(new) > len(old[table])
        else:
            assert of(after, "ladder") == {"league": "ladder"}
        assert_same_as_cold(site, out, tmp_path)


def append_to(path: Path) -> None:
    """The file's last match again, later than every match of the league."""
    text = path.read_text(encoding="utf-8")
    block = re.sub(r"(?m)^id = .*\n", "", text[text.rindex("[[match]]"):])
    block = re.sub(r"(?m)^played = .*$", "played = 2024-12-30T12:00:00Z", block)
    path.write_text(text.rstrip("\n") + "\n\n" + block, encoding="utf-8")


def test_matches_csv_keeps_the_rows_before_the_first_match_of_a_file_with_a_new_commit(site, tmp_path, after):
    init_repo(site)
    commit_all(site, "the fixture")
    out = tmp_path / "out"
    build(site, out)
    old = (out / "data/duel/matches.csv").read_text(encoding="utf-8").splitlines()
    last = old[-1].split(",")[2]                                # the file of the league's last match
    first = next(i for i, line in enumerate(old[1:]) if line.split(",")[2] == last)
    assert 0 < first < len(old) - 1 and old[1].split(",")[3]    # rows of another file, named by their commit
    append_to(site / last)
    commit_all(site, "one more match", when="2026-01-02T12:00:00+00:00")
    build(site, out)
    # changes.csv follows from the matches alone; matches.csv's rows of the committed file name the new commit.
    assert of(after, "duel") == {"league": "duel", "changes": rows(out / "data/duel/changes.csv") - 2,
                                 "matches": first}
    new = (out / "data/duel/matches.csv").read_text(encoding="utf-8").splitlines()
    assert new[:first + 1] == old[:first + 1] and new[first + 1] != old[first + 1]
    assert_same_as_cold(site, out, tmp_path)
    # Nothing changed since: the file is the published one, whole.
    build(site, out)
    assert of(after, "duel")["matches"] == len(new) - 1


def test_rows_kept_stop_at_the_first_match_of_a_file_whose_commit_moved(site):
    from sitegen.commands.build import check, rate

    rated = next(r for r in rate(check(site)) if r.league.config.slug == "duel")
    files = [m.file for m in rated.league.matches]
    commit = Commit("a" * 40, rated.league.matches[0].played, "x")
    held = {f: "" for f in files}
    assert matches_kept(rated, Provenance(), held, len(files)) == len(files)
    assert matches_kept(rated, Provenance(), None, len(files)) == 0
    assert files[0] != files[1] == files[-1]
    moved = Provenance(commits={files[1]: commit})
    assert matches_kept(rated, moved, held, len(files)) == 1
    assert matches_kept(rated, moved, held, 1) == 1


def test_the_published_file_s_first_lines_are_copied_across_parts(tmp_path):
    path = tmp_path / "f.csv"
    path.write_bytes(b"h\n" + b"".join(b"row%d\n" % i for i in range(50)))
    for size in (1, 3, 7, 1 << 20):
        for lines in (1, 2, 17, 51):
            head = build_module._head(str(path), lines, 51, size=size)
            assert head is not None
            # A span of the published file, which the kernel copies where it is written (write.py).
            _write(str(tmp_path / "new.csv"), head)
            assert (tmp_path / "new.csv").read_bytes() == b"".join(path.read_bytes().splitlines(keepends=True)[:lines])
    # A quoted cell holding a line end: the rows are not the lines, and nothing is copied.
    path.write_bytes(b'h\n"a\nb"\nc\n')
    assert build_module._head(str(path), 2, 3) is None
    assert build_module._head(str(path), 3, 3) is not None      # the whole file as it is
