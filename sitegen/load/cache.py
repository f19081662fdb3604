"""The build cache: ``.sitegen-cache/`` under the site root (git-ignored), so that a build after
a small edit redoes only what the edit touched.

What it holds. Entries by kind and key: a TOML file's parse keyed by the sha256 of its bytes
(load/site.py; not a match file's, whose checked matches are kept instead); a match file's
checked matches, keyed by its text and the league's other inputs (load/validate.py), and its
matches' identities (load/blocks.py); by league, the checked
files of its last check without a duplicate match (load/duplicates.py); a league's bootstrap
intervals keyed by the identity of its whole history (model/honest.py, output/memo.py); by league,
its rating (the kernel's columns and state), the bootstrap's replays, the accuracy sums and the
replay with the default parameters as the last build left them, to carry on from
(model/resume.py, model/honest.py, model/baselines.py), its players' career aggregates, its match
pages' plan and its players' slugs (model/carried.py), and its players' opponent pools as
drawn (model/pools.py); the search index, record by record (output/searchkept.py); each
content page as rendered, keyed by its source and what it shows of the leagues
(output/content.py); the templates as compiled, and the
templates each one extends or includes (output/render.py); the chart specs every build
draws, under Altair's version (output/charts.py); and for each output folder,
the keys of the pages and files the last build wrote there (output/memo.py).
Every key also covers sitegen's own code (``code_digest``: every source and template file of the
package), so an upgraded or edited sitegen never reads what an older one wrote.

Why it cannot change a result. An entry is a pickle whose first item repeats its full key: an
entry that cannot be read, does not unpickle, or was written for another key (a collision, a
foreign file, a truncated write) is a miss, and the work is done as without a cache. Writes go
to a temporary file renamed into place, so a reader sees a whole entry or none. A cache that
cannot be written (read-only checkout, full disk) is given up for the rest of the build, silently:
the cache only saves time. ``--no-cache`` (build, check, serve) neither reads nor writes it.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
from functools import cache as memoize
from pathlib import Path
from typing import Any

FOLDER = ".sitegen-cache"
FORMAT = b"sitegen-cache 1"
# Entries not used by the last N builds are removed (see ``prune``): the cache stays near the
# size of one build's worth, however long the site lives.
KEEP_BUILDS = 2
# Up to this many stale entries, and bytes of them, are unlinked at once; more are moved into
# TRASH (a dot-folder, which no kind's name is) and removed after the build (``prune``).
UNLINKED_HERE = 64
UNLINKED_SIZE = 4 << 20
TRASH = ".trash"


@memoize
def code_digest() -> str:
    """sha256 over sitegen's own files (.py and templates), so that any code change invalidates all."""
    package = Path(__file__).resolve().parent.parent
    h = hashlib.sha256(FORMAT)
    for f in sorted(package.rglob("*")):
        if f.is_file() and f.suffix != ".pyc" and "__pycache__" not in f.parts:
            h.update(f.relative_to(package).as_posix().encode() + b"\0")
            h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def digest(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))      # length-prefixed: ("ab", "c") != ("a", "bc")
        h.update(data)
    return h.hexdigest()


