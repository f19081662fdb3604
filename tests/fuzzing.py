"""A seeded mutator of match files and league.toml, and a runner that feeds its cases to the CLI.

Every case is a small site: one league of the seed corpus (tests/fuzz_corpus, copied from the
demo's matches/: a league.toml and one or two match files for each rating system) and the
demo's players.toml, with one to four mutations applied. A case is fully determined by
``(seed, index)``: ``make_case(seed, index)`` rebuilds it byte for byte, so a failure is
reproduced from those two numbers (``scripts/fuzz.py --seed S --case I``) or from the folder
its input was saved to (``scripts/fuzz.py --replay DIR``).

The runner calls ``sitegen.commands.cli.main(["check", ...])`` in-process (and ``build`` for some of the
cases the check accepts). A case fails when main raises (anything but SystemExit 0/1/2), returns
an exit code other than 0 or 1 (3 is the contract's internal error, a bug), prints a traceback,
or runs past the case's time limit (a hang). Used by tests/test_fuzz.py (``make test``) and
scripts/fuzz.py (``make fuzz``).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import signal
import threading
import time
import traceback
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from random import Random
from typing import Callable, Iterable

CORPUS = Path(__file__).resolve().parent / "fuzz_corpus"
PLAYERS = "matches/players.toml"
DIR = None                      # a value of Case.files: a folder instead of a file

# --- the corpus ------------------------------------------------------------------------------


def load_corpus(corpus: Path = CORPUS) -> dict[str, dict[str, bytes]]:
    """league slug -> {path relative to the site root: bytes}, players.toml included in each."""
    matches = corpus / "matches"
    players = (matches / "players.toml").read_bytes() if (matches / "players.toml").is_file() else None
    leagues: dict[str, dict[str, bytes]] = {}
    for folder in sorted(p for p in matches.iterdir() if p.is_dir()):
        files = {p.relative_to(corpus).as_posix(): p.read_bytes()
                 for p in sorted(folder.rglob("*.toml")) if p.is_file()}
        if players is not None:
            files[PLAYERS] = players
        leagues[folder.name] = files
    return leagues


_CORPUS_CACHE: dict[str, dict[str, bytes]] | None = None


def corpus() -> dict[str, dict[str, bytes]]:
    global _CORPUS_CACHE
    if _CORPUS_CACHE is None:
        _CORPUS_CACHE = load_corpus()
    return _CORPUS_CACHE


# --- sizes: the quick test keeps every case small; the long run goes big ------------------------

@dataclass(frozen=True)
class Profile:
    name: str
    max_players: int        # players in one match ("many players")
    max_text: int           # characters of one long name or description
    max_copies: int         # copies of one [[match]] table
    max_depth: int          # nesting of arrays / inline tables
    max_file: int           # bytes a file may grow to by copying its matches


PROFILES = {
    "quick": Profile("quick", max_players=300, max_text=20_000, max_copies=40, max_depth=1_500, max_file=300_000),
    # A build of a 1,000-player lobby takes 10-30 s (every player's head to head with every other).
    "long": Profile("long", max_players=1_000, max_text=1_000_000, max_copies=1_500, max_depth=5_000,
                    max_file=5_000_000),
}

# --- values ----------------------------------------------------------------------------------

INTS = ["0", "-0", "+0", "1", "-1", "2", "3", "7", "20", "100", "1_000", "-1_000_000",
        str(2**31 - 1), str(2**31), str(2**53 + 1), str(2**63 - 1), str(2**63), str(2**64),
        str(-2**63), str(-2**63 - 1), str(-2**64), "9" * 40, "-" + "9" * 40, "1" + "0" * 4000,
        "0x7fffffffffffffff", "0xffffffffffffffff", "0o777", "0b1010", "0xDEAD_BEEF"]
FLOATS = ["0.0", "-0.0", "0.5", "-0.5", "1.0", "1e308", "-1e308", "1.7976931348623157e308", "1e309",
          "-1e400", "1e-308", "-1e-308", "5e-324", "1e-400", "1e-300", "inf", "+inf", "-inf", "nan",
          "+nan", "-nan", "0.1", "3.14159", "1e15", "123456789012345678901234567890.5", "6.02e23",
          "1.0000000000000002", "0.96", "2e-16"]
BOOLS = ["true", "false"]
DATES = ["0001-01-01T00:00:00+01:00", "0001-01-01T00:00:00Z", "0001-01-01T00:00:00-23:59",
         "0001-01-01", "9999-12-31T23:59:59-01:00", "9999-12-31T23:59:59Z", "9999-12-31T23:59:59+23:59",
         "9999-12-31", "1970-01-01", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
         "2025-06-30T23:59:60Z", "2016-12-31T23:59:60+00:00", "2024-02-29T12:00:00Z", "2023-02-29T12:00:00Z",
         "2025-13-01T00:00:00Z", "2025-00-10T00:00:00Z", "2025-06-31T00:00:00Z", "2025-06-01T24:00:00Z",
         "2025-06-01T19:30:00", "2025-06-01 19:30:00+02:00", "2025-06-01T19:30:00.999999999+02:00",
         "2025-06-01T19:30:00+24:00", "2025-06-01T19:30:00-99:99", "19:30:00", "00:00:00.000001",
         "2025-06-01T19:30Z", "2025-6-1T19:30:00Z", "2038-01-19T03:14:08Z", "2106-02-07T06:28:16Z",
         "2262-04-11T23:47:17Z", "1677-09-21T00:12:43Z", "1900-01-01T00:00:00Z", "3000-01-01T00:00:00Z"]
STRINGS = [
    "", " ", "  padded  ", "\t", "a", "x" * 300,
    "\u202eevil\u202c", "abc\u202edef", "\u202a\u202b\u202d\u2066\u2067\u2068\u2069", "\u200b",
    "\u200d\u200c", "\ufeff", "\u00ad", "\u0000", "nul\u0000in", "\u0001\u0007\u001b[31mred\u001b[0m", "\u007f",
    "\u0085", "\u2028\u2029", "line\nbreak", "cr\rhere", "tab\there",
    "<script>alert(1)</script>", "<b>Bold</b> & \"Brash\"", "</title><img src=x onerror=alert(1)>",
    "{{ 7*7 }}", "{% raw %}", "${HOME}", "%s%n%x", "../../../etc/passwd", "..", ".", "/", "\\",
    "::error::injected", "::set-output name=x::y", "%0A::warning::x", "|table|cell|", "`code`",
    "[link](javascript:alert(1))", "# heading", "*" * 60, "_" * 60, "> " * 40, "<!--", "]]>", "&amp;",
    "\U0001f469\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466", "e" + "\u0301" * 200,
    "Z\u0338\u0322a\u0335l\u0334g\u0337o", "\u05e9\u05dc\u05d5\u05dd", "\u0627\u0644\u0633\u0644\u0627\u0645",
    "\u01c5", "\u0130stanbul", "stra\u00dfe", "STRASSE", "Zo\u00eb", "Zoe\u0308", "\uff21\uff22",
    "\U0010ffff", "\ufffd", "\ufffe", "null", "None", "NaN", "true", "0", "-1", "1e308",
    "Zugzwang", "Zugzwang ", " Zugzwang", "zugzwang", "Zugzwang\u200b",
]
SYSTEM_NAMES = ["lunaro", "elo", "placement", "glicko2", "arena", "Elo", "ELO", "", "glicko", "trueskill",
                " elo", "elo\u0000", "spec", "../elo", "__init__", "base"]
# Keys of match files and league.toml (and of the systems' params), so that a key is
# replaced, deleted or added where the code looks for it.
KEYS = ["id", "played", "notes", "players", "name", "score", "goals", "ping", "host", "place", "teams",
        "won", "kills", "deaths", "assists", "betrayals", "score_to_win", "challenger", "platform",
        "region", "aliases", "system", "description", "params", "tiers", "k", "k_bands", "initial",
        "floor", "normalize", "tau", "period", "score_transform", "epsilon", "initial_rating",
        "initial_rd", "initial_volatility", "k_of", "provisional_games", "k_provisional",
        "k_standard", "k_master", "master_rating", "ping_influence", "assist_weight", "death_weight",
        "betrayal_weight", "loss_penalty"]
PERIODS = ['"week"', '"day"', '"match"', '"month"', '""', '"WEEK"', "7", '"P1W"', "0", '"week\\u0000"']
TIERS = ["[]", "[[]]", "[[0]]", '[[0, ""]]', '[[0, "A"], [0, "A"]]', '[["x", 0]]', '[[1e308, "Top"]]',
         '[[nan, "N"]]', '[[-inf, "Low"], [inf, "High"]]', '[[0, "A"], [-5, "B"]]', '"gold"', "{}",
         '[[0, "A", "extra"]]', '[[0, "<script>alert(1)</script>"]]', '[[0, "\\u202eA"]]',
         '[[0, "A"], [10, "a"]]', '[{ at = 0, name = "A" }]', '[[true, "B"]]', '[[1e-300, "Tiny"]]',
         '[[9223372036854775807, "Max"]]', "[[" + ", ".join(f'[{i}, "T{i}"]'[1:-1] for i in range(3)) + "]]"]
K_BANDS = ["[]", "[[0]]", "[[0, 0]]", "[[0, -1]]", "[[0, 1e308]]", "[[1e308, 1]]", "[[0, nan]]",
           "[[0, 32], [0, 16]]", "[[100, 32], [0, 16]]", '[["a", 1]]', "[[0, 32, 1]]", "[0, 32]",
           "[[-inf, 1], [inf, 2]]"]

BOM = b"\xef\xbb\xbf"
INVALID_UTF8 = [b"\xff", b"\xfe", b"\x80", b"\xc0\xaf", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98",
                b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xed\xa0\xbd\xed\xb8\x80", b"\xf4\x90\x80\x80",
                b"\xf8\x88\x80\x80\x80", b"\xc1\xbf", b"\xe0\x80\xaf", b"\xef\xbf\xbe"]
TOKENS = [b'"', b"'", b'"""', b"'''", b"[", b"]", b"[[", b"]]", b"{", b"}", b"=", b",", b".", b"#",
          b"\\", b"\\u", b"\\U0011ffff", b"\\uD800", b"\n", b"\r", b"\r\n", b"\t", b"\x00", b"\x0c",
          b"\x0b", b"\x1b", b"\x7f", b"[[match]]\n", b"[match]\n", b"[params]\n", b"[[match.teams]]\n",
          b"[players]\n", b'[players."x"]\n', b"players = []\n", b"a.b.c = 1\n", b"= 1\n", b"1 = 2\n",
          b"played = 2025-06-01T19:30:00Z\n", b'name = "x"\n', b"inf", b"nan", b"-", b"+", b"_", b"e",
          b":", b"T", b"Z", b"\xe2\x80\xae", b"\xe2\x80\x8b", BOM]


