"""The package reads as its pipeline: each layer imports only the layers below it.

rating (pure math) <- load (the input side) <- model (view models) <- output (render and
write) <- commands. An import that points up a layer, function-level ones included, fails
here with the line that makes it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "sitegen"
LAYERS = ["rating", "load", "model", "output", "commands"]


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "sitegen" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else None


def imports(path: Path) -> list[tuple[int, str]]:
    """Every sitegen module a file imports, with the line: absolute and relative, at any depth."""
    tree = ast.parse(path.read_text(), str(path))
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            # `from sitegen import output` names a layer in the imported names
            if module == "sitegen":
                found += [(node.lineno, f"sitegen.{alias.name}") for alias in node.names]
    return found


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.parent.name in LAYERS)


def test_every_module_sits_in_a_layer():
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py"], loose


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path):
    own = LAYERS.index(path.parent.name)
    upward = [f"{path.relative_to(PACKAGE.parent)}:{line}: imports {module}"
              for line, module in imports(path)
              if (layer := layer_of(module)) and LAYERS.index(layer) > own]
    assert not upward, "\n".join(upward)


def test_rating_is_pure():
    """The math imports no input, output or rendering library."""
    banned = ("jinja2", "markdown", "altair", "vl_convert", "pagefind", "feedgen", "tomllib", "pathlib",
              "subprocess", "os")
    found = [f"{p.relative_to(PACKAGE.parent)}:{line}: imports {module}"
             for p in sorted((PACKAGE / "rating").glob("*.py"))
             for line, module in imports(p) if module.split(".")[0] in banned]
    assert not found, "\n".join(found)
