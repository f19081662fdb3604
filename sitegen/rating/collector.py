"""The cyclic garbage collector paused while a block builds many long-lived, acyclic objects.

Reading a league, rating it and modelling its pages each make millions of objects (matches,
events, changes, lines) that live until the build ends and form no reference cycles. Every
collection the allocations set off walks all of them again: half the time of checking
100,000 matches, and as much of building a league's view models. Reference counting still
frees what dies; any cyclic garbage waits for the next collection after the block.
"""

from __future__ import annotations

import ctypes
import gc
from collections.abc import Callable, Iterator
from typing import Any
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block; the collector's state as it was after it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


_depth = 0     # ``frozen`` blocks open now (a forked worker inherits its parent's)


@contextmanager
def frozen() -> Iterator[Callable[[], None]]:
    """Every object alive now moved out of the collector's reach (``gc.freeze``) until the
    block ends; the block calls what it is given to move the objects made since as well,
    and to give back the memory freed since (``give_back``).

    A build's inputs and models live to its end: frozen, a full collection walks only what was
    made after, and forked page workers do not copy every shared page of memory by writing
    the collector's marks into it. A caller's own freeze (gc has no nesting) is left in place;
    otherwise the objects return to the collector after the block (``sitegen serve`` builds
    again and again in one process)."""
    global _depth
    # gc.get_freeze_count() walks every frozen object (0.4 s a call at a million matches):
    # asked only where no block of ours is open, when few if any are frozen.
    outer = _depth > 0 or gc.get_freeze_count() > 0
    _depth += 1
    gc.freeze()

    def freeze() -> None:
        gc.freeze()
        give_back()

    try:
        yield freeze
    finally:
        _depth -= 1
        if not outer:
            gc.unfreeze()


_trim: Any = None      # glibc's malloc_trim, False where there is none; None until looked up


def give_back() -> None:
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim``), where there
    is one. A stage's temporaries (the rating columns' intermediates, a frame's copies) are
    freed into the heap between objects that live on, and glibc keeps such pages: a
    million-match build held 150 MB more for each stage. The page workers, forked later,
    would count them too."""
    global _trim
    if _trim is None:
        try:
            _trim = getattr(ctypes.CDLL(None), "malloc_trim", False)
        except (OSError, TypeError):    # no C library to open by no name (Windows)
            _trim = False
    if _trim:
        _trim(0)


def freeze_made() -> None:
    """Inside a ``frozen`` block, move what was made so far out of the collector's reach now,
    not when the block next asks: the first collection after a ``paused`` block that built
    millions of objects would otherwise walk them all once more. Outside one, nothing."""
    if _depth:
        gc.freeze()


@contextmanager
def kept() -> Iterator[None]:
    """``paused`` for a block whose objects live on (reading, checking, modelling a league):
    inside a ``frozen`` block, what it made is frozen as it ends (``freeze_made``)."""
    with paused():
        yield
        freeze_made()


# What a one-shot command's build made, held to the end of the process: the command then ends
# it without freeing millions of objects one by one (1.7 s at 100,000 matches, 15 s at a
# million). None, so nothing is held, unless the command line asked for it (``hold_to_exit``);
# ``sitegen serve`` builds again and again and frees each build.
_held: list[object] | None = None


def hold_to_exit() -> None:
    global _held
    _held = []


def hold(*objects: object) -> None:
    """Keep ``objects`` alive to the end of the process, if the command ends it at once."""
    if _held is not None:
        _held.extend(objects)