def toml_string(rng: Random, text: str) -> str:
    """``text`` as a TOML string: usually a basic string with escapes, sometimes raw (may be invalid)."""
    r = rng.random()
    if r < 0.7:
        out = []
        for ch in text:
            cp = ord(ch)
            if ch == '"':
                out.append('\\"')
            elif ch == "\\":
                out.append("\\\\")
            elif cp < 0x20 or cp == 0x7f:
                out.append(f"\\u{cp:04X}")
            else:
                out.append(ch)
        return '"' + "".join(out) + '"'
    if r < 0.85:
        return "'" + text + "'"                     # literal: fine unless it holds ' or a control
    return '"' + text + '"'                         # raw: controls and quotes as they are


def random_value(rng: Random, profile: Profile, depth: int = 0) -> str:
    """A TOML value of a random type, often an extreme one (the text of it, maybe not valid TOML)."""
    kind = rng.choices(["int", "float", "bool", "date", "string", "array", "table", "deep", "junk"],
                       [16, 16, 6, 12, 18, 10, 8, 3, 4])[0]
    if depth > 3 and kind in ("array", "table", "deep"):
        kind = "int"
    if kind == "int":
        return rng.choice(INTS) if rng.random() < 0.8 else str(rng.randint(-10**6, 10**6))
    if kind == "float":
        return rng.choice(FLOATS) if rng.random() < 0.8 else repr(rng.uniform(-1e6, 1e6))
    if kind == "bool":
        return rng.choice(BOOLS)
    if kind == "date":
        return rng.choice(DATES)
    if kind == "string":
        return toml_string(rng, rng.choice(STRINGS))
    if kind == "array":
        n = rng.choice([0, 1, 2, 3, 5])
        return "[" + ", ".join(random_value(rng, profile, depth + 1) for _ in range(n)) + "]"
    if kind == "table":
        n = rng.choice([0, 1, 2])
        items = [f"{rng.choice(KEYS)} = {random_value(rng, profile, depth + 1)}" for _ in range(n)]
        return "{ " + ", ".join(items) + " }" if items else "{}"
    if kind == "deep":
        return deep_value(rng, profile)
    return rng.choice(["", "=", "[", "{", "]", "}", '"', "'", "1 2", "a", "1.", ".5", "1e", "0x", "--1",
                       "1__0", "tru", "[1,,2]", "{a=1,}", "[1, 2", '"open'])


