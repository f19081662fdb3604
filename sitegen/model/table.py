"""The ledger as one columnar table, and the data files written from columns.

``ledger_frame`` turns a rated league's events into a pandas DataFrame, one row per
(event, player) change in history order, built once per league from numpy arrays:
the data files, the player pages' career aggregates and the board's movers all read
it instead of walking millions of small Change objects again.

``ColumnTable`` is a data file held column by column. Its CSV and JSON are byte for
byte what ledger.py's row tables give (docs/auditors): every cell is formatted a
whole column at a time, then the csv module (in C) writes the rows. ``to_parquet``
writes the same table for auditors with typed columns and deterministic bytes.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import repeat
from typing import TYPE_CHECKING, Any, cast

import numpy as np

# pandas is imported by the functions that make or read a frame: a rebuild that makes none (the
# ledger frame is a cold build's) does not import it, 0.4-1 s of its start.
if TYPE_CHECKING:
    import pandas as pd

from sitegen.load.validate import NAME_KEYS
from sitegen.model.history import RatedLeague
from sitegen.rating.events import EventTable, event_times
from sitegen.rating.matchcolumns import column as match_column

LEDGER = "ledger"          # RatedLeague.cache key of the frame
# Ratings and every numeric term: float64, NaN where the value does not exist
# (an arena player's rating before their first game, elo's reverted_from).
RATING_COLUMNS = ("rating_before", "rating_after", "delta")


def utc_times(times: list[datetime]) -> pd.DatetimeIndex:
    """Times as datetime64[us, UTC]: microseconds reach every date a match may have (years 1000
    to 9998), where pandas' default nanoseconds end in 2262."""
    import pandas as pd
    naive = np.array([t.astimezone(timezone.utc).replace(tzinfo=None) for t in times], dtype="datetime64[us]")
    return pd.DatetimeIndex(naive).tz_localize("UTC")


@dataclass(frozen=True, slots=True)
class LedgerColumns:
    """The ledger frame's ``order``, ``player`` (an index into ``names``), ``rating_before``
    and ``rating_after`` as arrays of the same values, and ``delta`` their difference."""

    order: np.ndarray
    player: np.ndarray
    names: tuple[str, ...]
    before: np.ndarray
    after: np.ndarray

    @property
    def delta(self) -> np.ndarray:
        return self.after - self.before


def ledger_columns(rated: RatedLeague) -> LedgerColumns:
    """``LedgerColumns`` read from the rating's own columns where it has them, with no frame
    made (the board's window and the careers in the main process, which lets the frame go
    once the data files' process has it); else from the frame."""
    events = rated.events
    if isinstance(events, EventTable):
        return LedgerColumns(events.event_of_rows(), events.player, events.names, events.float_befores(),
                             events.after.astype(np.float64))
    # The frame's columns made from the changes, without the frame (its terms, keys and times)
    # or pandas, which the main process of a cold build then never imports: the players
    # numbered in the order they first appear, as pandas' factorize numbers them.
    sizes = np.fromiter((len(e.changes) for e in events), dtype=np.int64, count=len(events))
    order = np.repeat(np.arange(len(events), dtype=np.int64), sizes)
    changes = [c for e in events for c in e.changes]
    number: dict[str, int] = {}
    player = np.fromiter((number.setdefault(c.player, len(number)) for c in changes), dtype=np.intp,
                         count=len(changes))
    # None (no rating yet) becomes NaN in a float array, as in the frame.
    return LedgerColumns(order, player, tuple(number), np.array([c.before for c in changes], dtype=np.float64),
                         np.array([c.after for c in changes], dtype=np.float64))


def release_ledger_frame(rated: RatedLeague) -> None:
    """Let the league's frame go once nothing more will read it in this process (a
    million-match league's is 200 MB); ``ledger_frame`` makes it again if something does."""
    rated.cache.pop(LEDGER, None)


