"""The data files of docs/auditors: standings, changes and matches as CSV and
JSON, for a glicko2 league the pairings each rating period's updates used, and the
tables of accuracy.py (accuracy), pools.py (pools, elo) and groupings.py (next, glicko2).

These tables are what auditors recompute from, so their format is fixed:
header row, UTF-8, '\\n' line ends, floats with exactly 6 decimals, lunaro
ratings as integers, an empty field where a value does not exist.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator, Mapping
from operator import itemgetter
from typing import Any

import numpy as np

from sitegen.model.accuracy import predicts
from sitegen.model.baselines import accuracy_table
from sitegen.load.config import Roster
from sitegen.model.groupings import next_table
from sitegen.model.history import RatedLeague
from sitegen.model.pools import HEADER as POOLS_HEADER, opponent_pools, pools_table
from sitegen.model.predict import ratings_json
from sitegen.model.scale import writes_parquet, writes_twin
from sitegen.load.provenance import Provenance
from sitegen.rating.matchcolumns import column
from sitegen.model.table import (Column, ColumnTable, _cell, _json_value, changes_columns, fmt_float, iso, ledger_terms,
                                 matches_columns, parquet_frames, standings_columns, table_csv, table_csv_parts,
                                 table_json, to_parquet)

__all__ = ["fmt_float", "iso", "ledger_terms", "league_files", "to_csv", "to_json"]

Table = tuple[tuple[str, ...], list[tuple[Any, ...]]]


PAIRINGS_HEADER = ("period", "match_id", "player", "opponent", "score", "opponent_rating", "opponent_rd")


def pairings_table(rated: RatedLeague) -> Table:
    """glicko2: one row per battle (each side of each pair of a match), in the order the
    updates take them: period, match, player, opponent. ``score`` is the battle score
    after the transform; ``opponent_rating`` and ``opponent_rd`` the opponent's values
    going into the period, as steps 3-4 of the paper use them."""
    rows = []
    for event in rated.events:
        for b in getattr(event, "battles", ()):
            rows.append((event.key, b.match_id, b.player, b.opponent, float(b.score),
                         float(b.opponent_before.rating), float(b.opponent_before.rd)))
    return PAIRINGS_HEADER, rows


def to_csv(table: Table) -> str:
    header, rows = table
    if rows and set(map(len, rows)) == {len(header)}:
        # By column (table.py): a column of one type is formatted at once, the same text as below.
        # Not zip(*rows): an iterator per row, each a container the collector then walks.
        return table_csv(ColumnTable(tuple(_column(name, tuple(map(itemgetter(i), rows)))
                                           for i, name in enumerate(header))))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    return buf.getvalue()


def _column(name: str, values: tuple[Any, ...]) -> Column:
    """A row table's column, of the kind whose text is what ``_cell`` writes for each value."""
    kinds = set(map(type, values))
    if kinds <= {float, type(None)}:
        floats = np.array(values, dtype=np.float64)
        # NaN is "" in a float column but "nan" by _cell: only None may become NaN.
        if int(np.isnan(floats).sum()) == values.count(None):
            return Column(name, "float", floats)
    elif kinds == {int} and -2**63 <= min(values) and max(values) < 2**63:
        return Column(name, "int", np.array(values, dtype=np.int64))
    elif kinds <= {str, type(None)}:
        return Column(name, "text", values)
    return Column(name, "any", values)


def pools_columns(rated: RatedLeague) -> ColumnTable | None:
    """pools.csv's columns: ``pools_table``'s rows, the columns ``to_csv`` makes of them, with no
    tuple made a row (a second of a 10,000-player league's data files); None for no rows."""
    player: list[str] = []
    side: list[str] = []
    drawn: list[Any] = []
    for pool in opponent_pools(rated):
        picked = () if pool.pick is None else (pool.pick,)
        drawn += pool.below + pool.above + picked
        player += [pool.player] * (len(pool.below) + len(pool.above) + len(picked))
        side += ["below"] * len(pool.below) + ["above"] * len(pool.above) + ["pick"] * len(picked)
    if not drawn:
        return None
    values = (player, [o.name for o in drawn], side, [o.rating for o in drawn])
    return ColumnTable(tuple(_column(name, tuple(v)) for name, v in zip(POOLS_HEADER, values)))


def to_json(table: Table) -> str:
    """A list of objects, formatted as ``json.dumps(objects, indent=1)`` would.

    Written one object at a time: a list of a million dicts would be built only to
    be serialised, and took most of a large league's memory.
    """
    header, rows = table
    if not rows:
        return "[]\n"
    parts = []
    for row in rows:
        obj = json.dumps({k: _json_value(v) for k, v in zip(header, row)}, ensure_ascii=False, indent=1)
        parts.append(" " + obj.replace("\n", "\n "))   # one level deeper, inside the list
    return "[\n" + ",\n".join(parts) + "\n]\n"


