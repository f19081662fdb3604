"""Search index, Atom feeds, sitemap, robots.txt, the 404 page's root and the base URL.

The fixture site (``tests/fixtures/small``) is built in-process without a base URL
(twice, to compare bytes) and with one under a project path, as GitHub Pages
serves it. Expected values come from the build's own data files (matches.csv,
changes.csv, standings.csv), never from the code under test.
"""

from __future__ import annotations

import json
import re
import shutil
import uuid
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit
from urllib.robotparser import RobotFileParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import league_toml, looks_like_traceback, lunaro_match, problems_of, read_csv, run_cli, tree_snapshot
from served import serving
from sitegen.commands.build import build, check
from sitegen.load.problems import InvalidInput
from sitegen.model.groups import anchor
from sitegen.output.search import records

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "small"
BASE = "https://owner.github.io/repo/"
ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
EVE = '<i>Eve & "Co"</i>'
# The feeds' urn:uuid namespace, as README documents it.
FEED_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "sitegen:feeds")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("search-feeds")
    out = {"plain": base / "plain", "again": base / "again" / "site", "based": base / "based"}
    build(FIXTURE, out["plain"])
    build(FIXTURE, out["again"])
    build(FIXTURE, out["based"], base_url=BASE)
    return out


def data(out: Path, league: str, name: str) -> list[dict[str, str]]:
    return read_csv((out / "data" / league / name).read_text(encoding="utf-8"))


def leagues(out: Path) -> list[str]:
    return sorted(p.name for p in (out / "data").iterdir())


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def feed(out: Path, rel: str) -> ET.Element:
    root = ET.fromstring((out / rel).read_bytes())
    assert root.tag == f"{ATOM}feed"
    return root


def text(el: ET.Element, tag: str) -> str:
    found = el.find(f"{ATOM}{tag}")
    assert found is not None, f"no {tag} in {el.tag}"
    return found.text or ""


class Links(HTMLParser):
    """Every <link>, <a>, <form> and <script> address of a page, with its tag and attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag, attrs):
        if tag in ("link", "a", "form", "script"):
            self.found.append((tag, {k: v or "" for k, v in attrs}))


def links(path: Path) -> list[tuple[str, dict[str, str]]]:
    parser = Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.found


def match_url(out: Path, league: str, match_id: str) -> str:
    """A match's address: its anchor on the page of its match file."""
    frag = anchor(match_id)
    for f in sorted((out / "leagues" / league / "matches").rglob("index.html")):
        if f'<tbody id="{frag}">' in f.read_text(encoding="utf-8"):
            return f"{f.parent.relative_to(out).as_posix()}/#{frag}"
    raise AssertionError(f"no page holds match {match_id!r}")


def page_of(out: Path, url: str) -> Path:
    """The file a site address (with or without a fragment) is served from; its anchor is on it."""
    path, _, frag = url.partition("#")
    f = out / path / "index.html"
    assert f.is_file(), url
    assert not frag or f'id="{frag}"' in f.read_text(encoding="utf-8"), url
    return f


def html_pages(out: Path) -> list[str]:
    """Every page a visitor can land on, as its address: no 404 page, no redirect page."""
    pages = []
    for f in sorted(out.rglob("*.html")):
        rel = f.relative_to(out).as_posix()
        if rel == "404.html" or 'http-equiv="refresh"' in f.read_text(encoding="utf-8"):
            continue
        pages.append(rel[: -len("index.html")] if rel.endswith("index.html") else rel)
    return pages


# --- Atom feeds ---------------------------------------------------------------------------

def test_league_feed_holds_its_matches_newest_first(built):
    out = built["plain"]
    for league in leagues(out):
        matches = data(out, league, "matches.csv")
        root = feed(out, f"leagues/{league}/feed.xml")
        entries = root.findall(f"{ATOM}entry")
        expected = sorted(matches, key=lambda m: (when(m["played"]), m["match_id"]), reverse=True)[:50]
        assert [text(e, "title").split(": ")[0] for e in entries] == [m["match_id"] for m in expected]
        # The feed is as new as its latest match, never the build clock.
        assert when(text(root, "updated")) == max(when(m["played"]) for m in matches)
        for e, m in zip(entries, expected):
            assert when(text(e, "updated")) == when(m["played"])
            assert when(text(e, "updated")).utcoffset().total_seconds() == 0


