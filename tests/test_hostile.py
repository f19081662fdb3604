"""Hostile names: the fixture site ``tests/fixtures/hostile/`` built and read back as files.

Its player names hold markup, quotes, ``</script>``, template syntax, path-like
text (``..``, ``a/b``), right-to-left and combining text, emoji, CJK, a
64-character word, names that slugify alike and names that slugify to nothing;
aliases, platforms, regions, notes, tiers, league names and the site's own
title hold markup too. Checked here, without a browser:

* every player has a page of their own, and nothing is written outside the
  output folder;
* every page parses to the same names the data holds: a player link's text and
  a player page's h1 are the exact name, no element or event-handler attribute
  comes from a name, and no dangerous substring appears unescaped outside the
  JSON script blocks;
* JSON embedded in pages cannot close its script element and still decodes to
  the exact names;
* CSV and JSON data keep the exact names;
* what validation refuses (a 65-character name, markup in a match id) is a
  reported problem, never a crash.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from xml.etree import ElementTree

import pytest

from helpers import looks_like_traceback, problems_of, read_csv, run_cli, tree_snapshot
from sitegen.commands.build import build
from sitegen.model import scale
from sitegen.model.views import SLUG_MAX, player_slugs
from sitegen.rating.base import normalize_name

REPO = Path(__file__).resolve().parent.parent
HOSTILE = REPO / "tests" / "fixtures" / "hostile"
LEAGUES = ("duel", "lobby")

# Substrings that only a name, note, tier or setting of the fixture holds: found
# unescaped in a page outside its JSON blocks, they are markup a visitor's browser runs.
DANGEROUS = [
    "<script>alert", "<script>window.__pwned", "<img src=x", '"><img', "<b>old", "<i>pc", "<US>",
    "<em>&amp;", "<b>console", "<b>Bronze", "</script>Gold", "<b>names", "<b>bold", "</textarea>",
    'onmouseover="alert', "</title><script>",
]
# Elements that nothing in the theme's league, player and match pages uses: any found there came from text.
FOREIGN_TAGS = {"img", "b", "i", "em", "textarea", "iframe", "object", "embed"}
JSON_BLOCK = re.compile(r'<script type="application/(?:ld\+)?json"[^>]*>(.*?)</script>', re.S | re.I)


def _expected_players() -> dict[str, set[str]]:
    """Each league's players as the fixture's files name them: aliases resolved, NFC, trimmed."""
    roster = tomllib.loads((HOSTILE / "matches" / "players.toml").read_text(encoding="utf-8"))["players"]
    canonical = {normalize_name(alias): normalize_name(name)
                 for name, entry in roster.items() for alias in entry.get("aliases", [])}
    found: dict[str, set[str]] = {}
    for league in LEAGUES:
        names: set[str] = set()
        for f in (HOSTILE / "matches" / league).rglob("*.toml"):
            if f.name == "league.toml":
                continue
            for match in tomllib.loads(f.read_text(encoding="utf-8"))["match"]:
                for p in match["players"]:
                    name = normalize_name(p["name"])
                    names.add(canonical.get(name, name))
        found[league] = names
    return found


EXPECTED = _expected_players()


@pytest.fixture(scope="module", params=["full", "big"])
def site(tmp_path_factory, request) -> Path:
    """The fixture built as it is, and with every league "big" (model/scale.py): a big league's
    compact rows are written by output/rows.py, not by the templates, and escape on their own."""
    base = tmp_path_factory.mktemp("hostile")
    out = base / "out" / "site"
    with pytest.MonkeyPatch.context() as mp:
        if request.param == "big":
            mp.setattr(scale, "BIG_LEAGUE_ROWS", 0)
        build(HOSTILE, out)
    return out


def _standings(site: Path, league: str) -> list[dict[str, str]]:
    return read_csv((site / "data" / league / "standings.csv").read_text(encoding="utf-8"))


def _name_of_page(site: Path) -> dict[str, str]:
    """Site path of every player page ("leagues/duel/players/eve-2/") -> the player's name."""
    pages = {}
    for league in LEAGUES:
        names = [r["player"] for r in _standings(site, league)]
        for name, slug in player_slugs(names).items():
            pages[f"leagues/{league}/players/{slug}/"] = name
    return pages


