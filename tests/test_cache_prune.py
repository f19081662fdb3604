"""The build cache's pruning (load/cache.py ``prune``): entries none of the last two builds used
go, a large lot of them by a rename into a trash folder that a process of its own removes; the
cache stays bounded, and nothing but its own entries is ever removed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sitegen.load import cache as cache_module
from sitegen.load.cache import FOLDER, KEEP_BUILDS, TRASH, UNLINKED_HERE, Cache


def entries(folder: Path) -> set[str]:
    """The entries in the kind folders (kind/xx/rest), by path under the cache."""
    return {p.relative_to(folder).as_posix() for p in folder.glob("*/*/*")
            if p.is_file() and not p.relative_to(folder).as_posix().startswith(TRASH)}


def removers_done() -> None:
    for process in cache_module._removers:
        process.wait()


def old(folder: Path) -> None:
    """Every entry's time set before any build's start: only what a build uses is kept then."""
    for p in folder.glob("*/*/*"):
        os.utime(p, ns=(1, 1), follow_symlinks=False)


@pytest.mark.parametrize("count", [3, UNLINKED_HERE + 40])
def test_the_entries_no_recent_build_used_go_and_the_trash_with_them(tmp_path: Path, count: int) -> None:
    folder = tmp_path / FOLDER
    first = Cache(folder)
    for i in range(count):
        first.put("checked", f"old-{i}", i)
    first.put("checked", "kept", "yes")
    first.prune()
    old(folder)
    second = Cache(folder)
    assert second.get("checked", "kept") == "yes"
    second.prune()
    removers_done()
    assert entries(folder) == {second._path("checked", "kept")[0].relative_to(folder).as_posix()}
    assert not any((folder / TRASH).glob("*/*"))        # the trash removed after the build
    assert Cache(folder).get("checked", "old-0") is None and Cache(folder).get("checked", "kept") == "yes"


def test_only_the_cache_s_own_entries_are_removed(tmp_path: Path) -> None:
    folder = tmp_path / FOLDER
    first = Cache(folder)
    for i in range(UNLINKED_HERE + 5):
        first.put("toml", f"k{i}", i)
    first.prune()
    outside = tmp_path / "outside.txt"
    outside.write_text("not the cache's", encoding="utf-8")
    planted = {
        "notes.txt": b"top level",              # beside the kind folders
        "toml/readme": b"in a kind folder",     # not in an entry's sub-folder
        ".hidden/ab/cd": b"a dot-folder",
    }
    for rel, data in planted.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    link = folder / "toml" / "ab" / "link"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)
    old(folder)
    for rel in planted:
        os.utime(folder / rel, ns=(1, 1))
    for _ in range(KEEP_BUILDS + 1):
        Cache(folder).prune()
    removers_done()
    assert entries(folder) == {"toml/ab/link", ".hidden/ab/cd"}      # every entry gone but those
    for rel, data in planted.items():
        assert (folder / rel).read_bytes() == data
    assert link.is_symlink() and outside.read_text(encoding="utf-8") == "not the cache's"


def test_an_entry_this_build_used_is_kept_whatever_its_time(tmp_path: Path) -> None:
    """An entry read whose time could not be set (get touches it) is still this build's."""
    folder = tmp_path / FOLDER
    writer = Cache(folder)
    writer.put("blocks", "k", [1, 2])
    writer.prune()
    reader = Cache(folder)
    assert reader.get("blocks", "k") == [1, 2]
    old(folder)
    reader.prune()
    assert Cache(folder).get("blocks", "k") == [1, 2]


def test_the_cache_stays_bounded_build_after_build(tmp_path: Path) -> None:
    """Each build writes entries of its own and reads the one before's: the cache holds the
    entries of the last KEEP_BUILDS builds, however many builds ran."""
    folder = tmp_path / FOLDER
    for n in range(6):
        cache = Cache(folder)
        cache.get("checked", f"build-{n - 1}-0")
        for i in range(UNLINKED_HERE // 2 + 1):      # two builds' worth goes past what is unlinked here
            cache.put("checked", f"build-{n}-{i}", (n, i))
        cache.prune()
    removers_done()
    assert len(entries(folder)) <= KEEP_BUILDS * (UNLINKED_HERE // 2 + 1)
    assert not any((folder / TRASH).glob("*/*"))


@pytest.mark.parametrize("fork", [True, False])
def test_an_entry_put_aside_is_the_one_put_writes(tmp_path: Path, monkeypatch, fork: bool) -> None:
    """``put_aside`` (a forked child pickles and writes the entry) leaves what ``put`` leaves: read
    back by the same cache (which waits for the child), by a later build's, and kept by ``prune``;
    without a second core it is a ``put``. A second put_aside of one entry waits for the first."""
    import numpy as np

    from sitegen.load import forked
    if not fork:
        monkeypatch.setattr(forked, "start", lambda job: None)
    folder = tmp_path / FOLDER
    value = (7, np.arange(100_000, dtype=np.int64), {"a": [1.5, None]})
    plain = Cache(tmp_path / "plain")
    plain.put("careers", "x", value)
    first = Cache(folder)
    first.put_aside("careers", "x", value)
    got = first.get("careers", "x")
    assert got[0] == 7 and np.array_equal(got[1], value[1]) and got[2] == value[2]
    first.put_aside("rating", "y", "one")
    first.put_aside("rating", "y", "two")
    first.prune()
    assert not first.aside
    again = Cache(folder)
    assert again.get("rating", "y") == "two"
    assert (folder / "careers").exists()
    got = again.get("careers", "x")
    assert got[0] == 7 and np.array_equal(got[1], value[1]) and got[2] == value[2]
    ours = sorted(p.read_bytes() for p in (folder / "careers").glob("*/*"))
    theirs = sorted(p.read_bytes() for p in (tmp_path / "plain" / "careers").glob("*/*"))
    assert ours == theirs