def deep_value(rng: Random, profile: Profile) -> str:
    n = rng.choice([30, 200, 999, 1_000, 1_001, profile.max_depth])
    shape = rng.choice(["array", "table", "mixed"])
    if shape == "array":
        return "[" * n + "1" + "]" * n
    if shape == "table":
        return "{ a = " * n + "1" + " }" * n
    return "[{ a = " * (n // 2) + "1" + " }]" * (n // 2)


# --- finding values in TOML text ----------------------------------------------------------------

_KEY = re.compile(r'(?m)(?:^[ \t]*|[{,][ \t]*)([A-Za-z0-9_-]+|"[^"\n]*")[ \t]*=[ \t]*')


def _value_end(text: str, i: int) -> int:
    """End of the TOML value starting at ``i`` (best effort: the text may be anything)."""
    n = len(text)
    if i >= n:
        return i
    for q in ('"""', "'''"):
        if text.startswith(q, i):
            j = text.find(q, i + 3)
            return n if j < 0 else j + 3
    c = text[i]
    if c in "\"'":
        j = i + 1
        while j < n and text[j] != c and text[j] != "\n":
            j += 2 if (c == '"' and text[j] == "\\") else 1
        return min(n, j + 1)
    if c in "[{":
        depth, j, quote = 0, i, None
        while j < n:
            ch = text[j]
            if quote:
                if ch == "\\" and quote == '"':
                    j += 1
                elif ch == quote or ch == "\n":
                    quote = None
            elif ch in "\"'":
                quote = ch
            elif ch in "[{":
                depth += 1
            elif ch in "]}":
                depth -= 1
                if depth == 0:
                    return j + 1
            elif ch == "#":
                k = text.find("\n", j)
                j = n if k < 0 else k
                continue
            j += 1
        return n
    j = i
    while j < n and text[j] not in ",}]\n#":
        j += 1
    while j > i and text[j - 1] in " \t\r":
        j -= 1
    return j


def values(text: str) -> list[tuple[str, int, int]]:
    """(key, start, end) of every ``key = value`` found, inline tables included."""
    out = []
    for m in _KEY.finditer(text):
        start = m.end()
        out.append((m.group(1).strip('"'), start, _value_end(text, start)))
    return out


def table_spans(text: str, header: str) -> list[tuple[int, int]]:
    """(start, end) of each ``[[header]]`` table: from its header to the next top-level header."""
    starts = [m.start() for m in re.finditer(r"(?m)^[ \t]*\[\[" + re.escape(header) + r"\]\][ \t]*\r?$", text)]
    out = []
    for s in starts:
        nxt = re.compile(r"(?m)^[ \t]*\[\[?(?!" + re.escape(header) + r"\.)[^\n]*$").search(text, s + 1)
        out.append((s, nxt.start() if nxt else len(text)))
    return out


# --- mutations -----------------------------------------------------------------------------------

Mutation = Callable[[Random, bytes, "Context"], bytes]


@dataclass
class Context:
    profile: Profile
    league: str
    path: str
    files: dict[str, bytes | None]     # the whole case, for splicing and file-level mutations


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _pos(rng: Random, data: bytes | str) -> int:
    return rng.randint(0, len(data))


def m_bit_flip(rng: Random, data: bytes, ctx: Context) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    b = bytearray(data)
    for _ in range(rng.choice([1, 1, 1, 2, 4, 8])):
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    return bytes(b)


def m_byte_set(rng: Random, data: bytes, ctx: Context) -> bytes:
    if not data:
        return b"\x00"
    b = bytearray(data)
    i = rng.randrange(len(b))
    b[i] = rng.choice([0x00, 0xff, 0x80, 0x7f, 0x22, 0x27, 0x5b, 0x5d, 0x7b, 0x7d, 0x3d, 0x0a, 0x0d,
                       0x5c, 0x23, 0x2c, 0x2e, 0x20, 0x09, 0x30, 0x39, 0x2d, rng.randrange(256)])
    return bytes(b)


def m_insert(rng: Random, data: bytes, ctx: Context) -> bytes:
    i = _pos(rng, data)
    chunk = rng.choice(TOKENS) if rng.random() < 0.7 else bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return data[:i] + chunk * rng.choice([1, 1, 1, 2, 3, 50]) + data[i:]


def m_delete(rng: Random, data: bytes, ctx: Context) -> bytes:
    if not data:
        return data
    i = rng.randrange(len(data))
    n = rng.choice([1, 1, 2, 3, 8, 40, 200])
    return data[:i] + data[i + n:]


def m_truncate(rng: Random, data: bytes, ctx: Context) -> bytes:
    return data[:_pos(rng, data)]


def m_duplicate_span(rng: Random, data: bytes, ctx: Context) -> bytes:
    if not data:
        return data
    i = rng.randrange(len(data))
    span = data[i:i + rng.choice([1, 5, 20, 100, 400])]
    j = _pos(rng, data)
    return data[:j] + span + data[j:]


def m_splice(rng: Random, data: bytes, ctx: Context) -> bytes:
    """A piece of another file of the case (or of another league) pasted in."""
    pool = [v for v in ctx.files.values() if v] + [v for lg in corpus().values() for v in lg.values()]
    other = rng.choice(pool)
    i = rng.randrange(len(other) + 1)
    span = other[i:i + rng.choice([20, 100, 500, 2000])]
    j = _pos(rng, data)
    return data[:j] + span + data[j:]


def m_bom(rng: Random, data: bytes, ctx: Context) -> bytes:
    r = rng.random()
    if r < 0.5:
        return BOM + data
    if r < 0.65:
        return BOM + BOM + data
    if r < 0.8:
        i = _pos(rng, data)
        return data[:i] + BOM + data[i:]
    if r < 0.9:
        return b"\xff\xfe" + _text(data).encode("utf-16-le", "surrogatepass")
    return b"\xfe\xff" + _text(data).encode("utf-16-be", "surrogatepass")


def m_line_ends(rng: Random, data: bytes, ctx: Context) -> bytes:
    r = rng.random()
    if r < 0.5:
        return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    if r < 0.7:
        return data.replace(b"\n", b"\r")
    if r < 0.85:                                    # mixed
        lines = data.split(b"\n")
        return b"".join(line + rng.choice([b"\n", b"\r\n", b"\r\n", b"\r"]) for line in lines)
    return data.replace(b"\n", rng.choice([b"\n\x0c", b"\n\x0b", b" \t\n", b"\r\r\n", b"\xe2\x80\xa8"]))


def m_invalid_utf8(rng: Random, data: bytes, ctx: Context) -> bytes:
    # Inside a string value when there is one (reading a name), else anywhere.
    found = [m.start() + 1 for m in re.finditer(rb'"[^"\n]', data)]
    i = rng.choice(found) if found and rng.random() < 0.7 else _pos(rng, data)
    return data[:i] + rng.choice(INVALID_UTF8) + data[i:]


def m_lines(rng: Random, data: bytes, ctx: Context) -> bytes:
    lines = data.split(b"\n")
    if len(lines) < 2:
        return data
    i = rng.randrange(len(lines))
    r = rng.random()
    if r < 0.35:
        del lines[i]
    elif r < 0.65:
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
    elif r < 0.85:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:
        lines[i] = b"  " * rng.randint(1, 40) + lines[i] + b" # " + rng.choice(TOKENS)
    return b"\n".join(lines)


def m_replace_value(rng: Random, data: bytes, ctx: Context) -> bytes:
    """A value replaced by a value of another type, an extreme number, a date at the edges, ..."""
    text = _text(data)
    found = values(text)
    if not found:
        return m_insert(rng, data, ctx)
    key, s, e = rng.choice(found)
    if key == "played" and rng.random() < 0.7:
        new = rng.choice(DATES)
    elif key in ("name", "challenger", "id", "notes") and rng.random() < 0.6:
        new = toml_string(rng, weird_text(rng, ctx.profile))
    elif key == "period" and rng.random() < 0.6:
        new = rng.choice(PERIODS)
    elif key == "tiers" and rng.random() < 0.6:
        new = rng.choice(TIERS)
    elif key == "k_bands" and rng.random() < 0.6:
        new = rng.choice(K_BANDS)
    elif key == "system" and rng.random() < 0.6:
        new = toml_string(rng, rng.choice(SYSTEM_NAMES))
    else:
        new = random_value(rng, ctx.profile)
    return _bytes(text[:s] + new + text[e:])


def m_delete_key(rng: Random, data: bytes, ctx: Context) -> bytes:
    text = _text(data)
    keys = list(_KEY.finditer(text))
    if not keys:
        return m_delete(rng, data, ctx)
    m = rng.choice(keys)
    start = m.start(1)
    end = _value_end(text, m.end())
    if end < len(text) and text[end] == ",":
        end += 1
    return _bytes(text[:start] + text[end:])


def m_add_key(rng: Random, data: bytes, ctx: Context) -> bytes:
    """An unknown or misplaced key: after a table header or inside an inline table, or a dotted key."""
    text = _text(data)
    key = rng.choice(KEYS + ["bogus", "Name", "name ", "unknown_key", "x" * 200, "players.0", "a.b",
                             '"quoted key"', '""', '"\\u202e"', "1234"])
    value = random_value(rng, ctx.profile)
    spots = [m.end() for m in re.finditer(r"(?m)^\[[^\n]*\]\r?\n", text)] \
        + [m.end() for m in re.finditer(r"\{ ?", text)]
    if not spots or rng.random() < 0.15:
        return _bytes(f"{key} = {value}\n" + text)
    i = rng.choice(spots)
    inline = i > 0 and text[i - 1] in "{ " and text[:i].rstrip().endswith("{")
    piece = f"{key} = {value}, " if inline else f"{key} = {value}\n"
    return _bytes(text[:i] + piece + text[i:])


def m_tables(rng: Random, data: bytes, ctx: Context) -> bytes:
    """[[match]] tables duplicated (the same match twice, or many times), deleted or moved."""
    text = _text(data)
    spans = table_spans(text, "match")
    if not spans:
        return _bytes(text + rng.choice(["\n[[match]]\n", "\n[match]\nid = 1\n", "\n[[match]]\n[[match]]\n",
                                         "\n[[match.teams]]\n", "\n[[match]]\nplayers = []\n"]))
    s, e = rng.choice(spans)
    block = text[s:e]
    r = rng.random()
    room = max(1, ctx.profile.max_file // max(1, len(block)))
    if r < 0.45:
        copies = min(room, rng.choice([1, 1, 2, 5, ctx.profile.max_copies]))
        block_n = block if block.endswith("\n") else block + "\n"
        return _bytes(text[:e] + block_n * copies + text[e:])
    if r < 0.6:
        return _bytes(text[:s] + text[e:])
    if r < 0.75:                                   # copies with fresh ids: many distinct matches
        copies = min(room, rng.choice([2, 10, ctx.profile.max_copies]))
        out = []
        for n in range(copies):
            b = re.sub(r'(?m)^id = "([^"\n]*)"', lambda m: f'id = "{m.group(1)}-{n}"', block)
            out.append(b if b.endswith("\n") else b + "\n")
        return _bytes(text[:e] + "".join(out) + text[e:])
    if r < 0.9:
        header = rng.choice(["[match]", "[[match]]", "[[ match ]]", "[[match.players]]", "[[match.teams]]",
                             "[match.teams]", "[params]", "[[params]]", "[players]", "[tiers]", "[[Match]]"])
        return _bytes(text[:s] + header + "\n" + text[s:])
    return _bytes(block + text[:s] + text[e:])


def m_many_players(rng: Random, data: bytes, ctx: Context) -> bytes:
    """One players list replaced by a long one, entries shaped like the file's own."""
    text = _text(data)
    found = [(s, e) for key, s, e in values(text) if key == "players" and text[s:s + 1] == "["]
    if not found:
        return m_replace_value(rng, data, ctx)
    s, e = rng.choice(found)
    entry = re.search(r"\{[^{}]*\}", text[s:e])
    template = entry.group(0) if entry else '{ name = "P" }'
    n = rng.choice([3, 17, 100, ctx.profile.max_players])
    same = rng.random() < 0.15                     # everyone under one name
    entries = []
    for i in range(n):
        t = re.sub(r'name = "[^"\n]*"', f'name = "{"Same" if same else f"Player {i}"}"', template)
        t = re.sub(r"place = \d+", f"place = {i + 1 if rng.random() < 0.9 else 1}", t)
        t = re.sub(r"(score|goals|kills) = \d+", lambda m: f"{m.group(1)} = {rng.randint(0, 60)}", t)
        entries.append(t)
    return _bytes(text[:s] + "[\n  " + ",\n  ".join(entries) + ",\n]" + text[e:])


def weird_text(rng: Random, profile: Profile) -> str:
    r = rng.random()
    if r < 0.55:
        return rng.choice(STRINGS)
    if r < 0.75:
        return "".join(rng.choice(STRINGS) for _ in range(rng.randint(2, 5)))
    if r < 0.9:
        n = rng.choice([256, 1_000, 10_000, profile.max_text])
        return (rng.choice(["x", "W", "\u202e", "\u00e9", "\U0001f600", "<b>", "ab "]) * n)[:n]
    return "".join(chr(rng.choice([rng.randrange(0x20), rng.randrange(0x80, 0x800),
                                   rng.randrange(0x2000, 0x2070), rng.randrange(0x10000, 0x10ffff)]))
                   for _ in range(rng.randint(1, 30)))


def m_names(rng: Random, data: bytes, ctx: Context) -> bytes:
    """A player's name (or a players.toml heading) made odd: controls, bidi, markup, long, a twin."""
    text = _text(data)
    spans = [(s, e) for key, s, e in values(text) if key in ("name", "challenger")]
    spans += [(m.start(1), m.end(1)) for m in re.finditer(r'(?m)^\[players\.("[^"\n]*")\]', text)]
    if not spans:
        return m_replace_value(rng, data, ctx)
    s, e = rng.choice(spans)
    r = rng.random()
    if r < 0.15:                                  # another player's name in its place (a twin)
        other = rng.choice(spans)
        new = text[other[0]:other[1]]
    elif r < 0.25:                                # same name, other case or normal form
        old = text[s:e].strip('"')
        new = toml_string(rng, rng.choice([old.upper(), old.lower(), old + " ", " " + old,
                                           old.replace("\u00eb", "e\u0308"), old + "\u200b"]))
    else:
        new = toml_string(rng, weird_text(rng, ctx.profile))
    return _bytes(text[:s] + new + text[e:])


def m_league(rng: Random, data: bytes, ctx: Context) -> bytes:
    """league.toml: a parameter of this or another system set to an extreme, odd tiers, system, text."""
    text = _text(data)
    r = rng.random()
    if r < 0.45:
        key = rng.choice(_param_names(rng))
        value = rng.choice([rng.choice(FLOATS), rng.choice(INTS), rng.choice(PERIODS), rng.choice(K_BANDS),
                            random_value(rng, ctx.profile)])
        if key in ("k", "initial", "floor", "initial_rating", "initial_rd", "initial_volatility", "tau",
                   "epsilon", "ping_influence", "loss_penalty", "master_rating") and rng.random() < 0.5:
            value = rng.choice(["1e308", "-1e308", "1e-300", "5e-324", "0", "-1", "1e15", "0.0", "1e300",
                                "9223372036854775807", "-9223372036854775808", "1e-15", "100000"])
        line = f"{key} = {value}\n"
        if "[params]" in text and rng.random() < 0.85:
            i = text.index("[params]") + len("[params]\n")
            return _bytes(text[:i] + line + _drop_key(text[i:], key))
        return _bytes(text + "\n[params]\n" + line)
    if r < 0.65:
        tiers = rng.choice(TIERS) if rng.random() < 0.7 else _many_tiers(rng)
        body = re.sub(r"(?m)^tiers = .*\n", "", text)
        cut = body.find("[params]")
        cut = len(body) if cut < 0 else cut
        return _bytes(body[:cut] + f"tiers = {tiers}\n" + body[cut:])
    if r < 0.8:
        system = rng.choice(SYSTEM_NAMES) if rng.random() < 0.7 else rng.choice(STRINGS)
        return _bytes(re.sub(r'(?m)^system = "[^"\n]*"', lambda m: f"system = {toml_string(rng, system)}", text))
    key = rng.choice(["name", "description"])
    big = rng.choice([1_000, 5_000, ctx.profile.max_text])
    body = rng.choice([weird_text(rng, ctx.profile), "> " * rng.choice([50, 1_000, 5_000]) + "deep",
                       "- " * 1_000 + "list", "[" * big, "*" * big, "<div>" * (big // 5), "`" * big,
                       "$$\\frac{1}{0}$$ $x^{" * 300, "```\n" * 500, "| a |\n|---|\n" * 500,
                       "&#0; &#xD800; &#1114112; &bogus;", "<script>alert(1)</script><style>*{}</style>",
                       "![x](javascript:alert(1)) [y](data:text/html,<b>)"])
    new = toml_string(rng, body)
    found = [(s, e) for k, s, e in values(text) if k == key]
    if found:
        s, e = found[0]
        return _bytes(text[:s] + new + text[e:])
    return _bytes(f"{key} = {new}\n" + text)


def _param_names(rng: Random) -> list[str]:
    names = ["k", "k_bands", "initial", "floor", "normalize", "tau", "period", "score_transform", "epsilon",
             "initial_rating", "initial_rd", "initial_volatility", "k_of", "provisional_games",
             "k_provisional", "k_standard", "k_master", "master_rating", "ping_influence", "assist_weight",
             "death_weight", "betrayal_weight", "loss_penalty"]
    try:
        from sitegen.rating import SYSTEMS
        names += [p.name for cls in SYSTEMS.values() for p in cls.params]
    except Exception:           # the fuzzer does not depend on the registry's shape
        pass
    return sorted(set(names))


def _drop_key(text: str, key: str) -> str:
    return re.sub(r"(?m)^" + re.escape(key) + r"[ \t]*=.*\n", "", text, count=1)


def _many_tiers(rng: Random) -> str:
    n = rng.choice([30, 1_000])
    return "[" + ", ".join(f'[{rng.choice([i, i * 1e300, -i])}, "T{i}"]' for i in range(n)) + "]"


def m_deep(rng: Random, data: bytes, ctx: Context) -> bytes:
    """A value replaced by deeply nested arrays or inline tables."""
    text = _text(data)
    found = values(text)
    deep = deep_value(rng, ctx.profile)
    if not found or rng.random() < 0.2:
        return _bytes(f"deep = {deep}\n" + text)
    _, s, e = rng.choice(found)
    return _bytes(text[:s] + deep + text[e:])


MUTATIONS: dict[str, tuple[Mutation, int]] = {
    "bit_flip": (m_bit_flip, 10),
    "byte_set": (m_byte_set, 8),
    "insert": (m_insert, 8),
    "delete": (m_delete, 6),
    "truncate": (m_truncate, 5),
    "duplicate_span": (m_duplicate_span, 3),
    "splice": (m_splice, 3),
    "bom": (m_bom, 3),
    "line_ends": (m_line_ends, 3),
    "invalid_utf8": (m_invalid_utf8, 3),
    "lines": (m_lines, 4),
    "replace_value": (m_replace_value, 22),
    "delete_key": (m_delete_key, 6),
    "add_key": (m_add_key, 5),
    "tables": (m_tables, 5),
    "many_players": (m_many_players, 3),
    "names": (m_names, 10),
    "league": (m_league, 0),       # drawn for league.toml only (see _mutate_file)
    "deep": (m_deep, 2),
}
FILE_MUTATIONS = ("rename", "remove", "empty", "folder", "stray", "league_dir")


def _mutate_file(rng: Random, ctx: Context, data: bytes) -> tuple[str, bytes]:
    if ctx.path.endswith("/league.toml") and rng.random() < 0.5:
        return "league", m_league(rng, data, ctx)
    names = [n for n, (_, w) in MUTATIONS.items() if w]
    name = rng.choices(names, [MUTATIONS[n][1] for n in names])[0]
    return name, MUTATIONS[name][0](rng, data, ctx)


def _mutate_tree(rng: Random, files: dict[str, bytes | None], league: str) -> str:
    """A change to the files themselves: an odd file or folder name, a file gone, a folder in its place."""
    kind = rng.choice(FILE_MUTATIONS)
    match_files = [p for p, v in files.items() if v is not None and p.endswith(".toml")
                   and not p.endswith("/league.toml") and p != PLAYERS]
    if kind == "rename" and match_files:
        old = rng.choice(match_files)
        base = rng.choice(["a b.toml", "\u202eevil.toml", "\u00e9t\u00e9.toml", "Zo\u00eb.toml", "x.TOML",
                           "x.toml.txt", ".hidden.toml", "-dash.toml", "x" * 240 + ".toml", "new\nline.toml",
                           "tab\t.toml", "<b>.toml", "::error::x.toml", "%0A.toml", "  .toml", "\u200b.toml"])
        new = old.rsplit("/", 1)[0] + "/" + base
        files[new] = files.pop(old)
    elif kind == "remove":
        victim = rng.choice([p for p, v in files.items() if v is not None])
        del files[victim]
    elif kind == "empty":
        files[rng.choice([p for p, v in files.items() if v is not None])] = b""
    elif kind == "folder":                          # a folder where a file is expected
        path = rng.choice([f"matches/{league}/league.toml", PLAYERS, f"matches/{league}/dir.toml"])
        for p in [p for p in files if p == path or p.startswith(path + "/")]:
            del files[p]
        files[path] = DIR
    elif kind == "stray":
        path = rng.choice(["matches/stray.toml", "matches/x.TOML", f"matches/{league}/a/b/c/d/e/f/g/h.toml",
                           f"matches/{league}/.git/x.toml", "matches/Bad League/league.toml",
                           "matches/\u00e9/league.toml", "matches/-x/league.toml", "matches/empty/.keep",
                           f"matches/{league}-2/2025.toml"])
        files[path] = rng.choice(list(corpus()[league].values()))
    elif kind == "league_dir":
        new = rng.choice(["Upper", "\u00e9t\u00e9", "a b", "-lead", "x" * 200, "\u202eevil", "lunaro", "_x"])
        for p in [p for p in files if p.startswith(f"matches/{league}/")]:
            files[p.replace(f"matches/{league}/", f"matches/{new}/", 1)] = files.pop(p)
    return "file:" + kind


@dataclass
class Case:
    seed: int
    index: int
    league: str
    files: dict[str, bytes | None]
    mutations: list[str]            # "path: mutation" in the order applied
    profile: str = "quick"

    @property
    def label(self) -> str:
        return f"seed {self.seed} case {self.index}"


def make_case(seed: int, index: int, profile: str | Profile = "quick") -> Case:
    """The case ``index`` of the stream ``seed``: the same bytes on every run and machine."""
    prof = PROFILES[profile] if isinstance(profile, str) else profile
    rng = Random(f"sitegen-fuzz:{seed}:{index}")
    leagues = sorted(corpus())
    league = leagues[index % len(leagues)]
    files: dict[str, bytes | None] = dict(corpus()[league])
    done: list[str] = []
    for _ in range(rng.choices([1, 2, 3, 4], [50, 28, 14, 8])[0]):
        if rng.random() < 0.04:
            done.append(_mutate_tree(rng, files, league))
            continue
        paths = [p for p, v in files.items() if v is not None]
        if not paths:
            break
        weights = [3 if p.endswith("/league.toml") else 1 if p == PLAYERS else 6 for p in paths]
        path = rng.choices(paths, weights)[0]
        ctx = Context(prof, league, path, files)
        name, files[path] = _mutate_file(rng, ctx, files[path] or b"")
        done.append(f"{path}: {name}")
    return Case(seed, index, league, files, done, prof.name)


# --- running a case ---------------------------------------------------------------------------

class CaseTimeout(BaseException):
    """Raised by the alarm when a case runs past its time limit (a BaseException: no `except
    Exception` in the code under test can swallow it)."""


@contextlib.contextmanager
def time_limit(seconds: float | None):
    """CaseTimeout where the code is once it has used ``seconds`` of CPU time (SIGPROF), or four
    times that of wall-clock time (SIGALRM: a wait that uses no CPU). CPU time, so that a busy
    machine does not turn a slow case into a hang. Main thread only: elsewhere no limit."""
    if (not seconds or threading.current_thread() is not threading.main_thread()
            or not hasattr(signal, "setitimer")):
        yield
        return

    def cpu(signum, frame):
        raise CaseTimeout(f"still running after {seconds:g} s of CPU time")

    def wall(signum, frame):
        raise CaseTimeout(f"still running after {4 * seconds:g} s")

    old = signal.signal(signal.SIGPROF, cpu), signal.signal(signal.SIGALRM, wall)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, 4 * seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, old[0])
        signal.signal(signal.SIGALRM, old[1])


_TRACEBACK = re.compile(r'Traceback \(most recent call last\)|^\s*File ".*", line \d+', re.M)


@dataclass
class Outcome:
    command: str                    # "check" or "build"
    exit: int | None                # None when it raised or hung
    kind: str                       # "ok" | "crash" | "hang" | "exit" | "traceback"
    seconds: float
    signature: str = ""             # how failures are grouped: exception type and last frame
    where: str = ""                 # the deepest frame in sitegen/ (for a hang: where it was)
    detail: str = ""                # traceback or output
    stderr: str = ""                # the end of what it printed on stderr

    @property
    def failed(self) -> bool:
        return self.kind != "ok"


def _show(f: traceback.FrameSummary | None) -> str:
    if f is None:
        return "?"
    name = f.filename
    for marker in (f"{os.sep}sitegen{os.sep}", f"{os.sep}python3.", f"{os.sep}site-packages{os.sep}"):
        if marker in name:
            name = name[name.rindex(marker) + 1:]
            break
    return f"{name}:{f.lineno} in {f.name}"


def _frames_signature(exc: BaseException) -> tuple[str, str, str]:
    """(signature, deepest sitegen frame, traceback text) of an exception.

    The signature is the exception type and the last frame; for a RecursionError, whose last
    frame is wherever the stack happened to run out, the function that recursed and the frame
    that called it first.
    """
    tb = traceback.extract_tb(exc.__traceback__)
    last = tb[-1] if tb else None
    mine = [f for f in tb if f"{os.sep}sitegen{os.sep}" in f.filename]
    deepest = mine[-1] if mine else last
    text = "".join(traceback.format_exception(exc))
    if isinstance(exc, RecursionError):
        seen = [(f.filename, f.name) for f in tb]
        for i, key in enumerate(seen):
            if key in seen[i + 1:]:
                callers = [f for f in tb[:i] if f"{os.sep}sitegen{os.sep}" in f.filename] or tb[max(0, i - 1):i]
                caller = _show(callers[-1]) if callers else "?"
                where = _show(tb[i]).split(":")[0] + f" in {tb[i].name}"
                return f"RecursionError in {where}, entered from {caller}", caller, text
        return f"RecursionError via {_show(deepest)}", _show(deepest), text
    return f"{type(exc).__name__} at {_show(last)}", _show(deepest), text


@contextlib.contextmanager
def _quiet_env(github: Path | None):
    """GITHUB_* as on a runner (annotations and a job summary) or unset, restored afterwards."""
    names = ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE")
    saved = {n: os.environ.get(n) for n in names}
    for n in names:
        os.environ.pop(n, None)
    if github is not None:
        os.environ["GITHUB_ACTIONS"] = "true"
        os.environ["GITHUB_STEP_SUMMARY"] = str(github)
    try:
        yield
    finally:
        for n, v in saved.items():
            if v is None:
                os.environ.pop(n, None)
            else:
                os.environ[n] = v


def _streams() -> tuple[io.TextIOWrapper, io.TextIOWrapper]:
    # As a pipe's streams: UTF-8, strict on stdout and backslashreplace on stderr.
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", newline="\n", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace", newline="\n",
                           write_through=True)
    return out, err


def _read(stream: io.TextIOWrapper) -> str:
    stream.flush()
    return stream.buffer.getvalue().decode("utf-8", "replace")


def run_cli(argv: list[str], *, limit: float | None, github: Path | None = None) -> Outcome:
    """``sitegen.commands.cli.main(argv)`` in-process, judged by the exit-code contract."""
    from sitegen.commands import cli

    command = argv[0]
    out, err = _streams()
    t0 = time.perf_counter()
    code: int | None = None
    exc: BaseException | None = None
    with _quiet_env(github):
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), time_limit(limit):
                code = cli.main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
        except CaseTimeout as e:
            exc = e
        except BaseException as e:          # noqa: BLE001 - anything else is the bug we look for
            exc = e
    seconds = time.perf_counter() - t0
    stdout, stderr = _read(out), _read(err)
    if isinstance(exc, CaseTimeout):
        sig, where, text = _frames_signature(exc)
        module = where.split(":")[0]        # a hang stops anywhere in its loop: grouped by file
        return Outcome(command, None, "hang", seconds, f"hang in {command}, in {module}", where, text)
    if exc is not None:
        sig, where, text = _frames_signature(exc)
        return Outcome(command, None, "crash", seconds, sig, where, text)
    if code == 3:
        # The contract's internal error: find the exception behind it, bypassing main's wrapper.
        found = _unwrapped(argv, limit, github)
        if found is not None:
            return Outcome(command, 3, "exit", seconds, f"exit 3: {found.signature}", found.where, found.detail)
        return Outcome(command, 3, "exit", seconds, "exit 3", "", stderr[-4000:])
    if code not in (0, 1):
        return Outcome(command, code, "exit", seconds, f"exit {code}", "", stderr[-4000:])
    if _TRACEBACK.search(stdout) or _TRACEBACK.search(stderr):
        first = _TRACEBACK.search(stderr) or _TRACEBACK.search(stdout)
        return Outcome(command, code, "traceback", seconds, f"traceback printed (exit {code})", "",
                       (stderr + stdout)[max(0, first.start() - 200):][:4000])
    return Outcome(command, code, "ok", seconds, stderr=stderr[-1000:])


