"""How well a league's ratings predicted its own results (docs/auditors): accuracy.csv.

Every prediction is made before its match from the ratings held then, and is scored
against what happened by log loss and Brier score, over the whole history and per
calendar year of ``played`` (UTC). What one prediction is depends on the system, and each
system says it: its ``pair_forecasts`` (sitegen/rating/<system>.py) yields them and its
``prediction_text`` words them. A system that predicts no pairs has no accuracy.csv.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from sitegen.model.history import RatedLeague
from sitegen.model.scoring import BINS, EPS, Calibration, Summary, pack, pair_arrays
from sitegen.rating.forecasts import PairForecast

HEADER = ("period", "predictions", "log_loss", "brier")

# log(0) is -inf: a prediction of exactly 0 or 1 that turns out wrong (ratings far apart,
# or a logistic that rounds to 1.0 in floats) would make the mean infinite or NaN. E is
# clamped into [EPS, 1 - EPS] (scoring.EPS) for the log loss only (the Brier score is finite
# anyway), the usual guard (scikit-learn's log_loss clamps the same way); one such miss then
# costs -ln(1e-15) = 34.5 instead of infinity.


@dataclass(frozen=True, slots=True)
class Prediction:
    year: int             # calendar year of the match's played, UTC
    expected: float       # E, the predicted score of the side predicted
    score: float          # S, what that side scored
    # Who the pair is (the side predicted first) and the match it comes from: the baselines
    # replay the same pairs, and the calibration chart reads each pair from a neutral side.
    a: str = ""
    b: str = ""
    match: str = ""


@dataclass(frozen=True, slots=True)
class Accuracy:
    """One row of accuracy.csv; the means are None when there are no predictions.

    ``accuracy`` is not a column of accuracy.csv (its columns are fixed: docs/auditors); the
    accuracy page shows it beside the two scores: the share of predictions on the right side
    of 0.5, a prediction of exactly 0.5 or a result of exactly 0.5 (a draw, an even goal
    share) counting half. Counting such ties half rather than leaving them out keeps the
    denominator the number of predictions, like the other two columns, and gives the coin
    flip exactly 0.5.
    """

    period: str           # "all" or a year
    predictions: int
    log_loss: float | None
    brier: float | None
    accuracy: float | None = None


def log_loss_term(e: float, s: float) -> float:
    """-(S ln E + (1 - S) ln(1 - E)), E clamped into [EPS, 1 - EPS]."""
    e = min(max(e, EPS), 1.0 - EPS)
    return -(s * math.log(e) + (1.0 - s) * math.log(1.0 - e))


def predicts(rated: RatedLeague) -> bool:
    return rated.league.config.system.predicts


def predictions(rated: RatedLeague) -> Iterator[Prediction]:
    """Every prediction of the league in history order (none for a system that predicts no pairs)."""
    for f in rated.league.config.system.pair_forecasts(rated.league.matches, rated.events):
        yield Prediction(f.played_year, f.expected, f.score, f.a, f.b, f.match)


def accuracy(rated: RatedLeague) -> list[Accuracy]:
    """The row "all", then one per calendar year that has predictions, oldest first."""
    summary = Summary()
    for pairs in pair_arrays(rated.league.config.system, rated.league.matches, rated.events):
        summary.add(pairs.year, pairs.expected, pairs.score)
    return rows_of(summary)


def right_side(e: float, s: float) -> float:
    """1 when E and S lie on the same side of 0.5, 0 when on opposite sides, 0.5 when either is 0.5."""
    if e == 0.5 or s == 0.5:
        return 0.5
    return 1.0 if (e > 0.5) == (s > 0.5) else 0.0


def summarize(preds: Iterable[Prediction]) -> list[Accuracy]:
    """accuracy.csv's rows from any predictions: a league's own, or a baseline's of the same pairs."""
    # Sums per year in history order; "all" adds the same terms in the same order, so the
    # file is the same on every machine (scoring.summary_kernel).
    summary = Summary()
    for pairs in pack(as_forecasts(preds)):
        summary.add(pairs.year, pairs.expected, pairs.score)
    return rows_of(summary)


def rows_of(summary: Summary) -> list[Accuracy]:
    return [_row(period, acc) for period, acc in summary.rows()]


def as_forecasts(preds: Iterable[Prediction]) -> Iterator[PairForecast]:
    for p in preds:
        yield PairForecast(p.year, p.expected, p.score, p.a, p.b, p.match)


def _row(period: str, acc: list[float]) -> Accuracy:
    n = int(acc[0])
    if not n:
        return Accuracy(period, 0, None, None, None)
    return Accuracy(period, n, acc[1] / n, acc[2] / n, acc[3] / n)


COIN_FLIP = 0.5


def coin_flip(preds: Iterable[Prediction]) -> Iterator[Prediction]:
    """The same pairs predicted E = 0.5: each log loss term is ln 2 whatever happened, and
    each Brier term (0.5 - S)^2 is 0.25 for a win or a loss (less for a draw or a goal share)."""
    for p in preds:
        yield Prediction(p.year, COIN_FLIP, p.score, p.a, p.b, p.match)


# --- calibration ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CalibrationBin:
    """Predictions whose E lies in [low, high) (the last bin includes 1)."""

    low: float
    high: float
    predictions: int
    predicted: float | None      # mean E of the bin
    observed: float | None       # mean S of the bin: how often (how much) that side won


def neutral_side(p: Prediction) -> tuple[float, float]:
    """(E, S) from the side of the pair whose name comes first by code point.

    A league's predictions are made for a side its results may choose (placement predicts
    the better placed player, whose S is 1 by construction; a match file may list the
    winner first): binned from that side, a calibration chart would show every bin won.
    A name's order says nothing about who won or who was favoured, so read from that side
    the chart shows how often a predicted chance came true. Log loss, Brier score and the
    right-side share are the same from either side.
    """
    if p.b and p.b < p.a:
        return 1.0 - p.expected, 1.0 - p.score
    return p.expected, p.score


def calibration(preds: Iterable[Prediction], bins: int = BINS) -> list[CalibrationBin]:
    """Predicted chance in ``bins`` equal bins against the mean result of each bin."""
    sums = Calibration(bins)
    for pairs in pack(as_forecasts(preds)):
        sums.add(pairs)
    return bins_of(sums)


def bins_of(sums: Calibration) -> list[CalibrationBin]:
    """Each bin's mean E and mean S (neutral_side: the E of a value is rounded first, as
    1 - 0.8 is 0.19999999999999996, which belongs on the 0.2 bound all the same)."""
    bins, n, e_sum, s_sum = sums.bins, sums.n.tolist(), sums.e_sum.tolist(), sums.s_sum.tolist()
    return [CalibrationBin(i / bins, (i + 1) / bins, n[i], e_sum[i] / n[i] if n[i] else None,
                           s_sum[i] / n[i] if n[i] else None) for i in range(bins)]
