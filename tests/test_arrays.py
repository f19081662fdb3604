"""rating/arrays.py: a kernel numba cannot compile runs plain, with the same results; an error of
the kernel's own still reaches the caller."""

from __future__ import annotations

import numpy as np
import pytest

from sitegen.rating import arrays

pytestmark = pytest.mark.skipif(arrays.compiler() is None, reason="numba is not installed")


def untypable(values, out):
    # numba cannot type object(): compiling this fails on the first call.
    marks = [object()]
    for i in range(len(values)):
        out[i] = values[i] * 2.0
    return len(marks) + len(values)


def divides(values, out):
    for i in range(len(values)):
        out[i] = 1.0 / values[i]


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arrays, "MODE", "on")
    monkeypatch.setattr(arrays, "_compiled", {})


def test_a_kernel_numba_cannot_compile_runs_plain_with_its_outputs_written(compiled: None) -> None:
    fn = arrays.kernel(untypable, 1)
    assert fn is not untypable
    out = np.zeros(3)
    assert fn(np.array([1.0, 2.5, -4.0]), out) == 4
    assert out.tolist() == [2.0, 5.0, -8.0]
    # Not tried again: the next lookup hands out the plain function itself.
    assert arrays.kernel(untypable, 1) is untypable


def test_an_error_of_the_kernel_itself_is_raised_and_the_kernel_stays_compiled(compiled: None) -> None:
    fn = arrays.kernel(divides, 1)
    out = np.zeros(2)
    fn(np.array([2.0, 4.0]), out)
    assert out.tolist() == [0.5, 0.25]
    with pytest.raises(ZeroDivisionError):
        fn(np.array([1.0, 0.0]), out)
    assert arrays.kernel(divides, 1) is fn