def _unwrapped(argv: list[str], limit: float | None, github: Path | None) -> Outcome | None:
    from sitegen.commands import cli

    out, err = _streams()
    with _quiet_env(github):
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), time_limit(limit):
                args = cli.parser().parse_args(argv)
                args.func(args)
        except CaseTimeout:
            return None
        except SystemExit:
            return None
        except BaseException as e:          # noqa: BLE001
            sig, where, text = _frames_signature(e)
            return Outcome(argv[0], None, "crash", 0.0, sig, where, text)
    return None


# Every check renders the built-in content pages (the spec pages' Markdown and Vega-Lite charts):
# about 200 ms whatever the matches, against about 7 ms for the rest of a check. The runner
# remembers the two pure functions behind that cost, in sitegen.output.content only, keyed on their
# exact arguments: a spec page whose parameter table a case changes is rendered again, and the
# curves do not depend on the input at all.
_MEMO: dict[tuple, object] = {}


@contextlib.contextmanager
def remembered_content():
    try:
        import sitegen.output.content as content
        originals = {"render_markdown": content.render_markdown, "chart_figure": content.chart_figure}
    except (ImportError, AttributeError):
        yield
        return

    def render_markdown(text, **kwargs):
        try:
            key = ("md", text, repr(sorted((k, sorted(v.items()) if isinstance(v, dict) else v)
                                           for k, v in kwargs.items())))
        except TypeError:
            return originals["render_markdown"](text, **kwargs)
        if key not in _MEMO:
            if len(_MEMO) > 512:
                _MEMO.clear()
            _MEMO[key] = originals["render_markdown"](text, **kwargs)
        return _MEMO[key]

    def chart_figure(curve):
        key = ("chart", repr(curve))
        if key not in _MEMO:
            _MEMO[key] = originals["chart_figure"](curve)
        return _MEMO[key]

    # The command line's parser, made once for each working folder (its --root defaults to it) and
    # not for each case: 2.7 ms of a check's 10 (argparse keeps no state from one parse to the next).
    from sitegen.commands import cli
    made_parser = cli.parser

    def parser():
        key = ("parser", os.getcwd())
        if key not in _MEMO:
            _MEMO[key] = made_parser()
        return _MEMO[key]

    content.render_markdown, content.chart_figure = render_markdown, chart_figure
    cli.parser = parser
    try:
        yield
    finally:
        content.render_markdown = originals["render_markdown"]
        content.chart_figure = originals["chart_figure"]
        cli.parser = made_parser