def test_feed_ids_without_base_url_are_stable_uuids(built):
    out = built["plain"]
    root = feed(out, "leagues/duel/feed.xml")
    assert text(root, "id") == f"urn:uuid:{uuid.uuid5(FEED_NAMESPACE, 'duel')}"
    ids = {text(e, "title").split(": ")[0]: text(e, "id") for e in root.findall(f"{ATOM}entry")}
    assert ids["final.2024"] == f"urn:uuid:{uuid.uuid5(FEED_NAMESPACE, 'duel/final.2024')}"
    assert len(set(ids.values())) == len(ids) == 6
    # Relative links resolve against the feed's own address to the match pages.
    for e in root.findall(f"{ATOM}entry"):
        href = e.find(f"{ATOM}link").get("href")
        assert not href.startswith(("/", "http")), href
        target = urljoin("http://h/s/leagues/duel/feed.xml", href)
        assert target.startswith("http://h/s/leagues/duel/matches/")
        page_of(out, target[len("http://h/s/"):])
    assert (root.find(f"{ATOM}link[@rel='self']")) is None          # no absolute address to give


def test_feed_with_base_url_uses_absolute_addresses(built):
    root = feed(built["based"], "leagues/duel/feed.xml")
    assert text(root, "id") == BASE + "leagues/duel/feed.xml"
    assert root.find(f"{ATOM}link[@rel='self']").get("href") == BASE + "leagues/duel/feed.xml"
    assert root.find(f"{ATOM}link[@rel='alternate']").get("href") == BASE + "leagues/duel/"
    for e in root.findall(f"{ATOM}entry"):
        match_id = text(e, "title").split(": ")[0]
        assert text(e, "id") == BASE + match_url(built["based"], "duel", match_id)
        assert e.find(f"{ATOM}link").get("href") == text(e, "id")


def test_feed_escapes_markup_and_gives_the_name_back(built):
    raw = (built["plain"] / "leagues/duel/feed.xml").read_text(encoding="utf-8")
    assert "<i>Eve" not in raw and "&lt;i&gt;Eve &amp; \"Co\"&lt;/i&gt;" in raw
    root = feed(built["plain"], "leagues/duel/feed.xml")
    titles = [text(e, "title") for e in root.findall(f"{ATOM}entry")]
    assert f"final.2024: Bo vs {EVE}" in titles


def test_feed_entry_content_gives_each_rating_change(built):
    out = built["plain"]
    changes = [c for c in data(out, "duel", "changes.csv") if c["event"] == "final.2024"]
    root = feed(out, "leagues/duel/feed.xml")
    entry = next(e for e in root.findall(f"{ATOM}entry") if text(e, "title").startswith("final.2024:"))
    content = entry.find(f"{ATOM}content")
    assert content.get("type") == "text"
    lines = content.text.splitlines()
    assert len(changes) == 2 and len(lines) >= 2
    for change, line in zip(changes, lines):
        delta = int(change["delta"])
        sign = "+" if delta > 0 else "\u2212" if delta < 0 else "\u00b1"
        assert line.startswith(change["player"] + " (")
        assert line.endswith(f": {int(change['rating_before']):,} → {int(change['rating_after']):,} "
                             f"({sign}{abs(delta)})"), line
    assert any(c["player"] == EVE for c in changes)


def test_site_feed_holds_every_league(built):
    out = built["plain"]
    every = [(when(m["played"]), m["match_id"], lg) for lg in leagues(out) for m in data(out, lg, "matches.csv")]
    root = feed(out, "feed.xml")
    entries = root.findall(f"{ATOM}entry")
    assert len(entries) == min(50, len(every)) == 19
    assert when(text(root, "updated")) == max(t for t, _, _ in every)
    times = [when(text(e, "updated")) for e in entries]
    assert times == sorted(times, reverse=True)
    assert {e.find(f"{ATOM}category").get("term") for e in entries} == set(leagues(out))


