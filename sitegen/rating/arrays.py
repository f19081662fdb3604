"""Rating over arrays: players as integer indices, a league's matches as columns of numbers.

A system's engine is one plain Python function over NumPy arrays (a *kernel*), written once.
It runs as it is (the pure-Python path, always available) or compiled by numba when numba is
installed and the league is long enough to repay the compilation: the same source, so the
same arithmetic in the same order, and the tests hold the two paths to the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import chain
from operator import attrgetter
from typing import Any, TypeVar, cast

import numpy as np

from sitegen.rating.values import Match

F = TypeVar("F", bound=Callable[..., Any])
PLAYERS = attrgetter("players")

# Below this many matches the pure-Python kernel finishes before numba has loaded (its import
# and a compiled kernel read back from the cache cost ~0.3 s; a first compilation ~1-2 s).
JIT_MIN_MATCHES = 20_000
# "auto": compiled from JIT_MIN_MATCHES on; "on": whatever the size; "off": never. The
# commands set it from the environment's SITEGEN_JIT (this layer reads no environment); the
# tests use all three.
MODE = "auto"


def jit_wanted(matches: int) -> bool:
    """Whether a league of this many matches should run its kernel compiled."""
    if MODE == "off" or (MODE == "auto" and matches < JIT_MIN_MATCHES):
        return False
    return compiler() is not None


_compiler: Any = None
_looked = False


def compiler() -> Any:
    """numba's ``njit``, or None where numba is not installed (or fails to load)."""
    global _compiler, _looked
    if not _looked:
        _looked = True
        try:
            import numba
            _compiler = numba.njit
        except Exception:       # not installed, or built for another NumPy: the plain path serves
            _compiler = None
    return _compiler


_compiled: dict[Callable[..., Any], Callable[..., Any]] = {}


def kernel(fn: F, matches: int) -> F:
    """``fn`` compiled (cached on disk by numba, once per process here) or ``fn`` itself."""
    if not jit_wanted(matches):
        return fn
    done = _compiled.get(fn)
    if done is None:
        # No fastmath: IEEE arithmetic in source order, as the interpreter does it.
        done = _guarded(fn, compiler()(cache=True, nogil=True)(fn))
        _compiled[fn] = done
    return cast(F, done)


def _guarded(fn: Callable[..., Any], jitted: Callable[..., Any]) -> Callable[..., Any]:
    """``jitted``, or ``fn`` where numba fails to compile it (numba compiles on the first call:
    a numba or NumPy release that cannot type the kernel must cost speed, never the build).

    The fallback runs ``fn`` as the plain path does, over lists of Python numbers, and writes
    the lists back into the caller's arrays: the kernels return their results in them."""
    from numba.core.errors import NumbaError

    def run(*args: Any) -> Any:
        try:
            return jitted(*args)
        except NumbaError:
            _compiled[fn] = fn              # not tried again in this process
        plain = [a.tolist() if isinstance(a, np.ndarray) else a for a in args]
        result = fn(*plain)
        for array, values in zip(args, plain):
            if isinstance(array, np.ndarray):
                array[...] = values
        return result
    return run


def player_index(matches: Sequence[Match]) -> tuple[tuple[str, ...], dict[str, int]]:
    """Every player of ``matches`` in order of first appearance, and each one's index."""
    # dict.fromkeys keeps each key's first place: the loop runs in C (0.5 s less at a million).
    names = tuple(dict.fromkeys(chain.from_iterable(map(PLAYERS, matches))))
    return names, dict(zip(names, range(len(names))))


def pair_columns(matches: Sequence[Match], index: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """The two players of each 1v1 match as index columns (int64)."""
    n = len(matches)
    players = list(map(PLAYERS, matches))
    if all(len(p) == 2 for p in players):
        both = np.fromiter(map(index.__getitem__, chain.from_iterable(players)), dtype=np.int64, count=2 * n)
        return both[0::2].copy(), both[1::2].copy()
    a = np.fromiter((index[p[0]] for p in players), dtype=np.int64, count=n)
    b = np.fromiter((index[p[1]] for p in players), dtype=np.int64, count=n)
    return a, b


def once_each(values: Sequence[Any], of: Callable[[Any], Any]) -> dict[int, Any]:
    """By the id of each distinct object of ``values``, ``of`` it, called once for each: a league's
    matches share their entries and names (load/validate.Shared). ``values`` holds the objects
    alive while the result is read, so the ids are theirs."""
    distinct = dict(zip(map(id, values), values))
    return {k: of(v) for k, v in distinct.items()}


def entry_column(entries: Sequence[Mapping[str, Any]], value: Callable[[Mapping[str, Any]], float]) -> np.ndarray:
    """``value`` of each entry as a float64 column, worked out once for each distinct entry object."""
    of = once_each(entries, value)
    return np.fromiter(map(of.__getitem__, map(id, entries)), dtype=np.float64, count=len(entries))


def packed(x: np.ndarray) -> tuple[Any, ...]:
    """A column as a few bytes where every value is the same to the bit, int64 indices as int32
    where they fit: ``unpacked`` gives it back as it was, dtype and bits."""
    if len(x):
        bits = x.view(np.dtype(f"u{x.itemsize}"))
        if (bits == bits[0]).all():
            return ("same", x.dtype.str, len(x), x[:1].tobytes())
        if x.dtype == np.int64 and -(1 << 31) <= int(x.min()) and int(x.max()) < (1 << 31):
            return ("int32", x.astype(np.int32))
    return ("raw", x)


def unpacked(value: tuple[Any, ...]) -> np.ndarray:
    """The column ``packed`` packed."""
    if value[0] == "same":
        return np.repeat(np.frombuffer(value[3], dtype=np.dtype(value[1])), value[2])
    if value[0] == "int32":
        return np.asarray(value[1], dtype=np.int32).astype(np.int64)
    return np.asarray(value[1])
