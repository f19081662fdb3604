"""`sitegen serve`: stopped by a signal, the build in progress cleans up and the preview ends at
once; a failed build of any kind, the first one included, never ends it.

Most tests run the real command in a child process on a site that takes a few seconds to
build, signal it while a build writes its staging folder (``._site.new-*`` beside the
output) or while it serves, or break a build, and look at what is served and left on disk.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from helpers import REPO, fetch, league_toml, write_files

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

PLAYERS = 40


def big_site(root: Path, matches: int = 300) -> Path:
    """A lunaro league of ``matches`` matches among PLAYERS players: a build of a few seconds."""
    tables = []
    for i in range(matches):
        a, b = i % PLAYERS, (i * 7 + 3) % PLAYERS
        b = (b + 1) % PLAYERS if a == b else b
        tables.append(f'[[match]]\nplayed = 2024-01-01T00:{i // 60:02d}:{i % 60:02d}Z\n'
                      f'players = [{{ name = "player {a}", goals = 20, ping = 10 }}, '
                      f'{{ name = "player {b}", goals = {i % 20}, ping = 20 }}]\n')
    return write_files(root, {"matches/duel/league.toml": league_toml("lunaro", name="Duel"),
                              "matches/duel/2024.toml": "\n".join(tables)})


# Imported first by the child (PYTHONPATH): a build whose pyproject.toml holds the comment
# "# break: runtime" (or "# break: oserror") fails as a bug in sitegen (or an I/O error) would.
BREAKER = """
import errno
import sitegen.commands.build as _build

_rate = _build.rate


def rate(site, *args, **kwargs):
    pyproject = site.root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8") if pyproject.is_file() else ""
    if "# break: runtime" in text:
        raise RuntimeError("a rebuild that breaks")
    if "# break: oserror" in text:
        raise OSError(errno.EIO, "Input/output error", str(site.root / "pyproject.toml"))
    return _rate(site, *args, **kwargs)


