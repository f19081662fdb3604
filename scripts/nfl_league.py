"""Convert FiveThirtyEight's NFL (or NBA) Elo games into an ``elo`` league that reproduces them.

Data: FiveThirtyEight's game-by-game Elo ratings, ``nfl_elo.csv`` (NFL since 1920)
and ``nba_elo.csv`` (NBA since 1946), published by FiveThirtyEight under
CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/): credit FiveThirtyEight.
The columns read are date, season, neutral, playoff, team1, team2, elo1_pre,
elo2_pre, elo1_post, elo2_post, score1 and score2 (the plain Elo, not the
quarterback-adjusted ``qbelo`` or the NBA's CARM-Elo and RAPTOR); a file may be
gzip-compressed (``.csv.gz``). Rows without scores (unplayed games) are left out.

FiveThirtyEight's model is docs/auditors ``elo`` with these parameters:

* NFL: K = 20, home advantage 65 (none at a neutral site), margin "538-nfl",
  a third of the way back to 1505 between seasons;
* NBA: K = 20, home advantage 100, margin "538-nba", a quarter of the way back
  to 1505 between seasons.

``team1`` is at home unless the game is at a neutral site. Every team starts
(``[initial]``) at its first published ``elo*_pre``.

**Restarts.** The converter replays the model itself and compares each team's
rating before every game with the published ``elo*_pre``. Where they differ
by more than ``TOLERANCE`` the published numbers restarted the team (a franchise
back after missing seasons starts where FiveThirtyEight put it by hand; a game
whose published change breaks their own formula leaves the team somewhere the
formula does not reach). A league cannot reset a rating in mid-history, so the
team continues as a new player, "CODE (from SEASON)" (or "CODE (from DATE)"
when the restart falls inside a season), whose ``[initial]`` rating is the
published one. Every restart is printed, and listed in the league's
description; so is every game whose published post-game rating the formula
does not give (to within ``TOLERANCE``).

Games of one day are written in the order their published ratings chain
(a game whose ``elo_pre`` is another same-day game's ``elo_post`` comes after
it), otherwise in the file's order; one file per season, ``<season>.toml``.
The output is deterministic: the same data gives byte-identical files.
Existing ``<season>.toml`` files in the output folder are removed first.

    python scripts/nfl_league.py
    python scripts/nfl_league.py --league nba --data ../shared/data/fivethirtyeight_nba/nba_elo.csv \\
        --out /tmp/nba
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import math
import re
import sys
import textwrap
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))      # convert_common, beside this script
from convert_common import is_date, replace_match_files  # noqa: E402
from sitegen.load.tomlwrite import string as toml_string  # noqa: E402  (the one TOML writer: tomlkit's escaping)

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"
SITE = REPO
SEASON_FILE = re.compile(r"[0-9]{4}\.toml")
# A published rating further than this from the replayed one is a restart; the same bound
# decides whether a game's post-game ratings are reproduced.
TOLERANCE = 0.01


@dataclass(frozen=True, slots=True)
class Model:
    """One of FiveThirtyEight's two Elo models and how its league is presented."""

    key: str
    name: str
    home_advantage: float
    margin: str
    season_reversion: float
    data: Path
    out: Path
    sport: str
    restart_note: str = ""     # what is known of the data's restarts, for the description

    def multiplier(self, margin: float, d: float, draw: bool) -> float:
        """FiveThirtyEight's margin-of-victory multiplier; d is the winner's Elo edge, home included."""
        if self.margin == "538-nfl":
            top = math.log(max(margin, 1) + 1.0) * 2.2
            return top if draw else top / (d * 0.001 + 2.2)
        top = (margin + 3) ** 0.8
        return top / 7.5 if draw else top / (7.5 + 0.006 * d)


