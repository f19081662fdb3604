"""Table rows written as filters: a big league's compact rows (model/scale.py), the
player pages' games list and the match-file pages' rows of every league.

A big league's player, opponents and match-file pages are mostly table rows: tens of
thousands of pages, millions of cells. A row written by a template costs a Jinja call, an
escape and a ``Markup`` for every cell (about 1 µs each); written here it is one f-string.
The rows are the same bytes the templates wrote; the templates keep the tables' heads and
the full rows of a small league, and say where these rows go.

Every text that comes from the input is escaped here; numbers come from the formatters of
render.py, whose digits, signs and separators need no escaping. A row's first cell is a
``<th>`` without ``scope``: a header cell that starts a body row heads that row.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from markupsafe import Markup, escape

from sitegen.model.ledger import iso
from sitegen.output.render import (MINUS, MatchDateLinks, badge_html, first_changes, fmt_date, fmt_datetime, fmt_delta,
                                   fmt_number, fmt_rating, player_links)


def game_rows(games, links, dates, decimals: int) -> Markup:
    """A player's games (views.PlayerGame), newest first: number, date, opponents, result,
    change, rating; a game rated with a later one of its period says so instead."""
    out = []
    said: dict[str, str] = {}       # each result escaped once: "win" and "loss" fill the list
    # A MatchDateLinks keeps each link under the match's address: found without its method.
    known = dates.get if isinstance(dates, MatchDateLinks) else None
    for g in games:
        m = g.match
        lines, i = m.lines, g.index
        if g.rated and not isinstance(lines, list):
            # Lines read from the columns (model/lines.py): what the row shows, without the line.
            team, result, before, after = lines.shown(i)
            period = None
        else:
            line = lines[i]
            team, before, after, period = line.team, line.before, line.after, line.period
            # MatchLine.result_text, written out.
            result = f"{line.result or ''} {line.score}".strip() or line.details
        if len(lines) == 2 and team is None:            # a duel: PlayerGame.opponents without its list
            names = links[m.match.players[1 - i]]       # the other line's player, without making it
        else:
            opp = g.opponents
            names = f"{len(opp)} opponents" if len(opp) > 3 else ", ".join([links[o.text] for o in opp])
        if g.rated:
            delta = None if before is None else after - before      # MatchLine.delta without its call
            kind = "up" if delta and delta > 0 else "down" if delta and delta < 0 else ""
            tail = f'<td class="{kind}">{fmt_delta(delta, decimals)}<td>{fmt_rating(after, decimals)}'
        else:
            tail = f"<td>in {escape(period)}<td>"
        shown = said.get(result)
        if shown is None:
            shown = said[result] = escape(result)
        url = m.url
        date = known(url) if known is not None else None
        if date is None:
            date = dates.link(m, url) if known is not None else dates[m]
        out.append(f"<tr><td>{g.number}<td>{date}<td>{names}<td>{shown}{tail}</tr>\n")
    return Markup("".join(out))


def rival_rows(rivals, links, labels, duels: bool, decimals: int) -> Markup:
    """Head to head (career.Rival): opponent, games, the three outcome counts where the
    league names them, and the change summed over a duel league's games."""
    out = []
    for row in rivals:
        counts = f"<td>{row.wins}<td>{row.draws}<td>{row.losses}" if labels else ""
        change = f"<td>{fmt_delta(row.change, decimals)}" if duels else ""
        out.append(f"<tr><td>{links[row.opponent.text]}<td>{row.games}{counts}{change}</tr>\n")
    return Markup("".join(out))


def win_rows(wins, links, dates, up: str, cut: int, decimals: int) -> Markup:
    """Best wins (career.BestWin): the opponents, their rating before the match, its date and
    title, both linked to the match's row (``up`` and ``cut`` make the link from this page)."""
    out = []
    for w in wins:
        m = w.game.match
        href = escape(up + m.url[cut:])
        opp = w.opponents
        if len(opp) > 3:
            names = f'<a href="{href}" class="nowrap">{len(opp)} opponents</a>'
        else:
            names = ", ".join([links[o.text] for o in opp])
        title = escape(m.title)
        out.append(f"<tr><td>{names}<td>{fmt_rating(w.rating, decimals)}<td>{dates[m]}<td class=\"opt\">"
                   f'<a href="{href}" class="name title" title="{title} ({escape(m.id)})">{title}</a></tr>\n')
    return Markup("".join(out))


