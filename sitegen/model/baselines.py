"""What a league's predictions are measured against: replays of the same matches.

The accuracy page sets a league's log loss, Brier score and right-side share beside two
baselines, each scored on the same pairs by the same functions (accuracy.summarize):

- a coin flip: every pair predicted E = 0.5;
- the league's own system with its default parameters, the league's matches replayed by
  ``System.rate`` with the defaults of every declared parameter (docs/configuration and
  4); a league's [initial] starting ratings are data about its players, not parameters,
  and are kept;
- when the league's parameters already are the defaults (that replay would repeat the
  league's own numbers), plain Elo instead: every pair of the league's predictions rated
  with E = 1 / (1 + 10^((R_b - R_a)/400)) and R' = R + 20 (S - E), everyone from 1500,
  the pairs of one match updated together from the ratings held before it.

``sitegen tune`` (tune.py) replays a league with other parameters through ``replay``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from itertools import groupby
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from sitegen.model.accuracy import (
    COIN_FLIP, HEADER, Accuracy, CalibrationBin, Prediction, accuracy, bins_of, predicts, rows_of,
)
from sitegen.load.cache import Cache
from sitegen.load.config import LeagueConfig
from sitegen.model.history import RatedLeague, one_event_per_match, rate_league
from sitegen.model.scoring import Calibration, PlainElo, Summary, pair_arrays
from sitegen.rating.base import RatingDiverged, expected
from sitegen.rating.elo import new_ratings
from sitegen.rating.events import EventTable
from sitegen.load.validate import League

if TYPE_CHECKING:
    from sitegen.model.tune import Sweep

# Plain Elo's K: the seed's K for an established player below the master threshold
# (the ranked-battle rating method, Elo adjustments; docs/curators `elo`, k_standard = 20), the K most
# Elo ratings settle on. Its start: the seed's mean score of 1500 (only differences
# between ratings enter E, so the start changes nothing but the printed numbers).
PLAIN_K = 20
PLAIN_INITIAL = 1500.0


def default_params(config: LeagueConfig) -> dict[str, Any]:
    """Every declared parameter of the league's system at its default."""
    return {p.name: p.default for p in config.system.params}


def uses_defaults(config: LeagueConfig) -> bool:
    """Whether the league's parameters, written or not, are all the system's defaults
    (k = 50 written out in league.toml is still the default)."""
    return config.params == default_params(config)


def with_params(config: LeagueConfig, overrides: Mapping[str, Any]) -> LeagueConfig:
    """The league's config with some parameters changed, its starting ratings kept."""
    params = {**config.params, **overrides}
    kwargs = dict(params)
    starts = getattr(config.system, "starts", None)
    if starts:
        kwargs["starts"] = starts
    return replace(config, system=type(config.system)(**kwargs), params=params)


def replay(league: League, overrides: Mapping[str, Any]) -> RatedLeague:
    """The league's matches rated again by its own system with some parameters changed.

    Raises RatingDiverged when the system's math runs away with those parameters.
    """
    return rate_league(League(with_params(league.config, overrides), league.matches))


def plain_elo(preds: Iterable[Prediction]) -> Iterator[Prediction]:
    """The same pairs predicted by plain Elo with K = PLAIN_K (the update is elo.new_ratings)."""
    ratings: dict[str, float] = {}
    for _, group in groupby(preds, key=lambda p: p.match):
        changes: dict[str, float] = {}
        for p in group:
            r_a, r_b = ratings.get(p.a, PLAIN_INITIAL), ratings.get(p.b, PLAIN_INITIAL)
            e = expected(r_a, r_b)
            yield Prediction(p.year, e, p.score, p.a, p.b, p.match)
            after_a, after_b = new_ratings(r_a, r_b, p.score, PLAIN_K, PLAIN_K, e_a=e)
            changes[p.a] = changes.get(p.a, 0.0) + (after_a - r_a)
            changes[p.b] = changes.get(p.b, 0.0) + (after_b - r_b)
        # Every pair of a match from the ratings before it (docs/curators).
        for name, change in changes.items():
            ratings[name] = ratings.get(name, PLAIN_INITIAL) + change


@dataclass(frozen=True, slots=True)
class Model:
    """One way of predicting the league's pairs and how it scored."""

    key: str                          # "league", "default", "plain-elo" or "coin-flip"
    label: str                        # a table column's heading
    rows: tuple[Accuracy, ...]        # as accuracy.csv: "all", then each year; () when it ran away
    diverged: str | None = None       # the rating event where its math left the finite numbers


