"""What a long build or check is doing: stage lines on standard error.

On a terminal, `sitegen build` and `sitegen check` say which stage they are in, each line led
by the seconds since the start::

    sitegen: [  0.0s] reading matches/…
    sitegen: [  2.3s] checked 3,023 matches in 6 leagues
    sitegen: [  2.3s] rating 6 leagues…
    sitegen: [  2.6s] writing the data files…
    sitegen: [  2.9s] rendering pages… 9,639 files
    sitegen: [ 11.8s] moving 9,639 files into _site…
    sitegen: [ 11.9s] done

The count after "rendering pages…" is kept up to date in place while pages are written (on a
terminal only). The lines are shown when standard error is a terminal and the environment does
not say CI (``CI`` set to anything but ``false`` or ``0``): a CI log and a pipe get nothing
extra. ``--progress`` shows them anyway (as whole lines, without the running count) and
``--quiet`` never. Standard output is never touched: its last line stays the command's verdict.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from sitegen.output.escape import visible
from sitegen.load.problems import plural

if TYPE_CHECKING:
    from sitegen.load.checked import Site

REFRESH = 0.1       # seconds between two updates of a running count on a terminal


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def in_ci(env: Mapping[str, str] | None = None) -> bool:
    """Whether the environment says this is a CI job (GitHub Actions, GitLab and others set CI)."""
    value = (os.environ if env is None else env).get("CI", "")
    return value.strip().lower() not in ("", "0", "false", "no")


def wanted(choice: bool | None, stream: TextIO | None = None, env: Mapping[str, str] | None = None) -> bool:
    """Whether to show the stages: ``choice`` is True (``--progress``), False (``--quiet``) or
    None (on a terminal, outside CI)."""
    if choice is not None:
        return choice
    return _isatty(stream or sys.stderr) and not in_ci(env)


class Progress:
    """Stage lines of one command; a disabled one (the default everywhere) does nothing.

    ``clock`` gives seconds (time.monotonic); a test may pass its own. ``after_check`` is called
    with the site once it is valid, before anything is rated or written, enabled or not: it may
    raise InvalidInput to stop a build there.
    """

    def __init__(self, enabled: bool = False, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 after_check: Callable[[Site], None] | None = None) -> None:
        self.enabled = enabled
        self.after_check = after_check
        self.stream = stream or sys.stderr
        self.live = enabled and _isatty(self.stream)    # a running count, rewritten in place
        self.clock = clock
        self.start = clock()
        self._count: int | None = None      # files of the stage being counted, if any
        self._line = ""                     # that stage's line, without the count
        self._shown = 0.0                   # when the count was last shown

    # --- the stages ------------------------------------------------------------------------

    def stage(self, text: str) -> None:
        """One line: the seconds since the start and what is being done."""
        if not self.enabled:
            return
        self._end_count()
        self._write(f"{self._lead()}{text}\n")

    def reading(self) -> None:
        self.stage("reading matches/…")

    def checked(self, site: Site) -> None:
        """The input is valid; then ``after_check``, if given (``build --strict`` stops there)."""
        matches = sum(len(lg.matches) for lg in site.leagues)
        leagues = len(site.leagues)
        self.stage(f"checked {matches:,} {'match' if matches == 1 else 'matches'} in "
                   f"{plural(leagues, 'league')}")
        if self.after_check is not None:
            self.after_check(site)

    def rating(self, site: Site) -> None:
        leagues = len(site.leagues)
        self.stage(f"rating {plural(leagues, 'league')}…")

    def writing_data(self) -> None:
        self.stage("writing the data files…")

    def rendering(self, output: Any) -> Any:
        """The stage that writes the pages; returns ``output`` (an Output), or on a terminal a
        stand-in for it that keeps a running count of the files written."""
        if not self.enabled:
            return output
        self._end_count()
        if not self.live:
            self._write(f"{self._lead()}rendering pages…\n")
            return output
        self._line = f"{self._lead()}rendering pages…"
        self._count = len(output.sizes)
        self._write(self._line)
        return _Counting(output, self._tick)

    def moving(self, files: int, out: Path) -> None:
        self.stage(f"moving {files:,} files into {visible(str(out))}…")

    def done(self) -> None:
        self.stage("done")

    def close(self) -> None:
        """Ends a running count's line, so that what follows (problems) starts a line of its own."""
        if self.enabled:
            self._end_count()

    # --- the running count -----------------------------------------------------------------

    def _tick(self, files: int) -> None:
        self._count = files
        now = self.clock()
        if now - self._shown >= REFRESH:
            self._shown = now
            self._write(f"\r{self._line} {files:,} files")

    def _end_count(self) -> None:
        if self._count is not None:
            self._write(f"\r{self._line} {self._count:,} files\n")
            self._count = None

    def _lead(self) -> str:
        return f"sitegen: [{self.clock() - self.start:5.1f}s] "

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = self.live = False     # a closed terminal does not stop the build


_CURRENT: ContextVar[Progress | None] = ContextVar("sitegen_progress", default=None)


def current() -> Progress:
    """The progress of the command running in this context: a disabled one outside ``reporting``.

    The pipeline looks it up instead of taking it as an argument, so that check(root) and
    rate(site) keep the signatures that callers and tests rely on.
    """
    found = _CURRENT.get()
    return found if found is not None else Progress()


@contextmanager
def reporting(progress: Progress) -> Iterator[Progress]:
    """Inside the block, build() and check() report their stages to ``progress``."""
    token = _CURRENT.set(progress)
    try:
        yield progress
    finally:
        progress.close()
        _CURRENT.reset(token)


class _Counting:
    """An Output that reports its number of files after each one it writes."""

    def __init__(self, output: Any, tick: Callable[[int], None]) -> None:
        self._output = output
        self._tick = tick

    def add(self, *args: Any, **kwargs: Any) -> None:
        self._output.add(*args, **kwargs)
        self._tick(len(self._output.sizes))

    def record(self, *args: Any, **kwargs: Any) -> None:
        """A file a page worker wrote (output/pages.py)."""
        self._output.record(*args, **kwargs)
        self._tick(len(self._output.sizes))

    def settle(self, written: list[tuple[str, int, bool]]) -> None:
        """Files a background job wrote (commands/build.py)."""
        self._output.settle(written)
        self._tick(len(self._output.sizes))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._output, name)
