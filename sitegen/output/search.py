"""The site-wide search index: one Pagefind record per player page and per match page.

Records come from the view models, not from re-reading the HTML, and are indexed
by Pagefind's own binary (the ``pagefind_bin`` wheel: nothing is downloaded)
through its Python API. The bundle lands in the output as ``pagefind/``, beside
the pages, so ``search/`` works offline from the static files and under any
sub-path: record URLs are site-relative and the search page resolves them
against its own root.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import hashlib
import json
import os
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from sitegen.model.views import LeagueView
from sitegen.output.render import fmt_date, fmt_rating
from sitegen.output.write import Output

LANGUAGE = "en"
FOLDER = "pagefind"
# Pagefind also writes its own UI bundles; the search page draws results itself
# (search.js), so only the search library, its worker and the index ship.
SHIPPED = ("pagefind.js", "pagefind-worker.js", "pagefind-entry.json")
SHIPPED_DIRS = ("fragment", "index", "filter")
# A match title names this many players; a lobby of 40 says "and 36 more".
TITLE_PLAYERS = 4
NOTES_SHOWN = 80
TIMEOUT = 600
REPLY_LIMIT = 1 << 31
IN_FLIGHT = 256


class SearchIndexError(RuntimeError):
    pass


@dataclass(frozen=True, slots=True)
class Record:
    url: str                           # site-relative: "leagues/duel/players/bo/"
    content: str                       # the words it is found by
    meta: dict[str, str]               # shown in a result: title, kind, league, detail
    filters: dict[str, list[str]]      # kind: player | match, league: the league's slug


@dataclass(slots=True)
class IndexStats:
    records: int = 0
    files: int = 0
    bytes: int = 0
    seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)


def player_records(lv: LeagueView) -> Iterable[Record]:
    decimals = 0 if lv.integer else 1
    league = lv.config.name
    for p in lv.leaderboard:
        rating = fmt_rating(p.rating, decimals)
        detail = f"Rank {p.rank} · rating {rating}" + (f" · {p.tier.name}" if p.tier else "")
        words = [p.name, *p.aliases, league, f"rank {p.rank}", f"rating {rating}",
                 p.tier.name if p.tier else "", p.platform or "", p.region or ""]
        yield Record(p.url, "\n".join(w for w in words if w),
                     {"title": p.name, "kind": "player", "league": league, "detail": detail},
                     {"kind": ["player"], "league": [lv.config.slug]})


def match_title(names: list[str]) -> str:
    if len(names) == 2:
        return f"{names[0]} vs {names[1]}"
    shown = ", ".join(names[:TITLE_PLAYERS])
    return shown + (f" and {len(names) - TITLE_PLAYERS} more" if len(names) > TITLE_PLAYERS else "")


def short(text: str, size: int = NOTES_SHOWN) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= size else line[:size - 1].rstrip() + "…"


def match_records(lv: LeagueView) -> Iterable[Record]:
    """A match is shown by its players when they are few ("Ana vs Bo"), else by its id."""
    league = lv.config.name
    for m in lv.matches:
        names = [line.player.text for line in m.lines]
        date = fmt_date(m.match.played)
        notes = m.match.notes or ""
        few = len(names) <= TITLE_PLAYERS
        detail = [date, m.id if few else f"{len(names)} players: {match_title(names)}"]
        if notes:
            detail.append(short(notes))
        words = [m.id, date, league, *names, notes, *(value for _, value in m.facts)]
        yield Record(m.url, "\n".join(w for w in words if w),
                     {"title": match_title(names) if few else m.id, "kind": "match", "league": league,
                      "detail": " · ".join(detail)},
                     {"kind": ["match"], "league": [lv.config.slug]})


def records(leagues: Iterable[LeagueView]) -> list[Record]:
    """Every record in one fixed order (leagues as listed, players by rank, matches in
    history order): Pagefind numbers pages in the order they are added."""
    out: list[Record] = []
    for lv in leagues:
        out += player_records(lv)
        out += match_records(lv)
    return out


def write_search_index(leagues: Iterable[LeagueView], output: Output) -> IndexStats:
    """Index every player and match and add the bundle to ``output`` under pagefind/.

    Pagefind hands its files back in memory (it writes to disk in the background and
    answers before the bytes are there, so files read back could be cut short); they
    are added to the output only once the whole index is in hand and checked.
    """
    started = time.perf_counter()
    recs = records(leagues)
    stats = IndexStats(records=len(recs))
    for r in recs:
        stats.counts[r.meta["kind"]] = stats.counts.get(r.meta["kind"], 0) + 1
    try:
        files = asyncio.run(asyncio.wait_for(_index(recs), TIMEOUT))
        stable_filters(files)
        shipped = shipped_files(files)
    except (OSError, EOFError, ValueError, LookupError, asyncio.TimeoutError) as exc:
        raise SearchIndexError(f"Pagefind failed: {exc!r}") from exc
    for rel, data in shipped:
        output.add(f"{FOLDER}/{rel}", data)
        stats.files += 1
        stats.bytes += len(data)
    stats.seconds = time.perf_counter() - started
    return stats


def shipped_files(files: dict[str, bytes]) -> list[tuple[str, bytes]]:
    """The files the search page needs, by their path in pagefind/, in a fixed order."""
    entry = json.loads(files["pagefind-entry.json"])
    names = list(SHIPPED)
    for lang, info in sorted(entry["languages"].items()):
        names.append(f"pagefind.{info['hash']}.pf_meta")
        names.append(f"wasm.{info.get('wasm') or 'unknown'}.pagefind")
    names += sorted(name for name in files if name.split("/")[0] in SHIPPED_DIRS)
    missing = [name for name in names if name not in files]
    if missing:
        raise SearchIndexError(f"Pagefind did not write {', '.join(missing)}")
    return [(name, files[name]) for name in names]


# --- talking to Pagefind -----------------------------------------------------------------

def _pagefind_service():
    from pagefind.service import PagefindService

    class Service(PagefindService):
        """Pagefind's service client, reading each reply as soon as it arrives.

        The stock client (pagefind==1.5.2) sleeps 0.1 s before reading every reply:
        7 minutes for the demo's 4,000 records, where this takes about a second. A
        dead backend fails every pending request instead of leaving it waiting.
        """

        failure: SearchIndexError | None = None

        async def launch(self):
            # As the stock launch, with room for the whole index in one reply (get_files):
            # the stock 2 MiB line limit would stop at a few thousand records.
            self._backend = await asyncio.create_subprocess_exec(
                self._bin, "--service", cwd=os.getcwd(), stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, limit=REPLY_LIMIT)
            self._poll_task = self._loop.create_task(self._wait_for_responses())
            return self

        async def send(self, payload):
            if self.failure is not None:       # nobody would ever answer
                raise self.failure
            return await super().send(payload)

        async def close(self) -> None:
            # Every request has had its answer or has failed, so stop the backend at once;
            # the stock close lets a failed request abort before the process is reaped.
            self._poll_task.cancel()
            if self._backend.returncode is None:
                try:
                    self._backend.terminate()
                except ProcessLookupError:
                    pass
            await self._backend.wait()

        async def _wait_for_responses(self) -> None:
            stdout = self._backend.stdout
            assert stdout is not None
            try:
                while True:
                    raw = await stdout.readuntil(b",")
                    reply = json.loads(base64.b64decode(raw[:-1]))
                    if reply is None:
                        continue
                    payload = reply["payload"]
                    mid = reply.get("message_id")
                    if mid is None and payload.get("original_message"):
                        mid = json.loads(payload["original_message"]).get("message_id")
                    future = self._responses.pop(mid, None)
                    if future is None or future.done():
                        continue
                    if payload["type"] == "Error":
                        future.set_exception(SearchIndexError(f"Pagefind: {payload.get('message')}"))
                    else:
                        future.set_result(payload)
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError, KeyError) as exc:
                self.failure = SearchIndexError(f"Pagefind stopped answering: {exc!r}")
                for future in self._responses.values():
                    if not future.done():
                        future.set_exception(self.failure)

    return Service


def _quiet_about_stops(loop: asyncio.AbstractEventLoop, context: dict) -> None:
    """The loop's exception handler: a stop signal (Ctrl-C, SIGTERM in `sitegen serve`) that lands
    inside a task is already on its way out of the build; asyncio would log it again, with a
    traceback, when the task is collected."""
    if not isinstance(context.get("exception"), KeyboardInterrupt):
        loop.default_exception_handler(context)


async def _index(recs: list[Record]) -> dict[str, bytes]:
    asyncio.get_running_loop().set_exception_handler(_quiet_about_stops)
    service = await _pagefind_service()().launch()
    pending: deque[asyncio.Task] = deque()
    try:
        index = await service.create_index({"force_language": LANGUAGE})
        # Up to IN_FLIGHT records are sent ahead of their answers (a third faster on large
        # sites). Tasks start in the order they are made, so the records reach Pagefind in
        # order, and Pagefind 1.5.2 handles its messages one at a time in the order they
        # arrive: page numbers, and so the files, are the same from run to run.
        for r in recs:
            pending.append(asyncio.ensure_future(index.add_custom_record(
                url=r.url, content=r.content, language=LANGUAGE, meta=r.meta, filters=r.filters)))
            if len(pending) >= IN_FLIGHT:
                await pending.popleft()
        while pending:
            await pending.popleft()
        return {f["path"].replace("\\", "/"): f["content"] for f in await index.get_files()}
    finally:
        for task in pending:            # after a failure: neither left running nor unread
            if task.done() and not task.cancelled():
                task.exception()
            task.cancel()
        await service.close()


# --- byte-identical output -------------------------------------------------------------
#
# Pagefind keeps filters in hash maps seeded at random, so the order of a filter's
# values (the .pf_filter files) and of the filters listed in the .pf_meta file change
# from run to run, and with them the files' hashed names (Pagefind issue #638: fragments
# became stable in 1.3, "the filter/metadata indexes" did not). Everything else it
# writes is stable. stable_filters() rewrites those files in sorted order and renames
# them the way Pagefind names them, so two builds give the same bytes.
#
# The files are "pagefind_dcd" + CBOR, gzipped. Only the CBOR Pagefind writes there is
# read (unsigned integers, text and arrays); each file is checked to re-encode to its
# own bytes before anything is changed, so a format this does not know fails the build
# instead of shipping a broken index.

SIGNATURE = b"pagefind_dcd"


def stable_filters(files: dict[str, bytes]) -> None:
    """Rewrite ``files`` (path in pagefind/ -> bytes) with every filter in a fixed order."""
    entry_text = files["pagefind-entry.json"].decode("utf-8")
    entry = json.loads(entry_text)
    for lang, info in entry["languages"].items():
        old_meta = f"pagefind.{info['hash']}.pf_meta"
        meta = _read(old_meta, files.pop(old_meta))
        # MetaIndex: [version, pages, index_chunks, filters: [[name, hash]], sorts: [[key, pages]], ...]
        if not (isinstance(meta, list) and len(meta) >= 5 and isinstance(meta[3], list)
                and isinstance(meta[4], list)):
            raise SearchIndexError(f"unexpected layout of {old_meta}")
        renamed: dict[str, str] = {}
        for name, old_hash in meta[3]:
            path = f"filter/{old_hash}.pf_filter"
            data = _read(path, files.pop(path))    # FilterIndex: [name, [[value, [page, ...]], ...]]
            data[1].sort(key=lambda pair: pair[0])
            body = _encode(data)
            new_hash = _short_hash(lang, body, 7, taken=set(renamed.values()))
            files[f"filter/{new_hash}.pf_filter"] = _gzip(body)
            renamed[old_hash] = new_hash
        meta[3] = sorted([name, renamed[h]] for name, h in meta[3])
        meta[4] = sorted(meta[4], key=lambda sort: sort[0])
        body = _encode(meta)
        # Pagefind names the meta file after the first 10 characters of its hash.
        meta_hash = f"{lang}_{_full_hash(body)[:len(lang) + 8]}"
        files[f"pagefind.{meta_hash}.pf_meta"] = _gzip(body)
        old = f'"hash":"{info["hash"]}"'
        if entry_text.count(old) != 1:
            raise SearchIndexError("unexpected layout of pagefind-entry.json")
        entry_text = entry_text.replace(old, f'"hash":"{meta_hash}"')
    files["pagefind-entry.json"] = entry_text.encode("utf-8")


def _full_hash(data: bytes) -> str:
    """Pagefind's hash: SHA-1 with each byte in hex without its leading zero."""
    return "".join(f"{b:x}" for b in hashlib.sha1(data).digest())