def write_site(root: Path, files: dict[str, bytes | None], written: dict[str, bytes | None] | None = None) -> None:
    """Make root/matches hold exactly the case's files.

    ``written`` is what the previous call left there (updated in place): a folder reused from
    case to case changes only what differs, which is several times faster than removing it.
    """
    matches = root / "matches"
    if written is None or not matches.is_dir():
        if matches.exists():
            shutil.rmtree(matches, onerror=_force_remove)
        written = {} if written is None else written
        written.clear()
    wanted_dirs = {"matches"}
    for rel, data in files.items():
        parts = rel.split("/")
        wanted_dirs.update("/".join(parts[:i]) for i in range(1, len(parts)))
        if data is DIR:
            wanted_dirs.add(rel)
    # Files of the previous case that this one has not (or has as a folder), then stale folders.
    for rel in sorted(set(written) - set(files) | {r for r in written if r in wanted_dirs}, reverse=True):
        path = root.joinpath(*rel.split("/"))
        if written.pop(rel) is DIR:
            if rel not in wanted_dirs:
                shutil.rmtree(path, onerror=_force_remove)
        else:
            with contextlib.suppress(OSError):
                path.unlink()
    for dirpath, dirnames, _ in os.walk(matches, topdown=False):
        rel = Path(dirpath).relative_to(root).as_posix()
        if rel not in wanted_dirs:
            shutil.rmtree(dirpath, onerror=_force_remove)
    root.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        if rel in written and written[rel] == data:
            continue
        path = root.joinpath(*rel.split("/"))
        try:
            if data is DIR:
                path.mkdir(parents=True, exist_ok=True)
            else:
                if path.is_dir():
                    shutil.rmtree(path, onerror=_force_remove)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            written[rel] = data
        except OSError:
            written.pop(rel, None)          # a name this file system refuses: the case goes without it