class _Page(HTMLParser):
    """A page as a browser's parser sees it: elements, the text of each link, h1s, script bodies."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.links: list[tuple[str, str]] = []          # (href, text)
        self.h1: list[str] = []
        self.title = ""
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._link: list[str] | None = None
        self._href = ""
        self._h1: list[str] | None = None
        self._title: list[str] | None = None
        self._script: tuple[dict[str, str | None], list[str]] | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.elements.append((tag, attributes))
        if tag == "a" and attributes.get("href") is not None:
            self._link, self._href = [], attributes["href"] or ""
        elif tag == "h1":
            self._h1 = []
        elif tag == "title":
            self._title = []
        elif tag == "script":
            self._script = (attributes, [])

    def handle_endtag(self, tag):
        if tag == "a" and self._link is not None:
            self.links.append((self._href, "".join(self._link)))
            self._link = None
        elif tag == "h1" and self._h1 is not None:
            self.h1.append("".join(self._h1))
            self._h1 = None
        elif tag == "title" and self._title is not None:
            self.title = "".join(self._title)
            self._title = None
        elif tag == "script" and self._script is not None:
            self.scripts.append((self._script[0], "".join(self._script[1])))
            self._script = None

    def handle_data(self, data):
        for buffer in (self._link, self._h1, self._title, self._script[1] if self._script else None):
            if buffer is not None:
                buffer.append(data)


def _parse(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    return page


def _html_pages(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): p.read_text(encoding="utf-8") for p in sorted(site.rglob("*.html"))}


def _target(page: str, href: str) -> str | None:
    """The site path a relative link of ``page`` points at, or None for other links."""
    if not href or href.startswith(("#", "http:", "https:", "mailto:")):
        return None
    parts = list(PurePosixPath(page).parent.parts)
    path = href.split("#", 1)[0].split("?", 1)[0]
    for part in path.split("/"):
        if part == "..":
            if not parts:
                return "<outside the site>"
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts) + ("/" if path.endswith("/") else "")


# --- the fixture itself ---------------------------------------------------------------------

def test_fixture_holds_the_hostile_names():
    """The fixture keeps what it is for: a name that changes must not quietly drop a case."""
    everyone = EXPECTED["duel"] | EXPECTED["lobby"]
    for name in ["<script>alert(1)</script>", "</script><script>window.__pwned=1</script>",
                 '"><img src=x onerror=alert(1)>', 'O\'Brien "the" Quick', "{{ 7*7 }}",
                 "{% raw %}x{% endraw %}", "${alert(1)}", "../../etc/passwd", "a/b", ".", "..",
                 "Ève", "Eve", "EVE", "eve", "!!!", "😀😀", "محمد علي", "דוד לוי", "李小龙"]:
        assert name in everyone, name
    assert any(len(n) == 64 and " " not in n for n in everyone), "no 64-character word"
    assert any("\u200d" in n for n in everyone), "no emoji joined with ZWJ"
    assert any(re.search("[\u0300-\u036f]", n) for n in everyone), "no combining accent"
    assert EXPECTED["duel"] == EXPECTED["lobby"], "both leagues hold every name"


# --- slugs and paths ------------------------------------------------------------------------

def test_every_player_has_a_page_of_their_own(site):
    for league in LEAGUES:
        names = [r["player"] for r in _standings(site, league)]
        assert set(names) == EXPECTED[league]
        folders = sorted(p.name for p in (site / "leagues" / league / "players").iterdir() if p.is_dir())
        slugs = player_slugs(names)
        assert len(set(slugs.values())) == len(names) == len(folders) == 26
        assert sorted(slugs.values()) == folders
        # Four names slugify to "eve", four to nothing: numbered in code point order of the names.
        assert [slugs[n] for n in ("EVE", "Eve", "eve", "Ève")] == ["eve", "eve-2", "eve-3", "eve-4"]
        assert [slugs[n] for n in ("!!!", ".", "..", "😀😀")] == ["player", "player-2", "player-3", "player-4"]
        assert slugs["../../etc/passwd"] == "etc-passwd" and slugs["a/b"] == "a-b"
        for folder in folders:
            assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", folder), folder


def test_nothing_is_written_outside_the_output_folder(site):
    # The build's parent holds the output folder and nothing else (no stray
    # "etc/passwd", no temporary folder left behind).
    assert [p.name for p in site.parent.iterdir()] == ["site"]
    root = site.resolve()
    count = 0
    for folder, dirs, files in os.walk(site):
        for name in dirs + files:
            path = Path(folder) / name
            assert name not in (".", "..") and "\\" not in name, path
            assert not path.is_symlink(), f"{path} is a symbolic link"
            assert path.resolve().is_relative_to(root), f"{path} leaves the output folder"
            count += 1
    assert count > 100


def test_links_never_leave_the_site(site):
    for path, text in _html_pages(site).items():
        for href, _ in _parse(text).links:
            assert not href.lower().lstrip().startswith(("javascript:", "data:", "vbscript:")), (path, href)
            target = _target(path, href)
            assert target != "<outside the site>", f"{path}: {href} climbs above the site's root"


def test_slugs_number_clashes_in_code_point_order_and_keep_a_natural_slug():
    slugs = player_slugs(["eve", "Eve", "eve 2", "Ève", "Player", "!!!", "😀", "龍" * 64, "龍" * 63 + "虎"])
    assert slugs["Eve"] == "eve" and slugs["eve"] == "eve-3" and slugs["Ève"] == "eve-4"
    assert slugs["eve 2"] == "eve-2", "a suffix took the slug a name has of its own"
    assert slugs["Player"] == "player" and slugs["!!!"] == "player-2" and slugs["😀"] == "player-3"
    assert all(len(s) <= SLUG_MAX + 3 for s in slugs.values())
    assert len(set(slugs.values())) == len(slugs)
    # Order of the input does not matter.
    assert player_slugs(list(reversed(list(slugs)))) == slugs


def test_sixty_four_cjk_characters_build(make_site, tmp_path):
    """Transliterated, 64 CJK characters are 319 ASCII ones: longer than a folder name may be."""
    dragon = "龍" * 64
    root = make_site({
        "matches/d/league.toml": 'name = "D"\nsystem = "elo"\n',
        "matches/d/m.toml": f'[[match]]\nplayed = 2024-01-01\nplayers = [{{ name = "{dragon}", score = 1 }}, '
                            f'{{ name = "b", score = 0 }}]\n',
    })
    build(root, tmp_path / "out")
    pages = list((tmp_path / "out" / "leagues" / "d" / "players").iterdir())
    assert len(pages) == 2
    assert any(_parse((p / "index.html").read_text(encoding="utf-8")).h1 == [dragon] for p in pages)


# --- escaping in pages ----------------------------------------------------------------------

def test_no_dangerous_substring_outside_json_blocks(site):
    found = []
    for path, text in _html_pages(site).items():
        rest = JSON_BLOCK.sub("", text)
        found += [f"{path}: {bad!r}" for bad in DANGEROUS if bad in rest]
    assert not found, "unescaped markup:\n" + "\n".join(found[:30])


def test_no_element_or_handler_comes_from_a_name(site):
    found = []
    for path, text in _html_pages(site).items():
        page = _parse(text)
        for tag, attrs in page.elements:
            handlers = [a for a in attrs if a.startswith("on")]
            if handlers:
                found.append(f"{path}: <{tag}> has {handlers}")
            if tag in FOREIGN_TAGS and (path.startswith("leagues/") or path == "index.html"):
                found.append(f"{path}: a <{tag}> element")
        for attrs, body in page.scripts:
            if attrs.get("src") is not None and body.strip():
                found.append(f"{path}: a script with src has a body: {body[:60]!r}")
            # The theme's own inline scripts are constant: none may carry text from the input.
            if attrs.get("type") not in ("application/json", "application/ld+json") and any(
                    bit in body for bit in ("alert(", "__pwned", "7*7", "etc/passwd")):
                found.append(f"{path}: an inline script holds a name: {body[:80]!r}")
    assert not found, "\n".join(found[:30])


def test_player_links_and_headings_show_the_exact_name(site):
    names = _name_of_page(site)
    checked = 0
    wrong = []
    for path, text in _html_pages(site).items():
        page = _parse(text)
        for href, shown in page.links:
            target = _target(path, href)
            if target in names:
                checked += 1
                if shown.strip() != names[target]:
                    wrong.append(f"{path}: link to {target} shows {shown.strip()!r}, not {names[target]!r}")
        own = path.removesuffix("index.html")
        if own in names:
            if page.h1 != [names[own]]:
                wrong.append(f"{path}: h1 {page.h1!r}, not [{names[own]!r}]")
            if not page.title.startswith(names[own] + " "):
                wrong.append(f"{path}: title {page.title!r} does not start with the name")
    assert not wrong, "\n".join(wrong[:30])
    # Leaderboards, match pages, player pages and the home page all link players.
    assert checked > 500


def test_template_syntax_in_names_is_not_evaluated(site):
    names = {v: k for k, v in _name_of_page(site).items()}
    for name in ("{{ 7*7 }}", "{% raw %}x{% endraw %}", "${alert(1)}"):
        page = _parse((site / names[name] / "index.html").read_text(encoding="utf-8"))
        assert page.h1 == [name]
    home = _parse((site / "index.html").read_text(encoding="utf-8"))
    assert home.title == 'Hostile <b>names</b> & "quotes"'
    assert 'Lobby ${alert(1)} {{ 7*7 }}' in [text.strip() for _, text in home.links]


def test_notes_tiers_aliases_and_settings_are_shown_as_text(site):
    duel = (site / "leagues" / "duel" / "matches" / "2024" / "may" / "index.html").read_text(encoding="utf-8")
    assert ("&lt;script&gt;alert(1)&lt;/script&gt; rematch: &lt;/textarea&gt;&lt;b&gt;bold&lt;/b&gt; &amp; "
            "{{ 7*7 }}") in duel
    lobby = (site / "leagues" / "lobby" / "matches" / "season-1" / "index.html").read_text(encoding="utf-8")
    assert "&lt;b&gt;console&lt;/b&gt; &amp; &#34;pc&#34;" in lobby
    assert "Lobby notes: &lt;img src=x onerror=alert(1)&gt; ${alert(1)} {% raw %}" in lobby
    board = (site / "leagues" / "lobby" / "index.html").read_text(encoding="utf-8")
    assert "&lt;b&gt;Bronze&lt;/b&gt;" in board
    names = {v: k for k, v in _name_of_page(site).items()}
    player = (site / names["<script>alert(1)</script>"] / "index.html").read_text(encoding="utf-8")
    for shown in ("&lt;b&gt;old&lt;/b&gt;", "&lt;i&gt;pc&lt;/i&gt;", "&#34;EU&#34; &amp; &lt;US&gt;"):
        assert shown in player, shown
    # The league description is curators' markdown: raw HTML is text, a javascript: link loses its address.
    description = (site / "leagues" / "duel" / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in description
    assert "javascript:" not in description and "<strong>bold</strong>" in description


# --- JSON in pages --------------------------------------------------------------------------

def test_embedded_json_cannot_close_its_script_and_keeps_the_names(site):
    names = _name_of_page(site)
    blocks = 0
    opponents: set[str] = set()
    for path, text in _html_pages(site).items():
        for body in JSON_BLOCK.findall(text):
            blocks += 1
            assert "<" not in body, f"{path}: a raw '<' in embedded JSON"
            assert "</script" not in body.lower() and "<!--" not in body, path
            json.loads(body)
    assert blocks >= 1
    # A player's chart and full list read the data file beside the page: it keeps the exact names.
    for page, name in names.items():
        doc = json.loads((site / page / "games.json").read_text(encoding="utf-8"))
        assert doc["player"] == name
        opponents.update(part for row in doc["games"] for part in row[3].split(", "))
    # Every duel opponent's exact name is in someone's data file.
    assert EXPECTED["duel"] <= opponents | {"…"}, EXPECTED["duel"] - opponents


# --- data files -----------------------------------------------------------------------------

def test_csv_and_json_keep_the_exact_names(site):
    for league in LEAGUES:
        folder = site / "data" / league
        standings = {r["player"] for r in _standings(site, league)}
        assert standings == EXPECTED[league]
        changes = read_csv((folder / "changes.csv").read_text(encoding="utf-8"))
        assert {r["player"] for r in changes} == EXPECTED[league]
        for table in ("standings", "changes"):
            path = folder / f"{table}.json"
            if path.exists():
                rows = json.loads(path.read_text(encoding="utf-8"))
                assert {r["player"] for r in rows} == EXPECTED[league], table


def test_xml_files_parse_and_keep_the_names(site):
    """Feeds and sitemaps, where the build writes them: well-formed whatever the names hold,
    no element comes from a name, and a feed's text holds the exact names."""
    files = sorted(site.rglob("*.xml"))
    for path in files:
        root = ElementTree.parse(path).getroot()
        stray = sorted({el.tag for el in root.iter() if not el.tag.startswith("{")})
        assert not stray, f"{path.name}: elements outside the document's namespaces: {stray}"
        for loc in root.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc"):
            assert re.fullmatch(r"[A-Za-z0-9:/._~%-]+", loc.text or ""), loc.text
    feed = site / "feed.xml"
    if feed.exists():
        text = "\n".join(ElementTree.parse(feed).getroot().itertext())
        # The site feed holds the latest matches, the three lobbies of everyone among them.
        missing = sorted(n for n in EXPECTED["lobby"] if n not in text)
        assert not missing, f"feed.xml does not show these names exactly: {missing}"