def test_feeds_are_linked_from_the_head(built):
    out = built["plain"]

    def alternates(rel: str) -> list[str]:
        return [a["href"] for tag, a in links(out / rel)
                if tag == "link" and a.get("rel") == "alternate" and a.get("type") == "application/atom+xml"]

    final = match_url(out, "duel", "final.2024").split("#")[0] + "index.html"
    for page in ("leagues/duel/index.html", final,
                 "leagues/duel/players/i-eve-co-i/index.html", "leagues/duel/results/index.html"):
        [href] = alternates(page)
        assert urljoin("http://h/" + page, href) == "http://h/leagues/duel/feed.xml", page
    assert alternates("index.html") == ["feed.xml"]
    assert alternates("about/index.html") == ["../feed.xml"]


def test_feed_keeps_the_latest_fifty_and_survives_control_characters(make_site, tmp_path):
    matches = "".join(lunaro_match(f"2024-01-{1 + i // 3:02d}T{10 + i % 3}:00:00Z", "A\\u0007b", 20, 0,
                                   "C", i % 19, 40, id=f"m{i:02d}") for i in range(60))
    root = make_site({"matches/lu/league.toml": league_toml("lunaro"), "matches/lu/2024.toml": matches})
    out = tmp_path / "out"
    build(root, out)
    parsed = feed(out, "leagues/lu/feed.xml")
    entries = parsed.findall(f"{ATOM}entry")
    assert [text(e, "title").split(":")[0] for e in entries] == [f"m{i:02d}" for i in range(59, 9, -1)]
    assert text(entries[0], "title") == "m59: A\ufffdb vs C"          # XML 1.0 cannot hold U+0007
    assert when(text(parsed, "updated")) == datetime(2024, 1, 20, 12, tzinfo=timezone.utc)


def test_league_without_matches_has_no_feed(make_site, tmp_path):
    root = make_site({"matches/lu/league.toml": league_toml("lunaro"),
                      "matches/el/league.toml": league_toml("elo", name="Other")})
    out = tmp_path / "out"
    build(root, out)
    assert not (out / "leagues/lu/feed.xml").exists() and not (out / "feed.xml").exists()
    assert "application/atom+xml" not in (out / "leagues/lu/index.html").read_text(encoding="utf-8")


def test_feeds_are_byte_identical_across_builds(built):
    for rel in ["feed.xml"] + [f"leagues/{lg}/feed.xml" for lg in leagues(built["plain"])]:
        assert (built["plain"] / rel).read_bytes() == (built["again"] / rel).read_bytes(), rel


# --- sitemap and robots.txt -----------------------------------------------------------------

def test_sitemap_lists_every_page_under_the_base_url(built):
    out = built["based"]
    root = ET.fromstring((out / "sitemap.xml").read_bytes())
    assert root.tag == f"{SITEMAP}urlset"
    urls = root.findall(f"{SITEMAP}url")
    locs = [u.find(f"{SITEMAP}loc").text for u in urls]
    for loc in locs:
        parts = urlsplit(loc)
        assert parts.scheme == "https" and parts.netloc == "owner.github.io" and loc.startswith(BASE), loc
    assert sorted(loc[len(BASE):] for loc in locs) == sorted(html_pages(out))
    assert len(locs) == len(set(locs))
    assert BASE in locs and BASE + "search/" in locs
    assert not any(loc.endswith(("404.html", "/matches/")) for loc in locs)


def test_sitemap_lastmod_is_the_latest_match_of_the_page(built):
    out = built["based"]
    root = ET.fromstring((out / "sitemap.xml").read_bytes())
    lastmod = {u.find(f"{SITEMAP}loc").text[len(BASE):]: (u.find(f"{SITEMAP}lastmod").text
               if u.find(f"{SITEMAP}lastmod") is not None else None) for u in root.findall(f"{SITEMAP}url")}
    matches = data(out, "duel", "matches.csv")
    # A match file's page: the latest of its matches.
    latest: dict[str, str] = {}
    for m in matches:
        page = match_url(out, "duel", m["match_id"]).split("#")[0]
        latest[page] = max(latest.get(page, m["played"]), m["played"], key=when)
    assert latest and all(lastmod[page] == played for page, played in latest.items())
    assert lastmod["leagues/duel/"] == max(matches, key=lambda m: when(m["played"]))["played"]
    eve = [c["played"] for c in data(out, "duel", "changes.csv") if c["player"] == EVE]
    assert lastmod["leagues/duel/players/i-eve-co-i/"] == eve[-1] == "2024-03-05T12:00:00Z"
    every = [m["played"] for lg in leagues(out) for m in data(out, lg, "matches.csv")]
    assert lastmod[""] == max(every, key=when)
    assert lastmod["about/"] is None                   # no match date means anything for it