def _force_remove(func, path, exc_info):
    try:
        os.chmod(path, 0o700)
        func(path)
    except OSError:
        pass


@dataclass
class CaseResult:
    case: Case
    outcomes: list[Outcome]

    @property
    def failure(self) -> Outcome | None:
        return next((o for o in self.outcomes if o.failed), None)


class Runner:
    """Runs cases in reusable folders (one per league); ``limit`` CPU seconds for a check before it
    counts as a hang (a build gets six times as long: a 1,000-player lobby takes 10-30 s)."""

    def __init__(self, workdir: Path, *, limit: float | None = 10.0, save_dir: Path | None = None):
        self.workdir = Path(workdir)
        self.limit = limit
        self.save_dir = save_dir
        self._written: dict[str, dict[str, bytes | None]] = {}

    def run(self, case: Case, *, build: bool = False, github: bool = False) -> CaseResult:
        root = self.workdir / case.league
        write_site(root, case.files, self._written.setdefault(case.league, {}))
        summary = self.workdir / "summary.md" if github else None
        if summary is not None and summary.exists():
            summary.unlink()
        with remembered_content():
            outcomes = [run_cli(["check", "--root", str(root)], limit=self.limit, github=summary)]
            if build and outcomes[0].exit == 0:
                outcomes.append(run_cli(["build", "--root", str(root), "--out", str(self.workdir / "_site")],
                                        limit=self.limit and self.limit * 6, github=summary))
        result = CaseResult(case, outcomes)
        if result.failure is not None and self.save_dir is not None:
            save_case(self.save_dir / f"seed{case.seed}-case{case.index}", result)
        return result