class Cache:
    """Entries on disk under ``folder``; ``get`` and ``put`` never raise for the cache's own sake."""

    def __init__(self, folder: Path, *, writable: bool = True) -> None:
        self.folder = folder
        self.writable = writable
        self.used: set[Path] = set()        # the entries this build read or wrote (kept by ``prune``)
        self.started = time.time_ns()
        self.aside: dict[Path, Any] = {}    # entries being written by a child (``put_aside``), by path

    def _path(self, kind: str, key: str) -> tuple[Path, str]:
        full = digest(code_digest(), kind, key)
        return self.folder / kind / full[:2] / full[2:], full

    def get(self, kind: str, key: str) -> Any | None:
        """The value stored under (kind, key), or None on any miss."""
        path, full = self._path(kind, key)
        if path in self.aside:
            self._settled(path)
        try:
            data = path.read_bytes()
            stored_key, value = pickle.loads(data)
        except FileNotFoundError:
            return None
        except Exception:       # noqa: BLE001 - a corrupt or foreign entry is only a miss
            return None
        if stored_key != full:
            return None
        self.used.add(path)
        if not self.writable:
            return value
        try:
            # Touched here, not only by ``prune``: an entry read by a forked process (the
            # bootstrap's) is not in the parent's ``used``, and would be pruned while in use.
            os.utime(path)
        except OSError:
            pass
        return value

    def put(self, kind: str, key: str, value: Any) -> None:
        if not self.writable:
            return
        path, full = self._path(kind, key)
        if path in self.aside:
            self._settled(path)
        try:
            data = pickle.dumps((full, value), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:       # noqa: BLE001 - a value that does not pickle is not cached
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            self.writable = False
            return
        self.used.add(path)

    def put_aside(self, kind: str, key: str, value: Any) -> None:
        """``put``, pickled and written by a forked child where there is a second core, while this
        process goes on: a million-match league's rating and careers entries are some 75 MB each,
        a third of a second each to pickle and write in every rebuild. The entry is the one ``put``
        writes; a ``get`` or ``put`` of it, and ``settle``, wait for the child first."""
        if not self.writable:
            return
        from sitegen.load import forked
        path, _ = self._path(kind, key)
        if path in self.aside:
            self._settled(path)

        def job() -> bytes:
            self.put(kind, key, value)
            return b"1" if self.writable else b""

        child = forked.start(job)
        if child is None:
            self.put(kind, key, value)
            return
        self.aside[path] = child
        self.used.add(path)

    def _settled(self, path: Path) -> None:
        if self.aside.pop(path).wait() != b"1":
            self.writable = False       # the child could not write it: as ``put`` gives up

    def settle(self) -> None:
        """Wait for every entry ``put_aside`` handed to a child (before ``prune``, at a build's end)."""
        for path in list(self.aside):
            self._settled(path)

    def prune(self) -> None:
        """Remove the entries that none of the last KEEP_BUILDS builds used: each build touches
        what it used (``get``, ``put``) and records when it started; older files go. Only files
        in the kind folders, the cache's own. Few or small ones are unlinked here; a larger lot
        (after sitegen changed, every entry of the older code) is renamed into a trash folder,
        a rename each where the unlink of a large entry takes milliseconds, and a process of
        its own removes it after the build."""
        self.settle()
        if not self.writable or not self.folder.is_dir():
            return
        stamp = self.folder / "builds"
        try:
            history = [int(x) for x in stamp.read_text().split()] if stamp.is_file() else []
        except (OSError, ValueError):
            history = []
        history = (history + [self.started])[-KEEP_BUILDS:]
        try:
            stale = self._stale(history[0])
            if len(stale) <= UNLINKED_HERE and sum(size for _, size in stale) <= UNLINKED_SIZE:
                for path, _ in stale:
                    os.unlink(path)
            else:
                self._discard([path for path, _ in stale])
            stamp.write_text(" ".join(map(str, history)) + "\n")
        except OSError:
            pass

    def _stale(self, before: int) -> list[tuple[str, int]]:
        """The entries (path, size) last touched before ``before`` (ns), but for those this build
        used (their times were set as they were read or written): one scan of each folder."""
        used = {str(path) for path in self.used}
        stale = []
        for sub in _folders(str(self.folder), 2):
            with os.scandir(sub) as it:
                for entry in it:
                    if entry.path in used or not entry.is_file(follow_symlinks=False):
                        continue
                    st = entry.stat(follow_symlinks=False)
                    if st.st_mtime_ns < before:
                        stale.append((entry.path, st.st_size))
        return stale

    def _discard(self, paths: list[str]) -> None:
        """Move ``paths`` into a trash folder of this build's and remove it, with any a build
        before left (one killed before its remover was done), in a process of its own."""
        trash = self.folder / TRASH
        trash.mkdir(exist_ok=True)
        mine = tempfile.mkdtemp(prefix="build-", dir=trash)
        for n, path in enumerate(paths):
            os.rename(path, f"{mine}/{n}")
        with os.scandir(trash) as it:
            folders = [e.path for e in it if e.is_dir(follow_symlinks=False)]
        remove_later(folders)


def _folders(top: str, depth: int) -> list[str]:
    """The folders ``depth`` levels under ``top`` (links and dot-folders, such as the trash, left out)."""
    found = [top]
    for _ in range(depth):
        below = []
        for folder in found:
            with os.scandir(folder) as it:
                below += [e.path for e in it if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)]
        found = below
    return found


_removers: list[subprocess.Popen[bytes]] = []


def remove_later(folders: list[str]) -> None:
    """Remove ``folders`` in a process of its own, which outlives this one: spawned, not forked,
    so a large build's memory is not copied for it. Where it cannot be started, here and now."""
    _removers[:] = [p for p in _removers if p.poll() is None]      # the finished ones reaped
    code = "import shutil, sys\nfor f in sys.argv[1:]:\n    shutil.rmtree(f, ignore_errors=True)"
    try:
        _removers.append(subprocess.Popen([sys.executable, "-I", "-S", "-c", code, *folders],
                                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, start_new_session=True))
    except OSError:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)


def league_head(root: Path, slug: str, league_toml: str) -> hashlib._Hash:
    """A hash started with the league's slug and the bytes of every file its matches are read and
    rated with besides themselves: league.toml (``league_toml``, relative to the root),
    players.toml (names and aliases) and pyproject.toml (settings)."""
    h = hashlib.sha256(slug.encode("utf-8") + b"\0")
    for path in (root / league_toml, root / "matches" / "players.toml", root / "pyproject.toml"):
        try:
            data = path.read_bytes()
        except OSError:
            data = b"\0absent"
        h.update(len(data).to_bytes(8, "little") + data)
    return h


def open_cache(root: Path, enabled: bool = True, *, writable: bool = True) -> Cache | None:
    """The site's cache, or None when disabled (``--no-cache``); `sitegen check` reads it only,
    as it writes nothing."""
    return Cache(root / FOLDER, writable=writable) if enabled else None