def ledger_frame(rated: RatedLeague) -> pd.DataFrame:
    """One row per (event, player) change, in history order, players in their order in
    the event: ``event`` (key), ``played`` (datetime64[us, UTC]), ``order`` (the event's
    index in history), ``player``, ``rating_before``, ``rating_after``, ``delta``, then the
    system's ledger terms (float64, or text where a term holds names).

    Built once per league and kept in ``rated.cache``: callers must not modify it.
    """
    cached = rated.cache.get(LEDGER)
    if cached is not None:
        return cached
    import pandas as pd
    system = rated.league.config.system
    terms = ledger_terms(system)
    events = rated.events
    if isinstance(events, EventTable):
        frame = _columns_frame(events, terms)
        rated.cache[LEDGER] = frame
        return frame
    sizes = np.fromiter((len(e.changes) for e in events), dtype=np.int64, count=len(events))
    order = np.repeat(np.arange(len(events), dtype=np.int64), sizes)
    changes = [c for e in events for c in e.changes]
    # Per event, then spread over its changes: a period's key and time are shared.
    keys = np.array([e.key for e in events], dtype=object)
    played = utc_times([e.played for e in events])
    # None (no rating yet) becomes NaN in a float array.
    before = np.array([c.before for c in changes], dtype=np.float64)
    after = np.array([c.after for c in changes], dtype=np.float64)
    columns: dict[str, Any] = {
        "event": pd.array(keys[order], dtype="string"),
        "played": played[order],
        "order": order,
        "player": pd.array([c.player for c in changes], dtype="string"),
        "rating_before": before,
        "rating_after": after,
        "delta": after - before,     # as Change.delta: NaN where there was no rating before
    }
    # Every system builds its terms as a dict: dict.get in C reads a column without a loop here.
    held = cast(list[dict[str, Any]], [c.terms for c in changes])
    for t in terms:
        columns[t] = _term_column(t, list(map(dict.get, held, repeat(t))))
    frame = pd.DataFrame(columns)
    rated.cache[LEDGER] = frame
    return frame


def _columns_frame(events: EventTable, terms: Sequence[str], start: int = 0) -> pd.DataFrame:
    """``ledger_frame`` from the rating's columns: the same frame, no Change made; its rows from
    ``start`` on (numbered from there)."""
    import pandas as pd
    # Only the rows from ``start`` and their events are read: the rows that follow a published
    # changes.csv are a few of millions.
    order = events.event_of_rows(np.arange(start, events.rows, dtype=np.int64)) if start else events.event_of_rows()
    before = events.float_befores(start)
    after = events.after[start:].astype(np.float64)
    names = np.array(events.names, dtype=object)
    shown, at = np.unique(order, return_inverse=True)       # the events of these rows, once each
    first, last = (int(shown[0]), int(shown[-1]) + 1) if len(shown) else (0, 0)
    columns: dict[str, Any] = {
        "event": pd.array(np.array(events.keys[first:last], dtype=object)[order - first], dtype="string"),
        "played": utc_times([events.played[i] for i in shown.tolist()])[at],
        "order": order,
        "player": pd.array(names[events.player[start:]], dtype="string"),
        "rating_before": before,
        "rating_after": after,
        "delta": after - before,
    }
    for t in terms:
        term = events.terms[t]
        if term.numeric and t not in NAME_KEYS:     # NaN where None, as _term_column makes it
            values = term.values[order] if term.per_event else term.values[start:]
            columns[t] = values.astype(np.float64)
        else:
            columns[t] = _term_column(t, events.column(t, start, events.rows))
    return pd.DataFrame(columns)


_NUMBERS = {type(None), int, float, bool}
_TEXTS = {type(None), str}


def _term_column(name: str, values: list[Any]) -> Any:
    """Numbers (and None) as float64, as changes.csv writes every number term; names as text,
    also where no match gave one (a league without a home player still has a text column)."""
    import pandas as pd
    kinds = set(map(type, values))      # in C; the exact types decide most columns at once
    if name not in NAME_KEYS and (kinds <= _NUMBERS or all(v is None or isinstance(v, (int, float))
                                                          for v in values)):
        return np.array(values, dtype=np.float64)
    if kinds <= _TEXTS or all(v is None or isinstance(v, str) for v in values):
        return pd.array(values, dtype="string")
    return np.array([_term(v) for v in values], dtype=object)    # names and numbers: as written


# --- how a value is written (every data file) -----------------------------------------------

def iso(dt: datetime) -> str:
    """UTC timestamps as 2024-05-01T17:30:00Z."""
    return dt.isoformat().replace("+00:00", "Z")


def fmt_float(x: float | None) -> str:
    if x is None:
        return ""
    text = f"{x:.6f}"
    return "0.000000" if text == "-0.000000" else text


def ledger_terms(system) -> tuple[str, ...]:
    """The system's columns of changes.csv: its ``ledger_terms`` where the file holds more
    than the pages show (elo's challenger, home, ...), else its ``terms``."""
    return system.ledger_terms or system.terms