def test_no_sitemap_without_a_base_url(built):
    assert not (built["plain"] / "sitemap.xml").exists()


def test_robots_allows_everything_and_names_the_sitemap(built):
    for name, sitemap in (("plain", None), ("based", BASE + "sitemap.xml")):
        content = (built[name] / "robots.txt").read_text(encoding="utf-8")
        parser = RobotFileParser()
        parser.parse(content.splitlines())
        for agent in ("*", "Googlebot"):
            assert parser.can_fetch(agent, "/leagues/duel/players/bo/") and parser.can_fetch(agent, "/")
        assert parser.site_maps() == ([sitemap] if sitemap else None)


# --- the 404 page ---------------------------------------------------------------------------

@pytest.mark.parametrize("name, root", [("plain", "/"), ("based", "/repo/")])
def test_404_links_start_at_the_site_root(built, name, root):
    found = links(built[name] / "404.html")
    addresses = [(tag, a.get("href") or a.get("action") or a.get("src")) for tag, a in found]
    assert addresses, "the 404 page links nowhere"
    for tag, address in addresses:
        # Served for any missing path at any depth: a relative link would point into nowhere.
        assert address.startswith((root, "#", "https://")), (tag, address)
    assert ("link", root + "assets/site.css") in addresses
    assert ("a", root) in addresses                                  # the home link
    assert ("form", root + "search/") in addresses
    assert ("a", root + "leagues/duel/") in addresses


def test_other_pages_link_relatively(built):
    for rel in ("index.html", "leagues/duel/players/bo/index.html", "search/index.html"):
        for tag, a in links(built["based"] / rel):
            address = a.get("href") or a.get("action") or a.get("src") or ""
            assert not address.startswith("/"), (rel, tag, address)


# --- base URL ---------------------------------------------------------------------------------

SITE = {"matches/lu/league.toml": league_toml("lunaro"),
        "matches/lu/2024.toml": lunaro_match("2024-01-01", "A", 20, 0, "B", 3, 40)}


@pytest.mark.parametrize("value", ["example.org/leagues/", "ftp://example.org/", "https://", "/repo/",
                                   "https://example.org/?page=1", "https://example.org/#top",
                                   "https://exa mple.org/", "https://example.org:port/"])
def test_bad_base_url_setting_is_a_problem(make_site, value):
    root = make_site({**SITE, "pyproject.toml": f'[tool.sitegen]\nbase_url = "{value}"\n'})
    problems = problems_of(root)
    assert len(problems) == 1, problems
    p = problems[0]
    assert (p.file, p.field) == ("pyproject.toml", "tool.sitegen.base_url")
    assert "absolute http(s) URL" in p.message and repr(value) in p.message
    assert str(p).startswith("pyproject.toml: tool.sitegen.base_url: must be")


@pytest.mark.parametrize("value, normal", [("https://example.org/leagues", "https://example.org/leagues/"),
                                           ("https://example.org/leagues//", "https://example.org/leagues/"),
                                           ("http://127.0.0.1:8000", "http://127.0.0.1:8000/"),
                                           (" https://owner.github.io/repo/ ", "https://owner.github.io/repo/")])
def test_base_url_setting_is_normalised(make_site, value, normal):
    root = make_site({**SITE, "pyproject.toml": f'[tool.sitegen]\nbase_url = "{value}"\n'})
    assert check(root).settings.base_url == normal


def test_bad_base_url_option_is_reported_and_the_old_output_stays(make_site, tmp_path):
    root = make_site(SITE)
    out = tmp_path / "out"
    build(root, out)
    before = tree_snapshot(out)
    result = run_cli("build", "--root", str(root), "--out", str(out), "--base-url", "owner.github.io/repo")
    assert result.returncode == 1
    assert not looks_like_traceback(result.stderr), result.stderr
    assert result.stderr.splitlines()[0] == ("--base-url: must be an absolute http(s) URL such as "
                                             "https://owner.github.io/repo/ (no query or fragment), "
                                             "got 'owner.github.io/repo'")
    assert tree_snapshot(out) == before


