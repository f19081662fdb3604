"""Problems found in a site's input, reported all at once and never as a traceback."""

from __future__ import annotations

import re
from collections.abc import Sequence
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


# --- many problems of one kind on a terminal ---------------------------------------------
#
# A systematic mistake (a converted history writing the same unknown key into every match)
# makes thousands of problems that say the same thing. Listed one by one they bury the few
# other problems and take minutes to scroll; past KIND_LIMIT of one kind the terminal shows
# the first SHOWN_PER_KIND of it, each a full problem line, and one line with the count and
# where the rest are. Thirty lines still fit a terminal and fix a curator's few slips;
# twenty are enough to see the pattern of a systematic one. `--all` lists every problem.

KIND_LIMIT = 30
SHOWN_PER_KIND = 20

# The parts of a problem that change from one instance of a mistake to the next: quoted
# values (names, ids), positions in a list and numbers (lines, values).
_VARYING = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\[\d+\]|(?<![\w.])\d+(?:\.\d+)?(?!\w)""")


def _kind_text(problem: Problem) -> str:
    return f"{problem.field}: {problem.message}" if problem.field else problem.message


def _blank(token: str) -> str:
    """A varying part as the summary shows it: its quotes or brackets kept, its value left out."""
    if token[0] in "'\"[":
        return token[0] + "…" + token[-1]
    return "…"


@dataclass(slots=True)
class Kind:
    """Problems that say the same thing but for their values, lines and positions."""

    first: Problem
    tokens: list[str]               # the first problem's varying parts ...
    varies: list[bool]              # ... and whether each differs in another problem
    last: Problem
    count: int = 0

    def pattern(self) -> str:
        """``players[…].goals: must be an integer 0..22, got …``: what the problems share."""
        parts = iter(_blank(t) if v else t for t, v in zip(self.tokens, self.varies))
        return _VARYING.sub(lambda _: next(parts), _kind_text(self.first))


@dataclass(slots=True)
class Listing:
    """What a terminal shows of some problems: ``lines``, one full problem line each (all of
    them, or the first SHOWN_PER_KIND of a kind with more than KIND_LIMIT), and ``cut``, the
    kinds cut short, in the order they first occur."""

    lines: list[str]
    cut: list[Kind]
    shown: list[Problem]

    def summary(self, lead: str = "") -> list[str]:
        """One line per kind cut short: how many more, what they say, the first and last line."""
        out = []
        for k in self.cut:
            first = k.first.file if k.first.line is None else f"{k.first.file}:{k.first.line}"
            last = k.last.file if k.last.line is None else f"{k.last.file}:{k.last.line}"
            out.append(f"sitegen: {lead}… and {k.count - SHOWN_PER_KIND:,} more of this kind, {k.count:,} in "
                       f"all: {k.pattern()} (first at {first}, last at {last})")
        return out


def listing(problems: Sequence[Problem], *, every: bool = False, lead: str = "") -> Listing:
    """The problems a terminal shows, each line prefixed with ``lead``; ``every`` shows all."""
    kinds: dict[str, Kind] = {}
    of: list[Kind] = []
    split: dict[str, tuple[str, list[str]]] = {}    # a mistake repeated is the same text, split once
    for p in problems:
        text = _kind_text(p)
        if text not in split:
            split[text] = (_VARYING.sub("\0", text), _VARYING.findall(text))
        key, tokens = split[text]
        k = kinds.get(key)
        if k is None:
            k = kinds[key] = Kind(p, tokens, [False] * len(tokens), p)
        else:
            k.last = p
            for i, t in enumerate(tokens):
                if t != k.tokens[i]:
                    k.varies[i] = True
        k.count += 1
        of.append(k)
    seen: dict[int, int] = {}
    shown = []
    for p, k in zip(problems, of):
        n = seen[id(k)] = seen.get(id(k), 0) + 1
        if every or k.count <= KIND_LIMIT or n <= SHOWN_PER_KIND:
            shown.append(p)
    cut = [] if every else [k for k in kinds.values() if k.count > KIND_LIMIT]
    return Listing([f"{lead}{p}" for p in shown], cut, shown)