def _term(value: Any) -> Any:
    """A term as written: numbers as floats (6 decimals), names as text, None as empty.

    A term may be a name (elo's challenger and home player); an int term is still a
    float column, written with 6 decimals like every other.
    """
    if value is None or isinstance(value, str):
        return value
    return float(value)


def _rating(system, value: float | None) -> float | int | None:
    if value is None:
        return None
    return int(value) if system.integer_ratings else float(value)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return fmt_float(value)
    return str(value)


def _json_value(value: Any) -> Any:
    # Same precision as the CSV, so both files say the same thing.
    return round(value, 6) + 0.0 if isinstance(value, float) else value



# --- data files held by column --------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Column:
    """A column of a data file. ``kind`` says how its cells are written:

    - "float": float64, NaN for none; 6 decimals in CSV, rounded to 6 in JSON.
    - "int": whole numbers (float64 with NaN for none, or int64), truncated as int() does.
    - "text": str or None.
    - "any": Python values as they are, each cell formatted as ledger.py formats it.
    """

    name: str
    kind: str
    values: Any


def column_of(name: str, values: Sequence[Any]) -> Column:
    """A column from Python values, its kind read from their types (bool is not a number)."""
    present = [v for v in values if v is not None]
    if all(isinstance(v, float) for v in present):
        return Column(name, "float", np.array(values, dtype=np.float64))
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present) and all(
            v is not None for v in values):
        return Column(name, "int", np.array(values, dtype=np.int64)) if _fits(present) else Column(
            name, "any", list(values))
    if all(isinstance(v, str) for v in present):
        return Column(name, "text", list(values))
    return Column(name, "any", list(values))


def _fits(ints: list[int]) -> bool:
    return all(-2**63 <= v < 2**63 for v in ints)


