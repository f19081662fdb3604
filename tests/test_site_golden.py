"""Golden output: the fixture site ``tests/fixtures/small/`` builds to the files saved in
``tests/fixtures/small-golden/``, byte for byte.

Every data file (docs/auditors, the auditable promise) is stored and compared, and the
set of data files built must be exactly the stored one. Of the pages, a handful stand for
their kinds (``PAGES`` in scripts/update_golden.py: home, a leaderboard, a player, a match,
a spec page) and are compared in full, so a change to what a visitor sees shows up as a
reviewable diff without every template change rewriting every page. The theme's assets
are not stored: each must be built and be the theme's own file (templates/assets/), and
``assets/vega.js``, a large third-party bundle, must exist and define vegaEmbed.

When a change is *meant* to alter the output (a template, the theme, a new
column, an upgraded Altair that writes a different Vega-Lite ``$schema``),
regenerate the golden folder and review the diff before committing::

    python scripts/update_golden.py
    git diff tests/fixtures/small-golden

The fixture holds two leagues: ``duel`` (lunaro; matches in two files at two
depths, a host, a 0-0, an explicit id, an alias, two matches at the same
instant ordered by file path) and ``ladder`` (elo; a draw, a challenger listed
second, ``provisional_games = 2`` so that the challenger's K matters), with a
player named ``<i>Eve & "Co"</i>`` and one named ``Ωmega``.
"""

from __future__ import annotations

import csv
import difflib
import io
import math
import posixpath
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

import pytest

from helpers import load_script


golden_tool = load_script("update_golden")
UPDATE = "python scripts/update_golden.py"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, bytes]:
    return golden_tool.build_fixture(tmp_path_factory.mktemp("golden") / "site")


@pytest.fixture(scope="module")
def golden() -> dict[str, bytes]:
    if not golden_tool.GOLDEN.is_dir():
        pytest.fail(f"no golden output in {golden_tool.GOLDEN}; create it with `{UPDATE}`")
    return golden_tool.tree(golden_tool.GOLDEN)


def _diff_excerpt(path: str, want: bytes | None, got: bytes | None, limit: int = 30) -> str:
    if want is None or got is None:
        return f"--- {path}: " + ("not built" if got is None else "not in the golden folder")
    try:
        a, b = want.decode("utf-8").splitlines(), got.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return f"--- {path}: binary, {len(want)} bytes expected, {len(got)} built"
    lines = list(difflib.unified_diff(a, b, f"golden/{path}", f"built/{path}", lineterm="", n=1))
    if not lines:     # same lines: the difference is in line ends or a final newline
        return f"--- {path}: same lines, different bytes (line ends or final newline?)"
    more = f"\n... ({len(lines) - limit} more diff lines)" if len(lines) > limit else ""
    return "\n".join(lines[:limit]) + more


def _compare(built: dict[str, bytes], golden: dict[str, bytes], paths: list[str], what: str) -> None:
    assert paths, f"no {what} to compare: is the fixture or the golden folder empty?"
    differing = [p for p in paths if built.get(p) != golden.get(p)]
    if differing:
        listing = "\n".join(f"  {p}" for p in differing)
        excerpts = "\n\n".join(_diff_excerpt(p, golden.get(p), built.get(p)) for p in differing[:3])
        pytest.fail(f"{len(differing)} of {len(paths)} {what} differ from the golden output:\n{listing}\n\n"
                    f"{excerpts}\n\nIf the change is intended, run `{UPDATE}` and review the diff.",
                    pytrace=False)


def test_golden_holds_every_data_file_and_the_chosen_pages(built, golden):
    expected = {p for p in built if golden_tool.kept(p)}
    missing = sorted(set(golden) - expected)
    extra = sorted(expected - set(golden))
    if missing or extra:
        pytest.fail("the built data files and pages are not the golden list:\n"
                    + "".join(f"  in the golden folder, not built: {p}\n" for p in missing)
                    + "".join(f"  built, not in the golden folder: {p}\n" for p in extra)
                    + f"If the change is intended, run `{UPDATE}` and review the diff.", pytrace=False)
    assert set(golden_tool.PAGES) <= set(golden), "a page of PAGES is not in the golden folder"


def test_vega_bundle_is_there(built):
    for rel in golden_tool.UNSTORED:
        assert rel in built, f"{rel} was not built"
        assert len(built[rel]) > 0, f"{rel} is empty"
    assert b"vegaEmbed" in built["assets/vega.js"], "assets/vega.js does not define vegaEmbed"


def test_data_files_match_golden(built, golden):
    paths = sorted(p for p in set(built) | set(golden)
                   if p.startswith("data/") and p.endswith((".csv", ".json")))
    _compare(built, golden, paths, "data files")


def test_representative_pages_match_golden(built, golden):
    _compare(built, golden, list(golden_tool.PAGES), "representative pages")


def test_theme_assets_are_the_themes_own_files(built):
    """Every file of templates/assets/ is built into assets/ unchanged, and assets/ holds nothing else
    but the Vega bundle."""
    theme = {f"assets/{p.name}": p.read_bytes() for p in sorted(golden_tool.THEME_ASSETS.iterdir()) if p.is_file()}
    assert theme, f"no theme assets in {golden_tool.THEME_ASSETS}"
    differing = sorted(p for p, data in theme.items() if built.get(p) != data)
    assert not differing, f"not built, or not the theme's own file: {differing}"
    others = sorted(p for p in built if p.startswith("assets/") and p not in theme and p not in golden_tool.UNSTORED)
    assert not others, f"assets the theme does not have: {others}"