def test_base_url_option_overrides_the_setting(make_site, tmp_path):
    root = make_site({**SITE, "pyproject.toml": '[tool.sitegen]\nbase_url = "https://a.example/x/"\n'})
    build(root, tmp_path / "a")
    build(root, tmp_path / "b", base_url="https://b.example/y")
    build(root, tmp_path / "c", base_url="")                         # empty: no base URL at all
    assert "Sitemap: https://a.example/x/sitemap.xml" in (tmp_path / "a/robots.txt").read_text()
    assert "Sitemap: https://b.example/y/sitemap.xml" in (tmp_path / "b/robots.txt").read_text()
    assert not (tmp_path / "c/sitemap.xml").exists()
    assert 'href="/y/assets/site.css"' in (tmp_path / "b/404.html").read_text()
    assert 'href="/assets/site.css"' in (tmp_path / "c/404.html").read_text()


# --- search index -----------------------------------------------------------------------------

def views():
    from sitegen.commands.build import rate
    from sitegen.model.views import league_view

    site = check(FIXTURE)
    return [league_view(r, site.roster) for r in rate(site)]


def test_search_records_are_every_league_player_and_match(built):
    recs = [(kind, r) for lv in views() for kind, r in records(lv)]
    out = built["plain"]
    players = sum(len(data(out, lg, "standings.csv")) for lg in leagues(out))
    matches = sum(len(data(out, lg, "matches.csv")) for lg in leagues(out))
    assert sum(kind == "player" for kind, _ in recs) == players == 23
    assert sum(kind == "match" for kind, _ in recs) == matches == 19
    assert sum(kind == "league" for kind, _ in recs) == len(leagues(out)) == 5
    for _, r in recs:
        assert not r.url.startswith("/") and page_of(out, r.url), r.url
    by_url = {r.url: r for _, r in recs}
    eve = by_url["leagues/duel/players/i-eve-co-i/"]
    assert eve.title == EVE and EVE in eve.words
    assert eve.detail == "Rank 2 · rating 1,505"
    assert "bo_old" in by_url["leagues/duel/players/bo/"].words            # found by an alias too
    final = by_url[match_url(out, "duel", "final.2024")]
    assert final.title == f"Bo vs {EVE}"
    assert final.detail.startswith("2024-03-03 · final.2024")
    assert {"final.2024", "2024-03-03", "Bo", EVE} <= set(final.words)


def read_index(out: Path) -> tuple[dict, dict[str, list[int]], list[list[str]]]:
    """The manifest, every word with its record numbers and every record, as search.js reads them."""
    folder = out / "search" / "index"
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    found: dict[str, list[int]] = {}
    for key in manifest["keys"]:
        shard = json.loads((folder / "words" / f"{key.encode().hex()}.json").read_text(encoding="utf-8"))
        for word, deltas in shard.items():
            assert word.startswith(key) and word not in found
            found[word] = [sum(deltas[:i + 1]) for i in range(len(deltas))]
    chunks = sorted((folder / "records").iterdir(), key=lambda f: int(f.stem))
    recs = [r for f in chunks for r in json.loads(f.read_text(encoding="utf-8"))]
    assert all(len(json.loads(f.read_text(encoding="utf-8"))) == manifest["chunk"] for f in chunks[:-1])
    return manifest, found, recs


def test_search_index_is_written_and_byte_identical(built):
    out = built["plain"]
    manifest, found, recs = read_index(out)
    assert manifest["records"] == len(recs) == 5 + 23 + 19
    a, b = tree_snapshot(out / "search/index"), tree_snapshot(built["again"] / "search/index")
    assert a == b, sorted(set(a) ^ set(b)) or [k for k in a if a[k] != b.get(k)]
    for url, title, detail in recs:
        assert not url.startswith("/") and page_of(out, url), url
    assert not (out / "pagefind").exists()
    # The ranges of each league cover its records, kind by kind, one after the other.
    edges = [n for lg in manifest["leagues"] for kind in ("league", "player", "match") for n in lg[kind]]
    assert edges == sorted(edges) and edges[0] == 0 and edges[-1] == len(recs)
    duel = next(lg for lg in manifest["leagues"] if lg["slug"] == "duel")
    assert recs[duel["league"][0]][0] == "leagues/duel/"
    assert [recs[n][1] for n in range(*duel["player"])] == [row["player"] for row in data(out, "duel", "standings.csv")]