K = 20
REVERSION_MEAN = 1505
MODELS = {
    "nfl": Model("nfl", "NFL (FiveThirtyEight Elo)", 65, "538-nfl", 1 / 3,
                 SHARED / "fivethirtyeight_nfl" / "nfl_elo.csv", SITE / "matches" / "nfl", "NFL",
                 "FiveThirtyEight's own replay code (fivethirtyeight/nfl-elo-game, `forecast.py`) "
                 "sets these same ratings by hand as \"between-season reversions of unknown origin\"."),
    "nba": Model("nba", "NBA (FiveThirtyEight Elo)", 100, "538-nba", 1 / 4,
                 SHARED / "fivethirtyeight_nba" / "nba_elo.csv", SITE / "matches" / "nba", "NBA"),
}


# --------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------


@dataclass(slots=True)
class Game:
    row: int                # 1-based line of the CSV (the header is line 1)
    date: str
    season: int
    neutral: bool
    playoff: bool
    team1: str
    team2: str
    pre: tuple[float, float]
    post: tuple[float, float]
    score: tuple[int, int]


COLUMNS = ("date", "season", "neutral", "playoff", "team1", "team2", "elo1_pre", "elo2_pre",
           "elo1_post", "elo2_post", "score1", "score2")
TEAM = re.compile(r"[A-Za-z0-9]{1,8}")     # FiveThirtyEight's franchise codes: "KC", "RII"


