"""Atom feeds of recent matches: one per league (``leagues/<slug>/feed.xml``) and one
of every league (``feed.xml``).

Written with feedgen, which escapes every text it is given. A feed never holds the
build clock: a feed is as new as its latest match and an entry as its match, so
the same input gives the same bytes.
"""

from __future__ import annotations

import posixpath
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from feedgen.feed import FeedGenerator

from sitegen.load.config import SiteSettings
from sitegen.model.views import LeagueView, MatchView
from sitegen.output.render import fmt_delta, fmt_rating
from sitegen.output.search import match_title
from sitegen.output.write import Output

ENTRIES = 50
SITE_FEED = "feed.xml"
# Ids without a base URL: urn:uuid of this namespace and "<league slug>/<match id>"
# (a league's feed: its slug; the feed of every league: "/", which no slug can be).
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "sitegen:feeds")
# XML 1.0 has no place for most control characters, which a TOML name may hold.
NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True, slots=True)
class FeedLink:
    url: str          # site-relative: "leagues/duel/feed.xml"
    title: str


def league_feed(lv: LeagueView) -> FeedLink | None:
    """The feed a league's pages link to; none for a league without matches (no date to give it)."""
    if not lv.matches:
        return None
    return FeedLink(f"{lv.url}feed.xml", f"{lv.config.name}: latest matches")


def site_feed(leagues: Iterable[LeagueView]) -> FeedLink | None:
    return FeedLink(SITE_FEED, "Latest matches of every league") if any(lv.matches for lv in leagues) else None


def xml_text(text: str) -> str:
    return NOT_XML.sub("\ufffd", text)


def entry_text(m: MatchView, decimals: int) -> str:
    """Each participant, their result and rating change, one line each; team by team."""
    lines = []
    for group in m.groups:
        if group.label:
            lines.append(group.label)
        for line in group.lines:
            details = f" ({line.details})" if line.details else ""
            lines.append(f"{line.player.text}{details}: {fmt_rating(line.before, decimals)} → "
                         f"{fmt_rating(line.after, decimals)} ({fmt_delta(line.delta, decimals)})")
    if m.match.notes:
        lines += ["", m.match.notes]
    return "\n".join(lines)


def _relative(target: str, feed_path: str) -> str:
    """A site path as seen from the feed's folder: a relative reference resolves
    against the feed's own address (RFC 4287 section 2), so links work under any sub-path."""
    rel = posixpath.relpath(target or ".", posixpath.dirname(feed_path) or ".")
    return rel + "/" if target.endswith("/") and not rel.endswith("/") else rel


def build_feed(path: str, title: str, subtitle: str, page: str, author: str, feed_id: str,
               matches: list[tuple[LeagueView, MatchView]], base_url: str) -> bytes:
    """One Atom feed of ``matches`` (newest first). ``page`` is the site page the feed follows."""
    def link(site_path: str) -> str:
        return base_url + site_path if base_url else _relative(site_path, path)

    fg = FeedGenerator()
    fg.id(feed_id)
    fg.title(xml_text(title))
    fg.subtitle(xml_text(subtitle))
    fg.author({"name": xml_text(author)})
    fg.link(href=link(page), rel="alternate", type="text/html")
    if base_url:
        fg.link(href=base_url + path, rel="self", type="application/atom+xml")
    fg.generator("sitegen")               # not feedgen's default, which names its own version
    fg.language("en")
    fg.updated(max(m.match.played for _, m in matches))
    for lv, m in matches:
        names = [line.player.text for line in m.lines]
        entry = fg.add_entry(order="append")
        entry.id(base_url + m.url if base_url else f"urn:uuid:{uuid.uuid5(NAMESPACE, f'{lv.config.slug}/{m.id}')}")
        entry.title(xml_text(f"{m.id}: {match_title(names)}"))
        entry.link(href=link(m.url), rel="alternate", type="text/html")
        entry.updated(m.match.played)
        entry.published(m.match.played)
        entry.content(xml_text(entry_text(m, 0 if lv.integer else 1)), type="text")
        entry.category(term=lv.config.slug, label=xml_text(lv.config.name))
    return fg.atom_str(pretty=True)


def newest(pairs: Iterable[tuple[LeagueView, MatchView]]) -> list[tuple[LeagueView, MatchView]]:
    """The latest ENTRIES matches, newest first; equal times by page address, so the order is fixed."""
    return sorted(pairs, key=lambda p: (p[1].match.played, p[1].url), reverse=True)[:ENTRIES]


def write_feeds(leagues: list[LeagueView], settings: SiteSettings, base_url: str, output: Output) -> None:
    """``base_url``: the site's absolute address ending in "/", or "" when none is known."""
    for lv in leagues:
        feed = league_feed(lv)
        if feed is None:
            continue
        feed_id = base_url + feed.url if base_url else f"urn:uuid:{uuid.uuid5(NAMESPACE, lv.config.slug)}"
        output.add(feed.url, build_feed(
            feed.url, f"{lv.config.name} · {settings.title}",
            f"The latest {ENTRIES} matches of {lv.config.name} and how each changed the ratings.",
            lv.url, settings.title, feed_id, newest((lv, m) for m in lv.matches[-ENTRIES:]), base_url))
    feed = site_feed(leagues)
    if feed is not None:
        feed_id = base_url + feed.url if base_url else f"urn:uuid:{uuid.uuid5(NAMESPACE, '/')}"
        output.add(feed.url, build_feed(
            feed.url, settings.title, f"The latest {ENTRIES} matches of every league.", "",
            settings.title, feed_id,
            newest((lv, m) for lv in leagues for m in lv.matches[-ENTRIES:]), base_url))