_build.rate = rate
"""


class Preview:
    """`python -m sitegen serve` on a free port, its output in files that the test reads.
    ``breakable``: builds can be broken through pyproject.toml (BREAKER)."""

    def __init__(self, root: Path, *args: str, breakable: bool = False, env: dict[str, str] | None = None) -> None:
        self.root = root
        self.out = root / "_site"
        paths = [str(REPO)]
        if breakable:
            breaker = root.parent / f"{root.name}-breaker"
            breaker.mkdir(exist_ok=True)
            (breaker / "sitecustomize.py").write_text(BREAKER, encoding="utf-8")
            paths.insert(0, str(breaker))
        environment = {**os.environ, **(env or {})}
        environment["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [os.environ.get("PYTHONPATH")] if p])
        # The child writes in append mode through its own open file, the test reads through
        # another: one shared file offset let a read's seek(0) send the child's next write to
        # the start of the file, over the serving line.
        out, err = root.parent / f"{root.name}.stdout", root.parent / f"{root.name}.stderr"
        with open(out, "a", encoding="utf-8") as child_out, open(err, "a", encoding="utf-8") as child_err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "sitegen", "serve", "--root", str(root), "--port", "0", *args],
                stdout=child_out, stderr=child_err, env=environment)
        self.stdout = open(out, encoding="utf-8")
        self.stderr = open(err, encoding="utf-8")

    def staging(self, kinds: tuple[str, ...] = ("new", "old")) -> list[Path]:
        return sorted(p for p in self.root.iterdir() if re.match(rf"\._site\.({'|'.join(kinds)})-", p.name))

    def wait(self, condition, what: str, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while not condition():
            assert self.proc.poll() is None, f"serve ended while waiting for {what}: {self.output()}"
            assert time.monotonic() < end, f"no {what} after {timeout} s: {self.output()}"
            time.sleep(0.01)

    def port(self) -> int:
        """Waits for the 'serving' line and returns its port."""
        found: list[int] = []

        def served() -> bool:
            self.stdout.seek(0)
            m = re.search(r"^sitegen: serving .* at http://127\.0\.0\.1:(\d+)/ ", self.stdout.read(), re.M)
            if m:
                found.append(int(m.group(1)))
            return bool(m)

        self.wait(served, "serving line")
        return found[0]

    def stop(self, signum: int) -> tuple[int, float]:
        """Sends the signal; (exit code, seconds until the process ended)."""
        start = time.monotonic()
        self.proc.send_signal(signum)
        code = self.proc.wait(timeout=30)
        return code, time.monotonic() - start

    def wait_for(self, text: str, count: int = 1, timeout: float = 60) -> None:
        """Until ``text`` has been printed ``count`` times."""
        self.wait(lambda: self.output().count(text) >= count, f"{count} x {text!r}", timeout)

    def output(self) -> str:
        self.stdout.seek(0)
        self.stderr.seek(0)
        return self.stdout.read() + self.stderr.read()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.stdout.close()
        self.stderr.close()


@pytest.fixture
def preview(tmp_path):
    started: list[Preview] = []

    def start(root: Path, *args: str, **kwargs) -> Preview:
        started.append(Preview(root, *args, **kwargs))
        return started[-1]

    yield start
    for p in started:
        p.close()


def get(port: int, path: str) -> int:
    return fetch(port, path)[0]


RELOADER = re.compile(rb'<script>\(function \(\) \{\n  var build = ("[^"]*");.*?</script>\n', re.S)


def page(port: int, path: str) -> tuple[int, bytes, str]:
    """A served page as the build wrote it, with the build named by its reload script (which
    the preview adds to each page it sends, and only there)."""
    status, body = fetch(port, path)
    scripts = RELOADER.findall(body)
    assert len(scripts) == 1, body[-600:]
    return status, RELOADER.sub(b"", body), json.loads(scripts[0])


def test_sigterm_during_the_first_build_removes_its_staging_folder(tmp_path, preview):
    p = preview(big_site(tmp_path / "site"))
    p.wait(lambda: p.staging(("new",)), "staging folder")
    time.sleep(0.3)                     # well into the build: pages are being written
    assert any(p.staging(("new",))[0].iterdir())
    code, seconds = p.stop(signal.SIGTERM)
    assert code == 0, p.output()
    assert seconds < 10
    assert p.staging() == [] and not p.out.exists()
    assert p.output().splitlines()[-1] == "sitegen: stopped (SIGTERM)"
    assert "Traceback" not in p.output()


def test_sigterm_during_a_rebuild_keeps_the_last_site_and_removes_the_new_one(tmp_path, preview):
    root = big_site(tmp_path / "site")
    p = preview(root)
    port = p.port()
    assert p.staging() == [] and (p.out / "index.html").is_file() and get(port, "/") == 200
    index = (p.out / "index.html").read_bytes()
    # A changed match file starts a rebuild in the server's main thread.
    league = root / "matches/duel/2024.toml"
    league.write_text(league.read_text(encoding="utf-8").replace("goals = 0,", "goals = 1,", 1),
                      encoding="utf-8")
    p.wait(lambda: p.staging(("new",)), "staging folder of the rebuild")
    time.sleep(0.3)
    code, seconds = p.stop(signal.SIGTERM)
    assert code == 0 and seconds < 10, p.output()
    assert p.staging() == []
    assert (p.out / "index.html").read_bytes() == index        # the last complete build, untouched
    assert p.output().count("sitegen: rebuilt ") == 1         # the first build only


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP here")
def test_sighup_while_serving_ends_the_preview_at_once(tmp_path, preview):
    p = preview(big_site(tmp_path / "site", matches=20))
    port = p.port()
    assert get(port, "/") == 200 and get(port, "/no-such-page/") == 404
    code, seconds = p.stop(signal.SIGHUP)
    assert code == 0 and seconds < 5, p.output()
    assert p.staging() == [] and (p.out / "index.html").is_file()
    assert p.output().splitlines()[-1] == "sitegen: stopped (SIGHUP)"
    with pytest.raises(OSError):
        get(port, "/")


def test_ctrl_c_while_serving_still_exits_0(tmp_path, preview):
    p = preview(big_site(tmp_path / "site", matches=20))
    p.port()
    code, seconds = p.stop(signal.SIGINT)
    assert code == 0 and seconds < 5, p.output()
    assert p.staging() == [] and p.output().splitlines()[-1] == "sitegen: stopped (SIGINT)"


# --- in-process: where a stop is raised ----------------------------------------------------------

def test_a_stop_while_the_new_site_is_swapped_in_waits_for_the_swap(tmp_path, monkeypatch):
    from sitegen.output import write
    from sitegen.commands.serve import Stop, _Signals

    out = tmp_path / "_site"
    first = write.Output(out)
    first.add("index.html", "one")
    first.commit()
    second = write.Output(out)
    second.add("index.html", "two")
    removed = []

    def rmtree_signalled(path, *args, **kwargs):
        # SIGTERM arrives while commit removes the old site: the handler runs here, inside commit.
        os.kill(os.getpid(), signal.SIGTERM)
        removed.append(Path(path).name)
        real_rmtree(path, *args, **kwargs)

    real_rmtree = write.shutil.rmtree
    signals = _Signals()
    with signals.installed():
        monkeypatch.setattr(write.shutil, "rmtree", rmtree_signalled)
        with pytest.raises(Stop) as info:
            with signals.held():           # as a build holds stops from its swap on
                second.commit()            # not interrupted
                assert signals.pending == signal.SIGTERM
        monkeypatch.undo()
        assert info.value.signum == signal.SIGTERM      # raised once the swap is done
        signals.pending = None
        # Anywhere else the stop is raised where the main thread is ...
        with pytest.raises(Stop):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)
        # ... once: the cleanup it runs on its way out is not cut by the next one.
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.1)
        assert signals.pending == signal.SIGINT
    assert len(removed) == 1 and removed[0].startswith("._site.old-")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_site"]
    assert (out / "index.html").read_text() == "two"
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL     # the handlers are put back


def test_a_bad_repo_url_stops_serve_before_building(tmp_path):
    root = tmp_path / "site"
    (root / "matches").mkdir(parents=True)
    out = root / "_site"
    proc = subprocess.run([sys.executable, "-m", "sitegen", "serve", "--root", str(root), "--port", "0",
                           "--repo-url", "ftp://example.org/x"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.startswith("--repo-url: must be the repository's absolute http(s) URL")
    assert not out.exists()


# --- failed builds never end the preview ------------------------------------------------------

NOT_REBUILT = "sitegen: not rebuilt; the preview shows the last good build."
HINT = "rerun with SITEGEN_DEBUG=1 for the traceback"


@pytest.mark.parametrize("kind", ["runtime", "oserror"])
def test_a_rebuild_that_raises_keeps_the_last_site_served(tmp_path, preview, kind):
    root = big_site(tmp_path / "site", matches=20)
    write_files(root, {"pyproject.toml": "[tool.sitegen]\n"})
    p = preview(root, breakable=True)
    port = p.port()
    status, index, _ = page(port, "/")
    assert status == 200 and index == (p.out / "index.html").read_bytes()
    write_files(root, {"pyproject.toml": f"[tool.sitegen]\n# break: {kind}\n"})
    p.wait_for(NOT_REBUILT)
    err = p.output()
    if kind == "runtime":
        assert ("sitegen: internal error (RuntimeError: a rebuild that breaks): this is a bug in sitegen, "
                f"not a problem in your files; {HINT}") in err
    else:
        assert "sitegen: the build could not read or write a file: Input/output error (" in err
    assert "Traceback" not in err
    assert p.proc.poll() is None
    assert page(port, "/")[:2] == (200, index)         # the last good site, still answered
    assert p.staging() == []
    # Fixed: the next change rebuilds.
    write_files(root, {"pyproject.toml": "[tool.sitegen]\n"})
    p.wait_for("sitegen: rebuilt ", 2)
    assert get(port, "/") == 200 and p.proc.poll() is None


def test_with_sitegen_debug_a_broken_rebuild_prints_its_traceback(tmp_path, preview):
    root = big_site(tmp_path / "site", matches=20)
    write_files(root, {"pyproject.toml": "[tool.sitegen]\n"})
    p = preview(root, breakable=True, env={"SITEGEN_DEBUG": "1"})
    port = p.port()
    write_files(root, {"pyproject.toml": "[tool.sitegen]\n# break: runtime\n"})
    p.wait_for(NOT_REBUILT)
    err = p.output()
    assert "Traceback (most recent call last)" in err and "RuntimeError: a rebuild that breaks" in err
    assert HINT not in err
    assert get(port, "/") == 200 and p.proc.poll() is None


@pytest.mark.parametrize("breakage", ["invalid input", "internal error"])
def test_a_first_build_that_fails_still_serves_and_the_fix_gives_a_site(tmp_path, preview, breakage):
    root = big_site(tmp_path / "site", matches=20)
    league = root / "matches/duel/league.toml"
    good = league.read_text(encoding="utf-8")
    if breakage == "invalid input":
        league.write_text(good + "k = 5\n", encoding="utf-8")
        write_files(root, {"pyproject.toml": "[tool.sitegen]\n"})
    else:
        write_files(root, {"pyproject.toml": "[tool.sitegen]\n# break: runtime\n"})
    p = preview(root, breakable=True)
    port = p.port()
    assert "sitegen: not built; the preview shows a placeholder page until a build succeeds." in p.output()
    assert not p.out.exists()
    status, body = fetch(port, "/")
    assert status == 503 and b"No site yet" in body and b'http-equiv="refresh"' in body
    assert fetch(port, "/leagues/duel/")[0] == 503
    league.write_text(good, encoding="utf-8")
    write_files(root, {"pyproject.toml": "[tool.sitegen]\n"})
    p.wait_for("sitegen: rebuilt ")
    status, body, _ = page(port, "/")
    assert status == 200 and body == (p.out / "index.html").read_bytes()
    assert get(port, "/no-such-page/") == 404
    assert p.proc.poll() is None


def test_a_first_build_that_fails_serves_the_site_of_an_earlier_session(tmp_path, preview):
    root = big_site(tmp_path / "site", matches=20)
    assert subprocess.run([sys.executable, "-m", "sitegen", "build", "--root", str(root)],
                          env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True).returncode == 0
    league = root / "matches/duel/league.toml"
    league.write_text(league.read_text(encoding="utf-8") + "k = 5\n", encoding="utf-8")
    p = preview(root)
    port = p.port()
    assert NOT_REBUILT in p.output()
    assert page(port, "/")[:2] == (200, (p.out / "index.html").read_bytes())


def test_a_refused_output_folder_stops_serve_before_building(tmp_path):
    root = big_site(tmp_path / "site", matches=5)
    mine = write_files(tmp_path, {"mine/notes.txt": "keep"}) / "mine"
    proc = subprocess.run([sys.executable, "-m", "sitegen", "serve", "--root", str(root), "--port", "0",
                           "--out", str(mine)], env={**os.environ, "PYTHONPATH": str(REPO)},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "not a site sitegen wrote" in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"] and not (root / "_site").exists()


def test_rebuild_reports_any_exception_and_returns(tmp_path, monkeypatch, capsys):
    from sitegen.commands import serve

    def broken(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(serve, "build", broken)
    monkeypatch.delenv("SITEGEN_DEBUG", raising=False)
    assert serve.rebuild(tmp_path, tmp_path / "_site") is False
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"sitegen: internal error (KeyError: 'a bug'): this is a bug in sitegen, not a problem in your files; {HINT}",
        NOT_REBUILT]
    # A stop is not a failure: it still ends the preview.
    def stopped(*args, **kwargs):
        raise serve.Stop(signal.SIGTERM)

    monkeypatch.setattr(serve, "build", stopped)
    with pytest.raises(serve.Stop):
        serve.rebuild(tmp_path, tmp_path / "_site")


# --- live reload -------------------------------------------------------------------------------

def test_a_changed_match_reloads_the_served_pages(tmp_path, preview):
    root = big_site(tmp_path / "site", matches=20)
    p = preview(root)
    port = p.port()
    status, before, build = page(port, "/leagues/duel/")
    assert status == 200 and b"__sitegen" not in (p.out / "leagues/duel/index.html").read_bytes()   # not on disk
    assert page(port, "/no-such-page/")[0] == 404              # the 404 page reloads too
    assert json.loads(fetch(port, "/__sitegen/build")[1]) == {"build": build}
    # Asked with the page's build, the answer waits for a newer one: a rebuild after the change.
    answers: list[dict] = []
    waiting = threading.Thread(target=lambda: answers.append(
        json.loads(fetch(port, "/__sitegen/build?since=" + build, timeout=60)[1])))
    waiting.start()
    time.sleep(0.5)
    assert answers == []
    league = root / "matches/duel/2024.toml"
    league.write_text(league.read_text(encoding="utf-8").replace('name = "player 1"', 'name = "player 99"'),
                      encoding="utf-8")
    waiting.join(timeout=60)
    assert answers and answers[0]["build"] != build, p.output()
    assert p.output().count("sitegen: rebuilt ") == 2          # one rebuild for the change
    status, after, newer = page(port, "/leagues/duel/")
    assert status == 200 and newer == answers[0]["build"]
    assert after != before and b"player 99" in after and b"player 99" not in before
    assert after == (p.out / "leagues/duel/index.html").read_bytes()


def test_a_failed_rebuild_does_not_reload_the_pages(tmp_path, preview):
    root = big_site(tmp_path / "site", matches=20)
    p = preview(root)
    port = p.port()
    _, _, build = page(port, "/")
    league = root / "matches/duel/league.toml"
    league.write_text(league.read_text(encoding="utf-8") + "k = 5\n", encoding="utf-8")
    p.wait_for(NOT_REBUILT)
    assert json.loads(fetch(port, "/__sitegen/build")[1]) == {"build": build}
    assert page(port, "/")[2] == build
