"""The tests' static server (tests/served.py): it serves a folder's files, logs nothing, and a
client that leaves before its answer is sent prints no traceback, while any other error does."""

from __future__ import annotations

import http.client
import socket
import struct
import sys
import threading
from urllib.parse import urlsplit

import pytest

import served
from helpers import fetch
from served import QuietHandler, QuietServer, serving

BIG = 32 * 1024 * 1024     # more than the sockets of both ends hold, so the server is still sending


@pytest.fixture
def answered(monkeypatch):
    """``answered(n)`` waits until the servers have finished n more requests (their sockets shut,
    after any traceback) and gives, for each request finished so far, the error its thread
    handled (None when there was none)."""
    done: list[BaseException | None] = []
    finished = threading.Semaphore(0)
    errors: dict[int, BaseException] = {}
    handle_error, shutdown_request = QuietServer.handle_error, QuietServer.shutdown_request

    def spy_error(self, request, client_address):
        errors[id(request)] = sys.exc_info()[1]
        handle_error(self, request, client_address)

    def spy_shutdown(self, request):
        shutdown_request(self, request)
        done.append(errors.pop(id(request), None))
        finished.release()

    monkeypatch.setattr(QuietServer, "handle_error", spy_error)
    monkeypatch.setattr(QuietServer, "shutdown_request", spy_shutdown)

    def wait(n: int = 1) -> list[BaseException | None]:
        for _ in range(n):
            assert finished.acquire(timeout=30), "the server did not finish the request"
        return done

    return wait


def get(url: str, path: str) -> tuple[int, bytes]:
    return fetch(urlsplit(url).port, path)


def test_a_get_returns_the_file_and_logs_nothing(tmp_path, capfd, answered):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "page.html").write_bytes(b"<p>caf\xc3\xa9</p>\n")
    with serving(tmp_path) as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/")
        assert get(url, "/sub/page.html") == (200, b"<p>caf\xc3\xa9</p>\n")
        assert get(url, "/missing.html")[0] == 404
        assert answered(2) == [None, None]
    assert capfd.readouterr() == ("", "")


def test_a_client_that_leaves_early_prints_no_traceback(tmp_path, capfd, answered):
    (tmp_path / "big.bin").write_bytes(bytes(BIG))
    with serving(tmp_path) as url:
        with socket.create_connection(("127.0.0.1", urlsplit(url).port), timeout=10) as client:
            client.sendall(b"GET /big.bin HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            assert client.recv(4096).startswith(b"HTTP/1.0 200 ")     # the answer has begun
            # Close at once with a reset, as a browser leaving the page may: the rest is not read.
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        (error,) = answered()
        assert isinstance(error, served.LEFT_EARLY), error       # the server did meet the client's leaving
        assert get(url, "/big.bin") == (200, bytes(BIG))          # and serves the next one whole
    assert capfd.readouterr() == ("", "")


def test_any_other_error_still_prints_its_traceback(tmp_path, capfd, answered):
    class Broken(QuietHandler):
        def do_GET(self):
            raise RuntimeError("the handler is broken")

    with serving(tmp_path, handler=Broken) as url:
        with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
            get(url, "/")
        (error,) = answered()
    assert isinstance(error, RuntimeError)
    err = capfd.readouterr().err
    assert "Traceback (most recent call last)" in err and "RuntimeError: the handler is broken" in err