def pool_rows(rows, links) -> Markup:
    """An opponent pool (forecast.PoolRow); the drawn next opponent is marked."""
    out = []
    sides: dict[str, str] = {}      # "below" and "above", each escaped once
    for r in rows:
        link = links[r.opponent.text]
        side = sides.get(r.side)
        if side is None:
            side = sides[r.side] = escape(r.side)
        if r.picked:
            head = f'<tr class="picked"><th><mark>{link}</mark> <span class="meta">next opponent</span>'
        else:
            head = f'<tr><th>{link}'
        out.append(f'{head}<td>{fmt_rating(r.rating, 1)}<td class="side">{side}'
                   f"<td>{fmt_number(r.win_chance, 1)}%</tr>\n")
    return Markup("".join(out))


def prediction_rows(predictions, links, decimals: int) -> Markup:
    """Predictions against the nearest-rated (predict.PairPrediction): the first player's
    change at each outcome, a dash where the system has no formula for it."""
    out = []
    for p in predictions:
        changes = "".join(["<td>\u2013" if c is None else f"<td>{fmt_delta(c, decimals)}"
                           for c in first_changes(p)])
        out.append(f'<tr><th>{links[p.b]}<td class="opt">{fmt_rating(p.rating_b, decimals)}'
                   f"<td>{fmt_number(p.expected_a, 3)}{changes}</tr>\n")
    return Markup("".join(out))


def period_rows(periods, decimals: int) -> Markup:
    """The rating by month or year (career.Period): games, the rating at its end, high and low."""
    return Markup("".join([
        f'<tr><th>{escape(p.label)}<td>{p.games}<td>{fmt_rating(p.end, decimals)}'
        f"<td>{fmt_rating(p.high, decimals)}<td>{fmt_rating(p.low, decimals)}</tr>\n" for p in periods]))


def match_rows(matches, links, decimals: int, file_url: str) -> Markup:
    """A big league's match-file page (match_group.html): one row a match, its id the anchor;
    each player's result, change and rating after, in the order of the match file; the line
    in the file where the file is linked (``file_url``)."""
    out = []
    said: dict[str, str] = {}       # each result escaped once: a page says "win" a thousand times
    for m in matches:
        mm = m.match
        cells = []
        for line in m.lines:
            text = line.score or line.result or line.details
            shown = said.get(text)
            if shown is None:
                shown = said[text] = escape(text)
            before, after = line.before, line.after       # MatchLine.delta without its call
            cells.append(f"{links[line.player.text]} {shown} "
                         f"{fmt_delta(None if before is None else after - before, decimals)} "
                         f"{fmt_rating(after, decimals)}")
        lines = " \u00b7 ".join(cells)
        extra = "".join([f" \u00b7 {escape(label)} {escape(value)}" for label, value in m.facts]) if m.facts else ""
        if len(m.event_matches) > 1:
            extra += f" \u00b7 period {escape(m.event)}"
        if mm.notes:
            extra += f" \u00b7 {escape(mm.notes)}"
        if file_url:
            extra += f"<td>{escape(mm.line or '')}"
        # MatchView.played_minute from the ISO text: its first 16 characters, the "T" a space.
        stamp = mm.played.isoformat()
        out.append(f'<tr id="{escape(m.anchor)}"><th>{escape(m.id)}<td>{stamp[:10]} {stamp[11:16]}<td>{lines}{extra}\n')
    return Markup("".join(out))


