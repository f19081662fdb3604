"""A job run in a forked child process whose result comes back as bytes through a pipe.

Checking a long league uses it to validate the second half of its match files on the second
core (validate.py). It lives on the input side, below the output side's pools
(output/parallel.py), because `sitegen check` imports nothing that renders, and it needs no
pool: one child, one answer.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable


def cores() -> int:
    """The cores this process may run on (a container's or CI runner's share, not the machine's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:        # not Linux
        return os.cpu_count() or 1


class Child:
    """A forked child running a job; ``wait()`` gives its bytes, None if it failed."""

    def __init__(self, pid: int, reader: int) -> None:
        self._pid, self._reader = pid, reader

    def wait(self) -> bytes | None:
        with os.fdopen(self._reader, "rb") as pipe:
            data = pipe.read()          # to the end: the child's exit closes its end
        _, status = os.waitpid(self._pid, 0)
        return data if os.waitstatus_to_exitcode(status) == 0 else None

    def stop(self) -> None:
        """End the child, done or not (the parent failed on its own part)."""
        try:
            os.kill(self._pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.close(self._reader)
        os.waitpid(self._pid, 0)


def start(job: Callable[[], bytes]) -> Child | None:
    """``job`` run in a forked child; None where there is no second core or no fork."""
    if not hasattr(os, "fork") or cores() < 2:
        return None
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:            # the child: the job, its bytes into the pipe, and out
        code = 1
        try:
            os.close(reader)
            # Stop signals are the parent's to handle (it stops this child); a handler
            # inherited from `sitegen serve` would raise here and print a traceback.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            view = memoryview(job())
            while view:
                view = view[os.write(writer, view):]
            code = 0
        except BaseException:       # noqa: BLE001 - the parent sees the failure and checks alone
            pass
        finally:
            os._exit(code)
    os.close(writer)
    return Child(pid, reader)
