"""View models of what a league's ratings predict: the pages' side of accuracy.csv,
pools.csv and next.csv. Pure data; the partial templates _accuracy.html, _pool.html
and _matchups.html only format it.

The numbers are the data files' own (the same functions compute both), so a page and
its CSV never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from sitegen.model.accuracy import Accuracy, CalibrationBin, accuracy, predicts
from sitegen.model.baselines import PLAIN_K, Comparison, Model, default_params
from sitegen.model.tune import Sweep
from sitegen.load.config import Roster
from sitegen.model.groupings import next_groupings
from sitegen.model.views import LeagueView, Link
from sitegen.model.pools import Pool, opponent_pools, pool_params
from sitegen.rating.base import expected, toml_text


@dataclass(frozen=True, slots=True)
class AccuracyView:
    rows: tuple[Accuracy, ...]    # "all" first, then each year, oldest first
    csv_url: str                  # site-relative: data/<league>/accuracy.csv
    prediction: str               # what one prediction is, in words
    page_url: str = ""            # the league's accuracy page, with the baselines


def accuracy_url(league: LeagueView) -> str:
    return f"{league.url}accuracy/"


@dataclass(frozen=True, slots=True)
class MeasureRow:
    period: str                       # "all" or a year
    predictions: int
    values: tuple[float | None, ...]  # one per model, in the page's model order


@dataclass(frozen=True, slots=True)
class Measure:
    """One table of the accuracy page: a measure by period, one column per model."""

    key: str                          # log_loss, brier, accuracy
    title: str
    about: str
    percent: bool                     # shown as a percentage (the right-side share)
    rows: tuple[MeasureRow, ...]


@dataclass(frozen=True, slots=True)
class ParamChange:
    name: str
    league: str                       # the league's value, as TOML writes it
    default: str


@dataclass(frozen=True, slots=True)
class AccuracyPage:
    url: str
    csv_url: str
    prediction: str
    models: tuple[Model, ...]         # the league, its second baseline, the coin flip
    measures: tuple[Measure, ...]
    calibration: tuple[CalibrationBin, ...]
    defaults_equal: bool              # the second baseline is plain Elo
    changed: tuple[ParamChange, ...]  # the league's parameters that differ from the defaults
    plain_k: int
    total: int                        # predictions in all
    sweep: Sweep | None = None        # league.toml's [tune]
    sweep_rows: tuple[tuple[str, ...], ...] = ()   # its parameter values as TOML writes them, per trial


MEASURES = (
    ("log_loss", "Log loss",
     "the mean of −(S ln E + (1 − S) ln(1 − E)): a confident prediction that turns out wrong costs much "
     "more than a cautious one. Lower is better; a coin flip scores ln 2 = 0.693 whatever happens.", False),
    ("brier", "Brier score",
     "the mean of (E − S)²: the squared distance between the predicted and the actual score. Lower is "
     "better; a coin flip scores 0.25 where every game is won or lost, less where results can be "
     "draws or shares.", False),
    ("accuracy", "Right side of 50%",
     "the share of predictions that favoured the side that did better (E and S on the same side of "
     "0.5); a prediction of exactly 50% or a result of exactly half (a draw) counts half. Higher is "
     "better; a coin flip scores 50%.", True),
)


def accuracy_page(league: LeagueView, comparison: Comparison) -> AccuracyPage:
    """The accuracy page's view: every measure by period for the league and both baselines."""
    config = league.config
    periods = comparison.models[0].rows
    by_model = [{r.period: r for r in m.rows} for m in comparison.models]
    measures = []
    for key, title, about, percent in MEASURES:
        rows = tuple(
            MeasureRow(p.period, p.predictions,
                       tuple(getattr(rows[p.period], key) if p.period in rows else None for rows in by_model))
            for p in periods)
        measures.append(Measure(key, title, about, percent, rows))
    defaults = default_params(config)
    changed = tuple(ParamChange(name, toml_text(value), toml_text(defaults[name]))
                    for name, value in config.params.items() if value != defaults[name])
    return AccuracyPage(accuracy_url(league), f"data/{config.slug}/accuracy.csv", config.system.prediction_text,
                        comparison.models, tuple(measures), comparison.calibration, comparison.defaults_equal,
                        changed, PLAIN_K, periods[0].predictions, comparison.sweep,
                        tuple(tuple(toml_text(v) for v in t.values) for t in comparison.sweep.trials)
                        if comparison.sweep else ())


