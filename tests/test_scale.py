"""A big league's smaller output (sitegen/model/scale.py): the same CSV data, no JSON twins of
the per-match tables, one short row per match, and every match still reachable by its anchor."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import elo_match, league_toml, write_files
from sitegen.commands.build import build
from sitegen.model import scale

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


@pytest.fixture
def both(tmp_path, monkeypatch) -> tuple[Path, Path]:
    """The same league built as a small league and, with the threshold lowered, as a big one."""
    root = site(tmp_path / "site")
    small = tmp_path / "small"
    build(root, small, cache=False)
    monkeypatch.setattr(scale, "BIG_LEAGUE_ROWS", 23)     # 12 duels: 24 appearances
    big = tmp_path / "big"
    build(root, big, cache=False)
    return small, big


def test_the_threshold_counts_player_appearances_strictly_above():
    class Rated:
        def __init__(self, n, per_match=2):
            match = type("M", (), {"players": ("p",) * per_match})()
            self.league = type("L", (), {"matches": (match,) * n})()
    duels = scale.BIG_LEAGUE_ROWS // 2
    assert not scale.is_big(Rated(duels))
    assert scale.is_big(Rated(duels + 1))
    # A lobby of 100 counts 100: 401 lobbies are past the line that 20,001 duels cross.
    assert not scale.is_big(Rated(scale.BIG_LEAGUE_ROWS // 100, per_match=100))
    assert scale.is_big(Rated(scale.BIG_LEAGUE_ROWS // 100 + 1, per_match=100))
    assert scale.writes_twin(Rated(duels + 1), "standings")
    assert not scale.writes_twin(Rated(duels + 1), "changes")


def test_a_big_league_keeps_every_csv_and_leaves_out_the_per_match_json_twins(both):
    small, big = both
    small_files = {p.name for p in (small / "data/lg").iterdir()}
    big_files = {p.name for p in (big / "data/lg").iterdir()}
    assert small_files - big_files == {f"{t}.json" for t in scale.TWINS_LEFT_OUT}
    assert big_files <= small_files
    for name in sorted(big_files):          # what is written is byte-identical
        assert (big / "data/lg" / name).read_bytes() == (small / "data/lg" / name).read_bytes(), name


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
    assert links >= 2 * len(ids)        # the results list and both players' pages


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
