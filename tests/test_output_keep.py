"""How output/write.py keeps a published file: linked only while it is the file a build wrote
(one lstat: size, time, inode and a plain file), into staging folders made one mkdir at a time,
parents first (what os.makedirs made; a folder another process made taken as made, a file in
the way refused)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sitegen.output import write


def test_staging_folders_are_made_parents_first_and_once(tmp_path: Path, monkeypatch) -> None:
    output = write.Output(tmp_path / "out")
    stage = str(output.staging())
    made: list[str] = []
    mkdir = os.mkdir
    monkeypatch.setattr(write.os, "mkdir", lambda path, *a, **k: (made.append(path), mkdir(path, *a, **k)))
    for path in ("a/b/c/one.html", "a/b/c/two.html", "a/b/d/three.html", "e/four.html"):
        output.add(path, path)
    assert [p[len(stage) + 1:] for p in made] == ["a", "a/b", "a/b/c", "a/b/d", "e"]
    for path in ("a/b/c/one.html", "a/b/d/three.html", "e/four.html"):
        assert Path(stage, path).read_text() == path


def test_the_folders_of_claimed_files_are_made_at_once_in_path_order_and_not_again(tmp_path: Path,
                                                                                  monkeypatch) -> None:
    """``make_folders`` makes them before page workers fork: a worker then makes none."""
    output = write.Output(tmp_path / "out")
    stage = str(output.staging())
    (Path(stage) / "x").mkdir()                 # made by a process of its own (the search index's)
    made: list[str] = []
    mkdir = os.mkdir
    monkeypatch.setattr(write.os, "mkdir", lambda path, *a, **k: (made.append(path), mkdir(path, *a, **k)))
    paths = ["p/z/index.html", "p/a/index.html", "p/z/games.json", "x/y/page.html", "top.html", "p/a/b/c.html"]
    for path in paths:
        output.claim(path)
    output.make_folders()
    assert [p[len(stage) + 1:] for p in made] == ["p", "p/a", "p/a/b", "p/z", "x", "x/y"]
    made.clear()
    for path in paths:
        output.record(path, *output.write(path, path))
    output.make_folders()
    assert made == []
    assert all(Path(stage, path).read_text() == path for path in paths)
    output.discard()


def test_folders_another_process_made_are_noted_with_their_parents_and_not_made_again(tmp_path: Path,
                                                                                   monkeypatch) -> None:
    from sitegen.output.parallel import Background

    output = write.Output(tmp_path / "out")
    stage = output.staging()
    made = Background(lambda: output.make_folders(["p/b/c", "p/a"])).result()
    assert made == ["p/a", "p/b/c"] and (stage / "p/b/c").is_dir()
    output.folders_made(made)
    calls: list[str] = []
    mkdir = os.mkdir
    monkeypatch.setattr(write.os, "mkdir", lambda path, *a, **k: (calls.append(path), mkdir(path, *a, **k)))
    for path in ("p/a/x.html", "p/b/c/y.html", "p/b/z.html", "top.html"):
        output.add(path, path)
    assert calls == []
    assert (stage / "p/b/z.html").read_text() == "p/b/z.html"
    output.discard()


def test_a_folder_another_process_made_is_taken_and_a_file_in_its_way_is_not(tmp_path: Path) -> None:
    output = write.Output(tmp_path / "out")
    stage = output.staging()
    (stage / "a" / "b").mkdir(parents=True)     # a worker of an earlier batch made it
    output.add("a/b/page.html", "x")
    assert (stage / "a/b/page.html").read_text() == "x"
    (stage / "c").write_text("")
    with pytest.raises(FileExistsError):
        output.add("c/d/page.html", "y")
    output.discard()


def test_a_published_file_is_kept_only_while_it_is_the_file_written(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = write.Output(out)
    first.add("p/index.html", "page")
    first.add("q/index.html", "page")
    first.commit()
    st = os.lstat(out / "p/index.html")
    second = write.Output(out, reuse=True)
    for moved in ((st.st_size + 1, st.st_mtime_ns, st.st_ino), (st.st_size, st.st_mtime_ns + 1, st.st_ino),
                  (st.st_size, st.st_mtime_ns, st.st_ino + 1)):
        assert second.published("p/index.html", *moved) is None
        assert not second.keep(second.claim("p/index.html", replace=True), *moved)
    assert second.keep("p/index.html", st.st_size, st.st_mtime_ns, st.st_ino)
    assert os.lstat(second.staged("p/index.html")).st_ino == st.st_ino
    # A link in the published site, even to the very file, is not the file written.
    (out / "q/index.html").unlink()
    (out / "q/index.html").symlink_to(out / "p/index.html")
    link = os.lstat(out / "q/index.html")
    assert second.published("q/index.html", link.st_size, link.st_mtime_ns, link.st_ino) is None
    assert second.published("q/index.html", st.st_size, st.st_mtime_ns, st.st_ino) is None
    second.discard()
    assert (out / "p/index.html").read_text() == "page"


def test_the_stamps_a_build_stores_are_the_next_build_s(tmp_path: Path) -> None:
    """Stored as plain tuples, read back as stamps; an entry of another form keeps nothing."""
    from sitegen.load.cache import Cache
    from sitegen.output.memo import PageMemo, Stamp

    cache = Cache(tmp_path / "cache")
    memo = PageMemo(cache, tmp_path / "out", "site")
    memo.new = {"a/index.html": Stamp("k", 3, 10, 20), "b.json": Stamp("j", 0, 11, 21)}
    memo.new_held = {"b.json": ("held",)}
    memo.save()
    again = PageMemo(cache, tmp_path / "out", "site")
    assert again.old == memo.new and all(type(s) is Stamp for s in again.old.values())
    assert again.old["a/index.html"].inode == 20 and again.old_held == {"b.json": ("held",)}
    assert PageMemo(cache, tmp_path / "out", "another site").old == {}
    cache.put("pages", memo.slot, ("site", {"a/index.html": ("k", 3)}, {}, {}))
    foreign = PageMemo(cache, tmp_path / "out", "site")
    assert foreign.old == {} and foreign.old_held == {}
