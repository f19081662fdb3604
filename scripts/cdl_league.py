"""Convert the Call of Duty League 2023 data (codstats, MIT) into the ``cdl-2023`` openskill league.

Data: Oliver Stanley's codstats tables of the 2023 Call of Duty League season (Modern
Warfare II), December 2022 to January 2023: ``Matches.csv`` (series: date, order in
the day, the two teams), ``MatchesGames.csv`` (the maps of each series, in order),
``Games.csv`` (map, mode and the two teams' scores), ``PlayersGames.csv`` (each
player's team and stats in each map) and the name tables ``Teams.csv``,
``Players.csv``, ``Maps.csv``, ``Modes.csv``. MIT licence, copied beside the
converted files as ``LICENSE``.

Writes into ``--out`` (default ``matches/cdl-2023``):

* ``league.toml``: the league (system ``openskill``, the package's defaults);
* ``LICENSE``: the data's MIT licence, as the data ships it;
* ``<YYYY-MM-DD>.toml``: one file per match day, one ``[[match]]`` per map, series by
  their order in the day, maps by their order in the series, with

  - ``id``: ``<date>-<team 1>-vs-<team 2>-map-<n>`` (team names slugged);
  - ``played``: the day (read as 00:00 UTC: the data has no times; the file order
    keeps the maps of a day in the order they were played);
  - ``notes``: mode, map and score, and the map's number in its series;
  - ``teams``: the two teams of the series, team 1 first, each with ``place`` (1 for
    the team that scored more, 2 for the other; the data has no drawn map) and its
    four players in the data's order.

A map without any player rows (one in the data: the players' stats were never
entered) cannot be rated and is left out; the converter names it on standard error.
Any other gap in the data (a player of neither team, a team without players, a drawn
score) stops the conversion with a message rather than producing a wrong league.

The output is deterministic: the same data gives byte-identical files. Existing
``<date>.toml`` files in the output folder are removed first, so a day that
disappears from the data does not linger; nothing else there is touched.

    python scripts/cdl_league.py
    python scripts/cdl_league.py --data ../shared/data/cdl --out matches/cdl-2023
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sitegen.load.tomlwrite import string as toml_string  # noqa: E402  (the one TOML writer: tomlkit's escaping)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data" / "cdl"
DEFAULT_OUT = REPO / "matches" / "cdl-2023"
DAY_FILE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\.toml")
MAX_ID = 64

DESCRIPTION = """\
The maps of the 2023 **Call of Duty League** season (Modern Warfare II) from its start on
2 December 2022 to the end of January 2023, rated with **openskill**: every map is a
match of two teams of four, the team that won the map in first place.

Each player's skill is a belief, a mean **μ** and an uncertainty **σ**, and the
leaderboard ranks by **μ − 3σ**, a skill the player has almost surely reached: a player
climbs by winning often *and* by playing enough for σ to shrink. The parameters are the
openskill package's defaults (μ = 25, σ = 25/3, β = 25/6, τ = 25/300).

Series are not rated as such: a 3–2 series is five maps, three won and two lost.
Teammates share their team's result, so within a team the ratings part only through
the players' own histories (roster changes, substitutes).

