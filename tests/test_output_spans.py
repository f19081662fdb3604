"""A grown CSV file's published rows are copied by the kernel (write.py Span, build.py _head):
the bytes are the ones reading the file's first lines and writing them out gave."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitegen.commands.build import _head
from sitegen.output import write
from sitegen.output.write import Span, _write


def first_lines(path: str, lines: int, total: int, size: int) -> bytes | None:
    """The form before: the line ends counted, then the blocks read up to the cut."""
    def chunks() -> Iterator[bytes]:
        with open(path, "rb") as fh:
            while block := fh.read(size):
                yield block

    if lines == total:
        return b"".join(chunks())
    if sum(block.count(b"\n") for block in chunks()) != total:
        return None
    out = []
    for block in chunks():
        ends = block.count(b"\n")
        if ends >= lines:
            cut = -1
            for _ in range(lines):
                cut = block.index(b"\n", cut + 1)
            out.append(block[:cut + 1])
            break
        lines -= ends
        out.append(block)
    return b"".join(out)


texts = st.lists(st.sampled_from([b"a,b\n", b"1,2\n", b'"x\ny",3\n', b"\n", b"tail"]), max_size=40).map(b"".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts, st.data(), st.sampled_from([1, 3, 7, 1 << 20]), st.booleans())
def test_a_head_is_the_published_file_s_first_lines(tmp_path: Path, text: bytes, data: st.DataObject,
                                                    size: int, kernel: bool) -> None:
    source, target = tmp_path / "published.csv", tmp_path / "new.csv"
    source.write_bytes(text)
    total = text.count(b"\n") + data.draw(st.sampled_from([0, 0, 1]))     # now and then not the file's count
    lines = data.draw(st.integers(1, max(1, total)))
    expected = first_lines(str(source), lines, total, size)
    head = _head(str(source), lines, total, size)
    if expected is None:
        assert head is None
        return
    assert head is not None
    with pytest.MonkeyPatch.context() as mp:
        if not kernel:      # a system without copy_file_range: read and written
            mp.delattr(os, "copy_file_range", raising=False)
        assert _write(str(target), [b"head\n", *head, b"more\n"]) == len(expected) + 10
    assert target.read_bytes() == b"head\n" + expected + b"more\n"


def test_a_file_system_refusing_the_kernel_copy_is_read_and_written(tmp_path: Path, monkeypatch) -> None:
    source = tmp_path / "a.csv"
    source.write_bytes(b"x\n" * 1000)

    def refuse(*args, **kw):
        raise OSError(errno.EXDEV, "cross-device")

    monkeypatch.setattr(os, "copy_file_range", refuse, raising=False)
    assert _write(str(tmp_path / "b.csv"), [Span(str(source), 1500)]) == 1500
    assert (tmp_path / "b.csv").read_bytes() == b"x\n" * 750


def test_a_file_shorter_than_its_span_is_an_error(tmp_path: Path) -> None:
    source = tmp_path / "a.csv"
    source.write_bytes(b"x\n")
    with pytest.raises(OSError):
        write._copy(Span(str(source), 10), os.open(tmp_path / "b", os.O_WRONLY | os.O_CREAT))