def board_rows(rows, board, league, moved: bool, standing_decimals) -> Markup:
    """A league page's board table's rows (model/board.Row, league.html's ``board_table``): a
    10,000-player league's board was a second of Jinja in every build. ``moved``: the active
    players' table, with the movement, interval rank and all-time rank columns."""
    out = []
    places = league.places
    cut = len(league.url)
    interval_kind, interval = board.interval_kind and moved, board.interval
    platforms, regions, tiers = board.platforms, board.regions, board.tiers
    terms = [(t, standing_decimals.get(t, 3)) for t in league.standing_terms]
    with_tiers, outcomes = league.config.tiers, league.has_outcomes
    for r in rows:
        p = r.player
        head = "<tr"
        if platforms:
            head += f' data-platform="{escape(p.platform or "")}"'
        if regions:
            head += f' data-region="{escape(p.region or "")}"'
        if tiers:
            head += f' data-tier="{escape(p.tier.index if p.tier else "")}"'
        cells = [f"{head}><td>{escape(r.rank)}</td>"]
        if interval_kind:
            cells.append(f'<td class="opt"><abbr class="ci" title="95% interval of the rating: '
                         f'{escape(fmt_rating(r.interval[0]))} to {escape(fmt_rating(r.interval[1]))}">'
                         f"{escape(r.sure_rank)}</abbr></td>")
        if moved:
            mv = r.movement
            cells.append(f'<td class="mv" data-sort="{escape(mv.places if mv.places is not None else "")}">'
                         f'<span class="mv-{escape(mv.kind)}" aria-hidden="true">{escape(mv.text)}</span>'
                         f'<span class="visually-hidden">{escape(mv.label)}</span></td>')
        cells.append(f'<th scope="row"><a href="{escape(p.url[cut:])}">{escape(p.name)}</a></th>'
                     f'<td data-sort="{escape("%.2f" % (p.rating,))}">{escape(fmt_rating(p.rating, places))}')
        if r.provisional:
            cells.append('<abbr class="prov" title="provisional" aria-hidden="true">?</abbr>'
                         '<span class="visually-hidden"> provisional</span>')
        if r.spread is not None:
            centre = "\u00b1 " if interval.centred else f"\u03bc {escape(fmt_rating(r.centre, places))} \u00b1 "
            cells.append(f' <span class="ci" title="{escape(interval.name)}: {escape(fmt_rating(r.low, places))} to '
                         f'{escape(fmt_rating(r.high, places))}">{centre}{escape(fmt_rating(r.spread, places))}</span>')
        cells.append("</td>")
        if moved:
            cells.append(f'<td class="opt at">{escape(p.rank)}</td>')
        for t, decimals in terms:
            cells.append(f'<td class="opt">{escape(fmt_number(p.extra[t], decimals))}</td>')
        if with_tiers:
            tier = p.tier
            shown = f'<span class="tier tier-{escape(tier.index)}">{escape(tier.name)}</span>' if tier else ""
            cells.append(f'<td class="l opt" data-sort="{escape(tier.index if tier else 0)}">{shown}</td>')
        cells.append(f"<td>{escape(r.games)}</td>")
        if outcomes:
            cells.append(f'<td class="opt">{escape(p.wins)}</td><td class="opt">{escape(p.draws)}</td>'
                         f'<td class="opt">{escape(p.losses)}</td>')
        if platforms:
            cells.append(f'<td class="l opt">{escape(p.platform or "")}</td>')
        if regions:
            cells.append(f'<td class="l opt">{escape(p.region or "")}</td>')
        cells.append(f'<td class="l opt">{escape(fmt_date(p.last_played))}</td></tr>\n')
        out.append("".join(cells))
    return Markup("".join(out))


def full_match_rows(matches, links, decimals: int, file_url: str, terms, ncols: int) -> Markup:
    """A league's match-file page where it is not big (match_group.html): a row group a match,
    headed by its title, time, id, position and line, facts, period and notes; a group row per
    team; a row per line with result, change, details, before, after, the system's ``terms``
    and the formula. The bytes the template's loops wrote, escaped as its autoescape did:
    the formatters' digits, signs and dates need none."""
    out: list[str] = []
    put = out.append
    link = links.__getitem__
    head = f'<th colspan="{ncols}" scope="rowgroup">'
    shown_file = escape(file_url)
    said: dict[Any, str] = {}       # each short text (result, score, details) escaped once

    def esc(text: Any) -> str:
        shown = said.get(text)
        if shown is None:
            shown = escape(text)
            if len(said) < 4096:        # a lobby's details may all differ: not one kept a line
                said[text] = shown
        return shown

    for m in matches:
        mm = m.match
        played = mm.played
        put(f'<tbody id="{escape(m.anchor)}"><tr class="mh">{head}<strong>{escape(m.title)}</strong> '
            f'<time datetime="{iso(played)}">{fmt_datetime(played)}</time> \u00b7 '
            f'<code>{escape(m.id)}</code> \u00b7 match {escape(mm.position)}')
        if mm.line:
            at = escape(mm.line)
            put(f', <a href="{shown_file}#L{at}">line {at}</a>' if file_url else f", line {at}")
        for label, value in m.facts:
            put(f" \u00b7 {escape(label)} {escape(value)}")
        together = m.event_matches
        if len(together) > 1:
            put(f" \u00b7 period {escape(m.event)} ({len(together)} matches rated together)")
        if mm.notes:
            put(f'<p class="notes">{escape(mm.notes)}</p>')
        put("</th></tr>\n")
        for g in m.groups:
            if g.label:
                put(f'<tr class="group">{head}{escape(g.label)}</th></tr>\n')
            for line in g.lines:
                result, score, details = line.result, line.score, line.details
                said_result = esc(result or "")
                before, after = line.before, line.after
                delta = None if before is None else after - before      # MatchLine.delta without its call
                kind = "up" if delta and delta > 0 else "down" if delta and delta < 0 else "flat"
                # fmt_number writes digits, a point and a sign: nothing to escape.
                cells = "".join([f"<td>{_number3(line.terms[t])}" for t in terms]) if terms else ""
                formula = line.formula
                html = link(line.player.text)       # a Markup link: escape would give it back as it is
                put(f'<tr><th scope="row">{html if isinstance(html, Markup) else escape(html)}'
                    f'<td class="{said_result}">{said_result}'
                    f'{f" {esc(score)}" if score else ""}<td class="{kind}">{fmt_delta(delta, decimals)}'
                    f'<td>{esc(details) if details not in (result, score) else ""}'
                    f"<td>{fmt_rating(before, decimals)}<td>{fmt_rating(after, decimals)}{cells}"
                    f'{f"<td>{escape(formula)}" if formula else ""}</tr>\n')
        put("</tbody>\n")
    return Markup("".join(out))