@dataclass(frozen=True, slots=True)
class ColumnTable:
    columns: tuple[Column, ...]

    @property
    def header(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def __len__(self) -> int:
        return len(self.columns[0].values) if self.columns else 0


# A float column whose first values hold at most this many distinct ones (elo's score and K,
# a lobby's expected share) is formatted a distinct value at a time.
FEW_FLOATS = 64


def _float_text(values: np.ndarray) -> list[str]:
    """'%.6f' of every value (the same text as f"{x:.6f}"), "-0.000000" as "0.000000", NaN as ""."""
    if len(values) > 4 * FEW_FLOATS and len(set(values[:4 * FEW_FLOATS].tolist())) <= FEW_FLOATS:
        # np.unique takes 0.0 and -0.0 for one value (and every NaN for one): both are written
        # "0.000000" below (and NaN ""), so each distinct value's text is every copy's.
        distinct, where = np.unique(values, return_inverse=True)
        if len(distinct) <= 4 * FEW_FLOATS:
            return np.array(_float_text(distinct), dtype=object)[where.reshape(-1)].tolist()
    cells = list(map("%.6f".__mod__, values.tolist()))     # map in C: 3x np.char.mod
    for i in np.flatnonzero(np.isnan(values)).tolist():
        cells[i] = ""
    for i in np.flatnonzero((values <= 0) & (values > -1e-6)).tolist():   # -0.0 and what rounds to it
        if cells[i] == "-0.000000":
            cells[i] = "0.000000"
    return cells


def _int_values(values: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    if values.dtype.kind == "f":
        missing = np.isnan(values)
        return np.trunc(np.where(missing, 0.0, values)).astype(np.int64), missing
    return values.astype(np.int64), None


def _int_text(values: np.ndarray, none: str) -> list[str]:
    ints, missing = _int_values(values)
    cells = ints.astype(str).astype(object)
    if missing is not None:
        cells[missing] = none
    return cells.tolist()


def _csv_cells(col: Column) -> list[str]:
    if col.kind == "float":
        return _float_text(col.values)
    if col.kind == "int":
        return _int_text(col.values, "")
    if col.kind == "text":
        if set(map(type, col.values)) <= {str}:       # in C: each cell is its value already
            return list(col.values)
        return ["" if v is None else str(v) for v in col.values]
    return [_cell(v) for v in col.values]


def _json_cells(col: Column) -> list[str]:
    if col.kind == "float":
        # round(x, 6) is the double nearest the 6-decimal text (CPython rounds through it),
        # and + 0.0 turns -0.0 into 0.0, which the CSV text already did.
        return ["null" if s == "" else repr(float(s)) for s in _float_text(col.values)]
    if col.kind == "int":
        return _int_text(col.values, "null")
    encode = json.JSONEncoder(ensure_ascii=False).encode
    if col.kind == "text":
        memo = {v: encode(v) for v in set(col.values)}      # names repeat: each encoded once
        return [memo[v] for v in col.values]
    return [encode(_json_value(v)) for v in col.values]


# Rows formatted at once: every cell of a million-match league's changes.csv as a string at
# once (twenty million) took 1.6 GB in the process writing the data files.
CSV_ROWS = 1 << 16


def table_csv(table: ColumnTable) -> str:
    """The table as ledger.to_csv writes it."""
    return b"".join(table_csv_parts(table)).decode("utf-8")


def table_csv_parts(table: ColumnTable, *, header: bool = True) -> Iterator[bytes]:
    """``table_csv``'s UTF-8 bytes ``CSV_ROWS`` rows at a time, for a writer to stream: a
    million-match league's changes.csv (200 MB) is never held whole. ``header=False``: the
    rows alone (the rows that follow a file already written)."""
    for lo in range(0, max(len(table), 1), CSV_ROWS):
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        if not lo and header:
            writer.writerow(table.header)
        if len(table):
            cells = [_csv_cells(Column(c.name, c.kind, c.values[lo:lo + CSV_ROWS])) for c in table.columns]
            if _plain(cells, table.columns):
                buf.write("\n".join(map(",".join, zip(*cells))))
                buf.write("\n")
            else:
                writer.writerows(zip(*cells))
        yield buf.getvalue().encode("utf-8")


# What makes the csv module quote a cell: the cells of a run without any (nor a NUL, which it
# may refuse) are joined as they are, the csv module's text at a third of its time.
_QUOTED = (",", '"', "\r", "\n")


def _plain(cells: list[list[str]], columns: Sequence[Column]) -> bool:
    """Whether the csv module writes every row of ``cells`` as its cells joined by commas: two
    cells a row or more (a lone empty cell is quoted), and no text cell holding a comma,
    quote or line end (numbers never do)."""
    if len(cells) < 2:
        return False
    for column, texts in zip(columns, cells):
        if column.kind in ("text", "any"):
            joined = "\0".join(texts)
            if joined.count("\0") != len(texts) - 1 or any(c in joined for c in _QUOTED):
                return False
    return True


def table_csv_rows(table: ColumnTable) -> list[str]:
    """Each row of ``table_csv`` after the header, without its line end: the same text, row by
    row (one writer per row: a quoted cell may hold a line break, so the whole is not split)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    lines = []
    for row in zip(*(_csv_cells(c) for c in table.columns)):
        buf.seek(0)
        buf.truncate()
        writer.writerow(row)
        lines.append(buf.getvalue()[:-1])
    return lines


def table_json(table: ColumnTable) -> str:
    """The table as ledger.to_json writes it: json.dumps(objects, indent=1), one level deeper
    inside the list. Each object is one %-template filled with its row's JSON cells."""
    if not len(table):
        return "[]\n"
    fields = ",\n".join(f"  {json.dumps(name, ensure_ascii=False)}: %s".replace("%s", "\0")
                        .replace("%", "%%").replace("\0", "%s") for name in table.header)
    template = " {\n" + fields + "\n }"
    rows = zip(*(_json_cells(c) for c in table.columns))
    return "[\n" + ",\n".join(template % row for row in rows) + "\n]\n"


# --- Parquet --------------------------------------------------------------------------------

PARQUET_COMPRESSION = "zstd"


def to_parquet(frame: pd.DataFrame) -> bytes:
    """The frame as Parquet: typed columns, no index, fixed compression.

    The bytes depend only on the frame and the pyarrow and pandas versions: Parquet's
    footer holds no time, and ``created_by`` names the writer's version only.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    buf = io.BytesIO()
    pq.write_table(table, buf, compression=PARQUET_COMPRESSION, use_dictionary=True,
                   write_statistics=True)
    return buf.getvalue()


# --- the three tables every league writes ---------------------------------------------------

def _texts(values: Any) -> list[str | None]:
    """A pandas text column as Python values: str, None where missing."""
    import pandas as pd
    series = pd.Series(values, copy=False)
    return series.astype(object).where(series.notna(), None).tolist()


def changes_columns(rated: RatedLeague, start: int = 0) -> ColumnTable:
    """changes.csv (docs/auditors) from the ledger frame; its rows from ``start`` on."""
    import pandas as pd
    system = rated.league.config.system
    events = rated.events
    if start and isinstance(events, EventTable) and LEDGER not in rated.cache:
        frame = _columns_frame(events, ledger_terms(system), start)      # the rows that follow alone
    else:
        frame = ledger_frame(rated).iloc[start:]
    order = frame["order"].to_numpy()
    # ledger.iso per event, then spread: a period's rows share its time. Only the events of
    # these rows: the rows that follow a published file are a few of a million events.
    first = int(order[0]) if len(order) else 0          # rows are in history order
    times = event_times(rated.events)[first:int(order[-1]) + 1 if len(order) else 0]
    played = np.array([iso(t) for t in times], dtype=object)[order - first].tolist()
    rating = "int" if system.integer_ratings else "float"
    cols = [Column("event", "text", _texts(frame["event"])), Column("played", "text", played),
            Column("player", "text", _texts(frame["player"]))]
    cols += [Column(name, rating, frame[name].to_numpy()) for name in RATING_COLUMNS]
    for name in ledger_terms(system):
        values = frame[name]
        kind = ("float" if values.dtype.kind == "f" else "text" if isinstance(values.dtype, pd.StringDtype)
                else "any")
        cols.append(Column(name, kind, values.to_numpy() if kind != "text" else _texts(values)))
    return ColumnTable(tuple(cols))


def standings_columns(rated: RatedLeague) -> ColumnTable:
    system = rated.league.config.system
    rows = [r.standing for r in rated.standings]
    cols = [column_of("rank", [r.rank for r in rated.standings]),
            Column("player", "text", [s.player for s in rows]),
            column_of("rating", [_rating(system, s.rating) for s in rows]),
            column_of("games", [s.games for s in rows])]
    cols += [column_of(t, [s.extra.get(t) for s in rows]) for t in system.standing_terms]
    return ColumnTable(tuple(cols))


def matches_columns(rated: RatedLeague, provenance=None, start: int = 0) -> ColumnTable:
    """``commit``: the commit that last changed the match's file, empty where none holds its
    content. The rows from ``start`` on."""
    from sitegen.load.provenance import Provenance
    prov = provenance or Provenance()
    # The rows' fields as columns (rating/matchcolumns.py): a rebuild's kept matches are not made.
    matches = rated.league.matches[start:] if start else rated.league.matches
    files = match_column(matches, "file")
    commits = {f: prov.commit_of(f) for f in set(files)}    # one look-up per file
    return ColumnTable((
        Column("match_id", "text", match_column(matches, "id")),
        Column("played", "text", list(map(iso, match_column(matches, "played")))),
        Column("file", "text", files),
        Column("commit", "text", [None if (c := commits[f]) is None else c.sha for f in files])))


def parquet_frames(rated: RatedLeague, matches: ColumnTable,
                   tables: Collection[str] = ("standings", "changes", "matches")) -> dict[str, pd.DataFrame]:
    """changes, standings and matches as typed frames: the CSV's columns and values at full
    precision, ``played`` as datetime64[us, UTC], ratings as float64 (a lunaro rating whole,
    as the CSV writes it), names as strings, an empty field as null. Only ``tables`` are built:
    a million matches' frames are copies of hundreds of megabytes."""
    import pandas as pd
    system = rated.league.config.system
    out: dict[str, pd.DataFrame] = {}
    if "standings" in tables:
        rows = [r.standing for r in rated.standings]
        ratings = np.array([s.rating for s in rows], dtype=np.float64)
        out["standings"] = pd.DataFrame({
            "rank": np.array([r.rank for r in rated.standings], dtype=np.int64),
            "player": pd.array([s.player for s in rows], dtype="string"),
            "rating": np.trunc(ratings) if system.integer_ratings else ratings,
            "games": np.array([s.games for s in rows], dtype=np.int64),
            **{t: np.array([s.extra.get(t) for s in rows], dtype=np.float64) for t in system.standing_terms}})
    if "changes" in tables:
        changes = ledger_frame(rated).drop(columns="order")
        if system.integer_ratings:
            changes = changes.assign(**{c: np.trunc(changes[c].to_numpy()) for c in RATING_COLUMNS})
        out["changes"] = changes
    if "matches" in tables:
        by_name = {c.name: c.values for c in matches.columns}
        out["matches"] = pd.DataFrame({
            "match_id": pd.array(by_name["match_id"], dtype="string"),
            "played": utc_times(match_column(rated.league.matches, "played")),
            "file": pd.array(by_name["file"], dtype="string"),
            "commit": pd.array(by_name["commit"], dtype="string")})
    return out
