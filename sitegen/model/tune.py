"""`sitegen tune LEAGUE --param NAME=V1,V2,...`: how well the league's ratings would predict
with other parameters.

Every combination of the values given (the cartesian product, in the order written) is a
replay of the league's matches by its own system (baselines.replay), scored as
accuracy.csv's row "all" is (accuracy.summarize), with the right-side share beside it.
The replays run on every core; the table lists them in the order of the combinations,
however the processes finish, so the output is the same on every run.

A value is read as TOML reads it (10, 0.5, "fide", [[0, 40], [1500, 20]]); a bare word is
text (k=fide). A parameter the system does not declare, or a value its own check refuses,
is a bad command line (exit 2), named with what is allowed.
"""

from __future__ import annotations

import itertools
import os
import re
import tomllib
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from sitegen.model.accuracy import Accuracy, accuracy
from sitegen.rating.base import Param, RatingDiverged, did_you_mean, toml_text, value_text
from sitegen.load.validate import League

# A sweep of a few parameters over a handful of values each is tens of replays; past this
# many a typo (k=1,...,1000 pasted from a range) would keep every core busy for minutes.
MAX_COMBINATIONS = 1000
BARE_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")
COLUMNS = ("predictions", "log_loss", "brier", "accuracy")


class UsageError(Exception):
    """A bad command line (unknown league or parameter, a refused value): exit 2."""


@dataclass(frozen=True, slots=True)
class Trial:
    """One combination of values and how the replay with it predicted."""

    values: tuple[Any, ...]           # in the order of the parameters on the command line
    score: Accuracy | None            # the row "all"; None when the math ran away
    diverged: str | None = None       # the match or rating period where it did
    current: bool = False             # the league's own values


@dataclass(frozen=True, slots=True)
class Sweep:
    league: str
    system: str
    names: tuple[str, ...]
    trials: tuple[Trial, ...]


def split_values(text: str) -> list[str]:
    """"10,20" -> ["10", "20"]; commas inside brackets, braces or quotes belong to one value."""
    out, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return [v.strip() for v in out]


def read_value(text: str) -> Any:
    """A value as league.toml would hold it; a bare word is text. ValueError when neither."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        if BARE_WORD.match(text):
            return text
        raise ValueError(f"{text!r} is not a value: write a number (20, 0.5), a word (fide) or a TOML "
                         "value ([[0, 40], [1500, 20]])") from None


def parse_params(specs: Sequence[str], params: Sequence[Param], system: str) -> list[tuple[Param, list[Any]]]:
    """The --param options as (parameter, values); UsageError listing every problem."""
    declared = {p.name: p for p in params}
    wanted: list[tuple[Param, list[Any]]] = []
    problems: list[str] = []
    for spec in specs:
        name, eq, rest = spec.partition("=")
        name = name.strip()
        if not eq or not name:
            problems.append(f"--param {spec!r}: write NAME=VALUE[,VALUE...], such as k=10,20,32")
            continue
        if name not in declared:
            problems.append(f"--param {name}: unknown parameter for system {system!r}; "
                            f"{did_you_mean(name, declared)}allowed: {', '.join(declared)}")
            continue
        if any(p.name == name for p, _ in wanted):
            problems.append(f"--param {name}: given twice; list all its values in one --param, "
                            f"such as {name}=10,20")
            continue
        param, values = declared[name], []
        for text in split_values(rest):
            if not text:
                problems.append(f"--param {name}: an empty value; write the values separated by commas, "
                                f"such as {name}=10,20")
                continue
            try:
                value = read_value(text)
            except ValueError as exc:
                problems.append(f"--param {name}: {exc}")
                continue
            if not param.check(value):
                problems.append(f"--param {name}: must be {param.allowed}, got {value_text(value)}")
            elif value in values:
                problems.append(f"--param {name}: {toml_text(value)} is listed twice")
            else:
                values.append(value)
        wanted.append((param, values))
    if not specs:
        problems.append("give at least one --param NAME=VALUE[,VALUE...], such as --param k=10,20,32")
    if not problems:
        n = 1
        for _, values in wanted:
            n *= len(values)
        if n > MAX_COMBINATIONS:
            problems.append(f"{n:,} combinations of values; at most {MAX_COMBINATIONS:,} are replayed in one run")
    if problems:
        raise UsageError("\n".join(problems))
    return wanted


# --- the replays, one process per core ----------------------------------------------

_league: League | None = None


def _set_league(league: League) -> None:
    global _league
    _league = league


def _trial(overrides: dict[str, Any]) -> tuple[Accuracy | None, str | None]:
    from sitegen.model.baselines import replay

    assert _league is not None
    try:
        rated = replay(_league, overrides)
    except RatingDiverged as exc:
        return None, exc.event
    return accuracy(rated)[0], None


def sweep(league: League, wanted: Sequence[tuple[Param, Sequence[Any]]], workers: int | None = None) -> Sweep:
    """Replay the league with every combination of the wanted values, in their order."""
    names = tuple(p.name for p, _ in wanted)
    combos = list(itertools.product(*(values for _, values in wanted)))
    overrides = [dict(zip(names, combo)) for combo in combos]
    workers = min(len(combos), workers or os.cpu_count() or 1)
    if workers <= 1:
        _set_league(league)
        results = [_trial(o) for o in overrides]
    else:
        # map() yields in the order of its input: the table never depends on which replay ends first.
        with ProcessPoolExecutor(max_workers=workers, initializer=_set_league, initargs=(league,)) as pool:
            results = list(pool.map(_trial, overrides))
    own = league.config.params
    trials = tuple(Trial(combo, score, diverged, all(own[n] == v for n, v in zip(names, combo)))
                   for combo, (score, diverged) in zip(combos, results))
    return Sweep(league.config.slug, league.config.system_name, names, trials)
