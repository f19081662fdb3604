"""Problems found in a site's input, reported all at once and never as a traceback."""

from __future__ import annotations

from dataclasses import dataclass, field


def plural(n: int, word: str) -> str:
    """``1 match``, ``3 matches``, ``2 problems``: counts in messages and reports."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}es" if word.endswith(("s", "x", "ch", "sh")) else f"{n} {word}s"


@dataclass(frozen=True, slots=True, order=True)
class Problem:
    """One thing wrong with the input, located as precisely as it can be.

    Rendered as ``FILE[:LINE]: [match M: ][FIELD: ]message`` so that a curator
    can jump to the line and knows what is allowed.
    """

    file: str
    line: int | None = None
    match: str | None = None
    field: str | None = None
    message: str = ""

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        parts = [where]
        if self.match:
            parts.append(f"match {self.match}")
        if self.field:
            parts.append(self.field)
        parts.append(self.message)
        return ": ".join(parts)


@dataclass(slots=True)
class Problems:
    """A collector that every stage appends to; the build stops if it is not empty."""

    items: list[Problem] = field(default_factory=list)

    def add(self, file: str, message: str, *, line: int | None = None,
            match: str | None = None, field: str | None = None) -> None:
        self.items.append(Problem(file, line, match, field, message))

    def __bool__(self) -> bool:
        return bool(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return iter(self.items)


class InvalidInput(Exception):
    """Raised by the pipeline when the input has problems; carries all of them."""

    def __init__(self, problems: Problems | list[Problem]):
        self.problems = list(problems)
        super().__init__(f"{len(self.problems)} problem(s) in the input")