def test_every_word_finds_what_holds_it(built):
    """Each record's words (split as the page splits a query) lead back to it, and nothing else is listed."""
    from sitegen.output.search import words

    _, found, recs = read_index(built["plain"])
    expected: dict[str, list[int]] = {}
    n = 0
    for lv in views():
        for _, r in records(lv):
            for word in dict.fromkeys(w for text in r.words for w in words(text)):
                expected.setdefault(word, []).append(n)
            n += 1
    assert found == expected
    assert {"eve", "co", "i", "bo", "old", "ωmega", "2024", "final"} <= set(found)
    eve_pages = {recs[n][0] for n in found["eve"]}
    assert "leagues/duel/players/i-eve-co-i/" in eve_pages
    assert match_url(built["plain"], "duel", "final.2024") in eve_pages


def test_words_are_split_as_the_search_page_splits_them():
    from sitegen.output.search import shard_file, shard_key, words

    assert words('<i>Eve & "Co"</i>') == ["i", "eve", "co", "i"]
    assert words("${alert(1)}") == ["alert", "1"]
    assert words("محمد علي") == ["محمد", "علي"]
    assert words("👩🏽‍🚀 Nova") == ["nova"]
    assert words("ＡＢＣ Ωmega 2024-03-03") == ["abc", "ωmega", "2024", "03", "03"]        # NFKC, lower case
    assert words("Zoë") == words("Zoe\u0308") == ["zoë"]                                   # composed
    assert words("हिन्दी खेल") == ["हिन्दी", "खेल"]                    # vowel signs (marks) stay inside words
    assert shard_key("ωmega") == "ωm" and shard_key("i") == "i"
    assert shard_file("ωm") == "words/cf896d.json"


def _words_by_category(text: str) -> list[str]:
    """The definition, one code point at a time: runs of letters, marks and digits of NFKC, lower case."""
    import unicodedata
    found, run = [], ""
    for c in unicodedata.normalize("NFKC", text).lower():
        if unicodedata.category(c)[0] in "LMN":
            run += c
        elif run:
            found, run = found + [run], ""
    return found + [run] if run else found


# Texts near the shortcuts' edges: ASCII, compatibility forms, a final sigma, marks that
# compose across a text's start, the Kelvin sign (ASCII once normalised), line feeds.
_TRICKY = st.text(st.sampled_from("aZ9-_ .\n\u212a\u03a3\u03c3\u0301\u0308e\uff21\u0130\u00df\u2167\u0663\U0001d400"
                                  "\u1100\u1161\u00aa"), max_size=12)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_TRICKY, st.text(max_size=12)), max_size=5))
def test_words_are_the_runs_of_letters_marks_and_digits(texts):
    """The ASCII shortcut and the record's texts searched as one give what each text alone does."""
    from sitegen.output.search import record_words, words

    for text in texts:
        assert words(text) == _words_by_category(text)
    assert record_words(texts) == list(dict.fromkeys(w for t in texts for w in _words_by_category(t)))


def test_spilled_runs_merge_to_the_same_index(monkeypatch, tmp_path, built):
    """Past SPILL entries the word lists go to disk and are merged: the bytes do not change."""
    from sitegen.output import search
    from sitegen.output.write import Output

    monkeypatch.setattr(search, "SPILL", 7)
    runs = []
    spill = search._Words._spill
    monkeypatch.setattr(search._Words, "_spill", lambda self: (runs.append(1), spill(self)))
    output = Output(tmp_path / "index")
    search.write_search_index(views(), output)
    output.commit()
    assert len(runs) > 10
    assert tree_snapshot(tmp_path / "index" / "search/index") == tree_snapshot(built["plain"] / "search/index")


