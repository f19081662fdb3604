"""Pages rendered on every core, and jobs run beside the main process.

The parent queues every page; forked workers make them. A page's context, or for a player's
pages the job that models them, reaches a worker through the fork (memory shared
copy-on-write), never through pickling; the worker renders and writes the files itself and
sends back only their paths and sizes, in page order, so the output is byte for byte what
one process writes. ``Background`` runs one job (the data files, the bootstrap intervals, the accuracy comparisons,
the content pages, the search index) in a forked process while the parent goes on, and hands
its result back when asked.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable
from typing import Any

from sitegen.load.forked import cores
from sitegen.rating import collector

# Below this many pages a pool costs more than it saves (the fork, the HTML sent back).
MIN_PAGES = 300
# A build's last batch, where batches before it went to a pool, is forked from this many: the
# pages left after the last big league (the small leagues', the content pages) are a second
# of the demo's, which the main process made alone while the other core waited.
MIN_LAST_PAGES = 16

_job: Callable[[int], object] | None = None     # what the forked workers run, set before the fork


def _run(i: int) -> object:
    assert _job is not None, "a worker forked without its job"
    return _job(i)


def _as_a_worker() -> None:
    """A forked worker leaves stop signals to its parent: Ctrl-C is ignored (the parent stops
    the pool), SIGTERM and SIGHUP end it quietly. It would otherwise keep the parent's
    handlers (the preview's raise an exception, and a worker would print its traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)



class _Forked:
    """Worker processes forked from this one; ``close()`` stops them, done or not (a build
    that fails does not wait for them)."""

    _pool: Any = None
    _async: Any = None

    def _fork(self, workers: int, job: Callable[[int], Any]) -> Any:
        global _job
        _job = job      # what the forked workers run: each has it from the fork
        # Everything the parent holds (the models of every page) is moved out of the
        # collector's reach as the workers fork: a worker's full collections then walk only
        # what it made itself, and do not write into, and so copy, every shared page of memory.
        try:
            with collector.frozen():
                self._pool = multiprocessing.get_context("fork").Pool(workers, _as_a_worker)
        finally:
            _job = None
        return self._pool

    def _wait(self) -> Any:
        try:
            return self._async.get()
        finally:
            self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


def _can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


class Batch(_Forked):
    """[job(0), ..., job(count - 1)] made by forked workers while this process goes on;
    ``get()`` waits for them, in order. With one core, too few jobs (fewer than ``least``,
    by default MIN_PAGES) or no fork, the jobs run here, at once."""

    def __init__(self, count: int, job: Callable[[int], Any], least: int | None = None) -> None:
        workers = min(cores(), 8)
        if workers < 2 or count < (MIN_PAGES if least is None else least) or not _can_fork():
            self._results = [job(i) for i in range(count)]
            return
        # Small chunks: pages differ a lot in cost (a league's board against a player's page).
        chunk = max(1, min(32, count // (8 * workers)))
        self._async = self._fork(workers, job).map_async(_run, range(count), chunksize=chunk)

    def get(self) -> list[Any]:
        if self._pool is None:
            return self._results
        results: list[Any] = self._wait()
        return results


class Background(_Forked):
    """A job run in a forked process while this one goes on; ``result()`` waits for it.
    Where no second core or fork is to be had, the job runs at ``result()``."""

    def __init__(self, job: Callable[[], Any]) -> None:
        self._job: Callable[[], Any] | None = job
        self._result: Any = None
        if cores() >= 2 and _can_fork():
            self._async = self._fork(1, lambda _: job()).apply_async(_run, (0,))

    @property
    def forked(self) -> bool:
        """Whether the job runs in a process of its own (else it runs here, at ``result()``)."""
        return self._async is not None

    def result(self) -> Any:
        """The job's result, the same on every call."""
        if self._job is not None:
            self._result = self._wait() if self._pool is not None else self._job()
            self._job = None
        return self._result
