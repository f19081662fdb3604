"""A local preview: serve the built site on 127.0.0.1 and rebuild when an input file changes."""

from __future__ import annotations

import functools
import http.server
import signal
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from urllib.parse import urlsplit

from .build import build
from .config import base_url_problem
from .provenance import repo_url_problem
from .problems import InvalidInput
from .write import Output

WATCHED = ("matches", "content", "templates", "pyproject.toml")

# What ends the preview: Ctrl-C, a service manager or `kill` (SIGTERM), a closed terminal (SIGHUP).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
# Left to finish when a stop signal comes: swapping the new site in and removing a staging
# folder. Stopped halfway, either would leave a ._site.new-* or ._site.old-* folder behind.
_UNINTERRUPTED = (Output.commit.__code__, Output.discard.__code__)


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
        files = [path] if path.is_file() else (p for p in path.rglob("*") if p.is_file()) if path.is_dir() else []
        for f in files:
            try:
                stamps[str(f)] = f.stat().st_mtime
            except OSError:
                pass
    return stamps


def rebuild(root: Path, out: Path, base_url: str | None = None, repo_url: str | None = None) -> bool:
    try:
        build(root, out, base_url=base_url, repo_url=repo_url)
    except InvalidInput as exc:
        _signals.check()
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print("sitegen: not rebuilt; the preview shows the last good build.", file=sys.stderr)
        return False
    _signals.check()        # a stop held while the new site was swapped in
    print(f"sitegen: rebuilt {out} at {time.strftime('%H:%M:%S')}", file=sys.stderr)
    return True


def watch(root: Path, out: Path, stop: threading.Event, interval: float = 0.5,
          base_url: str | None = None, repo_url: str | None = None) -> None:
    seen = snapshot(root)
    while not stop.wait(interval):
        now = snapshot(root)
        if now != seen:
            seen = now
            rebuild(root, out, base_url, repo_url)


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the site under ``prefix`` ("/" or "/repo/") and, like GitHub Pages, answers
    a missing address with the site's 404.html, so a sub-path and the 404 page can be
    tried before publishing."""

    prefix = "/"

    def log_message(self, format: str, *args) -> None:   # keep the terminal for build messages
        pass

    def send_head(self):
        path = urlsplit(self.path).path
        if self.prefix != "/" and path in ("/", self.prefix.rstrip("/")):
            return self._redirect(self.prefix, 302)    # the server's root and "/repo" lead to the site
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
        body = page.read_bytes() if page.is_file() else b"Not found"
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8" if page.is_file() else "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        return None


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
    _signals.pending = None
    # Builds run in this, the main thread, where Python delivers signals: a stop interrupts the
    # build, whose cleanup then runs. The server answers from a thread of its own.
    with _signals.installed():
        try:
            rebuild(root, out, base_url, repo_url)
            effective = base_url if base_url is not None else configured_base_url(root)
            prefix = urlsplit(effective).path if effective else "/"
            prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
            # Files are looked up by path on every request, so the folder swapped in by a rebuild is served.
            handler = type("Handler", (_Handler,), {"prefix": prefix})
            handler = functools.partial(handler, directory=str(out))
            with http.server.ThreadingHTTPServer((host, port), handler) as httpd:
                server = threading.Thread(target=httpd.serve_forever, name="sitegen-serve", daemon=True)
                server.start()
                print(f"sitegen: serving {out} at http://{host}:{httpd.server_address[1]}{prefix} "
                      "(Ctrl-C to stop)", flush=True)
                try:
                    watch(root, out, threading.Event(), base_url=base_url, repo_url=repo_url)
                finally:
                    httpd.shutdown()
        except Stop as exc:
            print(f"sitegen: stopped ({signal.Signals(exc.signum).name})", file=sys.stderr)
    return 0