def test_golden_data_files_are_clean_utf8_with_newline_ends(golden):
    for rel, data in golden.items():
        if rel.startswith("data/"):
            text = data.decode("utf-8")
            assert "\r" not in text and text.endswith("\n"), rel
            assert not text.startswith("\ufeff"), f"{rel} starts with a byte order mark"


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append(value)
            elif name == "id" and value:
                self.ids.add(value)


def test_every_internal_link_resolves(built):
    """Every href and src of every page points at a file the build wrote (or an id on the page)."""
    broken = []
    for page, data in sorted(built.items()):
        if not page.endswith(".html"):
            continue
        parser = _Links()
        parser.feed(data.decode("utf-8"))
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:
                continue                       # off-site links are the content's business
            if not parts.path:
                if parts.fragment and parts.fragment not in parser.ids:
                    broken.append(f"{page}: {link} (no such id)")
                continue
            path = unquote(parts.path)
            base = "" if path.startswith("/") else posixpath.dirname(page)
            target = posixpath.normpath(posixpath.join(base, path.lstrip("/")))
            target = "" if target == "." else target
            if target.startswith(".."):
                broken.append(f"{page}: {link} (leaves the site)")
            elif target not in built and posixpath.join(target, "index.html") not in built:
                broken.append(f"{page}: {link}")
    assert not broken, "links to nothing:\n" + "\n".join(f"  {b}" for b in broken)


# --- a few numbers worked out by hand -------------------------------------------------------

def _rows(built: dict[str, bytes], rel: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(built[rel].decode("utf-8"), newline="")))


def _expected(r_a: float, r_b: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((r_b - r_a) / 400.0))


def test_hand_checked_lunaro_first_match(built):
    """round-1-1: Ana hosts (ping 0) and wins 20-12 against Bo on 80 ms, both at 1500.

    A_Bo = 1500 sech(80/300) = 1500 / cosh(0.2667) = 1448.20; E_Ana = 1 / (1 + 10^(-51.80/400)) = 0.5740;
    S_Ana = 20/32 = 0.625; 50 (0.625 - 0.5740) = +2.55, so Ana 1503 and Bo 1497 (1497.45 rounded).
    """
    rows = [r for r in _rows(built, "data/duel/changes.csv") if r["event"] == "round-1-1"]
    assert [r["player"] for r in rows] == ["Ana", "Bo"]
    ana, bo = rows
    a_bo = 1500 / math.cosh(80 / 300)
    assert float(bo["ability"]) == pytest.approx(1448.2025, abs=1e-4)
    assert float(bo["ability"]) == pytest.approx(a_bo, abs=1e-6)
    assert float(ana["ability"]) == 1500.0
    assert float(ana["expected"]) == pytest.approx(0.573995, abs=1e-6)
    assert float(ana["expected"]) == pytest.approx(_expected(1500, a_bo), abs=1e-6)
    assert ana["score"] == "0.625000" and bo["score"] == "0.375000"
    assert (ana["rating_before"], ana["rating_after"], ana["delta"]) == ("1500", "1503", "3")
    assert (bo["rating_before"], bo["rating_after"], bo["delta"]) == ("1500", "1497", "-3")


def test_hand_checked_lunaro_zero_zero_and_alias(built):
    rows = {(r["event"], r["player"]): r for r in _rows(built, "data/duel/changes.csv")}
    # 0-0: the score is 0.5 each (an interpretation: docs/auditors).
    assert rows[("round-1-2", '<i>Eve & "Co"</i>')]["score"] == "0.500000"
    assert rows[("round-1-2", "Ωmega")]["score"] == "0.500000"
    # final.2024 is played as "bo_old": it counts for Bo.
    assert ("final.2024", "Bo") in rows and not any(p == "bo_old" for _, p in rows)
    # Same instant, 2024-03-02T00:00Z: "2024/cup/day-2.toml" sorts before "round-1.toml".
    events = [r["match_id"] for r in _rows(built, "data/duel/matches.csv")]
    assert events.index("2024-cup-day-2-1") < events.index("round-1-2")
    assert events == ["round-1-1", "2024-cup-day-2-1", "round-1-2", "final.2024",
                      "2024-cup-day-2-2", "2024-cup-day-2-3"]


def test_hand_checked_elo_challenger(built):
    """grudge: Ana 1520 vs Cid 1480, Cid wins. E_Ana = 1/(1+10^(-40/400)) = 0.557312, K 40:
    Ana -22.292465. 2024-april-4: Ana (2 games, K 20) beats the challenger Ωmega (1 game,
    K 40), listed second: K 40 for both. 2024-april-5: Ana challenges (first listed), K 20."""
    rows = {(r["event"], r["player"]): r for r in _rows(built, "data/ladder/changes.csv")}
    ana = rows[("grudge", "Ana")]
    assert float(ana["expected"]) == pytest.approx(_expected(1520, 1480), abs=1e-6)
    assert ana["expected"] == "0.557312"
    assert ana["delta"] == "-22.292465" and rows[("grudge", "Cid")]["delta"] == "22.292465"
    assert rows[("2024-april-4", "Ana")]["k"] == rows[("2024-april-4", "Ωmega")]["k"] == "40.000000"
    assert rows[("2024-april-5", "Ana")]["k"] == rows[("2024-april-5", "Dee")]["k"] == "20.000000"
    # The draw between two new players changes nothing.
    assert rows[("2024-april-2", "Dee")]["delta"] == "0.000000"
    standings = _rows(built, "data/ladder/standings.csv")
    assert [r["player"] for r in standings] == ["Ana", "Dee", "Cid", "Ωmega"]
    assert [r["rank"] for r in standings] == ["1", "2", "3", "4"]
