"""Pages kept from build to build (output/memo.py): a match page or a player's files whose inputs
did not change are linked from the published site, not modelled again, and the output is still
byte for byte a cold build's, in every system and after every kind of edit."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from sitegen.commands.build import build
from sitegen.load.blocks import file_identities
from sitegen.model.career import LeagueCareers
from sitegen.output.memo import prefix_identities

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import assert_same_as_cold  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "small"
LEAGUES = ("arena", "duel", "ladder", "royale", "wvw")      # every system: arena, lunaro, elo, placement, glicko2


def last_file(site: Path, league: str) -> Path:
    return sorted(p for p in (site / "matches" / league).rglob("*.toml") if p.name != "league.toml")[-1]


def append_copy(site: Path, league: str) -> None:
    """The league's last match again, later than every match, at the end of its last file."""
    path = last_file(site, league)
    text = path.read_text(encoding="utf-8")
    block = text[text.rindex("[[match]]"):]
    block = re.sub(r"(?m)^id = .*\n", "", block)
    day = min(text.count("[[match]]"), 28)         # another time for each copy: not the same match twice
    block = re.sub(r"(?m)^played = .*$", f"played = 2024-12-{day:02d}T12:00:00Z", block)
    path.write_text(text.rstrip("\n") + "\n\n" + block, encoding="utf-8")


def edit_notes(site: Path, league: str) -> None:
    """Only a match's notes change: no rating moves, but its pages show the notes."""
    path = last_file(site, league)
    text = path.read_text(encoding="utf-8")
    if re.search(r"(?m)^notes = ", text):
        text = re.sub(r"(?m)^notes = .*$", 'notes = "Replayed after a protest."', text, count=1)
    else:
        first = text.index("[[match]]") + len("[[match]]\n")
        text = text[:first] + 'notes = "Replayed after a protest."\n' + text[first:]
    path.write_text(text, encoding="utf-8")


def swap_first_two(site: Path, league: str) -> None:
    """Two matches of a file in the other order of lines: positions and lines change."""
    path = last_file(site, league)
    text = path.read_text(encoding="utf-8")
    head, *blocks = text.split("[[match]]")
    if len(blocks) >= 2:
        blocks[0], blocks[1] = blocks[1].rstrip("\n") + "\n\n", blocks[0].rstrip("\n") + "\n"
        path.write_text("[[match]]".join([head, *blocks]), encoding="utf-8")


@pytest.mark.parametrize("league", LEAGUES)
def test_kept_pages_leave_the_site_as_a_cold_build(site: Path, tmp_path: Path, league: str) -> None:
    out = tmp_path / "out"
    build(site, out)
    for edit in (append_copy, edit_notes, swap_first_two):
        edit(site, league)
        build(site, out)
        assert_same_as_cold(site, out, tmp_path)


def test_a_weighted_match_rewords_every_page_of_its_league(site: Path, tmp_path: Path) -> None:
    """The first weighted match changes the league's explanation under every page of matches."""
    out = tmp_path / "out"
    (site / "matches/ladder/2024/may.toml").write_text(
        '[[match]]\nplayed = 2024-05-30T12:00:00Z\n'
        'players = [\n  { name = "Bo", score = 1 },\n  { name = "Dee", score = 0 },\n]\n', encoding="utf-8")
    build(site, out)
    # In a file of its own: april's page shows none of its matches, nor links to its page.
    (site / "matches/ladder/2024/december.toml").write_text(
        '[[match]]\nplayed = 2024-12-30T12:00:00Z\nweight = 2\n'
        'players = [\n  { name = "Ana", score = 1 },\n  { name = "Dee", score = 0 },\n]\n', encoding="utf-8")
    build(site, out)
    assert "K × weight ×" in (out / "leagues/ladder/matches/2024/april/index.html").read_text(encoding="utf-8")
    assert_same_as_cold(site, out, tmp_path)