# --- the same tables where the league is not big: the bytes of the templates' loops ---------

def _opponent_cells(league, up: str) -> dict[str, tuple[str, str]]:
    """The head to head's opponent cells of a page ``up`` below the league's folder, by name
    (with the address they were made for): every player's page and opponents page of one
    depth link the same opponents, each link escaped once for all of them."""
    key = (up, "rival-cells")
    cache = league.link_cache
    cells = cache.get(key)
    if cells is None:
        cells = cache[key] = {}
    return cells


def full_rival_rows(rivals, league, up: str, cut: int, labels, duels: bool, decimals: int) -> Markup:
    """Head to head (career.Rival) where the league is not big (_head_to_head.html): the
    opponent linked and titled, games, the outcome counts where the league names them and a
    duel league's summed change as a badge, with closing tags."""
    out = []
    cells = _opponent_cells(league, up)
    for row in rivals:
        opp = row.opponent
        made = cells.get(opp.text)
        if made is None or made[0] != opp.url:
            text = escape(opp.text)
            made = cells[opp.text] = (opp.url, f'<tr><td><a href="{escape(up + opp.url[cut:])}" class="name" '
                                               f'title="{text}">{text}</a></td><td>')
        counts = f"<td>{row.wins}</td><td>{row.draws}</td><td>{row.losses}</td>" if labels else ""
        change = f"<td>{badge_html(row.change, decimals)}</td>" if duels else ""
        out.append(f"{made[1]}{row.games}</td>{counts}{change}</tr>\n")
    return Markup("".join(out))


def _number3(value: Any) -> str:
    """fmt_number(value, 3) of a float without its general steps (a line's terms, four a line);
    anything else as fmt_number writes it. The fixed-point text's only "-" is its sign."""
    if value.__class__ is not float:
        return fmt_number(value, 3)
    if value.is_integer():
        return f"{int(value)}"
    text = f"{value:.3f}"
    return text if text[0] != "-" else MINUS + text[1:]


NO_FORMULA = "<td class=\"num\" data-change=\"\" title=\"beyond the margin rule's formula\">\u2013</td>"


def full_prediction_rows(predictions, league, root: str, decimals: int) -> Markup:
    """Predictions against the nearest-rated (predict.PairPrediction) where the league is not
    big (_nearest.html): the full-precision expected score and changes as data attributes."""
    out = []
    players = league.players
    for p in predictions:
        name = escape(p.b)
        cells = []
        for change in first_changes(p):
            if change is None:
                cells.append(NO_FORMULA)
            else:
                # A float's text needs no escape.
                cells.append(f'<td class="num" data-change="{change}">{badge_html(change, decimals)}</td>')
        out.append(f'<tr data-opponent="{name}" data-expected="{p.expected_a}"><th scope="row">'
                   f'<a href="{escape(root + players[p.b].url)}" class="name">{name}</a></th>'
                   f'<td class="num opt">{fmt_rating(p.rating_b, decimals)}</td>'
                   f'<td class="num">{fmt_number(p.expected_a, 3)}</td>{"".join(cells)}</tr>\n')
    return Markup("".join(out))


