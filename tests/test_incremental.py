"""Incremental builds: the build cache (.sitegen-cache/) and files linked from the published site.

The rule under test: a build with the cache writes byte for byte what a build without it (a cold
build into a fresh folder) writes, after any edit; a damaged cache is only a slower build.
"""

from __future__ import annotations

import os
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.commands.build import build, check
from sitegen.commands.cli import main
from sitegen.commands.serve import rebuild
from sitegen.load.cache import FOLDER, Cache, open_cache
from sitegen.model.history import rate_league
from sitegen.model.honest import bootstrap, cached_bootstrap
from sitegen.output.memo import PageMemo, prefix_identities
from sitegen.load.duplicates import near
from sitegen.load.problems import InvalidInput

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "small"
LADDER = Path("matches/ladder/2024/april.toml")

APPENDED = """
[[match]]
played = 2024-06-01T19:00:00Z
players = [
  { name = "Ana", score = 0 },
  { name = "Dee", score = 1 },
]
"""


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns(FOLDER))     # another test may have built it in place
    return root


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def assert_same_as_cold(site: Path, warm: Path, tmp_path: Path) -> None:
    cold = tmp_path / f"cold-{len(list(tmp_path.iterdir()))}"
    build(site, cold, cache=False)
    a, b = files_of(warm), files_of(cold)
    assert sorted(a) == sorted(b)
    differ = [name for name in a if a[name] != b[name]]
    assert differ == []


def append(site: Path) -> None:
    with (site / LADDER).open("a", encoding="utf-8") as fh:
        fh.write(APPENDED)


def edit_middle(site: Path) -> None:
    path = site / LADDER
    text = path.read_text(encoding="utf-8")
    # The third match's result, reversed: every rating after it changes.
    old = 'challenger = "Cid"\nplayers = [\n  { name = "Ana", score = 0 },\n  { name = "Cid", score = 1 },'
    assert old in text
    path.write_text(text.replace(old, old.replace("score = 0 }", "score = 9 }").replace("score = 1 }", "score = 0 }")
                                          .replace("score = 9 }", "score = 1 }")), encoding="utf-8")


def remove_file(site: Path) -> None:
    (site / "matches/duel/2024/cup/day-2.toml").unlink()


def change_league(site: Path) -> None:
    path = site / "matches/ladder/league.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("provisional_games = 2", "provisional_games = 3"),
                    encoding="utf-8")


def add_content_page(site: Path) -> None:
    (site / "content").mkdir(exist_ok=True)
    (site / "content" / "rules.md").write_text("# Rules\n\nPlay fair.\n", encoding="utf-8")


def comment_players(site: Path) -> None:
    """players.toml changes (a comment: the site is the same, only the cache keys change)."""
    path = site / "matches" / "players.toml"
    path.write_text(path.read_text(encoding="utf-8") + "\n# a comment only\n", encoding="utf-8")


@pytest.mark.parametrize("edit", [append, edit_middle, remove_file, change_league, add_content_page,
                                  comment_players])
def test_rebuild_with_the_cache_equals_a_cold_build(site: Path, tmp_path: Path, edit) -> None:
    out = tmp_path / "out"
    build(site, out)
    assert (site / FOLDER / "toml").is_dir()
    before = files_of(out)
    edit(site)
    output = build(site, out)
    assert output.linked > 0                    # unchanged files came from the published site
    assert (files_of(out) != before) == (edit is not comment_players)      # the edit shows
    assert_same_as_cold(site, out, tmp_path)


