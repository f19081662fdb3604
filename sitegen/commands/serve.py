"""A local preview: serve the built site on 127.0.0.1, rebuild when an input file changes and
reload the open pages after each successful rebuild.

Changes are reported by the watchfiles package (inotify and its kin, a poll where there are
none) and a burst of them (an editor's save, a git checkout) gives one rebuild. Every page the
preview serves carries a small script, added as it is sent (the files on disk are the build's,
unchanged), that waits on the served-only address RELOAD for a build newer than its own and
then reloads the page.

The preview survives every failed build: invalid input (its problems), an OSError (one line)
and any other exception (one line saying it is a bug, with the traceback when SITEGEN_DEBUG=1)
are printed, the last good site stays served, and the watcher goes on. When no site has been
built yet (the first build failed and there is no earlier site in the output folder), every
address answers 503 with a short page that reloads itself until a build succeeds. Only a stop
signal (Ctrl-C, SIGTERM, SIGHUP) ends it; so does an output folder that no build may replace,
refused before anything starts, as a bad --base-url is.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import queue
import signal
import sys
import threading
import time
import tomllib
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from urllib.parse import parse_qs, urlsplit

import watchfiles

from sitegen.commands.build import build
from sitegen.load.config import base_url_problem
from sitegen.output.escape import visible
from sitegen.load.provenance import repo_url_problem
from sitegen.load.problems import InvalidInput
from sitegen.commands import progress
from sitegen.output.write import check_output_folder, is_sitegen_site

DEBUG_VARIABLE = "SITEGEN_DEBUG"

WATCHED = ("matches", "content", "templates", "pyproject.toml")
# Folders among WATCHED, watched with everything in them; the root itself only for its own entries.
TREES = ("matches", "content", "templates")
# watchfiles' debounce: a change is reported once STEP ms pass without another (at most DEBOUNCE ms).
STEP_MS = 100
DEBOUNCE_MS = 1600
# The served-only address the pages' reload script asks; it answers when the build is newer
# than the page's, or after WAIT seconds with the same build (the script then asks again).
RELOAD = "/__sitegen/build"
WAIT = 25.0

# What ends the preview: Ctrl-C, a service manager or `kill` (SIGTERM), a closed terminal (SIGHUP).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
class Stop(KeyboardInterrupt):
    """A stop signal, raised in the main thread where it is, so that a build in progress runs
    its cleanup (its staging folder removed) before the preview ends."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