def choose(seed: int, index: int, build_rate: float = 0.5) -> tuple[bool, bool]:
    """(build if the check passes, run as on a GitHub runner): fixed per case."""
    rng = Random(f"sitegen-fuzz-run:{seed}:{index}")
    return rng.random() < build_rate, rng.random() < 0.1


def save_case(folder: Path, result: CaseResult) -> Path:
    """The failing input (site/) and what went wrong (case.json), for --replay."""
    if folder.exists():
        shutil.rmtree(folder, onerror=_force_remove)
    write_site(folder / "site", result.case.files)
    failure = result.failure
    info = {
        "seed": result.case.seed, "index": result.case.index, "profile": result.case.profile,
        "league": result.case.league,
        "mutations": result.case.mutations,
        "commands": [o.command for o in result.outcomes],
        "failure": asdict(failure) if failure else None,
        "files": {p: ("<folder>" if v is None else len(v)) for p, v in result.case.files.items()},
    }
    (folder / "case.json").write_text(json.dumps(info, indent=2, ensure_ascii=False), encoding="utf-8")
    return folder


@dataclass
class Summary:
    cases: int = 0
    builds: int = 0
    seconds: float = 0.0
    failures: list[CaseResult] = field(default_factory=list)
    codes: Counter = field(default_factory=Counter)
    slowest: tuple[float, str] = (0.0, "")

    def add(self, result: CaseResult) -> None:
        self.cases += 1
        self.builds += sum(o.command == "build" for o in result.outcomes)
        for o in result.outcomes:
            self.codes[f"{o.command} {o.exit if o.exit is not None else o.kind}"] += 1
            if o.seconds > self.slowest[0]:
                self.slowest = (o.seconds, f"{o.command} of {result.case.label}")
        if result.failure is not None:
            self.failures.append(result)

    def groups(self) -> dict[str, list[CaseResult]]:
        out: dict[str, list[CaseResult]] = {}
        for r in self.failures:
            out.setdefault(r.failure.signature, []).append(r)
        return out

    def report(self, save_dir: Path | None = None, *, limit: int = 30) -> str:
        """The failures grouped by signature, most frequent first: one example of each to replay."""
        lines = [f"{self.cases} cases ({self.builds} builds), {len(self.failures)} failures, "
                 f"{self.seconds:.1f} s; exit codes: {codes_text(self.codes)}"]
        for sig, results in sorted(self.groups().items(), key=lambda kv: (-len(kv[1]), kv[0]))[:limit]:
            first = results[0]
            f = first.failure
            last = f.detail.strip().splitlines()[-1:] if f.detail.strip() else [""]
            lines.append(f"- {len(results)} x {sig}\n    {last[0][:300]}\n"
                         f"    e.g. {first.case.label}: {'; '.join(first.case.mutations)[:300]}\n"
                         f"    python scripts/fuzz.py --profile {first.case.profile} --seed {first.case.seed} "
                         f"--case {first.case.index}"
                         + (f"  |  --replay {save_dir}/seed{first.case.seed}-case{first.case.index}"
                            if save_dir else ""))
        return "\n".join(lines)


