"""A local preview: serve the built site on 127.0.0.1 and rebuild when an input file changes.

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
import os
import signal
import sys
import threading
import time
import tomllib
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from urllib.parse import urlsplit

from sitegen.commands.build import build
from sitegen.load.config import base_url_problem
from sitegen.output.escape import visible
from sitegen.load.provenance import repo_url_problem
from sitegen.load.problems import InvalidInput
from sitegen.commands import progress
from sitegen.output.search import write_search_index
from sitegen.output.write import Output, check_output_folder, is_sitegen_site

DEBUG_VARIABLE = "SITEGEN_DEBUG"

WATCHED = ("matches", "content", "templates", "pyproject.toml")

# What ends the preview: Ctrl-C, a service manager or `kill` (SIGTERM), a closed terminal (SIGHUP).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
# Left to finish when a stop signal comes: swapping the new site in and removing a staging
# folder. Stopped halfway, either would leave a ._site.new-* or ._site.old-* folder behind.
_UNINTERRUPTED = (Output.commit.__code__, Output.discard.__code__)
# Put off a moment at a time: the search index runs Pagefind under asyncio, and a stop raised
# inside its event loop leaves tasks and a child's pipes to be reported (with tracebacks) when
# they are collected. The signal is sent again every RETRY seconds until the index is done.
_DEFERRED = (write_search_index.__code__,)
RETRY = 0.05


class Stop(KeyboardInterrupt):
    """A stop signal, raised in the main thread where it is, so that a build in progress runs
    its cleanup (its staging folder removed) before the preview ends."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


class _Signals:
    """While installed, STOP_SIGNALS raise Stop in the main thread; one that comes while a
    build swaps its folder in or removes one is held until the build returns (``check``)."""

    def __init__(self) -> None:
        self.pending: int | None = None

    def handle(self, signum: int, frame: FrameType | None) -> None:
        while frame is not None:
            if frame.f_code in _UNINTERRUPTED:
                self.pending = self.pending or signum
                return
            if frame.f_code in _DEFERRED:
                # Held: the build stops at the latest just before its swap (_Stoppable.moving).
                self.pending = self.pending or signum
                retry = threading.Timer(RETRY, signal.pthread_kill, (threading.main_thread().ident, signum))
                retry.daemon = True
                retry.start()
                return
            frame = frame.f_back
        raise Stop(signum)

    def check(self) -> None:
        if self.pending is not None:
            raise Stop(self.pending)

    @contextmanager
    def installed(self) -> Iterator[None]:
        # Python lets only the main thread set handlers; elsewhere (an embedding) nothing changes.
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {signum: signal.signal(signum, self.handle) for signum in STOP_SIGNALS}
        try:
            yield
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)


_signals = _Signals()


def snapshot(root: Path) -> dict[str, float]:
    """Modification times of every input file; a change in it triggers a rebuild."""
    stamps: dict[str, float] = {}
    for name in WATCHED:
        path = root / name
        try:
            files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()] \
                if path.is_dir() else []
        except OSError:     # a folder removed or made unreadable while it was listed
            stamps[str(path)] = -1.0
            continue
        for f in files:
            try:
                stamps[str(f)] = f.stat().st_mtime
            except OSError:
                pass
    return stamps


class _Preview:
    """What the server shows: the output folder once it holds a site, a placeholder page before."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.has_site = is_sitegen_site(out)    # a site of an earlier session is the last good one


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
    """No stage lines; a stop held through the search index ends the build before its swap."""

    def moving(self, files: int, out: Path) -> None:
        _signals.check()
        super().moving(files, out)


def rebuild(root: Path, out: Path, base_url: str | None = None, repo_url: str | None = None,
            preview: _Preview | None = None) -> bool:
    """Build once; any failure is printed and the preview goes on (only a stop signal ends it)."""
    try:
        with progress.reporting(_Stoppable()):
            build(root, out, base_url=base_url, repo_url=repo_url)
    except InvalidInput as exc:
        _signals.check()
        _failed([str(problem) for problem in exc.problems], preview)
        return False
    except Exception as exc:    # noqa: BLE001 - a preview outlives every failed build
        _signals.check()
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
    _signals.check()        # a stop held while the new site was swapped in
    if preview is not None:
        preview.has_site = True
    _say(f"sitegen: rebuilt {out} at {time.strftime('%H:%M:%S')}")
    return True


def watch(root: Path, out: Path, stop: threading.Event, interval: float = 0.5,
          base_url: str | None = None, repo_url: str | None = None, preview: _Preview | None = None,
          seen: dict[str, float] | None = None) -> None:
    """Rebuild whenever ``snapshot(root)`` changes, from ``seen`` (default: now) on."""
    seen = snapshot(root) if seen is None else seen
    while not stop.wait(interval):
        now = snapshot(root)
        if now != seen:
            seen = now
            rebuild(root, out, base_url, repo_url, preview)


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
        if self.prefix != "/" and path in ("/", self.prefix.rstrip("/")):
            return self._redirect(self.prefix, 302)    # the server's root and "/repo" lead to the site
        if self.preview is not None and not self.preview.has_site:
            return self._send(503, PLACEHOLDER, "text/html; charset=utf-8", [("Cache-Control", "no-store")])
        if path.startswith(self.prefix):
            inside = "/" + self.path[len(self.prefix):]
            local = Path(self.translate_path(inside))
            if local.is_dir() and not path.endswith("/"):
                return self._redirect(path + "/", 301)    # a folder's address ends in "/"
            if local.is_file() or (local / "index.html").is_file():
                self.path = inside
                return super().send_head()
        return self._not_found()

    def _redirect(self, location: str, status: int):
        self.send_response(status)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()
        return None

    def _not_found(self):
        page = Path(self.directory) / "404.html"
        try:
            body, kind = page.read_bytes(), "text/html; charset=utf-8"
        except OSError:
            body, kind = b"Not found", "text/plain"
        return self._send(404, body, kind)

    def _send(self, status: int, body: bytes, kind: str, headers: list[tuple[str, str]] = ()):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        return None


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
          base_url: str | None = None, repo_url: str | None = None) -> int:
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
    _signals.pending = None
    preview = _Preview(out)
    # Builds run in this, the main thread, where Python delivers signals: a stop interrupts the
    # build, whose cleanup then runs. The server answers from a thread of its own.
    with _signals.installed():
        try:
            seen = snapshot(root)       # before the build: a change made during it is rebuilt
            rebuild(root, out, base_url, repo_url, preview)
            effective = base_url if base_url is not None else configured_base_url(root)
            prefix = urlsplit(effective).path if effective else "/"
            prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
            # Files are looked up by path on every request, so the folder swapped in by a rebuild is served.
            handler = type("Handler", (_Handler,), {"prefix": prefix, "preview": preview})
            handler = functools.partial(handler, directory=str(out))
            with _Server((host, port), handler) as httpd:
                server = threading.Thread(target=httpd.serve_forever, name="sitegen-serve", daemon=True)
                server.start()
                print(f"sitegen: serving {out} at http://{host}:{httpd.server_address[1]}{prefix} "
                      "(Ctrl-C to stop)", flush=True)
                try:
                    watch(root, out, threading.Event(), base_url=base_url, repo_url=repo_url,
                          preview=preview, seen=seen)
                finally:
                    httpd.shutdown()
        except Stop as exc:
            print(f"sitegen: stopped ({signal.Signals(exc.signum).name})", file=sys.stderr)
    return 0