class _Signals:
    """While installed, STOP_SIGNALS raise Stop in the main thread, except while held: a build
    holds them from just before it swaps its new site in (``_Stoppable.moving``) until it
    returns, and the first stop holds the next ones, so that swapping a folder in or removing
    a staging folder is never cut halfway (that would leave a ._site.new-* or ._site.old-*
    folder behind). A held stop is raised by ``check``."""

    def __init__(self) -> None:
        self.pending: int | None = None
        self.holding = False

    def handle(self, signum: int, frame: FrameType | None) -> None:
        if self.holding:
            self.pending = self.pending or signum
            return
        self.holding = True         # this stop is on its way out: the cleanup it runs is not cut
        raise Stop(signum)

    def check(self) -> None:
        if self.pending is not None:
            raise Stop(self.pending)

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold stops from here to the end of the block, then raise the one that came."""
        self.holding = True
        try:
            yield
        finally:
            self.holding = False
        self.check()

    @contextmanager
    def installed(self) -> Iterator[None]:
        # Python lets only the main thread set handlers; elsewhere (an embedding) nothing changes.
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {signum: signal.signal(signum, self.handle) for signum in STOP_SIGNALS}
        self.pending, self.holding = None, False
        try:
            yield
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)


_signals = _Signals()


class _Watcher:
    """The input's changes, as batches in ``changes``, from two watchfiles watchers in threads
    of their own: one on the root's own entries (pyproject.toml, and the input folders made or
    removed) and one on everything inside the input folders, started again when those come or
    go. The output folder is never watched, wherever it is."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.changes: queue.Queue[set[tuple[watchfiles.Change, str]]] = queue.Queue()
        self.stopped = threading.Event()
        self._retarget = threading.Event()

    def start(self) -> None:
        for target, name in ((self._top, "sitegen-watch-root"), (self._trees, "sitegen-watch-input")):
            threading.Thread(target=target, name=name, daemon=True).start()

    def stop(self) -> None:
        self.stopped.set()

    def _watch(self, paths: list[Path], stop, **options) -> Iterator[set[tuple[watchfiles.Change, str]]]:
        try:
            yield from watchfiles.watch(*paths, stop_event=stop, step=STEP_MS, debounce=DEBOUNCE_MS,
                                        raise_interrupt=False, **options)
        except (OSError, RuntimeError) as exc:      # e.g. no inotify watches left: poll instead
            if options.get("force_polling") or self.stopped.is_set():
                raise
            _say(f"sitegen: watching {visible(str(paths[0]))} failed ({_describe(exc)}); polling it instead")
            yield from self._watch(paths, stop, **options, force_polling=True)

    def _top(self) -> None:
        def ours(change: watchfiles.Change, path: str) -> bool:
            return Path(path).name in WATCHED and Path(path).parent == self.root

        for batch in self._watch([self.root], self.stopped, recursive=False, watch_filter=ours):
            if any(Path(path).name in TREES for _, path in batch):
                self._retarget.set()
            self.changes.put(batch)

    def _trees(self) -> None:
        stop = _Either(self.stopped, self._retarget)
        while not self.stopped.is_set():
            self._retarget.clear()
            trees = [self.root / name for name in TREES if (self.root / name).is_dir()]
            if not trees:
                stop.wait()
                continue
            for batch in self._watch(trees, stop):
                self.changes.put(batch)

    def wait(self, timeout: float | None = None) -> bool:
        """Until a change comes (True) or ``timeout`` passes (False); the changes that came with
        it or during the last build are taken too, so a burst gives one rebuild."""
        try:
            self.changes.get(timeout=timeout)
        except queue.Empty:
            return False
        while True:
            try:
                self.changes.get_nowait()
            except queue.Empty:
                return True


class _Either:
    """Set when either event is; what watchfiles asks (is_set) and a wait for it."""

    def __init__(self, *events: threading.Event) -> None:
        self.events = events

    def is_set(self) -> bool:
        return any(e.is_set() for e in self.events)

    def wait(self) -> None:
        while not self.is_set():
            self.events[0].wait(STEP_MS / 1000)


class _Preview:
    """What the server shows: the output folder once it holds a site, a placeholder page before."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.has_site = is_sitegen_site(out)    # a site of an earlier session is the last good one
        # The build a page was served from: the session (a restarted preview reloads the pages
        # of the one before) and the number of successful builds in it.
        self._session = f"{os.getpid():x}{time.time_ns():x}"
        self._builds = 0
        self._changed = threading.Condition()

    @property
    def build(self) -> str:
        return f"{self._session}.{self._builds}"

    def built(self) -> None:
        with self._changed:
            self.has_site = True
            self._builds += 1
            self._changed.notify_all()

    def newer_than(self, build: str, timeout: float) -> str:
        """The current build, as soon as it is not ``build`` or once ``timeout`` has passed."""
        with self._changed:
            self._changed.wait_for(lambda: self.build != build, timeout)
            return self.build


def _say(line: str) -> None:
    """A line on stderr; a terminal gone away does not end the preview (a stop signal does)."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _failed(lines: list[str], preview: _Preview | None) -> None:
    for line in lines:
        _say(line)
    if preview is None or preview.has_site:
        _say("sitegen: not rebuilt; the preview shows the last good build.")
    else:
        _say("sitegen: not built; the preview shows a placeholder page until a build succeeds.")