@dataclass(frozen=True, slots=True)
class Comparison:
    models: tuple[Model, ...]         # the league, its second baseline, the coin flip
    calibration: tuple[CalibrationBin, ...]
    defaults_equal: bool              # the league's parameters are the defaults: plain Elo stands in
    sweep: "Sweep | None" = None      # league.toml's [tune], replayed as `sitegen tune` does


@dataclass(frozen=True, slots=True)
class Scores:
    """Everything scored from the league's own predictions, in one pass over them."""

    own: tuple[Accuracy, ...]                 # accuracy.csv's rows
    coin_flip: tuple[Accuracy, ...]
    plain_elo: tuple[Accuracy, ...] | None    # when the league's parameters are the defaults
    calibration: tuple[CalibrationBin, ...]


SCORES = "scores"       # RatedLeague.cache key


@dataclass(slots=True)
class ScoreSums:
    """The running sums of ``league_scores`` after the league's first ``matches`` matches, to
    carry on from: each added to in history order, so that the sums carried on are, bit for
    bit, the sums of every match at once."""

    matches: int
    own: Summary
    coin: Summary
    calibration: Calibration
    plain: Summary | None                     # plain Elo's, with its ratings by name
    plain_ratings: dict[str, float] | None


def league_scores(rated: RatedLeague) -> Scores:
    """The league's predictions made once and scored for accuracy.csv and the accuracy page
    together (a battle royale's are tens of millions of pairs); kept in ``rated.cache``."""
    cached = rated.cache.get(SCORES)
    if cached is not None:
        return cached
    return scores_from(rated, None)[0]


def resumable(rated: RatedLeague) -> bool:
    """Whether the league's predictions of its matches from some position on are those of its
    events from there on: one event per match, held as columns (every system but glicko2)."""
    events = one_event_per_match(rated)
    return events is not None and type(events) is EventTable


def scores_from(rated: RatedLeague, before: ScoreSums | None) -> tuple[Scores, ScoreSums]:
    """``league_scores``, its sums taken up where ``before`` (of the league's first matches, as
    the build before left them; ``resumable`` leagues only) left them, and the sums after every
    match. ``before`` is added to, not copied."""
    matches, events = rated.league.matches, rated.events
    config = rated.league.config
    plain_elo = uses_defaults(config)
    if (before is None or not resumable(rated) or (before.plain is not None) != plain_elo
            or not 0 < before.matches <= len(matches)):
        before = ScoreSums(0, Summary(), Summary(), Calibration(), Summary() if plain_elo else None,
                           {} if plain_elo else None)
    start = before.matches
    if start:
        events = cast(EventTable, events).tail(start)
        matches = matches[start:]
    own, coin, sums = before.own, before.coin, before.calibration
    plain = PlainElo(PLAIN_K, PLAIN_INITIAL, before.plain_ratings, before.plain) if plain_elo else None
    for pairs in pair_arrays(config.system, matches, events) if matches else ():
        own.add(pairs.year, pairs.expected, pairs.score)
        coin.add(pairs.year, np.full(len(pairs), COIN_FLIP), pairs.score)
        sums.add(pairs)
        if plain is not None:
            plain.add(pairs)
    scores = Scores(tuple(rows_of(own)), tuple(rows_of(coin)),
                    tuple(rows_of(plain.finish())) if plain is not None else None, tuple(bins_of(sums)))
    rated.cache[SCORES] = scores
    after = ScoreSums(len(rated.league.matches), own, coin, sums, plain.summary if plain is not None else None,
                      plain.held() if plain is not None else None)
    return scores, after


def cached_scores(cache: Cache, keys: Mapping[str, tuple[str, np.ndarray] | None]) -> Callable[[RatedLeague], None]:
    """``league_scores`` through the build cache (load/cache.py), as honest.cached_bootstrap
    resamples: the sums as they stood after the last build's matches are kept by the league's
    slug with the history's prefix identity there (``keys[slug]``: output/memo.py), and where
    that history is the start of this one (matches appended, or none), only the matches that
    follow are predicted and added to them. The scores are left in ``rated.cache``."""
    def run(rated: RatedLeague) -> None:
        slug = rated.league.config.slug
        found = keys.get(slug)
        if found is None or SCORES in rated.cache or not predicts(rated) or not resumable(rated):
            return
        _, after = scores_from(rated, _kept(cache, "scores", slug, found[1], ScoreSums))
        if len(found[1]):
            cache.put("scores", slug, (int(found[1][-1]), after))
    return run


def _kept(cache: Cache, kind: str, slug: str, prefixes: np.ndarray, cls: type) -> Any:
    """What the build before kept of the league's first matches, where they are this history's first."""
    kept = cache.get(kind, slug)
    if isinstance(kept, tuple) and len(kept) == 2 and isinstance(kept[1], cls):
        state: Any = kept[1]
        if 0 < state.matches <= len(prefixes) and int(prefixes[state.matches - 1]) == kept[0]:
            return state
    return None


