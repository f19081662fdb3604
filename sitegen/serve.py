"""A local preview: serve the built site on 127.0.0.1 and rebuild when an input file changes."""

from __future__ import annotations

import functools
import http.server
import sys
import threading
import time
from pathlib import Path

from .build import build
from .problems import InvalidInput

WATCHED = ("matches", "content", "templates", "pyproject.toml")


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


def rebuild(root: Path, out: Path) -> bool:
    try:
        build(root, out)
    except InvalidInput as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print("sitegen: not rebuilt; the preview shows the last good build.", file=sys.stderr)
        return False
    print(f"sitegen: rebuilt {out} at {time.strftime('%H:%M:%S')}", file=sys.stderr)
    return True


def watch(root: Path, out: Path, stop: threading.Event, interval: float = 0.5) -> None:
    seen = snapshot(root)
    while not stop.wait(interval):
        now = snapshot(root)
        if now != seen:
            seen = now
            rebuild(root, out)


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:   # keep the terminal for build messages
        pass


def serve(root: Path, out: Path, *, host: str = "127.0.0.1", port: int = 8000) -> int:
    rebuild(root, out)
    stop = threading.Event()
    threading.Thread(target=watch, args=(root, out, stop), daemon=True).start()
    # Files are looked up by path on every request, so the folder swapped in by a rebuild is served.
    handler = functools.partial(_Handler, directory=str(out))
    with http.server.ThreadingHTTPServer((host, port), handler) as httpd:
        print(f"sitegen: serving {out} at http://{host}:{httpd.server_address[1]}/ (Ctrl-C to stop)")
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            stop.set()
    return 0