def test_an_appended_match_remodels_only_its_league_s_players(site: Path, tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "out"
    build(site, out)
    modelled: list[str] = []
    of = LeagueCareers.of

    def counting(self, player):
        modelled.append(f"{self.league.config.slug}/{player.name}")
        return of(self, player)

    monkeypatch.setattr(LeagueCareers, "of", counting)
    build(site, out)
    assert modelled == []           # nothing changed: every player's files kept
    append_copy(site, "ladder")
    build(site, out)
    assert modelled and all(m.startswith("ladder/") for m in modelled)
    assert_same_as_cold(site, out, tmp_path)


def test_a_published_page_edited_by_hand_is_made_again(site: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(site, out)
    page = next((out / "leagues").rglob("players/*/index.html"))
    page.write_text("edited by hand", encoding="utf-8")
    build(site, out)
    assert page.read_text(encoding="utf-8") != "edited by hand"
    assert_same_as_cold(site, out, tmp_path)


def test_another_output_folder_keeps_nothing_of_the_first(site: Path, tmp_path: Path) -> None:
    build(site, tmp_path / "a")
    build(site, tmp_path / "b")
    inodes_a = {p.stat().st_ino for p in (tmp_path / "a").rglob("*.html")}
    inodes_b = {p.stat().st_ino for p in (tmp_path / "b").rglob("*.html")}
    assert not inodes_a & inodes_b
    assert_same_as_cold(site, tmp_path / "b", tmp_path)


def test_a_match_s_identity_is_its_block_of_text() -> None:
    head = b"h" * 32
    raw = b"# file\n[[match]]\na = 1\n\n[[match]]\na = 2\n"
    lines = [(1, 2), (2, 5)]
    ids = file_identities(raw, head, "x.toml", lines)
    appended = file_identities(raw + b"\n[[match]]\na = 3\n", head, "x.toml", lines + [(3, 8)])
    assert ids.tolist() == appended[:2].tolist()        # earlier matches keep theirs
    edited = file_identities(raw.replace(b"a = 2", b"a = 9"), head, "x.toml", lines)
    assert edited[0] == ids[0] and edited[1] != ids[1]
    preamble = file_identities(b"# other\n" + raw[7:], head, "x.toml", lines)
    assert not set(preamble.tolist()) & set(ids.tolist())     # what precedes the first match counts for all
    assert not set(file_identities(raw, b"g" * 32, "x.toml", lines).tolist()) & set(ids.tolist())
    assert not set(file_identities(raw, head, "y.toml", lines).tolist()) & set(ids.tolist())


def test_a_prefix_covers_every_match_before_it_and_its_order() -> None:
    ids = np.array([11, 22, 33, 44], dtype=np.uint64)
    ends = np.arange(4)
    base = prefix_identities(ids, ends)
    assert len(set(base.tolist())) == 4
    changed = prefix_identities(np.array([11, 22, 34, 44], dtype=np.uint64), ends)
    assert base[:2].tolist() == changed[:2].tolist() and not set(base[2:].tolist()) & set(changed[2:].tolist())
    swapped = prefix_identities(np.array([22, 11, 33, 44], dtype=np.uint64), ends)
    assert swapped[0] != base[0] and swapped[1] != base[1]
    # A period rated together: each of its matches takes the prefix at the period's end.
    periods = prefix_identities(ids, np.array([1, 1, 3, 3]))
    assert periods.tolist() == [base[1], base[1], base[3], base[3]]


@pytest.mark.skipif(not hasattr(os, "link"), reason="no hard links")
def test_kept_files_are_the_published_files(site: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(site, out)
    pages = sorted((out / "leagues").rglob("players/*/index.html"))
    inodes = {p: p.stat().st_ino for p in pages}
    append_copy(site, "ladder")
    build(site, out)
    kept = [p for p in pages if "/ladder/" not in p.as_posix()]
    assert kept and all(p.stat().st_ino == inodes[p] for p in kept)


def test_a_big_league_s_changes_csv_grows_by_its_new_rows(site: Path, tmp_path: Path, monkeypatch) -> None:
    """A big league writes changes.csv alone (no JSON or Parquet twin): after a match appended
    at the end, it is the published file and the new rows; after any other edit, made whole."""
    from sitegen.model import scale
    from sitegen.output.memo import PageMemo

    monkeypatch.setattr(scale, "BIG_LEAGUE_ROWS", 1)       # every league big: compact pages too
    grown: list[tuple[str, int] | None] = []
    appendable = PageMemo.appendable

    def noting(self, output, path, prefixes):
        found = appendable(self, output, path, prefixes)
        if path == "data/ladder/changes.csv":
            grown.append(found)
        return found

    monkeypatch.setattr(PageMemo, "appendable", noting)
    out = tmp_path / "out"
    build(site, out)
    assert grown == [None]          # nothing published yet
    for edit in (append_copy, edit_notes, append_copy, swap_first_two):
        old = (out / "data/ladder/changes.csv").read_bytes()
        edit(site, "ladder")
        build(site, out)
        new = (out / "data/ladder/changes.csv").read_bytes()
        if edit is append_copy:
            assert grown[-1] is not None and grown[-1][1] == old.count(b"\n") - 1     # its rows, not the header
            assert new.startswith(old) and len(new) > len(old)
        else:
            assert grown[-1] is None
        assert_same_as_cold(site, out, tmp_path)


def test_a_build_that_makes_most_pages_makes_their_lines_at_once(site: Path, tmp_path: Path, monkeypatch) -> None:
    """Where the memo tells that a league's pages will mostly be made again (no build before into
    the folder, an edit before the end of its history, another league key), every match's lines
    are made at once (lines.HeldLines.hold), as without the cache; where most are kept (nothing
    changed, matches appended), each match's are made as a page reads them. Both ways the site is
    a cold build's."""
    from sitegen.model.lines import HeldLines
    from sitegen.output import pages

    held: list[str] = []
    hold, lines = HeldLines.hold, HeldLines.match_lines
    made: list[int] = []        # matches whose lines were made one at a time

    def noting(self):
        if self.every is None:
            held.append(self.source.matches[0].file.split("/")[1])
        hold(self)

    def one(self, k):
        if self.every is None and k not in self.made:
            made.append(k)
        return lines(self, k)

    monkeypatch.setattr(HeldLines, "hold", noting)
    monkeypatch.setattr(HeldLines, "match_lines", one)
    out = tmp_path / "out"
    build(site, out)
    first = sorted(held)
    assert "ladder" in first and made == []       # the cold build: every league's at once
    for edit, holds in ((append_copy, []), (edit_middle_score, ["ladder"])):
        held.clear()
        made.clear()
        edit(site, "ladder")
        build(site, out)
        assert sorted(held) == holds
        if edit is append_copy:
            assert made        # the appended match's page and its players' made their own
    assert_same_as_cold(site, out, tmp_path)
    # Another league key (the league's players, counts, board rules): none of its pages is kept.
    key = pages.league_key
    monkeypatch.setattr(pages, "league_key", lambda site_key, lv, *rest: key(site_key + "x", lv, *rest))
    held.clear()
    build(site, out)
    assert sorted(held) == first
    assert_same_as_cold(site, out, tmp_path)


def edit_middle_score(site: Path, league: str) -> None:
    """The first match's result in the league's first file reversed: every rating after it moves."""
    path = sorted(p for p in (site / "matches" / league).rglob("*.toml") if p.name != "league.toml")[0]
    text = path.read_text(encoding="utf-8")
    first = text.index("score = 1 }")
    other = text.index("score = 0 }")
    assert abs(first - other) < 80       # the two players of one match
    text = text.replace("score = 1 }", "score = 2 }", 1).replace("score = 0 }", "score = 1 }", 1)
    path.write_text(text.replace("score = 2 }", "score = 0 }", 1), encoding="utf-8")