def test_failed_search_index_leaves_the_old_output(monkeypatch, tmp_path, built):
    from sitegen.output import search, searchkept

    out = tmp_path / "site"
    shutil.copytree(built["plain"], out)
    before = tree_snapshot(out)

    def broken(*args):
        raise search.SearchIndexError("no room left")

    monkeypatch.setattr(search._Words, "merged", broken)
    # Or patched from the index the last build left in the cache (output/searchkept.py).
    monkeypatch.setattr(searchkept, "_patched", broken)
    with pytest.raises(InvalidInput) as info:
        build(FIXTURE, out)
    [problem] = info.value.problems
    assert problem.file == "search/index" and "search index could not be built: no room left" in problem.message
    assert tree_snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]      # no temporary folder left


# --- the search page and form -----------------------------------------------------------------

def test_every_page_has_a_search_form_to_the_search_page(built):
    out = built["plain"]
    for rel in ("index.html", "leagues/duel/players/bo/index.html", "about/index.html"):
        forms = [a for tag, a in links(out / rel) if tag == "form" and a.get("role") == "search"]
        assert len(forms) == 1, rel
        assert urljoin("http://h/" + rel, forms[0]["action"]) == "http://h/search/"
        assert forms[0].get("method", "get").lower() == "get"
        assert re.search(r'<input[^>]+type="search"[^>]+name="q"', (out / rel).read_text(encoding="utf-8"))


def test_search_page_without_javascript_says_so(built):
    page = (built["plain"] / "search/index.html").read_text(encoding="utf-8")
    noscript = re.search(r"<noscript>(.*?)</noscript>", page, re.S).group(1)
    assert "needs JavaScript" in noscript
    for league in leagues(built["plain"]):
        assert f'href="../leagues/{league}/"' in noscript
    assert '<script src="../assets/search.js" defer></script>' in page
    assert "search/index" not in page            # the index is fetched by search.js, when needed


def test_index_stats_count_what_was_written(built, tmp_path):
    from sitegen.output.search import write_search_index
    from sitegen.output.write import Output

    output = Output(tmp_path / "index")
    stats = write_search_index(views(), output)
    output.commit()
    files = [p for p in (tmp_path / "index").rglob("*") if p.is_file() and p.name != ".sitegen-site"]
    assert (stats.records, stats.counts) == (47, {"league": 5, "player": 23, "match": 19})
    manifest, _, _ = read_index(tmp_path / "index")
    # the manifest, one file per word key, one per 256 records
    assert stats.files == len(files) == 1 + len(manifest["keys"]) + 1
    assert stats.bytes == sum(p.stat().st_size for p in files)
    assert tree_snapshot(tmp_path / "index" / "search/index") == tree_snapshot(built["plain"] / "search/index")


# --- sitegen serve under a sub-path -----------------------------------------------------------

def test_preview_server_serves_under_the_base_url_path(built):
    import http.client

    from sitegen.commands.serve import _Handler

    with serving(built["based"], handler=type("Handler", (_Handler,), {"prefix": "/repo/"})) as root:
        def get(path: str) -> tuple[int, str | None, bytes]:
            conn = http.client.HTTPConnection("127.0.0.1", urlsplit(root).port, timeout=10)
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            conn.close()
            return response.status, response.getheader("Location"), body

        not_found = (built["based"] / "404.html").read_bytes()
        assert get("/repo/")[::2] == (200, (built["based"] / "index.html").read_bytes())
        assert get("/repo/leagues/duel/feed.xml")[0] == 200
        assert get("/")[:2] == (302, "/repo/") and get("/repo")[:2] == (302, "/repo/")
        assert get("/repo/leagues/duel")[:2] == (301, "/repo/leagues/duel/")
        for missing in ("/repo/a/b/c", "/repo/leagues/duel/players/nobody/", "/elsewhere/index.html",
                        "/repo/../../../etc/passwd"):
            assert get(missing)[::2] == (404, not_found), missing


@pytest.mark.parametrize("pyproject, expected", [
    ('[tool.sitegen]\nbase_url = "https://owner.github.io/repo"\n', "https://owner.github.io/repo"),
    ('[tool.sitegen]\nbase_url = "not a url"\n', ""),
    ('[tool.sitegen]\ntitle = "T"\n', ""),
    ("not [ toml", ""),
])
def test_preview_uses_the_configured_base_url(tmp_path, pyproject, expected):
    from sitegen.commands.serve import configured_base_url

    (tmp_path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    assert configured_base_url(tmp_path) == expected
    assert configured_base_url(tmp_path / "missing") == ""