@dataclass(frozen=True, slots=True)
class PoolRow:
    opponent: Link
    rating: float
    side: str                     # "below" or "above"
    win_chance: float             # the player's expected score against them, in percent
    picked: bool                  # the drawn next opponent


@dataclass(frozen=True, slots=True)
class PoolView:
    rows: tuple[PoolRow, ...]     # below, then above, each in standings order
    pick: PoolRow | None
    deviation: float
    per_side: int                 # pool_size // 2: the most drawn from each side


@dataclass(frozen=True, slots=True)
class World:
    player: Link
    rating: float


@dataclass(frozen=True, slots=True)
class Pairing:
    """One pair of a group: each side's Glicko-2 expected score in their battle."""

    a: Link
    b: Link
    a_share: float                # E of a against b, in percent
    b_share: float                # E of b against a (not 100 - a_share: each uses the other's RD)


@dataclass(frozen=True, slots=True)
class Matchup:
    region: str
    tier: int
    worlds: tuple[World, ...]
    pairings: tuple[Pairing, ...]


@dataclass(frozen=True, slots=True)
class LeagueForecast:
    accuracy: AccuracyView | None     # None for a system that predicts no pairs (arena)
    pools: dict[str, Pool]            # elo: every rated player's pool, drawn
    matchups: tuple[Matchup, ...]     # glicko2: the next groupings, regions by code point
    regions: tuple[str, ...]          # glicko2: the regions of ``matchups``, in order
    links: dict[str, Link] = field(default_factory=dict)
    deviation: float = 0.0            # the pools' parameters
    size: int = 0

    def pool_of(self, player: str) -> PoolView | None:
        """A player's pool as its page shows it, made when asked: a page worker makes the views
        of its own players only (300,000 rows at 10,000 players were made before the fork)."""
        pool = self.pools.get(player)
        return None if pool is None else _pool_view(pool, self.links, self.deviation, self.size)


def league_forecast(league: LeagueView, roster: Roster, comparison: Comparison | None = None) -> LeagueForecast:
    """``comparison`` (baselines.compare), when the caller has it, saves scoring the predictions twice."""
    rated = league.rated
    system = rated.league.config.system
    # The league's own (views.LeagueView.links), where it has them.
    links = league.links or {name: Link(name, pv.url) for name, pv in league.players.items()}
    view = None
    if predicts(rated):
        rows = comparison.models[0].rows if comparison else tuple(accuracy(rated))
        view = AccuracyView(rows, f"data/{league.config.slug}/accuracy.csv",
                            system.prediction_text, accuracy_url(league))
    pools: dict[str, Pool] = {}
    deviation, size = 0.0, 0
    if "pools" in system.ledger_tables:
        params = pool_params(system)
        deviation, size = float(params.pool_deviation), int(params.pool_size)
        pools = {pool.player: pool for pool in opponent_pools(rated)}
    matchups: list[Matchup] = []
    if "next" in system.ledger_tables:
        for g in next_groupings(rated, roster):
            values = [(links[m.name], (m.rating, m.rd)) for m in g.members]
            pairings = tuple(
                Pairing(la, lb, 100.0 * system.matchup_expected(va, vb), 100.0 * system.matchup_expected(vb, va))
                for (la, va), (lb, vb) in combinations(values, 2))
            matchups.append(Matchup(g.region, g.tier, tuple(World(links[m.name], m.rating) for m in g.members),
                                    pairings))
    regions = tuple(dict.fromkeys(m.region for m in matchups))
    return LeagueForecast(view, pools, tuple(matchups), regions, links, deviation, size)


def _pool_view(pool: Pool, links: dict[str, Link], deviation: float, size: int) -> PoolView:
    rows = []
    pick = None
    for side, members in (("below", pool.below), ("above", pool.above)):
        for o in members:
            picked = pool.pick is not None and o.name == pool.pick.name
            # Neutral ground: the seed's matches have no home side.
            row = PoolRow(links[o.name], o.rating, side, 100.0 * expected(pool.rating, o.rating), picked)
            rows.append(row)
            if picked:
                pick = row
    return PoolView(tuple(rows), pick, deviation, size // 2)