def full_pool_rows(rows, root: str) -> Markup:
    """An opponent pool (forecast.PoolRow) where the league is not big (_pool.html): each
    opponent linked from the site's root, the drawn next opponent marked."""
    out = []
    for r in rows:
        opp = r.opponent
        link = f'<a href="{escape(root + opp.url)}">{escape(opp.text)}</a>'
        head = (f'<tr class="picked"><th scope="row"><mark>{link}</mark> <span class="meta">next opponent</span>'
                if r.picked else f'<tr><th scope="row">{link}')
        out.append(f'{head}</th><td class="num">{fmt_rating(r.rating, 1)}</td><td>{escape(r.side)}</td>'
                   f'<td class="num">{fmt_number(r.win_chance, 1)}%</td></tr>\n')
    return Markup("".join(out))


def full_period_rows(periods, decimals: int) -> Markup:
    """The rating by month or year (career.Period) where the league is not big (player.html)."""
    return Markup("".join([
        f'<tr><th scope="row">{escape(p.label)}</th><td class="num">{p.games}</td>'
        f'<td class="num">{fmt_rating(p.end, decimals)}</td><td class="num">{fmt_rating(p.high, decimals)}</td>'
        f'<td class="num">{fmt_rating(p.low, decimals)}</td></tr>\n' for p in periods]))


def result_rows(matches, up: str, cut: int, decimals: int) -> Markup:
    """A results page's rows where the league is not big (matches.html): the date, the match
    linked to its row, and the first six players' changes as text."""
    out = []
    said: dict[str, str] = {}       # each player's name escaped once a page
    dot = " \u00b7 "
    for m in matches:
        lines = m.lines
        changes = []
        for line in lines[:6]:
            name = line.player.text
            shown = said.get(name)
            if shown is None:
                shown = said[name] = escape(name)
            before = line.before        # MatchLine.delta without its call
            change = f"{shown} {fmt_delta(None if before is None else line.after - before, decimals)}"
            if line.period:
                change += f" in {escape(line.period)}"
            changes.append(change)
        more = f" \u00b7 {len(lines) - 6} more" if len(lines) > 6 else ""
        out.append(f'<tr><td><time>{fmt_date(m.match.played)}</time><td><a href="{escape(up + m.url[cut:])}">'
                   f'{escape(m.title)}</a><td class="opt">{dot.join(changes)}{more}</tr>\n')
    return Markup("".join(out))


class SiblingLinks(dict):
    """A big league's player page's links to other players (name -> Markup ``<a>``): from
    ``players/<slug>/`` the way to ``players/<other>/`` is ``../<other>/``, 11 bytes shorter than
    up to the league and down again; a page links some 90 players. The links of
    ``league|links("../../", form)`` with that shorter way, made once per name."""

    __slots__ = ("base",)

    def __init__(self, league, form: str) -> None:
        super().__init__()
        self.base = player_links(league, "../../", form)

    def __missing__(self, name: str) -> Markup:
        # Every player's address under the league is players/<slug>/ (model/views.py).
        html = Markup(str(self.base[name]).replace('href="../../players/', 'href="../', 1))
        self[name] = html
        return html


def sibling_links(league, form: str = "") -> SiblingLinks:
    """``league|sibling_links(form)``: players' links from a player page of the league."""
    key = ("sibling", form)
    cache = league.link_cache
    if key not in cache:
        cache[key] = SiblingLinks(league, form)
    return cache[key]


class DayLinks(MatchDateLinks):
    """A match's date linked to its row, the date only (``<a href>date</a>``): a big league's
    player page shows some 25; the time is on the match's row, and a ``<time datetime>``
    around each date is 44 bytes."""

    __slots__ = ()

    @staticmethod
    def shown(played: datetime) -> str:
        return fmt_date(played)


def day_links(league, up: str) -> DayLinks:
    """``league|day_links(up)``: matches' dates linked to their rows, for a page ``up`` below
    the league's folder."""
    return DayLinks.of(league, up)


FILTERS = {"sibling_links": sibling_links, "board_rows": board_rows, "day_links": day_links,
           "match_rows": match_rows, "full_match_rows": full_match_rows,
           "game_rows": game_rows, "rival_rows": rival_rows, "win_rows": win_rows,
           "pool_rows": pool_rows, "prediction_rows": prediction_rows, "period_rows": period_rows,
           "full_rival_rows": full_rival_rows, "full_prediction_rows": full_prediction_rows,
           "full_period_rows": full_period_rows, "full_pool_rows": full_pool_rows, "result_rows": result_rows}
