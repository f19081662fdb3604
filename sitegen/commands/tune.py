"""`sitegen tune LEAGUE --param NAME=V1,V2,...`: the command's side of sitegen.model.tune:
find the league, check the site, and print the sweep as text, CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sitegen.load.problems import Problem, plural
from sitegen.model.tune import COLUMNS, Sweep, UsageError, parse_params, sweep
from sitegen.load.validate import League
from sitegen.load.site import LEAGUE_SLUG, where_to_run
from sitegen.commands.build import check
from sitegen.rating.base import toml_text

__all__ = ["UsageError", "diverged_problems", "render", "tune"]


def load(root: Path, slug: str) -> League:
    """The league, validated like `sitegen check` validates the site (InvalidInput: exit 1)."""
    if not LEAGUE_SLUG.match(slug) or not (root / "matches" / slug / "league.toml").is_file():
        if not (root / "matches").is_dir():
            raise UsageError(f"no matches/ folder in {root}; {where_to_run(root)}")
        known = sorted(p.name for p in (root / "matches").iterdir() if (p / "league.toml").is_file())
        raise UsageError(f"unknown league {slug!r}; leagues: {', '.join(known) or 'none'}")
    site = check(root)
    return next(lg for lg in site.leagues if lg.config.slug == slug)


def tune(root: Path, slug: str, specs: Sequence[str]) -> Sweep:
    """Check the site, then the parameters against the league's system, then replay."""
    league = load(root, slug)
    config = league.config
    if not config.system.predicts:
        why = f" ({config.system.no_prediction})" if config.system.no_prediction else ""
        raise UsageError(f"league {slug!r} is rated with {config.system_name}, which predicts no pairs{why}: "
                         "no parameter can be scored by its predictions")
    return sweep(league, parse_params(specs, config.system.params, config.system_name))


def diverged_problems(result: Sweep) -> list[Problem]:
    return [Problem(f"matches/{result.league}/league.toml", None, None, None,
                    f"league {result.league!r} with {_label(result.names, t.values)}: the {result.system} math "
                    f"leaves the finite numbers in {t.diverged}; that combination has no scores")
            for t in result.trials if t.diverged]


def _label(names: Sequence[str], values: Sequence[Any]) -> str:
    return ", ".join(f"{n} = {toml_text(v)}" for n, v in zip(names, values))


def _cell(value: Any) -> str:
    """A parameter's value in the table: text as written, numbers and lists as TOML writes them."""
    return value if isinstance(value, str) else toml_text(value)


def _fmt(x: float | None) -> str:
    return "" if x is None else f"{x:.6f}"


def rows(result: Sweep) -> list[list[str]]:
    out = []
    for t in result.trials:
        s = t.score
        out.append([_cell(v) for v in t.values]
                   + ([str(s.predictions), _fmt(s.log_loss), _fmt(s.brier), _fmt(s.accuracy)]
                      if s else ["", "", "", ""]))
    return out


def render(result: Sweep, fmt: str) -> str:
    header = [*result.names, *COLUMNS]
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows(result))
        return buf.getvalue()
    if fmt == "json":
        objects = []
        for t in result.trials:
            s = t.score
            obj: dict[str, Any] = dict(zip(result.names, t.values))
            obj.update(predictions=s.predictions if s else None,
                       log_loss=None if s is None or s.log_loss is None else round(s.log_loss, 6),
                       brier=None if s is None or s.brier is None else round(s.brier, 6),
                       accuracy=None if s is None or s.accuracy is None else round(s.accuracy, 6),
                       current=t.current)
            objects.append(obj)
        return json.dumps(objects, indent=1, ensure_ascii=False) + "\n"
    # Text: aligned columns, numbers to the right, the league's own values marked.
    body = rows(result)
    table = [header] + body
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    numeric = [all(re.fullmatch(r"-?[\d.]*", r[i]) for r in body) for i in range(len(header))]

    def line(cells: list[str], mark: str = "") -> str:
        text = "  ".join(c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric))
        return (text + mark).rstrip()

    lines = [line(header)]
    lines += [line(r, "  <- league.toml" if t.current else "") for r, t in zip(body, result.trials)]
    n = result.trials[0].score.predictions if result.trials and result.trials[0].score else 0
    lines.append(f"{result.league} ({result.system}): {plural(len(result.trials), 'replay')}, "
                 f"{plural(n, 'prediction')} each; lower log loss and Brier are better, higher accuracy "
                 "(share on the right side of 50%, ties half) is better.")
    return "\n".join(lines) + "\n"

