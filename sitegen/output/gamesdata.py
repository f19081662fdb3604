"""A player's whole history as one compact data file, read by the player page's scripts.

``leagues/<league>/players/<slug>/games.json`` (beside the player's page; data/<league>/
holds only the contract's tables, which readers list as files) feeds the rating chart and the "all games" list,
so a player page carries only the latest games as HTML and no chart rows: the page
stays the same size however many games a player has. Written from the view models;
the league's ledger tables (standings, changes, matches) are not touched.

Shape (one row per game, oldest first; the game number is the row's position + 1)::

    {"player": "Ana", "league": "leagues/duel/",
     "groups": ["matches/2026/04-april/", ...],          # pages, relative to "league"
     "columns": ["played", "group", "anchor", "opponents", "result", "change", "rating"],
     "games": [["2026-04-01T18:00Z", 0, "m-2026-04-april-1", "Bo", "win 3–1", "+12", 1512.0], ...]}

``anchor`` is the match's fragment on its page: ``m-`` and the match id (model/groups.py);
``rating`` is the rating after the game to two decimals, null for a game whose change came with a later
game of the same rating period (``change`` then says "in <period>").

A big league (model/scale.py) has no opponents page per player: its files add, after
``games``, the player's record against every opponent as the head-to-head table shows it,
most games first, which games.js draws when the page's list is expanded::

     "opponent_columns": ["opponent", "games", "won", "drawn", "lost", "change"],
     "slugs": {"Zoë": "zoe"},
     "opponents": [["Bo", 3, 2, 0, 1, 8.5], ["Zoë", 1, 0, 0, 1, -4.1], ...]}

The outcome counts are there where the league names them (won, drawn, lost; ahead, level,
behind), ``change`` in a league of duels: the rating changes summed, rounded as the table
shows them (null where the table says "new"). An opponent's page is
``leagues/<league>/players/<slug>/``, the slug their name in lower case unless ``slugs``
says otherwise (a name with spaces, marks or letters beyond ASCII, or whose slug clashed).

Where the ``games`` rows already say it all (a league of duels: each row names the one
opponent, and its result's first word is win, draw or loss), ``opponents`` is left out and
``"opponent_changes": {"Bo": 8.5}`` holds only the summed changes that are not the change
of the last game against that opponent: games.js counts the rest from ``games`` (opponent,
result, change), and the build checks that the count gives every row of the table.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from json.encoder import encode_basestring     # json.dumps's own string writer (ensure_ascii=False)
from typing import Any, cast

from sitegen.model.career import LeagueCareers, Rival
from sitegen.model.matchviews import ViewMaker
from sitegen.model.views import Games, LeagueView, MatchLine, PlayerGame, PlayerView
from sitegen.rating.base import Match
from sitegen.output.render import fmt_delta

COLUMNS = ("played", "group", "anchor", "opponents", "result", "change", "rating")
SLUGS = "games-data-slugs"              # RatedLeague.cache key: (LeagueView, the slugs "slugs" lists)


def games_data_path(lv: LeagueView, player: PlayerView) -> str:
    return f"{player.url}games.json"


def _minute(played) -> str:
    # Matches are timed to the minute (the chart's tooltip shows minutes): "2026-04-01T18:00Z"
    # is valid ISO 8601 for both Python and the browser, 3 bytes shorter than with seconds.
    if played.year >= 1000:     # strftime's %Y pads no year before 1000; isoformat's text is 3 times as fast
        stamp = played.isoformat()
        return (stamp[:16] if played.second == 0 else stamp[:19]) + "Z"
    return played.strftime("%Y-%m-%dT%H:%MZ" if played.second == 0 else "%Y-%m-%dT%H:%M:%SZ")


def _rating(value: float) -> float | int:
    # Two decimals draw the chart and show the list (ratings are shown with at most one);
    # the exact value is in changes.csv. A whole number is written without ".0".
    value = round(float(value), 2)     # lunaro ratings are ints
    return int(value) if value.is_integer() else value


def _rating_text(value: float) -> str:
    """``_number(_rating(value))``: the two decimals of "%.2f" without trailing zeros (the
    shortest repr of a number of at most 15 digits), 2.5 times as fast; else the general way."""
    if -1e12 < value < 1e12:
        text = f"{value:.2f}"
        if text[-1] == "0":
            text = text[:-2] if text[-2] == "0" else text[:-1]
            if text[-1] == ".":
                text = text[:-1]
            if text == "-0":        # _rating's int(-0.0)
                return "0"
        return text
    return _number(_rating(value))


def _number(value: float | int | None) -> str:
    # As json.dumps writes them: repr of a float, digits of an int.
    return "null" if value is None else repr(value)


OUTCOMES = ("win", "draw", "loss")     # a result's first word, counted as won, drawn, lost


def _unusual_slugs(lv: LeagueView) -> dict[str, str]:
    """The league's players whose slug is not their name in lower case (or whose name is not
    ASCII), found once for the league: most leagues have none, and a player has thousands
    of opponents to look up."""
    cached = lv.rated.cache.get(SLUGS)
    if cached is not None and cached[0] is lv:
        return cached[1]
    unusual = {name: p.slug for name, p in lv.players.items() if not (name.isascii() and p.slug == name.lower())}
    lv.rated.cache[SLUGS] = (lv, unusual)
    return unusual


def opponents_data(lv: LeagueView, rivals: Sequence[Rival], careers: LeagueCareers, decimals: int,
                   games: list[tuple[str, str, str, float | None]]) -> str:
    """The members (without braces) that give every opponent's row of the head-to-head table:
    "opponent_columns", "slugs", and either "opponents" (a row each) or, where counting the
    ``games`` rows (opponent, result, change as written, and the change's value) gives the same rows, "opponent_changes"
    (the summed changes that are not the last game's change)."""
    rivals = rivals[:]          # read once here: a career.Rivals makes its rows when read
    labels, duels = careers.outcome_labels, careers.duels
    columns = ["opponent", "games"]
    if labels:
        columns += [label.lower() for label in labels]
    if duels:
        columns.append("change")
    unusual = _unusual_slugs(lv)
    # In the rivals' order, as the file lists them.
    slugs = {r.opponent.text: unusual[r.opponent.text] for r in rivals if r.opponent.text in unusual} \
        if unusual else {}
    head = (f'"opponent_columns":{json.dumps(columns, separators=(",", ":"))},'
            f'"slugs":{json.dumps(slugs, ensure_ascii=False, separators=(",", ":"))},')
    changes = _counted(rivals, games, bool(labels), duels, decimals)
    if changes is not None:
        return head + f'"opponent_changes":{json.dumps(changes, ensure_ascii=False, separators=(",", ":"))}'
    rows = []
    # Each row as json.dumps(row, ensure_ascii=False, separators=(",", ":")) writes it, without
    # its call: a big lobby league's players have thousands of opponents each.
    for r in rivals:
        row = f"[{encode_basestring(r.opponent.text)},{r.games}"
        if labels:
            row += f",{r.wins},{r.draws},{r.losses}"
        if duels:
            row += f",{_change(r.change, decimals)}"
        rows.append(row + "]")
    return head + '"opponents":[\n' + ",\n".join(rows) + "\n]"


def _change(value: float | None, decimals: int) -> str:
    # Rounded as the table shows it: the number's shortest digits are the shown ones.
    return "null" if value is None else _number(_shown(value, decimals))


def _counted(rivals: Sequence[Rival], games: list[tuple[str, str, str, float | None]], labels: bool, duels: bool,
             decimals: int) -> dict[str, float | int | None] | None:
    """What games.js does without "opponents" rows, done here first: count each opponent's games
    and results (OUTCOMES) and take the change of their last game, in order of most games, then
    name by code point. None unless that gives every row of ``rivals``; else the changes that
    differ from the last game's (summed over several games), as ``_change`` writes them.

    In a league of duels a game's row names its one opponent, so the file needs no row per
    opponent again: a player of a million-match league meets most opponents once."""
    count: dict[str, list] = {}
    for name, result, change, value in games:
        c = count.get(name)
        if c is None:
            c = count[name] = [0, 0, 0, 0, change, value]
        c[0] += 1
        word = result.partition(" ")[0]
        if word in OUTCOMES:
            c[1 + OUTCOMES.index(word)] += 1
        c[4] = change
        c[5] = value
    if len(count) != len(rivals):
        return None
    changes: dict[str, float | int | None] = {}
    # The counted opponents sorted as games.js sorts them are the rivals' names exactly when
    # each rival was counted and the rivals go up by (-games counted, name): no sort needed.
    previous: tuple[int, str] | None = None
    for r in rivals:
        c = count.get(r.opponent.text)
        if c is None:
            return None
        games_, won, drawn, lost, last, value = c
        key = (-games_, r.opponent.text)
        if previous is not None and not previous < key:
            return None
        previous = key
        if games_ != r.games or (labels and (won, drawn, lost) != (r.wins, r.draws, r.losses)):
            return None
        # The same number is written the same: most opponents are met once, their sum the one change.
        if duels and (value is None or r.change != value) and fmt_delta(r.change, decimals) != last:
            changes[r.opponent.text] = None if r.change is None else _shown(r.change, decimals)
    return changes


def _shown(value: float, decimals: int) -> float | int:
    """``value`` rounded to ``decimals`` as fmt_delta rounds it (a whole number without ".0")."""
    shown = float(f"{value:.{decimals}f}")
    return int(shown) if shown.is_integer() else shown


MATCHES_SEEN = "games-data-matches"    # RatedLeague.cache key: (LeagueView, {position: what _rows_of read})
# Lobbies whose view and row cells a page worker keeps for the next player who played them: a
# lobby is in the files of all its players (formula-1's races in twenty each; a duel in two,
# whose kept view would cost the collector more than it saves). Bounded, so that a big lobby
# league's worker does not hold a view of every match it wrote a row of.
KEPT_MATCHES = 20_000


Seen = tuple[Match, Sequence[MatchLine], str, str, str, "list[str] | None"]


def _matches_seen(lv: LeagueView) -> dict[int, Seen]:
    cached = lv.rated.cache.get(MATCHES_SEEN)
    if cached is not None and cached[0] is lv:
        return cached[1]
    seen: dict[int, Seen] = {}
    lv.rated.cache[MATCHES_SEEN] = (lv, seen)
    return seen


def _texts(lines: Sequence[MatchLine]) -> list[str]:
    """Every line's player's name, without making the lines where they are read from the columns."""
    if isinstance(lines, list):
        return [line.player.text for line in lines]
    return [p.text for p in lines.players_and_teams()[0]]     # type: ignore[attr-defined]


def _rows_of(lv: LeagueView, games: Sequence[PlayerGame]) -> Iterator[tuple[Any, ...]]:
    """Each game's match, its lines, the player's place in it, whether it is rated, its row's
    time, page and anchor as written, its position and its PlayerGame where one is held. A
    Games reads a match's from the view maker without making the view (ViewMaker.row), and a
    lobby's once a worker (``_matches_seen``), not once for every player in it."""
    base = len(lv.url)
    if not isinstance(games, Games):
        for g in games:
            m = g.match
            yield (m.match, m.lines, g.index, g.rated, encode_basestring(_minute(m.match.played)), m.page[base:],
                   encode_basestring(m.anchor), None, g)
        return
    seen = _matches_seen(lv)
    views = games.views
    maker = views if isinstance(views, ViewMaker) else None
    for k, i in zip(games.at, games.place):
        hit = seen.get(k)
        if hit is None:
            if maker is not None:
                match, lines, page, frag = maker.row(k)
            else:
                m = views[k]
                match, lines, page, frag = m.match, m.lines, m.page, m.anchor
            hit = (match, lines, encode_basestring(_minute(match.played)), page[base:], encode_basestring(frag), None)
            if len(match.players) > 2 and len(seen) < KEPT_MATCHES:
                seen[k] = hit
        yield hit[0], hit[1], i, True, hit[2], hit[3], hit[4], k, None


def _names(lv: LeagueView, games: Sequence[PlayerGame], lines: Sequence[MatchLine], line: MatchLine,
           k: int | None, i: int, g: PlayerGame | None) -> str:
    """PlayerGame.opponents' first three names, and " …" where there are more: in a match
    without teams every other line's player, from the match's names, kept with its lines."""
    if line.team is not None or k is None:
        if g is None:       # a Games' game: its view made for it alone
            g = PlayerGame(cast(Games, games).views[cast(int, k)], i, 0)
        opponents = g.opponents
        return ", ".join(o.text for o in opponents[:3]) + (" …" if len(opponents) > 3 else "")
    seen = _matches_seen(lv)
    hit = seen.get(k)
    if hit is not None and hit[5] is not None:
        texts = hit[5]
    else:
        texts = _texts(lines)
        if hit is not None:
            seen[k] = (*hit[:5], texts)
    others = texts[:i] + texts[i + 1:] if i < 4 else texts
    return ", ".join(others[:3]) + (" …" if len(texts) > 4 else "")


def games_data(lv: LeagueView, player: PlayerView, decimals: int, rivals: Sequence[Rival] | None = None,
               careers: LeagueCareers | None = None) -> str:
    """The player's file; a big league passes the player's ``rivals`` and the league's
    ``careers`` to add every opponent's record (opponents_data)."""
    seen: list[tuple[str, str, str, float | None]] | None = [] if rivals is not None else None
    groups: dict[str, int] = {}
    text: dict[str, str] = {}       # each distinct string once as JSON: results, changes, names
    rows: list[str] = []
    append = rows.append
    # Its time, page and anchor said for each row (``_rows_of``), not held for every match of
    # the league (a tuple and three strings a match, shared with the workers by the fork).
    games = player.games
    for match, lines, i, rated, minute, page, frag, k, g in _rows_of(lv, games):
        line = lines[i]
        index = groups.get(page)
        if index is None:
            index = groups[page] = len(groups)
        # PlayerGame.opponents, without its list where the match is a duel.
        if len(lines) == 2 and line.team is None:
            names = match.players[1 - i]        # the other line's player, without making it
        else:
            names = _names(lv, games, lines, line, k, i, g)
        result = line.result
        score = line.score
        result = (f"{result} {score}" if score else result) if result else (score or line.details)
        if rated:
            # MatchLine.delta and _number(_rating(after)), without their calls: a row each game.
            after, before = line.after, line.before
            delta = None if before is None else after - before
            change = "new" if delta is None else fmt_delta(delta, decimals)
            rating = _rating_text(after)
        else:
            change, rating, delta = f"in {line.period}", "null", None
        a = text.get(names)
        if a is None:
            a = text[names] = encode_basestring(names)
        b = text.get(result)
        if b is None:
            b = text[result] = encode_basestring(result)
        c = text.get(change)
        if c is None:
            c = text[change] = encode_basestring(change)
        if seen is not None:
            seen.append((names, result, change, delta))
        # The row exactly as json.dumps(row, ensure_ascii=False, separators=(",", ":")) writes it.
        append(f"[{minute},{index},{frag},{a},{b},{c},{rating}]")
    doc = {"player": player.name, "league": lv.url, "groups": list(groups), "columns": list(COLUMNS)}
    # One row per line: the file stays readable and diffs well, at one byte a game.
    body = ",\n".join(rows)
    head = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))[:-1]
    tail = ""
    if rivals is not None and careers is not None and seen is not None:
        tail = "," + opponents_data(lv, rivals, careers, decimals, seen)
    return f'{head},"games":[\n{body}\n]{tail}}}\n'