class BadData(Exception):
    """The CSV has rows the converter cannot read; ``problems`` are "path:LINE: field: what; allowed"."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def _rating(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and 0 < value < 10000 else None


def _whole(text: str) -> int | None:
    """A whole number >= 0, as FiveThirtyEight writes scores and seasons ("48.0" or "48")."""
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if math.isfinite(value) and 0 <= value <= 1_000_000 and value.is_integer() else None


def read_games(path: Path) -> list[Game]:
    """Played games in the file's order; scores written as floats ("48.0") become integers.

    Rows without scores or post-game ratings (games not played yet) are left out. Every row
    that cannot be read is reported, with its line, by BadData.
    """
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    reader = csv.DictReader(io.StringIO(raw.decode("utf-8-sig"), newline=""))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise BadData([f"{path}:1: header: missing the columns {', '.join(missing)}; FiveThirtyEight's Elo "
                       f"CSV has {', '.join(COLUMNS)}"])
    games, problems = [], []
    for row in reader:
        line = reader.line_num
        if not row["score1"] and not row["score2"]:
            continue
        bad = []
        date = row["date"] or ""
        if not is_date(date):
            bad.append(f"date: {date!r} is not a date; allowed: YYYY-MM-DD")
        season = _whole(row["season"] or "")
        if season is None:
            bad.append(f"season: {row['season']!r} is not a year; allowed: a whole number such as 1920 or 1920.0")
        for key in ("team1", "team2"):
            if not TEAM.fullmatch(row[key] or ""):
                bad.append(f"{key}: {row[key]!r} is not a team code; allowed: 1 to 8 letters or digits")
        if row["team1"] and row["team1"] == row["team2"]:
            bad.append(f"team2: {row['team2']!r} is also team1; allowed: two different teams")
        values = {}
        for key in ("elo1_pre", "elo2_pre", "elo1_post", "elo2_post"):
            values[key] = _rating(row[key] or "")
            if values[key] is None:
                bad.append(f"{key}: {row[key]!r} is not a rating; allowed: a number between 0 and 10000")
        for key in ("score1", "score2"):
            values[key] = _whole(row[key] or "")
            if values[key] is None:
                bad.append(f"{key}: {row[key]!r} is not a score; allowed: a whole number >= 0")
        if (row["neutral"] or "") not in ("True", "False", "1", "0"):
            bad.append(f"neutral: {row['neutral']!r}; allowed: True, False, 1 or 0")
        if bad:
            problems += [f"{path}:{line}: {date or '?'} {row['team1']}-{row['team2']}: {b}" for b in bad]
            continue
        games.append(Game(
            line, date, season, row["neutral"] in ("True", "1"),
            (row["playoff"] or "") not in ("", "False", "0"), row["team1"], row["team2"],
            (values["elo1_pre"], values["elo2_pre"]), (values["elo1_post"], values["elo2_post"]),
            (int(values["score1"]), int(values["score2"])),
        ))
    if problems:
        raise BadData(problems)
    return games


def chain_order(games: list[Game]) -> list[Game]:
    """Each day's games in the order their published ratings chain, otherwise the file's.

    FiveThirtyEight's file lists a few same-day games out of the order they were rated in
    (the NBA's Hawks and Heat on 2008-03-07): a game whose pre-game rating for a team is
    another same-day game's post-game rating for that team must follow it.
    """
    by_day: dict[str, list[Game]] = defaultdict(list)
    for g in games:
        by_day[g.date].append(g)
    ordered = []
    for day in sorted(by_day):
        todo = list(by_day[day])
        while todo:
            for i, g in enumerate(todo):
                if not any(_follows(g, other) for other in todo if other is not g):
                    ordered.append(todo.pop(i))
                    break
            else:                        # a cycle (never in the data): keep the file's order
                ordered.extend(todo)
                todo = []
    return ordered


def _follows(g: Game, other: Game) -> bool:
    for team, pre in zip((g.team1, g.team2), g.pre):
        for o_team, o_post in zip((other.team1, other.team2), other.post):
            if team == o_team and abs(pre - o_post) <= 1e-6 and abs(pre - _pre_of(other, team)) > 1e-6:
                return True
    return False


def _pre_of(g: Game, team: str) -> float:
    return g.pre[0] if team == g.team1 else g.pre[1]


# --------------------------------------------------------------------------
# Replaying FiveThirtyEight's model
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Restart:
    team: str               # the franchise code
    player: str             # the new player it continues as
    game: Game
    replayed: float         # the rating the formula gives before the game
    published: float        # FiveThirtyEight's elo_pre


@dataclass(frozen=True, slots=True)
class Break:
    game: Game
    replayed: tuple[float, float]


@dataclass(slots=True)
class Replay:
    players: list[tuple[str, str]]       # per game: the player names of team1 and team2
    initial: dict[str, float]            # player -> starting rating (published)
    restarts: list[Restart]
    breaks: list[Break]                  # games whose published post-game ratings the formula does not give


def replay(model: Model, games: list[Game], source: Path | str = "data") -> Replay:
    """The model as docs/auditors computes it, with a restart wherever the published pre differs."""
    player: dict[str, str] = {}          # team -> its current player name
    rating: dict[str, float] = {}        # player -> rating
    season_of: dict[str, int] = {}       # player -> season of its previous game
    out = Replay([], {}, [], [])
    for g in games:
        names = []
        for team, published in zip((g.team1, g.team2), g.pre):
            name = player.get(team)
            if name is None:
                name = player[team] = team
                out.initial[name] = rating[name] = published
            else:
                r = rating[name]
                if season_of[name] != g.season:      # once per new season, as sitegen does
                    r = (1 - model.season_reversion) * r + model.season_reversion * REVERSION_MEAN
                if abs(r - published) > TOLERANCE:
                    first = season_of[name] != g.season
                    new = f"{team} (from {g.season if first else g.date})"
                    out.restarts.append(Restart(team, new, g, r, published))
                    name = player[team] = new
                    out.initial[name] = r = published
                rating[name] = r
            season_of[name] = g.season
            names.append(name)
        a, b = names
        h = 0.0 if g.neutral else model.home_advantage
        diff = rating[a] - rating[b] + h
        expected = 1.0 / (1.0 + 10.0 ** (-diff / 400.0))
        result = 1.0 if g.score[0] > g.score[1] else 0.5 if g.score[0] == g.score[1] else 0.0
        try:
            mult = model.multiplier(abs(g.score[0] - g.score[1]), diff if result == 1 else -diff, result == 0.5)
        except (ZeroDivisionError, ValueError):
            mult = -1.0
        if not mult > 0:     # an underdog 2,200 (NFL) or 1,250 (NBA) points below winning
            raise BadData([f"{source}:{g.row}: {g.date} {g.team1}-{g.team2}: the {model.margin} margin "
                           f"multiplier leaves its domain (the winner {abs(diff):.0f} Elo points below); "
                           "allowed: games the formula can rate"])
        shift = K * mult * (result - expected)
        rating[a] += shift
        rating[b] -= shift
        if abs(rating[a] - g.post[0]) > TOLERANCE or abs(rating[b] - g.post[1]) > TOLERANCE:
            out.breaks.append(Break(g, (rating[a], rating[b])))
        out.players.append((a, b))
    return out


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------


def number(value: float) -> str:
    """A rating as FiveThirtyEight published it (shortest repr of the float read)."""
    return repr(float(value))


def match_id(g: Game, seen: set[str]) -> str:
    base = f"{g.date}-{g.team1}-{g.team2}".lower()
    mid, n = base, 2
    while mid in seen:
        mid, n = f"{base}-{n}", n + 1
    seen.add(mid)
    return mid


def match_toml(model: Model, g: Game, names: tuple[str, str], mid: str) -> str:
    s1 = 1 if g.score[0] > g.score[1] else 0.5 if g.score[0] == g.score[1] else 0
    s2 = 1 - s1 if s1 != 0.5 else 0.5
    notes = [("Playoffs" if g.playoff else ""), ("Neutral site" if g.neutral else "")]
    lines = ["[[match]]", f"id = {toml_string(mid)}", f"played = {g.date}", f"season = {g.season}"]
    if not g.neutral:
        lines.append(f"home = {toml_string(names[0])}")
    text = ". ".join(n for n in notes if n)
    if text:
        lines.append(f"notes = {toml_string(text + '.')}")
    lines += [
        "players = [",
        f"  {{ name = {toml_string(names[0])}, score = {s1}, points = {g.score[0]} }},",
        f"  {{ name = {toml_string(names[1])}, score = {s2}, points = {g.score[1]} }},",
        "]",
    ]
    return "\n".join(lines) + "\n"


def describe(model: Model, games: list[Game], rp: Replay) -> str:
    first, last = games[0].season, games[-1].season
    hfa = f"{model.home_advantage:g}"
    if model.margin == "538-nfl":
        mov = "ln(max(MOV, 1) + 1) × 2.2 / (0.001 × d + 2.2)"
        revert = "a third"
    else:
        mov = "(MOV + 3)^0.8 / (7.5 + 0.006 × d)"
        revert = "a quarter"
    text = [
        f"Every {model.sport} game of FiveThirtyEight's Elo ratings, seasons {first} to {last} "
        f"({len(games):,} games), rated with FiveThirtyEight's own model so that every rating here is "
        "theirs: K = 20, a home advantage of "
        f"{hfa} Elo points (none at a neutral site), a margin-of-victory multiplier {mov} "
        "(d the winner's Elo edge, home advantage included), and between seasons every team goes "
        f"{revert} of the way back to 1505. Teams are FiveThirtyEight's franchise codes; each "
        "starts at FiveThirtyEight's first published rating for it.",
        "",
        f"**Data:** [FiveThirtyEight](https://fivethirtyeight.com/)'s {model.sport} Elo ratings, "
        "licensed under [CC BY 4.0](https://creativecommons.org/licenses/by/4.0/); game scores and "
        "ratings as FiveThirtyEight published them, converted by `scripts/nfl_league.py`, which "
        "regenerates this folder byte for byte.",
    ]
    if rp.restarts:
        text += ["", f"**Restarts.** In {len(rp.restarts)} places FiveThirtyEight's published rating "
                     "before a game is not what their formula gives, so the team continues as a new "
                     "player starting from the published rating:", ""]
        for r in rp.restarts:
            text.append(f"- {r.team} on {r.game.date}: formula {r.replayed:.3f}, published "
                        f"{r.published:.3f}; continues as \"{r.player}\".")
        if model.restart_note:
            text += ["", model.restart_note]
    if rp.breaks:
        text += ["", f"**Published changes the formula does not give** ({len(rp.breaks)}): these games' "
                     "post-game ratings here differ from FiveThirtyEight's by more than 0.01, and the "
                     "teams restart at their next game:", ""]
        for b in rp.breaks:
            g = b.game
            text.append(f"- {g.date} {g.team1} {g.score[0]}–{g.score[1]} {g.team2}: formula "
                        f"{b.replayed[0]:.3f} / {b.replayed[1]:.3f}, published {g.post[0]:.3f} / "
                        f"{g.post[1]:.3f}.")
    # Paragraphs and list items wrapped for reading in the file; markdown joins the lines again.
    wrapped = [textwrap.fill(line, 92, subsequent_indent="  " if line.startswith("- ") else "",
                             break_on_hyphens=False) if line else line for line in text]
    return "\n".join(wrapped) + "\n"


def league_toml(model: Model, games: list[Game], rp: Replay) -> str:
    desc = describe(model, games, rp)
    assert "\\" not in desc and '"""' not in desc
    lines = [
        f"name = {toml_string(model.name)}",
        'system = "elo"',
        f'description = """\n{desc}"""',
        "",
        "[params]",
        f"k = {K}",
        'k_of = "each"',
        f"home_advantage = {model.home_advantage}",
        f"margin = {toml_string(model.margin)}",
        f"season_reversion = {model.season_reversion!r}",
        f"reversion_mean = {REVERSION_MEAN}",
        "",
        "# Each team's first published rating (FiveThirtyEight), and the published rating of each restart.",
        "[initial]",
    ]
    for name, value in rp.initial.items():
        lines.append(f"{toml_string(name)} = {number(value)}")
    return "\n".join(lines) + "\n"


def convert(model: Model, data: Path) -> tuple[dict[str, str], Replay]:
    """{file name: text} of the league folder, and the replay (restarts and breaks)."""
    games = chain_order(read_games(data))
    rp = replay(model, games, data)
    seasons: dict[int, list[str]] = defaultdict(list)
    seen: set[str] = set()
    for g, names in zip(games, rp.players):
        seasons[g.season].append(match_toml(model, g, names, match_id(g, seen)))
    files = {"league.toml": league_toml(model, games, rp)}
    for season in sorted(seasons):
        header = (f"# {model.sport} season {season}: {len(seasons[season])} games. FiveThirtyEight's Elo "
                  f"data (CC BY 4.0),\n# converted by scripts/nfl_league.py; edit the script, not this "
                  f"file.\n")
        files[f"{season}.toml"] = header + "".join("\n" + m for m in seasons[season])
    return files, rp


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--league", choices=sorted(MODELS), default="nfl",
                        help="which of FiveThirtyEight's models (default: nfl)")
    parser.add_argument("--data", type=Path, help="the Elo CSV (default: ../shared/data/fivethirtyeight_<league>/)")
    parser.add_argument("--out", type=Path, help="the league folder to write (default: "
                                                 "matches/<league>)")
    args = parser.parse_args(argv)
    model = MODELS[args.league]
    data, out = args.data or model.data, args.out or model.out
    if not data.is_file():
        print(f"{data}: no such file", file=sys.stderr)
        return 1
    try:
        files, rp = convert(model, data)
    except BadData as exc:
        print("\n".join(exc.problems), file=sys.stderr)
        return 1
    except (OSError, UnicodeDecodeError, gzip.BadGzipFile, csv.Error) as exc:
        print(f"{data}: cannot be read: {exc}", file=sys.stderr)
        return 1
    replace_match_files(out, files, SEASON_FILE)
    for r in rp.restarts:
        print(f"{data}:{r.game.row}: restart: {r.team} on {r.game.date}: the formula gives {r.replayed:.4f}, "
              f"FiveThirtyEight published {r.published:.4f}; continues as {r.player!r}")
    for b in rp.breaks:
        g = b.game
        print(f"{data}:{g.row}: published post-game ratings {g.post[0]:.4f} / {g.post[1]:.4f} are not the "
              f"formula's {b.replayed[0]:.4f} / {b.replayed[1]:.4f} ({g.date} {g.team1}-{g.team2})")
    games = len(rp.players)
    print(f"wrote {len(files)} files ({games} games, {len(rp.restarts)} restarts, "
          f"{games - len(rp.breaks)} of {games} games reproduced to {TOLERANCE}) into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