def cached_compare(cache: Cache, keys: Mapping[str, tuple[str, np.ndarray] | None]
                   ) -> Callable[[RatedLeague], Comparison | None]:
    """``compare``, its league's scores carried on from the last build's (``cached_scores``)."""
    scores = cached_scores(cache, keys)

    def run(rated: RatedLeague) -> Comparison | None:
        scores(rated)
        slug = rated.league.config.slug
        found = keys.get(slug)
        default = None
        # The replay with the defaults, carried on likewise (a league of its own kind: "default").
        if found is not None and predicts(rated) and resumable(rated) and not uses_defaults(rated.league.config):
            made = default_from(rated, _kept(cache, "default", slug, found[1], DefaultReplay))
            if made is not None:
                default, after = made
                if len(found[1]):
                    cache.put("default", slug, (int(found[1][-1]), after))
        return compare(rated, default)
    return run


def accuracy_table(rated: RatedLeague) -> tuple[tuple[str, ...], list[tuple]]:
    """accuracy.csv: the league's own scores, without the baselines where they are not made
    yet (the data files' process, which never shows them)."""
    scores = rated.cache.get(SCORES)
    rows = scores.own if scores is not None else accuracy(rated)
    return HEADER, [(a.period, a.predictions, a.log_loss, a.brier) for a in rows]


DEFAULT_LABEL = "Default parameters"


def compare(rated: RatedLeague, default: Model | None = None) -> Comparison | None:
    """The league's predictions beside both baselines; None for a system that predicts nothing.
    ``default``: the replay with the default parameters, scored already (``default_from``)."""
    if not predicts(rated):
        return None
    scores = league_scores(rated)
    models = [Model("league", "These ratings", scores.own)]
    same = scores.plain_elo is not None
    if scores.plain_elo is not None:
        models.append(Model("plain-elo", f"Plain Elo, K = {PLAIN_K}", scores.plain_elo))
    else:
        models.append(default if default is not None else default_model(rated))
    models.append(Model("coin-flip", "Coin flip", scores.coin_flip))
    return Comparison(tuple(models), scores.calibration, same, curator_sweep(rated))


def default_model(rated: RatedLeague) -> Model:
    """The league's matches replayed with the default parameters, scored."""
    try:
        default = replay(rated.league, default_params(rated.league.config))
    except RatingDiverged as exc:
        return Model("default", DEFAULT_LABEL, (), exc.event)
    return Model("default", DEFAULT_LABEL, tuple(accuracy(default)))


@dataclass(slots=True)
class DefaultReplay:
    """The replay with the default parameters after the league's first ``matches`` matches: its
    predictions' sums, and the system's replay to carry on from, or where it ran away."""

    matches: int
    summary: Summary
    state: Any
    diverged: str | None = None


def default_from(rated: RatedLeague, before: DefaultReplay | None) -> tuple[Model, DefaultReplay] | None:
    """``default_model``, the replay and its sums taken up where ``before`` (of the league's first
    matches) left them, and the replay after every match; None where the system cannot take a
    replay up (only elo's ``expected_from`` can: one prediction a match, its first listed
    player's). A replay that ran away before stays so: it stops at the same match."""
    config = rated.league.config
    system = with_params(config, default_params(config)).system
    resume = getattr(system, "expected_from", None)
    if resume is None:
        return None
    matches = rated.league.matches
    if before is None or not 0 < before.matches <= len(matches):
        before = DefaultReplay(0, Summary(), None)
    after = before
    if before.diverged is None and before.matches < len(matches):
        try:
            e, s, state = resume(matches, before.state)
        except RatingDiverged as exc:
            after = DefaultReplay(len(matches), before.summary, None, exc.event)
        else:
            tail = matches[before.matches:]
            before.summary.add(np.fromiter((m.played.year for m in tail), dtype=np.int64, count=len(tail)), e, s)
            after = DefaultReplay(len(matches), before.summary, state)
    if after.diverged is not None:
        return Model("default", DEFAULT_LABEL, (), after.diverged), after
    return Model("default", DEFAULT_LABEL, tuple(rows_of(after.summary))), after


def curator_sweep(rated: RatedLeague) -> "Sweep | None":
    """league.toml's [tune], one replay per combination, in this process: a build stays one
    process (`sitegen serve` rebuilds in a thread), and [tune] is kept small (config.MAX_TUNE)."""
    from sitegen.model.tune import sweep

    config = rated.league.config
    if not config.tune:
        return None
    declared = {p.name: p for p in config.system.params}
    return sweep(rated.league, [(declared[name], values) for name, values in config.tune], workers=1)