def test_unchanged_files_are_linked_not_rewritten(site: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(site, out)
    css = out / "assets" / "site.css"
    inode = css.stat().st_ino
    output = build(site, out)
    assert css.stat().st_ino == inode           # the same file, not a copy
    assert output.linked == len(output.sizes) - 1      # all but the marker, which is always written
    # Without the cache every file is written anew.
    assert build(site, out, cache=False).linked == 0
    assert css.stat().st_ino != inode


def test_a_replaced_asset_never_writes_through_a_link(site: Path, tmp_path: Path) -> None:
    """A site's own asset replaces the built-in one: the published file must not be changed in place."""
    out = tmp_path / "out"
    build(site, out)
    published = (out / "assets" / "site.css").read_bytes()
    kept = tmp_path / "kept.css"
    os.link(out / "assets" / "site.css", kept)      # another name for the published file
    (site / "templates" / "assets").mkdir(parents=True)
    (site / "templates" / "assets" / "site.css").write_text("body { color: red }\n", encoding="utf-8")
    build(site, out)
    assert (out / "assets" / "site.css").read_text(encoding="utf-8") == "body { color: red }\n"
    assert kept.read_bytes() == published
    assert_same_as_cold(site, out, tmp_path)


def test_a_damaged_cache_is_only_a_miss(site: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(site, out)
    entries = [p for p in (site / FOLDER).rglob("*") if p.is_file() and p.name != "builds"]
    assert entries
    for n, entry in enumerate(entries):
        if n % 3 == 0:
            entry.write_bytes(b"not a pickle")
        elif n % 3 == 1:
            entry.write_bytes(pickle.dumps(("another key", {"match": []})))     # foreign: its key differs
        else:
            entry.write_bytes(entry.read_bytes()[:10])                          # cut short
    append(site)
    build(site, out)
    assert_same_as_cold(site, out, tmp_path)


def test_a_cache_that_cannot_be_written_does_not_stop_the_build(site: Path, tmp_path: Path) -> None:
    (site / FOLDER).write_text("a file where the cache folder would be\n")
    out = tmp_path / "out"
    build(site, out)
    assert (site / FOLDER).read_text() == "a file where the cache folder would be\n"
    assert_same_as_cold(site, out, tmp_path)


def test_problems_in_a_cached_file_are_reported_as_without_the_cache(site: Path, tmp_path: Path) -> None:
    build(site, tmp_path / "out")               # every file parsed and cached
    path = site / LADDER
    path.write_text(path.read_text(encoding="utf-8").replace("score = 0.5", 'score = "half"', 1)
                    + '\n[[match]]\nplayed = "2024-13-01"\n', encoding="utf-8")
    (site / "matches/wvw/2024.toml").write_text("[[match]\n", encoding="utf-8")

    def problems(cache: bool) -> list[str]:
        with pytest.raises(InvalidInput) as caught:
            check(site, cache=cache)
        return [str(p) for p in caught.value.problems]

    first = problems(True)
    assert first == problems(False) == problems(True)
    assert any("april.toml:" in line for line in first) and any("2024.toml:1" in line for line in first)


def test_check_reads_the_cache_and_writes_nothing(site: Path, tmp_path: Path) -> None:
    assert main(["check", "--root", str(site), "--quiet"]) == 0
    assert not (site / FOLDER).exists()
    build(site, tmp_path / "out")
    before = files_of(site / FOLDER)
    path = site / LADDER
    path.write_text(path.read_text(encoding="utf-8") + APPENDED, encoding="utf-8")
    assert main(["check", "--root", str(site), "--quiet"]) == 0
    assert files_of(site / FOLDER) == before


def test_no_cache_leaves_no_cache_folder(site: Path, tmp_path: Path, capsys) -> None:
    assert main(["check", "--root", str(site), "--no-cache", "--quiet"]) == 0
    assert main(["build", "--root", str(site), "--out", str(tmp_path / "out"), "--no-cache", "--quiet"]) == 0
    assert not (site / FOLDER).exists()
    assert main(["build", "--root", str(site), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert (site / FOLDER).is_dir()


def test_the_cache_checks_each_entry_s_key(tmp_path: Path) -> None:
    cache = Cache(tmp_path / FOLDER)
    assert cache.get("toml", "a") is None
    cache.put("toml", "a", ("text", {"x": 1}))
    assert cache.get("toml", "a") == ("text", {"x": 1})
    assert cache.get("toml", "b") is None and cache.get("page", "a") is None
    # An entry moved under another key's name is a miss, not the other key's value.
    path_a, _ = cache._path("toml", "a")
    path_b, _ = cache._path("toml", "b")
    path_b.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(path_a, path_b)
    assert cache.get("toml", "b") is None
    assert open_cache(tmp_path, False) is None


def test_prune_keeps_what_the_last_builds_used(tmp_path: Path) -> None:
    folder = tmp_path / FOLDER
    first = Cache(folder)
    first.put("toml", "old", 1)
    first.put("toml", "kept", 2)
    first.prune()
    second = Cache(folder)
    assert second.get("toml", "kept") == 2
    second.prune()
    third = Cache(folder)
    third.get("toml", "kept")
    third.prune()
    # "old" was last used two builds before this one: gone; "kept" stays.
    assert Cache(folder).get("toml", "old") is None
    assert Cache(folder).get("toml", "kept") == 2


def test_bootstrap_intervals_come_from_the_cache_only_for_the_same_input(site: Path, tmp_path: Path) -> None:
    def history_key():
        league = next(lg for lg in check(site, cache=False).leagues if lg.config.slug == "ladder")
        memo = PageMemo(Cache(tmp_path / "keys"), tmp_path / "out", "site")
        return memo.bootstrap_key(site, rate_league(league))

    league = next(lg for lg in check(site, cache=False).leagues if lg.config.slug == "ladder")
    rated = rate_league(league)
    cache = Cache(tmp_path / FOLDER)
    key = history_key()
    assert key is not None
    run = cached_bootstrap(cache, {"ladder": key})
    fresh = bootstrap(rated)
    assert fresh and run(rated) == fresh
    assert cache.get("bootstrap", key[0]) == fresh
    # A planted entry under the key is what a hit returns: the key, not the value, is checked.
    cache.put("bootstrap", key[0], {name: (0.0, 1.0) for name in fresh})
    assert run(rated) == {name: (0.0, 1.0) for name in fresh}
    assert cached_bootstrap(cache, {})(rated) == fresh          # no key: resampled
    # Any input of the ratings changes the key: players.toml, league.toml, a match.
    for edit in (comment_players, change_league, append):
        edit(site)
        assert history_key()[0] != key[0]
        key = history_key()


def test_serve_rebuilds_through_the_cache_unless_told_not_to(site: Path, tmp_path: Path, capsys) -> None:
    assert rebuild(site, tmp_path / "out", cache=False)
    assert not (site / FOLDER).exists()
    assert rebuild(site, tmp_path / "out")
    assert (site / FOLDER / "bootstrap").is_dir()
    append(site)
    assert rebuild(site, tmp_path / "out")
    assert_same_as_cold(site, tmp_path / "out", tmp_path)


@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=30), st.data())
@settings(max_examples=60, deadline=None)
def test_a_history_s_first_difference_is_the_first_changed_match(ids, data) -> None:
    """Whatever the history: prefix identities before the first changed match are equal, and
    every one from it on differs; an appended match leaves every earlier one as it was."""
    before = np.array(ids, dtype=np.uint64)
    at = data.draw(st.integers(0, len(ids) - 1))
    after = before.copy()
    after[at] = np.uint64((ids[at] + data.draw(st.integers(1, 2**64 - 1))) % 2**64)
    a = prefix_identities(before, np.arange(len(ids)))
    b = prefix_identities(after, np.arange(len(ids)))
    assert a[:at].tolist() == b[:at].tolist() and all(x != y for x, y in zip(a[at:], b[at:]))
    longer = prefix_identities(np.append(before, np.uint64(7)), np.arange(len(ids) + 1))
    assert longer[:len(a)].tolist() == a.tolist()


def test_an_entry_read_is_touched_where_it_is_read(tmp_path: Path) -> None:
    """A forked process (the bootstrap's) reads entries the parent's prune never hears of:
    the read itself marks the entry as used, so the next builds keep it."""
    cache = Cache(tmp_path / FOLDER)
    cache.put("bootstrap", "k", {"Ana": (1.0, 2.0)})
    path = next(p for p in (tmp_path / FOLDER / "bootstrap").rglob("*") if p.is_file())
    os.utime(path, ns=(1, 1))
    reader = Cache(tmp_path / FOLDER)
    assert reader.get("bootstrap", "k") == {"Ana": (1.0, 2.0)}
    assert path.stat().st_mtime_ns >= reader.started
    read_only = Cache(tmp_path / FOLDER, writable=False)
    os.utime(path, ns=(1, 1))
    assert read_only.get("bootstrap", "k") is not None
    assert path.stat().st_mtime_ns == 1          # `sitegen check` writes nothing, not even times


def test_checked_files_from_the_cache_report_as_without_it(site: Path, tmp_path: Path) -> None:
    """A changed file checked beside files whose matches come from the cache: an id it shares
    with a kept file, and its own problems, are reported word for word as without the cache."""
    build(site, tmp_path / "out")
    assert (site / FOLDER / "checked").is_dir()
    extra = site / "matches" / "wvw" / "2025.toml"
    extra.write_text('[[match]]\nid = "w12-b"\nplayed = 2025-01-01T20:00:00Z\nplayers = [\n'
                     '  { name = "Ashford", score = 1 },\n  { name = "Cinderfall", score = 2 },\n'
                     '  { name = "Duskhaven", score = 3 },\n]\n', encoding="utf-8")
    from sitegen.load import validate
    calls = []
    monkey = pytest.MonkeyPatch()
    from_cache = validate._from_cache

    def noting(*args):
        done = from_cache(*args)
        calls.append((args[0][0].rel, done is not None))
        return done

    monkey.setattr(validate, "_from_cache", noting)
    with pytest.raises(InvalidInput) as warm:
        check(site)
    monkey.undo()
    assert ("matches/wvw/2024.toml", False) in calls     # the clash sends the league the long way
    with pytest.raises(InvalidInput) as cold:
        check(site, cache=False)
    assert [str(p) for p in warm.value.problems] == [str(p) for p in cold.value.problems]
    assert any("duplicate match id 'w12-b'" in str(p) for p in warm.value.problems)
    extra.write_text(extra.read_text(encoding="utf-8").replace('id = "w12-b"', 'id = "w13"'), encoding="utf-8")
    calls.clear()
    monkey.setattr(validate, "_from_cache", noting)
    site_warm = check(site)
    monkey.undo()
    assert ("matches/wvw/2024.toml", True) in calls      # the kept file from the cache, the new one checked
    assert [lg.matches for lg in site_warm.leagues] == [lg.matches for lg in check(site, cache=False).leagues]
    extra.unlink()
    assert [lg.matches for lg in check(site).leagues] == [lg.matches for lg in check(site, cache=False).leagues]


@pytest.mark.parametrize(("copy", "reported"), [
    # the first match of round-1.toml again, in the other file (earlier in history order): reported
    ('\n[[match]]\nplayed = 2024-03-01T18:00:00Z\nplayers = [\n  { name = "Ana", goals = 20, ping = 0, host = true },\n'
     '  { name = "Bo", goals = 12, ping = 80 },\n]\n', True),
    # the same with an explicit id and another ping (a condition), the first without an id: reported
    ('\n[[match]]\nid = "again"\nplayed = 2024-03-01T18:00:00Z\nplayers = [\n'
     '  { name = "Bo", goals = 12, ping = 10 },\n  { name = "Ana", goals = 20, ping = 0, host = true },\n]\n', True),
    # at that time but other results: not the same match
    ('\n[[match]]\nplayed = 2024-03-01T18:00:00Z\nplayers = [\n  { name = "Ana", goals = 12, ping = 0 },\n'
     '  { name = "Bo", goals = 20, ping = 80 },\n]\n', False),
])
def test_a_changed_file_s_copy_of_a_kept_match_is_reported_as_without_the_cache(site: Path, tmp_path: Path,
                                                                              copy: str, reported: bool) -> None:
    """The duplicates of a rebuild are looked for among the changed file's matches' times only
    (load/duplicates.py): a copy of a kept file's match is reported word for word as without the cache."""
    build(site, tmp_path / "out")
    assert (site / FOLDER / "clean").is_dir()
    path = site / "matches/duel/2024/cup/day-2.toml"
    path.write_text(path.read_text(encoding="utf-8") + copy, encoding="utf-8")

    def problems(cache: bool) -> list[str]:
        try:
            check(site, cache=cache)
        except InvalidInput as caught:
            return [str(p) for p in caught.problems]
        return []

    from sitegen.load import validate
    calls: list[int] = []

    def noting(matches, changed):
        changed = list(changed)
        calls.append(len(changed))
        return near(matches, changed)

    with pytest.MonkeyPatch.context() as monkey:
        monkey.setattr(validate, "near", noting)
        warm = problems(True)
    # Each league's kept files were in a league without duplicates: the changed file's 4 matches
    # are looked at, and none of the other leagues'.
    assert sorted(calls) == [0, 0, 0, 0, 4]
    assert warm == problems(False)
    assert any("round-1-1): the same match as" in p for p in warm) == reported


def test_a_changed_file_s_id_of_a_kept_match_is_reported_as_without_the_cache(site: Path, tmp_path: Path) -> None:
    """The kept files' ids are known apart where they were in a league checked without a problem:
    only the changed file's are looked for among them, and a clash is reported as without the cache."""
    build(site, tmp_path / "out")
    path = site / "matches/duel/2024/cup/day-2.toml"
    path.write_text(path.read_text(encoding="utf-8") + '\n[[match]]\nid = "round-1-2"\nplayed = 2024-06-01\n'
                    'players = [\n  { name = "Ana", goals = 20, ping = 0 },\n'
                    '  { name = "Bo", goals = 12, ping = 80 },\n]\n', encoding="utf-8")
    with pytest.raises(InvalidInput) as warm:
        check(site)
    with pytest.raises(InvalidInput) as cold:
        check(site, cache=False)
    assert [str(p) for p in warm.value.problems] == [str(p) for p in cold.value.problems]
    assert any("duplicate match id 'round-1-2'" in str(p) for p in warm.value.problems)
