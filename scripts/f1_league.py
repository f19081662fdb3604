"""Convert Formula 1 results (Ergast schema) into the ``formula-1`` placement league.

Data: the Ergast-schema Formula 1 results 1950-2025 (``races.csv``,
``results.csv``, ``drivers.csv``, ``circuits.csv``), dedicated to the public
domain under CC0 1.0 (https://creativecommons.org/publicdomain/zero/1.0/).
The converted match files carry the same dedication.

Writes into ``--out`` (default ``matches/formula-1``):

* ``league.toml``: the league (system ``placement``) with its parameters;
* ``<year>.toml``: one file per season, one ``[[match]]`` per race in round
  order, with

  - ``id``: ``<year>-<round, two digits>-<slug of the race name>``, such as
    ``1950-01-british-grand-prix`` (accents dropped: ``sao-paulo-grand-prix``);
  - ``played``: the race's date, with its start time in UTC when the data
    has one (``time`` is ``\\N`` for most races before 2005: then the date
    alone, read as 00:00 UTC);
  - ``notes``: the race's name and its circuit;
  - ``players``: every entrant of the race, classified or not, with
    ``place`` = ``positionOrder`` (the full finishing order: retirements,
    disqualifications and non-starters are ordered behind the classified
    cars).

Players are named "Forename Surname" (NFC). Two different drivers (two
``driverId``) with the same full name would be one player of the league, so
every driver of such a name gets the year of birth appended in parentheses
("John Smith (1921)"), and the ``driverRef`` instead when the birth years are
equal or unknown. The data of 1950-2025 has no such pair; the rule keeps a
future data release from merging two careers silently.

Two drivers who shared one car (common in the 1950s) share its
``positionOrder``: they are tied. A driver who appears twice in one race
(who took over a team-mate's car after retiring their own) keeps their best
``positionOrder`` only, since a player appears once in a match. Races without
any result (announced but not yet run when the data was taken) are left out.

The output is deterministic: the same data gives byte-identical files.
Existing ``<year>.toml`` files in the output folder are removed first, so a
season that disappears from the data does not linger; nothing else there is
touched.

    python scripts/f1_league.py
    python scripts/f1_league.py --data ../shared/data/f1 --out matches/formula-1
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
sys.path.insert(0, str(Path(__file__).resolve().parent))      # convert_common, beside this script
from convert_common import replace_match_files  # noqa: E402
from sitegen.load.tomlwrite import multiline as toml_multiline, string as toml_string  # noqa: E402  (the one TOML writer)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data" / "f1"
DEFAULT_OUT = REPO / "matches" / "formula-1"

NULL = "\\N"
SEASON_FILE = re.compile(r"[0-9]{4}\.toml")

PARAMS = {"initial": 1500, "floor": 0, "k": 32, "normalize": True}

DESCRIPTION = """\
Every Formula 1 World Championship Grand Prix since 1950, rated as a **placement**
league: a race is a duel between every pair of cars on the grid, the better-placed
driver winning it (the placement Elo designed for battle royales).

**Places** are the full finishing order (`positionOrder`): classified cars first,
then retirements, disqualifications and non-starters, so a mechanical retirement
counts as being beaten by every car still running. Drivers who shared a car in the
1950s share its place (a tie); a driver who drove two cars in one race is rated once,
with the better of the two places.

**Parameters.** Everyone starts at **1500** (the floor of 0 is never reached) and K is
a flat **32**, with **`normalize = true`**: K is divided by the number of rivals, so a
race moves a rating by at most 32 points however large the field, and winning from an
evenly rated field is worth +16. Without it a 26-car race would move a rating by up to
800 points and one lucky afternoon would outweigh a season. The design's K bands (32,
24 from 2100, 16 from 2400) are meant for ratings that start at 0 and are not used.

