"""``sitemap.xml`` and ``robots.txt``.

A sitemap lists absolute URLs, so it is written only when the site's address is
known (``base_url`` or ``--base-url``). A page's ``lastmod`` is its latest match,
never the build clock: the same input gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import quote
from xml.sax.saxutils import escape

from sitegen.model.groups import MatchGroup
from sitegen.model.ledger import iso
from sitegen.model.matchviews import played_of
from sitegen.model.views import MatchView
from sitegen.output.write import Output

NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
# The protocol's limit of URLs per file; past it sitemap.xml becomes an index of parts.
MAX_URLS = 50_000
# Pages that are not content of their own: the 404 page and the redirects.
LEFT_OUT = {"404.html", "redirect.html"}


# The times are read from the league's columns, no view made (matchviews.played_of).
def _latest(matches) -> datetime | None:
    return played_of(matches, -1) if matches else None


def _row_played(row: MatchView | MatchGroup) -> datetime:
    """A results row: a match, or a big league's match-file page (model/scale.py) by its latest."""
    return row.last_played if isinstance(row, MatchGroup) else row.match.played


# The latest match a page shows, by its template; other pages (content, search) get no lastmod.
LASTMOD: dict[str, Callable[[dict[str, Any]], datetime | None]] = {
    "home.html": lambda c: max((played_of(lv.matches, -1) for lv in c["leagues"] if lv.matches), default=None),
    "league.html": lambda c: _latest(c["league"].matches),
    "matches.html": lambda c: max((_row_played(r) for r in c["rows"]), default=None),
    "match_group.html": lambda c: c["group"].last_played,
    "player.html": lambda c: c["player"].last_played,
    "player_opponents.html": lambda c: c["player"].last_played,
}


class Sitemap:
    """The pages of a build as they are rendered: (site path, lastmod)."""

    def __init__(self) -> None:
        self.pages: list[tuple[str, datetime | None]] = []

    def add(self, path: str, template: str, context: dict[str, Any]) -> None:
        if template in LEFT_OUT:
            return
        lastmod = LASTMOD[template](context) if template in LASTMOD else None
        # "leagues/x/index.html" is served as "leagues/x/": list the address people link to.
        url = path[: -len("index.html")] if path == "index.html" or path.endswith("/index.html") else path
        self.pages.append((url, lastmod))


def _urlset(base_url: str, pages: list[tuple[str, datetime | None]]) -> str:
    out = ['<?xml version="1.0" encoding="UTF-8"?>', f'<urlset xmlns="{NAMESPACE}">']
    for url, lastmod in pages:
        out.append(f"  <url><loc>{escape(base_url + quote(url))}</loc>"
                   + (f"<lastmod>{iso(lastmod)}</lastmod>" if lastmod else "") + "</url>")
    out.append("</urlset>")
    return "\n".join(out) + "\n"


def write_sitemap(sitemap: Sitemap, base_url: str, output: Output) -> None:
    """``base_url`` ends in "/"; without one there is no sitemap (its URLs must be absolute)."""
    if not base_url:
        return
    pages = sorted(sitemap.pages, key=lambda page: page[0])
    if len(pages) <= MAX_URLS:
        output.add("sitemap.xml", _urlset(base_url, pages))
        return
    parts = [pages[i:i + MAX_URLS] for i in range(0, len(pages), MAX_URLS)]
    index = ['<?xml version="1.0" encoding="UTF-8"?>', f'<sitemapindex xmlns="{NAMESPACE}">']
    for n, part in enumerate(parts, start=1):
        output.add(f"sitemap-{n}.xml", _urlset(base_url, part))
        latest = max((m for _, m in part if m), default=None)
        index.append(f"  <sitemap><loc>{escape(base_url)}sitemap-{n}.xml</loc>"
                     + (f"<lastmod>{iso(latest)}</lastmod>" if latest else "") + "</sitemap>")
    index.append("</sitemapindex>")
    output.add("sitemap.xml", "\n".join(index) + "\n")


def write_robots(base_url: str, output: Output) -> None:
    """Every page may be crawled. Crawlers read robots.txt only at a host's root, so under
    a sub-path this file is inert, but it costs nothing and serves a site moved to a root."""
    text = "User-agent: *\nAllow: /\n"
    if base_url:
        text += f"\nSitemap: {base_url}sitemap.xml\n"
    output.add("robots.txt", text)