def test_the_big_build_is_the_compact_output(site, request):
    """What the "big" build checks above is the big leagues' own output (output/rows.py)."""
    big = request.node.callspec.params["site"] == "big"
    matches = "".join(p.read_text(encoding="utf-8") for p in (site / "leagues/duel/matches").rglob("index.html"))
    assert ('class="changes mgc"' in matches) == big
    player = next((site / "leagues/duel/players").glob("*/index.html")).read_text(encoding="utf-8")
    assert ('<table class="by-period">' in player and ("</th><td class=\"num\">" in player) != big)


def test_builds_are_byte_identical(site, tmp_path, request, monkeypatch):
    if request.node.callspec.params["site"] == "big":
        monkeypatch.setattr(scale, "BIG_LEAGUE_ROWS", 0)
    build(HOSTILE, tmp_path / "again")
    assert tree_snapshot(tmp_path / "again") == tree_snapshot(site)


# --- what validation refuses ----------------------------------------------------------------

def _with_match(make_site, match: str):
    files = {p.relative_to(HOSTILE).as_posix(): p.read_bytes() for p in HOSTILE.rglob("*") if p.is_file()}
    files["matches/duel/2024/extra.toml"] = match
    return make_site(files)


def test_a_65_character_name_and_markup_in_a_match_id_are_reported(make_site):
    long = "W" * 65
    root = _with_match(make_site, f'[[match]]\nid = "<script>alert(1)</script>"\nplayed = 2024-07-01\n'
                                  f'players = [{{ name = "{long}", score = 1 }}, {{ name = "   ", score = 0 }}]\n')
    problems = problems_of(root)
    shown = {(p.file, p.field): p.message for p in problems}
    assert ("matches/duel/2024/extra.toml", "id") in shown, shown
    assert ("matches/duel/2024/extra.toml", "players[0].name") in shown, shown
    assert "at most 64 characters, got 65" in shown[("matches/duel/2024/extra.toml", "players[0].name")]
    assert ("matches/duel/2024/extra.toml", "players[1].name") in shown, shown
    assert len(problems) == 3


def test_refused_names_exit_1_without_a_traceback(make_site):
    root = _with_match(make_site, '[[match]]\nid = "a/../b"\nplayed = 2024-07-01\n'
                                  'players = [{ name = "x", score = 1 }, { name = "", score = 0 }]\n')
    done = run_cli("check", "--root", str(root))
    assert done.returncode == 1, done.stdout + done.stderr
    assert not looks_like_traceback(done.stderr), done.stderr
    lines = done.stderr.strip().splitlines()
    assert any(line.startswith("matches/duel/2024/extra.toml") and "id" in line for line in lines), lines
    assert any("players[1].name" in line for line in lines), lines