# The data files that may grow by their new rows: one or more rows a match, in history order.
GROWING = ("changes", "matches")


def appends(rated: RatedLeague, table: str) -> bool:
    """Whether <table>.csv (``GROWING``) is the league's only form of its rows (no JSON or Parquet
    twin, which are written whole), so that a build may write only the rows that follow the
    published ones."""
    return table in GROWING and not writes_twin(rated, table) and not writes_parquet(rated, table)


def file_commits(rated: RatedLeague, provenance: Provenance | None) -> dict[str, str]:
    """Each match file's commit as matches.csv names it ("" for none): what its rows hold
    beyond the matches themselves."""
    prov = provenance or Provenance()
    files = set(column(rated.league.matches, "file"))
    return {f: "" if (c := prov.commit_of(f)) is None else c.sha for f in files}


def matches_kept(rated: RatedLeague, provenance: Provenance | None, held: Any, rows: int) -> int:
    """How many of the first ``rows`` rows of matches.csv are as a file written with the file
    commits ``held`` (``file_commits``) has them: up to the first match of a file whose commit
    moved (an appended match's file, once committed). The matches themselves are the same."""
    if not isinstance(held, dict):
        return 0
    # The files held are those of the first ``rows`` matches: no match is read unless one moved
    # (in the data files' process, reading a million forked objects copies their pages).
    prov = provenance or Provenance()
    moved = {f for f, sha in held.items() if ("" if (c := prov.commit_of(f)) is None else c.sha) != sha}
    if not moved:
        return rows
    files = column(rated.league.matches, "file")
    return next((i for i in range(rows) if files[i] in moved), rows)


def league_files(rated: RatedLeague, provenance: Provenance | None = None,
                 roster: Roster | None = None,
                 after: Mapping[str, int] | None = None) -> Iterator[tuple[str, str | bytes | Iterator[bytes]]]:
    """(file name, content) for data/<league>/, one file at a time to keep memory flat: text,
    or for standings, changes and matches.csv their UTF-8 bytes in parts, each to be written
    before the next file is asked for (a million-match league's changes.csv is 200 MB, never
    held whole); the Parquet files (bytes) follow their CSV (a big league's per-match ones
    left out, scale.py).

    ``roster`` (players.toml) gives next.csv its regions; without it every player is in "".
    ``after``: for a table of ``GROWING`` (where ``appends``), the row its CSV's parts start
    at, without the header, to follow the first rows of the published file.
    """
    own = rated.league.config.system.ledger_tables     # the system's own files
    after = after or {}
    # standings, changes and matches are written by column from the ledger frame (table.py),
    # the same bytes as the row tables above, and as Parquet beside them.
    columns: list[tuple[str, Callable[..., ColumnTable]]] = [
        ("standings", standings_columns), ("changes", changes_columns),
        ("matches", lambda r, start=0: matches_columns(r, provenance, start))]
    matches = ColumnTable(())          # matches.csv's table, for matches.parquet
    for name, make_columns in columns:
        start = after.get(name, 0)
        if start and appends(rated, name):
            yield f"{name}.csv", table_csv_parts(make_columns(rated, start), header=False)
            continue
        table = make_columns(rated)
        if name == "matches":
            matches = table
        yield f"{name}.csv", table_csv_parts(table)
        if writes_twin(rated, name):        # a league past TWIN_ROWS leaves the twin out (scale.py)
            yield f"{name}.json", table_json(table)
    # A big league leaves out the per-match ones (scale.py), and so never grows one with a Parquet file.
    parquet = [name for name, _ in columns if writes_parquet(rated, name)]
    for name, frame in parquet_frames(rated, matches, parquet).items():
        yield f"{name}.parquet", to_parquet(frame)
    tables: list[tuple[str, Any]] = []
    if "pairings" in own:
        tables.append(("pairings", pairings_table))
    if predicts(rated):
        tables.append(("accuracy", accuracy_table))
    if "pools" in own:
        tables.append(("pools", pools_table))
    if "next" in own:
        tables.append(("next", lambda r: next_table(r, roster or Roster())))
    for name, make in tables:
        by_column = pools_columns(rated) if name == "pools" else None
        if by_column is not None:
            yield f"{name}.csv", table_csv_parts(by_column)
            if not writes_twin(rated, name):
                continue
        rows = make(rated)
        if by_column is None:
            yield f"{name}.csv", to_csv(rows)
        if writes_twin(rated, name):
            yield f"{name}.json", to_json(rows)
    # The matchup predictor's input (predict.py), loaded by the league page when it is used.
    current = ratings_json(rated)
    if current is not None:
        yield "ratings.json", current