def _describe(exc: BaseException) -> str:
    detail = visible(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    return detail if len(detail) <= 300 else detail[:299] + "…"


class _Stoppable(progress.Progress):
    """No stage lines; from the swap on, stops are held until the build returns."""

    def moving(self, files: int, out: Path) -> None:
        _signals.holding = True
        super().moving(files, out)


def _release() -> None:
    """The build has returned: stops are raised again, the one held first."""
    _signals.holding = False
    _signals.check()


def rebuild(root: Path, out: Path, base_url: str | None = None, repo_url: str | None = None,
            preview: _Preview | None = None, *, cache: bool = True) -> bool:
    """Build once; any failure is printed and the preview goes on (only a stop signal ends it).
    Each rebuild goes through the build cache (load/cache.py) unless ``cache`` is False
    (--no-cache): only the pages an edit touched are rendered again."""
    try:
        with progress.reporting(_Stoppable()):
            build(root, out, base_url=base_url, repo_url=repo_url, cache=cache)
    except InvalidInput as exc:
        _release()
        _failed([str(problem) for problem in exc.problems], preview)
        return False
    except Exception as exc:    # noqa: BLE001 - a preview outlives every failed build
        _release()
        debug = os.environ.get(DEBUG_VARIABLE) == "1"
        if debug:
            _say("".join(traceback.format_exception(exc)).rstrip("\n"))
        if isinstance(exc, OSError):
            where = f" ({visible(str(exc.filename))})" if exc.filename else ""
            line = f"sitegen: the build could not read or write a file: {visible(exc.strerror or str(exc))}{where}"
        else:
            hint = "" if debug else f"; rerun with {DEBUG_VARIABLE}=1 for the traceback"
            line = (f"sitegen: internal error ({_describe(exc)}): this is a bug in sitegen, not a problem "
                    f"in your files{hint}")
        _failed([line], preview)
        return False
    _release()              # a stop held while the new site was swapped in
    _say(f"sitegen: rebuilt {out} at {time.strftime('%H:%M:%S')}")
    if preview is not None:
        preview.built()     # the open pages reload
    return True


def watch(watcher: _Watcher, root: Path, out: Path, base_url: str | None = None,
          repo_url: str | None = None, preview: _Preview | None = None, *, cache: bool = True) -> None:
    """Rebuild after each burst of changes, until a stop signal."""
    while True:
        if watcher.wait(timeout=1.0):
            rebuild(root, out, base_url, repo_url, preview, cache=cache)


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the site under ``prefix`` ("/" or "/repo/") and, like GitHub Pages, answers
    a missing address with the site's 404.html, so a sub-path and the 404 page can be
    tried before publishing."""

    prefix = "/"
    preview: _Preview | None = None

    def log_message(self, format: str, *args) -> None:   # keep the terminal for build messages
        pass

    def send_head(self):
        path = urlsplit(self.path).path
        if path == RELOAD and self.preview is not None:
            return self._build_answer(self.preview)
        if self.prefix != "/" and path in ("/", self.prefix.rstrip("/")):
            return self._redirect(self.prefix, 302)    # the server's root and "/repo" lead to the site
        if self.preview is not None and not self.preview.has_site:
            return self._send(503, PLACEHOLDER, "text/html; charset=utf-8", [("Cache-Control", "no-store")])
        if path.startswith(self.prefix):
            inside = "/" + self.path[len(self.prefix):]
            local = Path(self.translate_path(inside))
            if local.is_dir() and not path.endswith("/"):
                return self._redirect(path + "/", 301)    # a folder's address ends in "/"
            page = local / "index.html" if local.is_dir() else local
            if page.is_file() and page.suffix == ".html" and self.preview is not None:
                return self._page(200, page, self.preview)
            if local.is_file() or (local / "index.html").is_file():
                self.path = inside
                return super().send_head()
        return self._not_found()

    def _build_answer(self, preview: _Preview):
        """The build the served files are from, once it differs from ``since`` (a long poll)."""
        since = parse_qs(urlsplit(self.path).query).get("since", [""])[0]
        build = preview.newer_than(since, WAIT) if since else preview.build
        return self._send(200, json.dumps({"build": build}).encode("utf-8"), "application/json",
                          [("Cache-Control", "no-store")])

    def _page(self, status: int, page: Path, preview: _Preview):
        """An HTML page with the reload script, which only the preview adds."""
        try:
            body = page.read_bytes()
        except OSError:         # swapped out by a rebuild between the look and the read
            return self._send(503, b"Rebuilt just now: reload the page.", "text/plain")
        build = preview.build
        script = RELOADER.replace(b"BUILD", json.dumps(build).encode("ascii"))
        end = body.rfind(b"</body>")
        body = body + script if end < 0 else body[:end] + script + body[end:]
        return self._send(status, body, "text/html; charset=utf-8", [("Cache-Control", "no-store")])

    def _redirect(self, location: str, status: int):
        self.send_response(status)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()
        return None

    def _not_found(self):
        page = Path(self.directory) / "404.html"
        if self.preview is not None and page.is_file():
            return self._page(404, page, self.preview)
        try:
            body, kind = page.read_bytes(), "text/html; charset=utf-8"
        except OSError:
            body, kind = b"Not found", "text/plain"
        return self._send(404, body, kind)

    def _send(self, status: int, body: bytes, kind: str, headers: Sequence[tuple[str, str]] = ()):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        return None


# Added to every page the preview serves: waits for a newer build, then reloads the page.
RELOADER = b"""<script>(function () {
  var build = BUILD;
  function ask() {
    fetch("%s?since=" + encodeURIComponent(build), { cache: "no-store" })
      .then(function (r) { return r.json(); })
      .then(function (b) { if (b.build !== build) window.location.reload(); else ask(); },
            function () { window.setTimeout(ask, 2000); });
  }
  ask();
})();</script>
""" % RELOAD.encode("ascii")

# Every address while no site has been built yet; it reloads itself until one is.
PLACEHOLDER = b"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">
<title>No site yet - sitegen serve</title></head>
<body><h1>No site yet</h1>
<p>The build failed: its problems are printed in the terminal where <code>sitegen serve</code> runs.
Fix them and save; this page reloads until the site is built.</p></body></html>
"""


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        # A browser that closes a connection early is no news; anything else is one line.
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        _say(f"sitegen: error answering a request ({_describe(exc)})" if exc else
             "sitegen: error answering a request")


def configured_base_url(root: Path) -> str:
    """``base_url`` of [tool.sitegen], if it is a valid one (a bad one is reported by the build)."""
    try:
        with open(root / "pyproject.toml", "rb") as fh:
            value = tomllib.load(fh).get("tool", {}).get("sitegen", {}).get("base_url", "")
    except (OSError, tomllib.TOMLDecodeError, AttributeError):
        return ""
    return value if isinstance(value, str) and value.strip() and not base_url_problem(value) else ""


def serve(root: Path, out: Path, *, host: str = "127.0.0.1", port: int = 8000,
          base_url: str | None = None, repo_url: str | None = None, cache: bool = True) -> int:
    """The site is served under the path of its base URL (``base_url``, or ``base_url`` in
    [tool.sitegen]), so https://owner.github.io/repo/ is previewed at http://127.0.0.1:PORT/repo/,
    404 page included."""
    problem = base_url_problem(base_url) if base_url else None
    if problem:
        print(f"--base-url: {problem}", file=sys.stderr)
        return 1
    problem = repo_url_problem(repo_url) if repo_url and repo_url.strip() else None
    if problem:
        print(f"--repo-url: {problem}", file=sys.stderr)
        return 1
    try:
        # Nothing the watcher sees can make a refused output folder usable: refused at once.
        check_output_folder(root.resolve(), out.resolve())
    except InvalidInput as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    preview = _Preview(out)
    watcher = _Watcher(root.resolve())
    # Builds run in this, the main thread, where Python delivers signals: a stop interrupts the
    # build, whose cleanup then runs. The server answers from a thread of its own.
    with _signals.installed():
        try:
            watcher.start()             # before the build: a change made during it is rebuilt
            rebuild(root, out, base_url, repo_url, preview, cache=cache)
            effective = base_url if base_url is not None else configured_base_url(root)
            prefix = urlsplit(effective).path if effective else "/"
            prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
            # Files are looked up by path on every request, so the folder swapped in by a rebuild is served.
            handler_class = type("Handler", (_Handler,), {"prefix": prefix, "preview": preview})
            handler = functools.partial(handler_class, directory=str(out))
            with _Server((host, port), handler) as httpd:
                server = threading.Thread(target=httpd.serve_forever, name="sitegen-serve", daemon=True)
                server.start()
                print(f"sitegen: serving {out} at http://{host}:{httpd.server_address[1]}{prefix} "
                      "(Ctrl-C to stop)", flush=True)
                try:
                    watch(watcher, root, out, base_url=base_url, repo_url=repo_url, preview=preview, cache=cache)
                finally:
                    httpd.shutdown()
        except Stop as exc:
            print(f"sitegen: stopped ({signal.Signals(exc.signum).name})", file=sys.stderr)
        finally:
            watcher.stop()
    return 0