**Data.** codstats, Call of Duty League tables by Oliver Stanley, MIT
licence (the `LICENSE` file beside this one). One map of the data has no player stats
and is left out. Converted by `scripts/cdl_league.py`, which regenerates this folder
byte for byte.
"""


# --------------------------------------------------------------------------
# Reading the data
# --------------------------------------------------------------------------


class DataError(Exception):
    """The data does not say what a rated map needs."""


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def names(path: Path) -> dict[str, str]:
    """ID -> Name of a name table, names NFC and trimmed."""
    return {row["ID"]: unicodedata.normalize("NFC", row["Name"]).strip() for row in read_csv(path)}


@dataclass(frozen=True, slots=True)
class Map:
    day: str                                  # YYYY-MM-DD
    series: int                               # order of the series in its day
    number: int                               # 1-based number of the map in its series
    teams: tuple[str, str]                    # team 1, team 2
    scores: tuple[int, int]
    map_name: str
    mode: str
    players: tuple[tuple[str, ...], tuple[str, ...]]


def read_maps(data: Path) -> tuple[list[Map], list[str]]:
    """Every rateable map in history order, and a note for each map left out."""
    teams, players = names(data / "Teams.csv"), names(data / "Players.csv")
    maps_, modes = names(data / "Maps.csv"), names(data / "Modes.csv")
    games = {row["ID"]: row for row in read_csv(data / "Games.csv")}
    series = {row["ID"]: row for row in read_csv(data / "Matches.csv")}
    in_series: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for row in read_csv(data / "MatchesGames.csv"):
        in_series[row["Match"]].append((int(row["GameIndex"]), row["Game"]))
    # Each map's players by team ID, in the file's order.
    rosters: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for row in read_csv(data / "PlayersGames.csv"):
        rosters[row["Game"]][row["Team"]].append(players[row["Player"]])

    out: list[Map] = []
    skipped: list[str] = []
    order = sorted(series.values(), key=lambda s: (s["Date"], int(s["IndexInDate"])))
    for s in order:
        team_ids = (s["Team1"], s["Team2"])
        for index, game_id in sorted(in_series[s["ID"]]):
            g = games[game_id]
            label = (f"{s['Date']} {teams[team_ids[0]]} vs {teams[team_ids[1]]}, map {index + 1} "
                     f"(game {game_id})")
            roster = rosters.get(game_id)
            if not roster:
                skipped.append(f"{label}: no player rows; left out")
                continue
            stray = sorted(set(roster) - set(team_ids))
            if stray:
                raise DataError(f"{label}: players of team(s) {', '.join(stray)}, which is not in the series")
            sides = tuple(tuple(roster.get(t, ())) for t in team_ids)
            if not all(sides):
                raise DataError(f"{label}: a team without players")
            scores = (int(g["Team1Score"]), int(g["Team2Score"]))
            if scores[0] == scores[1]:
                raise DataError(f"{label}: a drawn score {scores[0]}-{scores[1]}")
            out.append(Map(s["Date"], int(s["IndexInDate"]), index + 1,
                           (teams[team_ids[0]], teams[team_ids[1]]), scores,
                           maps_[g["Map"]].replace("-", " "), modes[g["Mode"]], sides))  # type: ignore[arg-type]
    return out, skipped


# --------------------------------------------------------------------------
# Writing TOML
# --------------------------------------------------------------------------


def slugify(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")


def map_id(m: Map) -> str:
    text = f"{m.day}-{slugify(m.teams[0])}-vs-{slugify(m.teams[1])}-map-{m.number}"
    if len(text) > MAX_ID:
        raise DataError(f"{text}: an id longer than {MAX_ID} characters")
    return text


def match_toml(m: Map) -> str:
    won = 0 if m.scores[0] > m.scores[1] else 1
    notes = (f"{m.mode} on {m.map_name}: {m.teams[0]} {m.scores[0]}, {m.teams[1]} {m.scores[1]} "
             f"(map {m.number} of the series).")
    lines = ["[[match]]", f"id = {toml_string(map_id(m))}", f"played = {m.day}",
             f"notes = {toml_string(notes)}"]
    for side in (0, 1):
        lines += ["", "[[match.teams]]", f"place = {1 if side == won else 2}", "players = ["]
        lines += [f"  {{ name = {toml_string(name)} }}," for name in m.players[side]]
        lines.append("]")
    return "\n".join(lines) + "\n"


def day_toml(day: str, maps: list[Map]) -> str:
    header = (f"# Call of Duty League 2023, {day}: {len(maps)} maps. codstats by Oliver Stanley (MIT),\n"
              "# converted by scripts/cdl_league.py; edit the script, not this file.\n")
    return header + "".join("\n" + match_toml(m) for m in maps)


def league_toml() -> str:
    assert "\\" not in DESCRIPTION and '"""' not in DESCRIPTION
    return "\n".join([
        'name = "Call of Duty League 2023"',
        'system = "openskill"',
        'description = """\n' + DESCRIPTION + '"""',
        "",
        "# The openskill package's defaults, written out so that the league says what it uses.",
        "[params]",
        "mu = 25",
        "sigma = 8.333333333333334     # 25 / 3",
        "beta = 4.166666666666667      # 25 / 6",
        "tau = 0.08333333333333333     # 25 / 300",
        "",
    ])


def convert(data: Path, out: Path) -> tuple[int, int, list[str]]:
    """Write the league; returns (days, maps, notes on maps left out)."""
    maps, skipped = read_maps(data)
    by_day: dict[str, list[Map]] = defaultdict(list)
    for m in maps:
        by_day[m.day].append(m)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        if DAY_FILE.fullmatch(old.name):
            old.unlink()
    (out / "league.toml").write_text(league_toml(), encoding="utf-8", newline="\n")
    (out / "LICENSE").write_bytes((data / "LICENSE").read_bytes())
    for day, day_maps in sorted(by_day.items()):
        (out / f"{day}.toml").write_text(day_toml(day, day_maps), encoding="utf-8", newline="\n")
    return len(by_day), len(maps), skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of the codstats CSV files")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the league folder to write")
    args = parser.parse_args(argv)
    try:
        days, count, skipped = convert(args.data, args.out)
    except (DataError, OSError, KeyError, ValueError) as exc:
        print(f"cdl_league: {exc}", file=sys.stderr)
        return 1
    for note in skipped:
        print(f"cdl_league: {note}", file=sys.stderr)
    print(f"cdl_league: {count} maps on {days} days into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
