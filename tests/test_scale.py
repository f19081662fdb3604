"""A big league's smaller output (sitegen/model/scale.py): the same CSV data, no JSON twins of
the per-match tables, one short row per match, and every match still reachable by its anchor."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from helpers import elo_match, league_toml, write_files
from sitegen.commands.build import build
from sitegen.model import scale
from sitegen.output import pages
from sitegen.output.search import shard_file, words

PYPROJECT = '[tool.sitegen]\ntitle = "Scale"\n'
PLAYERS = ["Ana", "Bo", "Cy", "Di", "Ed"]


def site(root: Path) -> Path:
    """Twelve duels in two files: a league of 12 matches."""
    files = {"a.toml": "", "b.toml": ""}
    for i in range(12):
        a, b = PLAYERS[i % 5], PLAYERS[(i * 2 + 1) % 5]
        if a == b:
            b = PLAYERS[(i + 2) % 5]
        name = "a.toml" if i < 7 else "b.toml"
        files[name] += elo_match(f"2024-01-{i + 1:02d}", a, [1, 0, 0.5][i % 3], b, [0, 1, 0.5][i % 3])
    write_files(root, {"pyproject.toml": PYPROJECT, "matches/lg/league.toml": league_toml("elo"),
                       **{f"matches/lg/{k}": v for k, v in files.items()}})
    return root


# The builds are made once a module: the tests only read them.
@pytest.fixture(scope="module")
def both(tmp_path_factory) -> tuple[Path, Path]:
    """The same league built as a small league and, with the threshold lowered, as a big one."""
    tmp_path = tmp_path_factory.mktemp("both")
    root = site(tmp_path / "site")
    small = tmp_path / "small"
    build(root, small, cache=False)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(scale, "BIG_LEAGUE_ROWS", 23)     # 12 duels: 24 appearances
        big = tmp_path / "big"
        build(root, big, cache=False)
    return small, big


def test_the_threshold_counts_player_appearances_strictly_above():
    class Rated:
        def __init__(self, n, per_match=2):
            match = type("M", (), {"players": ("p",) * per_match})()
            self.league = type("L", (), {"matches": (match,) * n})()
            self.events = ()        # not a rating's columns: the matches' players are counted
            self.cache = {}
    duels = scale.BIG_LEAGUE_ROWS // 2
    assert not scale.is_big(Rated(duels))
    assert scale.is_big(Rated(duels + 1))
    # A lobby of 100 counts 100: 401 lobbies are past the line that 20,001 duels cross.
    assert not scale.is_big(Rated(scale.BIG_LEAGUE_ROWS // 100, per_match=100))
    assert scale.is_big(Rated(scale.BIG_LEAGUE_ROWS // 100 + 1, per_match=100))
    assert scale.matches_per_part(Rated(duels)) is None       # the default of model/groups.py
    assert scale.matches_per_part(Rated(duels + 1)) == scale.MATCHES_PER_PART
    assert scale.writes_twin(Rated(duels + 1), "standings")
    assert not scale.writes_twin(Rated(duels + 1), "changes")
    assert scale.writes_parquet(Rated(duels), "changes")
    assert scale.writes_parquet(Rated(duels + 1), "standings")
    assert not scale.writes_parquet(Rated(duels + 1), "matches")
    # The per-match JSON twins go first, at TWIN_ROWS, below the line where a league is big.
    twins = scale.TWIN_ROWS // 2
    assert scale.TWIN_ROWS < scale.BIG_LEAGUE_ROWS
    assert scale.writes_twin(Rated(twins), "changes") and scale.writes_twin(Rated(twins), "pools")
    assert not scale.writes_twin(Rated(twins + 1), "changes") and not scale.writes_twin(Rated(twins + 1), "matches")
    assert scale.writes_twin(Rated(twins + 1), "standings") and scale.writes_twin(Rated(twins + 1), "accuracy")
    assert not scale.is_big(Rated(twins + 1)) and scale.writes_parquet(Rated(twins + 1), "changes")


def test_a_big_league_keeps_every_csv_and_leaves_out_the_per_match_json_twins(both):
    small, big = both
    small_files = {p.name for p in (small / "data/lg").iterdir()}
    big_files = {p.name for p in (big / "data/lg").iterdir()}
    assert small_files - big_files == ({f"{t}.json" for t in scale.TWINS_LEFT_OUT}
                                       | {"changes.parquet", "matches.parquet"})
    assert "standings.parquet" in big_files
    assert big_files <= small_files
    for name in sorted(big_files):          # what is written is byte-identical
        assert (big / "data/lg" / name).read_bytes() == (small / "data/lg" / name).read_bytes(), name


def test_past_twin_rows_a_league_leaves_out_the_per_match_json_twins_alone(both, tmp_path, monkeypatch):
    """Past TWIN_ROWS, below BIG_LEAGUE_ROWS: the pages, the CSV and the Parquet files are those of
    a small league, byte for byte; only the per-match JSON twins are gone."""
    small = both[0]
    root = site(tmp_path / "site")
    monkeypatch.setattr(scale, "TWIN_ROWS", 23)          # 12 duels: 24 appearances
    fewer = tmp_path / "fewer"
    build(root, fewer, cache=False)
    small_files = {str(p.relative_to(small)) for p in small.rglob("*") if p.is_file()}
    fewer_files = {str(p.relative_to(fewer)) for p in fewer.rglob("*") if p.is_file()}
    assert small_files - fewer_files == {f"data/lg/{t}.json" for t in scale.TWINS_LEFT_OUT} & small_files
    assert {"data/lg/changes.json", "data/lg/matches.json"} <= small_files - fewer_files
    assert fewer_files < small_files
    for name in sorted(fewer_files):
        assert (fewer / name).read_bytes() == (small / name).read_bytes(), name


def _ids(page: Path) -> set[str]:
    return set(re.findall(r'\sid="([^"]+)"', page.read_text(encoding="utf-8")))


def test_every_match_link_of_a_big_league_reaches_its_row(both):
    _, big = both
    matches_csv = (big / "data/lg/matches.csv").read_text(encoding="utf-8").splitlines()[1:]
    ids = [line.split(",")[0] for line in matches_csv]
    anchored: dict[str, Path] = {}
    for page in (big / "leagues/lg/matches").rglob("index.html"):
        for row_id in re.findall(r'<tr id="m-([^"]+)">', page.read_text(encoding="utf-8")):
            anchored[row_id] = page
    assert sorted(anchored) == sorted(ids)          # one compact row per match, its id the anchor
    # Every link to a match, from any page, leads to a page holding that anchor.
    links = 0
    for page in big.rglob("*.html"):
        for href in re.findall(r'href="([^"#]*)#(m-[^"]+)"', page.read_text(encoding="utf-8")):
            target = (page.parent / href[0] / "index.html").resolve()
            assert href[1] in _ids(target), (page, href)
            links += 1
    assert links >= 2 * len(ids)        # both players' pages


def test_no_page_of_a_big_league_links_a_data_file_it_does_not_write(both):
    _, big = both
    for page in big.rglob("*.html"):
        for href in re.findall(r'href="([^"#]*data/lg/[^"#]+)"', page.read_text(encoding="utf-8")):
            assert (page.parent / href).resolve().is_file(), (page, href)


def test_big_match_pages_are_short_rows_without_the_formula(both):
    small, big = both
    page = "leagues/lg/matches/a/index.html"
    small_html = (small / page).read_text(encoding="utf-8")
    big_html = (big / page).read_text(encoding="utf-8")
    formula = re.compile(r"\d × \(")       # "40 × (1 − 0.527) = +21.08" on every player line
    assert formula.search(small_html) and not formula.search(big_html)
    assert len(big_html) < len(small_html)
    assert 'href="../../players/ana/"' in big_html


@pytest.fixture(scope="module")
def paged(tmp_path_factory) -> Path:
    """The league as a big one whose match-file pages hold 3 matches (a.toml: 3 parts, b.toml:
    2) and whose results pages list 2 of them: five match-file pages on three results pages."""
    tmp_path = tmp_path_factory.mktemp("paged")
    root = site(tmp_path / "site")
    out = tmp_path / "out"
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(scale, "BIG_LEAGUE_ROWS", 23)
        monkeypatch.setattr(scale, "MATCHES_PER_PART", 3)
        monkeypatch.setattr(pages, "RESULTS_PER_PAGE", 2)
        build(root, out, cache=False)
    return out


def _match_ids(out: Path) -> list[str]:
    lines = (out / "data/lg/matches.csv").read_text(encoding="utf-8").splitlines()[1:]
    return [line.split(",")[0] for line in lines]


def _results_pages(out: Path) -> list[Path]:
    """The results pages in pager order: results/, results/2/, ..."""
    folder = out / "leagues/lg/results"
    numbered = sorted((p for p in folder.iterdir() if p.is_dir()), key=lambda p: int(p.name))
    return [folder / "index.html", *(p / "index.html" for p in numbered)]


def test_results_of_a_big_league_list_every_match_file_page_newest_first(paged):
    group_pages = sorted(p.parent.relative_to(paged).as_posix() + "/"
                         for p in (paged / "leagues/lg/matches").rglob("index.html")
                         if p.parent.name != "matches")     # matches/ itself leads to the results
    assert len(group_pages) == 5
    listed: list[str] = []
    results = _results_pages(paged)
    assert len(results) == 3
    for n, page in enumerate(results, start=1):
        html = page.read_text(encoding="utf-8")
        assert "#m-" not in html                    # no match rows: they are one link further
        rows = re.findall(r'<tr><td><a href="([^"]+)">[^<]+</a><td>(\d{4}-\d\d-\d\d)(?: to (\d{4}-\d\d-\d\d))?'
                          r'<td class="num">(\d+)</tr>', html)
        assert len(rows) == (2 if n < 3 else 1), page
        for href, first, last, count in rows:
            target = (page.parent / href).resolve()
            listed.append(target.relative_to(paged.resolve()).as_posix() + "/")
            anchors = re.findall(r'<tr id="m-[^"]+">', (target / "index.html").read_text(encoding="utf-8"))
            assert len(anchors) == int(count) and first <= (last or first)
        # The pager: this page marked, the others linked, as pager() makes it.
        assert f'<span aria-current="page">{n}</span>' in html
        for k in range(1, 4):
            if k != n:
                assert f">{k}</a>" in html
        assert ('rel="next"' in html) == (n < 3) and ('rel="prev"' in html) == (n > 1)
    assert sorted(listed) == group_pages and len(set(listed)) == len(listed)
    # Newest first: the last part of b.toml leads, the first part of a.toml closes the list.
    assert listed[0] == "leagues/lg/matches/b/2/" and listed[-1] == "leagues/lg/matches/a/"


def test_every_match_of_a_big_league_is_reached_from_its_results(paged):
    reached: set[str] = set()
    for page in _results_pages(paged):
        for href in re.findall(r'<td><a href="([^"]+)">', page.read_text(encoding="utf-8")):
            html = (page.parent / href / "index.html").read_text(encoding="utf-8")
            reached.update(re.findall(r'<tr id="m-([^"]+)">', html))
    assert sorted(reached) == sorted(_match_ids(paged))


def test_a_small_league_still_lists_every_match_in_its_results(both):
    small, _ = both
    html = (small / "leagues/lg/results/index.html").read_text(encoding="utf-8")
    assert sorted(re.findall(r'href="[^"]*#m-([^"]+)"', html)) == sorted(_match_ids(small))


def test_big_match_rows_carry_no_bytes_that_say_nothing(paged):
    for page in (paged / "leagues/lg/matches").rglob("*/index.html"):   # not matches/ itself
        html = page.read_text(encoding="utf-8")
        rows = re.findall(r'<tr id="m-.+?(?=<tr id=|</tbody>)', html, re.S)
        assert rows
        # The anchor, the id as the row's header, the time, both players linked, results and
        # changes; no scope on the row's th, no end tag, no class; one row a line.
        player = r'<a href="\.\./\.\./(?:\.\./)?players/[a-z]+/">\w+</a> (?:win|loss|draw) [+−±][\d.]+ [\d,.]+'
        for row in rows:
            assert re.fullmatch(rf'<tr id="m-([^"]+)"><th>\1<td>\d{{4}}-\d\d-\d\d \d\d:\d\d<td>{player} · {player}\n',
                                row), row


def _search(out: Path, query: str) -> list[list[str]]:
    """The records holding every word of ``query`` as a prefix of one of theirs, as search.js finds them."""
    folder = out / "search/index"
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    numbers: dict[str, list[int]] = {}
    for key in manifest["keys"]:
        for word, deltas in json.loads((folder / shard_file(key)).read_text(encoding="utf-8")).items():
            numbers[word] = list(itertools.accumulate(deltas))
    recs = [r for f in sorted((folder / "records").iterdir(), key=lambda f: int(f.stem))
            for r in json.loads(f.read_text(encoding="utf-8"))]
    sets = [{n for w, ns in numbers.items() if w.startswith(q) for n in ns} for q in words(query)]
    return [recs[n] for n in sorted(set.intersection(*sets))]


def test_search_finds_a_big_leagues_matches_by_their_match_file_pages(paged):
    manifest = json.loads((paged / "search/index/manifest.json").read_text(encoding="utf-8"))
    lg = manifest["leagues"][0]
    assert lg["match"][1] - lg["match"][0] == 5          # a record per match-file page, not per match
    csv_rows = [line.split(",") for line in (paged / "data/lg/changes.csv").read_text(encoding="utf-8").splitlines()]
    header = csv_rows[0]
    for match_id in _match_ids(paged):
        found = [r for r in _search(paged, match_id) if r[0].startswith("leagues/lg/matches/")]
        holding = [r for r in found if f'<tr id="m-{match_id}">' in
                   (paged / r[0] / "index.html").read_text(encoding="utf-8")]
        assert len(holding) == 1, (match_id, found)
        # The players of the match find its page too.
        players = [row[header.index("player")] for row in csv_rows[1:] if row[0] == match_id]
        assert holding[0] in _search(paged, " ".join(players)), match_id
