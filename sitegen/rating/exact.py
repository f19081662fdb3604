"""Many logistic expected scores at once, each equal to ``base.expected`` to the last bit.

NumPy's own ``power`` and ``log`` are not the C library's: on CPUs with AVX-512 they run
SIMD approximations that differ from it in the last bit for a few percent of inputs, so
an array of E computed by NumPy would not be the numbers Python computes one by one.
These loops call the C library's ``pow`` and ``log`` as the interpreter does, either run
as plain Python over lists (small inputs, or without numba) or compiled by numba
(arrays.kernel) for long leagues; tests/test_pair_scoring.py holds both paths to the
per-pair formulas.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sitegen.rating.arrays import kernel

# Passed to the loops as arguments, never written as constants inside them: a compiler that
# sees pow(10.0, x) or pow(x, 2.0) may rewrite it as exp10(x) or x * x, which can round
# differently from the C library's pow that Python calls.
TEN = 10.0
TWO = 2.0


def run(fn: Callable[..., Any], size: int, args: tuple[Any, ...], writes: tuple[int, ...]) -> None:
    """``fn(*args)`` compiled when ``size`` (the number of elements it loops over) repays it,
    else as plain Python over lists of Python numbers, the arrays at positions ``writes``
    filled from their lists after: the interpreter's own float arithmetic, as the
    one-at-a-time code did it."""
    compiled = kernel(fn, size)
    if compiled is not fn:
        compiled(*args)
        return
    plain = [a.tolist() if isinstance(a, np.ndarray) else a for a in args]
    fn(*plain)
    for i in writes:
        args[i][...] = plain[i]


def logistic_kernel(r_a: Any, r_b: Any, ten: float, out: Any) -> None:
    """out[i] = base.expected(r_a[i], r_b[i]), the same operations in the same order."""
    for i in range(len(r_a)):
        x = (r_b[i] - r_a[i]) / 400.0
        if x > 300.0:
            t = ten ** -x
            out[i] = t / (1.0 + t)
        else:
            out[i] = 1.0 / (1.0 + ten ** x)


def expected_many(r_a: np.ndarray, r_b: np.ndarray) -> np.ndarray:
    """base.expected of every pair (r_a[i], r_b[i]), as a float64 array."""
    r_a = np.ascontiguousarray(r_a, dtype=np.float64)
    r_b = np.ascontiguousarray(r_b, dtype=np.float64)
    out = np.empty(len(r_a))
    run(logistic_kernel, len(r_a), (r_a, r_b, TEN, out), (3,))
    return out