**Data.** Ergast-schema F1 results 1950-2025 (races, results, drivers, circuits),
dedicated to the public domain under [CC0 1.0](https://creativecommons.org/publicdomain/zero/1.0/).
Races of 2025 after the data was taken are not included. Converted by
`scripts/f1_league.py`, which regenerates this folder byte for byte.
"""


# --------------------------------------------------------------------------
# Reading the data
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Race:
    race_id: str
    year: int
    round: int
    name: str
    date: str  # YYYY-MM-DD
    time: str | None  # HH:MM:SS, UTC
    circuit: str | None  # "Silverstone Circuit, Silverstone, UK"


def read_csv(path: Path) -> list[dict[str, str | None]]:
    """Rows as dicts, ``\\N`` as None (short rows: the missing columns are None)."""
    with open(path, encoding="utf-8", newline="") as fh:
        return [{key: (None if value in (NULL, "") else value) for key, value in row.items()}
                for row in csv.DictReader(fh)]


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text).strip()


def driver_names(rows: list[dict]) -> dict[str, str]:
    """driverId -> the player's name: "Forename Surname", disambiguated (module doc)."""
    full = {row["driverId"]: nfc(f"{row['forename'] or ''} {row['surname'] or ''}") for row in rows}
    by_name: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_name[full[row["driverId"]]].append(row)
    names = dict(full)
    for name, same in by_name.items():
        if len(same) < 2:
            continue
        years = [(row["dob"] or "")[:4] for row in same]
        for row, year in zip(same, years):
            unique_year = year and years.count(year) == 1
            names[row["driverId"]] = f"{name} ({year if unique_year else row['driverRef']})"
    return names


def circuit_names(rows: list[dict]) -> dict[str, str]:
    out = {}
    for row in rows:
        parts = [row["name"], row["location"], row["country"]]
        out[row["circuitId"]] = ", ".join(nfc(p) for p in parts if p)
    return out


def read_races(rows: list[dict], circuits: dict[str, str]) -> list[Race]:
    races = [
        Race(row["raceId"], int(row["year"]), int(row["round"]), nfc(row["name"]), row["date"],
             row["time"], circuits.get(row["circuitId"]))
        for row in rows
    ]
    return sorted(races, key=lambda r: (r.year, r.round))


def race_places(rows: list[dict], names: dict[str, str]) -> dict[str, dict[str, int]]:
    """raceId -> {player: place}."""
    places: dict[str, dict[str, int]] = defaultdict(dict)
    for row in rows:
        name = names[row["driverId"]]
        place = int(row["positionOrder"])
        race = places[row["raceId"]]
        # One player appears once per match: a driver entered in two cars (a shared
        # drive) keeps the better of their two places.
        if name not in race or place < race[name]:
            race[name] = place
    return places


# --------------------------------------------------------------------------
# Writing TOML
# --------------------------------------------------------------------------

def slugify(text: str) -> str:
    """"São Paulo Grand Prix" -> "sao-paulo-grand-prix"."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")


def race_id(race: Race) -> str:
    return f"{race.year}-{race.round:02d}-{slugify(race.name)}"


def played(race: Race) -> str:
    return f"{race.date}T{race.time}Z" if race.time else race.date


def match_toml(race: Race, places: dict[str, int]) -> str:
    notes = f"{race.name}, {race.circuit}." if race.circuit else f"{race.name}."
    lines = [
        "[[match]]",
        f"id = {toml_string(race_id(race))}",
        f"played = {played(race)}",
        f"notes = {toml_string(notes)}",
        "players = [",
    ]
    for name, place in sorted(places.items(), key=lambda item: (item[1], item[0])):
        lines.append(f"  {{ name = {toml_string(name)}, place = {place} }},")
    lines.append("]")
    return "\n".join(lines) + "\n"


def season_toml(year: int, races: list[tuple[Race, dict[str, int]]]) -> str:
    header = (f"# Formula 1 {year}: {len(races)} races. Ergast-schema F1 results (CC0 1.0),\n"
              f"# converted by scripts/f1_league.py; edit the script, not this file.\n")
    return header + "".join("\n" + match_toml(race, places) for race, places in races)


def league_toml() -> str:
    lines = [
        'name = "Formula 1"',
        'system = "placement"',
        f"description = {toml_multiline(DESCRIPTION)}",
        "",
        "[params]",
    ]
    for key, value in PARAMS.items():
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def convert(data: Path) -> dict[str, str]:
    """{file name: text} of the league folder."""
    names = driver_names(read_csv(data / "drivers.csv"))
    circuits = circuit_names(read_csv(data / "circuits.csv"))
    races = read_races(read_csv(data / "races.csv"), circuits)
    places = race_places(read_csv(data / "results.csv"), names)
    seasons: dict[int, list[tuple[Race, dict[str, int]]]] = defaultdict(list)
    for race in races:
        if places.get(race.race_id):
            seasons[race.year].append((race, places[race.race_id]))
    files = {"league.toml": league_toml()}
    for year in sorted(seasons):
        files[f"{year}.toml"] = season_toml(year, seasons[year])
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="folder of the Ergast-schema CSV files (default: ../shared/data/f1 "
                             "beside this repository)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="the league folder to write (default: matches/formula-1)")
    args = parser.parse_args(argv)
    missing = [name for name in ("races.csv", "results.csv", "drivers.csv", "circuits.csv")
               if not (args.data / name).is_file()]
    if missing:
        print(f"{args.data}: missing {', '.join(missing)}", file=sys.stderr)
        return 1
    files = convert(args.data)
    matches = replace_match_files(args.out, files, SEASON_FILE)
    print(f"wrote {len(files)} files ({matches} races) into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