def codes_text(codes: Counter) -> str:
    return ", ".join(f"{k}: {v}" for k, v in sorted(codes.items()))


def run_range(seed: int, indices: Iterable[int], *, workdir: Path, profile: str = "quick",
              limit: float | None = 10.0, save_dir: Path | None = None, max_builds: int | None = None,
              max_failures: int | None = None, progress: Callable[[Summary], None] | None = None) -> Summary:
    """Run the cases ``indices`` of stream ``seed`` one after the other in this process."""
    runner = Runner(workdir, limit=limit, save_dir=save_dir)
    summary = Summary()
    t0 = time.perf_counter()
    for index in indices:
        case = make_case(seed, index, profile)
        build, github = choose(seed, index)
        if max_builds is not None and summary.builds >= max_builds:
            build = False
        summary.add(runner.run(case, build=build, github=github))
        summary.seconds = time.perf_counter() - t0
        if progress is not None:
            progress(summary)
        if max_failures is not None and len(summary.failures) >= max_failures:
            break
    return summary


# --- replay and minimise ------------------------------------------------------------------------

def read_saved(folder: Path) -> tuple[dict, dict[str, bytes | None]]:
    info = json.loads((folder / "case.json").read_text(encoding="utf-8")) if (folder / "case.json").is_file() else {}
    site = folder / "site" if (folder / "site").is_dir() else folder
    files: dict[str, bytes | None] = {}
    for p in sorted(site.rglob("*")):
        rel = p.relative_to(site).as_posix()
        if not rel.startswith("matches"):
            continue
        if p.is_file():
            files[rel] = p.read_bytes()
        elif p.is_dir() and not any(p.iterdir()):
            files[rel] = DIR
    return info, files


def minimise(files: dict[str, bytes | None], still_fails: Callable[[dict[str, bytes | None]], bool],
             *, budget: int = 600) -> dict[str, bytes | None]:
    """Smaller inputs that still fail the same way: files dropped, then lines, then characters."""
    calls = 0

    def test(candidate) -> bool:
        nonlocal calls
        calls += 1
        return still_fails(candidate)

    current = dict(files)
    for path in sorted(current):
        if calls >= budget:
            break
        trial = {p: v for p, v in current.items() if p != path}
        if trial and test(trial):
            current = trial
    for path in sorted(p for p, v in current.items() if v):
        for unit in ("line", "char"):
            data = current[path]
            parts = data.splitlines(keepends=True) if unit == "line" else [bytes([b]) for b in data]
            if unit == "char" and len(parts) > 2_000:
                continue
            chunk = max(1, len(parts) // 2)
            while chunk >= 1 and calls < budget:
                i, removed = 0, False
                while i < len(parts) and calls < budget:
                    trial_parts = parts[:i] + parts[i + chunk:]
                    trial = dict(current)
                    trial[path] = b"".join(trial_parts)
                    if test(trial):
                        parts, current, removed = trial_parts, trial, True
                    else:
                        i += chunk
                if not removed:
                    chunk //= 2
    return current
