"""A built site served on 127.0.0.1 by a thread of the test process, as a static host serves it.

``with serving(folder) as url:`` serves ``folder`` on a free port and yields its root URL
("http://127.0.0.1:PORT/"); ``serving(handler=H)`` serves with a handler class of one's own
(one that finds its files itself, or takes ``directory``). Nothing is logged per request, and
a client that leaves before its answer is sent (a browser leaving a page while a file is
still on its way) is no error; any other error still prints its traceback.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# What the socket raises when the client has closed the connection before the answer is sent.
LEFT_EARLY = (BrokenPipeError, ConnectionResetError)


class QuietHandler(SimpleHTTPRequestHandler):
    """A folder's files, without a log line for each request."""

    def log_message(self, format, *args):  # noqa: A002 - the signature of the base class
        pass


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # Called in the request thread's ``except`` block: the error is the one being handled.
        if isinstance(sys.exc_info()[1], LEFT_EARLY):
            return
        super().handle_error(request, client_address)


@contextmanager
def serving(folder: Path | None = None, name: str = "site-server", *, handler: type = QuietHandler) -> Iterator[str]:
    """``folder`` (or whatever ``handler`` serves, when no folder is given) served on 127.0.0.1
    by a thread called ``name`` of this process: yields the root URL ("http://127.0.0.1:PORT/"). The port is
    bound before this yields, so a site can be built for its URL inside the block; the server
    stops after it."""
    factory = functools.partial(handler, directory=str(folder)) if folder is not None else handler
    server = QuietServer(("127.0.0.1", 0), factory)
    # A short poll: shutdown() waits for the loop to see it (0.5 s a server at the default).
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), name=name, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
