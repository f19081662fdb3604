"""Log loss of the international football league since 1990, against a plain Elo baseline.

Builds nothing but the ratings: the league folder (default
matches/football, written by scripts/football_league.py) is
copied into a temporary site, checked and rated by sitegen, and the league's own
predictions (docs/auditors, accuracy: the first listed player's expected score
E against their score S, draws 0.5) are scored on the matches played from
``--since`` (default 1990-01-01) on:

    log loss = mean of -(S ln E + (1 - S) ln(1 - E)).

The baseline is a ten-line Elo on the same matches in the same order: everyone at
1500, K = 20, 100 points for the home team (none on neutral ground), no margin, no
weights; its predictions are scored the same way. Both figures are printed; the
exit code is 1 if the league does not beat the baseline.

    python scripts/football_logloss.py
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from sitegen.model.accuracy import log_loss_term, predictions  # noqa: E402
from sitegen.commands.build import check, rate  # noqa: E402

DEFAULT_LEAGUE = REPO / "matches" / "football"


def baseline(matches, since: date, k: float = 20, home_advantage: float = 100) -> tuple[int, float]:
    """(predictions, log loss) of a plain Elo with home advantage over the matches played since ``since``."""
    r: dict[str, float] = {}
    total, n = 0.0, 0
    for m in matches:
        a, b = m.players
        ra, rb = r.get(a, 1500.0), r.get(b, 1500.0)
        h = 0.0 if m.extra.get("home") is None else home_advantage if m.extra["home"] == a else -home_advantage
        e = 1.0 / (1.0 + 10.0 ** ((rb - ra - h) / 400.0))
        s = float(m.entries[0]["score"])
        if m.played.date() >= since:
            total, n = total + log_loss_term(e, s), n + 1
        r[a], r[b] = ra + k * (s - e), rb - k * (s - e)
    return n, total / n


def measure(league_dir: Path, since: date) -> dict[str, tuple[int, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copytree(league_dir, root / "matches" / league_dir.name)
        (rated,) = rate(check(root))
    # The league's predictions, one per match in history order, scored from `since` on.
    order = {m.id: m.played.date() for m in rated.league.matches}
    terms = [log_loss_term(p.expected, p.score)
             for p, event in zip(predictions(rated), rated.events) if order[event.key] >= since]
    return {"league": (len(terms), sum(terms) / len(terms)), "baseline": baseline(rated.league.matches, since)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--league", type=Path, default=DEFAULT_LEAGUE, help="the league folder to measure")
    parser.add_argument("--since", type=date.fromisoformat, default=date(1990, 1, 1),
                        help="score the matches played on or after this date (default 1990-01-01)")
    args = parser.parse_args(argv)
    result = measure(args.league, args.since)
    (n, league), (_, base) = result["league"], result["baseline"]
    print(f"matches since {args.since}: {n}")
    print(f"league log loss:   {league:.6f}")
    print(f"baseline log loss: {base:.6f}  (Elo, K = 20, home advantage 100)")
    return 0 if league < base else 1


if __name__ == "__main__":
    sys.exit(main())
