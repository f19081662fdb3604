"""Pages rendered in forked workers (sitegen/output/parallel.py) are byte for byte the pages one
process renders, in the same order, and a template that fails inside a worker is reported like
one that fails at home."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers import REPO, tree_snapshot, write_files
from sitegen.commands.build import build
from sitegen.load.problems import InvalidInput
from sitegen.output import parallel


def site_copy(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    shutil.copytree(REPO / "tests" / "fixtures" / "small", root)
    return root


def test_workers_render_what_one_process_renders(tmp_path, monkeypatch):
    root = site_copy(tmp_path)
    monkeypatch.setattr(parallel, "MIN_PAGES", 10 ** 9)
    build(root, tmp_path / "serial")
    calls: list[int] = []
    real = parallel.Batch

    def counted(count, job, least=None):
        calls.append(count)
        return real(count, job, least)

    monkeypatch.setattr(parallel, "MIN_PAGES", 1)
    monkeypatch.setattr(parallel, "cores", lambda: 2)       # a pool even on a one-core runner
    monkeypatch.setattr("sitegen.output.pages.Batch", counted)
    build(root, tmp_path / "forked")
    assert calls and sum(calls) > 50                         # the pages went through the pool
    assert tree_snapshot(tmp_path / "serial") == tree_snapshot(tmp_path / "forked")


def test_the_last_batch_of_a_pooled_build_goes_to_the_pool_too(tmp_path, monkeypatch):
    root = site_copy(tmp_path)
    monkeypatch.setattr(parallel, "MIN_PAGES", 10 ** 9)
    build(root, tmp_path / "serial")
    real = parallel.Batch
    made: list[tuple[int, bool]] = []

    def noted(count, job, least=None):
        batch = real(count, job, least)
        made.append((count, batch._async is not None))
        return batch

    # A pool from 40 pages: the leagues' batches reach it, the content pages after them do not.
    monkeypatch.setattr(parallel, "MIN_PAGES", 40)
    monkeypatch.setattr(parallel, "MIN_LAST_PAGES", 2)
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    monkeypatch.setattr("sitegen.output.pages.Batch", noted)
    build(root, tmp_path / "forked")
    assert len(made) >= 2 and all(forked for _, forked in made), made
    assert parallel.MIN_LAST_PAGES <= made[-1][0] < parallel.MIN_PAGES, made
    assert tree_snapshot(tmp_path / "serial") == tree_snapshot(tmp_path / "forked")


def test_a_batch_keeps_the_order_of_its_jobs(monkeypatch):
    monkeypatch.setattr(parallel, "MIN_PAGES", 1)
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    assert parallel.Batch(500, lambda i: i * i).get() == [i * i for i in range(500)]


def test_a_template_failing_in_a_worker_is_a_problem_of_the_template(tmp_path, monkeypatch):
    root = site_copy(tmp_path)
    # Compiles, and fails only when a player page is rendered.
    write_files(root, {"templates/player.html": "{% extends 'base.html' %}\n"
                                                "{% block main %}{{ player.nope.deeper }}{% endblock %}\n"})
    monkeypatch.setattr(parallel, "MIN_PAGES", 1)
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    with pytest.raises(InvalidInput) as caught:
        build(root, tmp_path / "out")
    assert [p.file for p in caught.value.problems] == ["templates/player.html"]
    assert "nope" in str(caught.value.problems[0])
    assert not (tmp_path / "out").exists()


def _fails() -> None:
    raise ValueError("the job's own error")


@pytest.mark.parametrize("cores", [1, 2])
def test_a_background_job_gives_its_result_or_its_error(monkeypatch, cores):
    monkeypatch.setattr(parallel, "cores", lambda: cores)
    pid = os.getpid()
    job = parallel.Background(lambda: (os.getpid(), [("data/x.csv", 3, False)]))
    ran_in, written = job.result()
    assert written == [("data/x.csv", 3, False)]
    assert (ran_in != pid) == (cores == 2)          # forked where a second core is to be had
    with pytest.raises(ValueError, match="the job's own error"):
        parallel.Background(_fails).result()


def test_the_data_files_written_in_the_background_are_those_written_at_home(tmp_path, monkeypatch):
    root = site_copy(tmp_path)
    monkeypatch.setattr(parallel, "cores", lambda: 1)
    build(root, tmp_path / "home")
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    build(root, tmp_path / "background")
    assert tree_snapshot(tmp_path / "home") == tree_snapshot(tmp_path / "background")