def _short_hash(lang: str, data: bytes, length: int, taken: set[str]) -> str:
    full = f"{lang}_{_full_hash(data)}"
    size = len(lang) + 1 + length
    while full[:size] in taken and size < len(full):     # as Pagefind lengthens a clash
        size += 1
    return full[:size]


def _read(name: str, raw: bytes):
    data = gzip.decompress(raw)
    if not data.startswith(SIGNATURE):
        raise SearchIndexError(f"{name} is not a Pagefind index file")
    body = data[len(SIGNATURE):]
    value, end = _decode(body, 0)
    if end != len(body) or _encode(value) != body:
        raise SearchIndexError(f"{name}: unexpected Pagefind index format")
    return value


def _gzip(body: bytes) -> bytes:
    # mtime=0: no build clock in the bytes.
    return gzip.compress(SIGNATURE + body, compresslevel=9, mtime=0)


def _decode(data: bytes, i: int):
    head = data[i]
    major, info = head >> 5, head & 31
    i += 1
    if info < 24:
        n = info
    elif info <= 27:
        size = 1 << (info - 24)
        n, i = int.from_bytes(data[i:i + size], "big"), i + size
    else:
        raise SearchIndexError(f"unexpected CBOR item {head:#x}")
    if major == 0:
        return n, i
    if major == 3:
        return data[i:i + n].decode("utf-8"), i + n
    if major == 4:
        items = []
        for _ in range(n):
            item, i = _decode(data, i)
            items.append(item)
        return items, i
    raise SearchIndexError(f"unexpected CBOR item {head:#x}")


def _head(major: int, n: int) -> bytes:
    if n < 24:
        return bytes([major << 5 | n])
    for info, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if n < 1 << (8 * size):
            return bytes([major << 5 | info]) + n.to_bytes(size, "big")
    raise SearchIndexError(f"number too large for CBOR: {n}")


def _encode(value) -> bytes:
    """Shortest-form CBOR, as Pagefind's encoder writes it."""
    if isinstance(value, bool) or not isinstance(value, (int, str, list)):
        raise SearchIndexError(f"cannot encode {type(value).__name__}")
    if isinstance(value, int):
        if value < 0:
            raise SearchIndexError("negative numbers are not expected in a Pagefind index")
        return _head(0, value)
    if isinstance(value, str):
        raw = value.encode("utf-8")
        return _head(3, len(raw)) + raw
    return _head(4, len(value)) + b"".join(_encode(v) for v in value)
