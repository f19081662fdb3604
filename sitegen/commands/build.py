"""build(root, out): load -> validate -> rate -> model -> render -> write.

check(root) is the first two stages and stops there: it imports nothing that renders (charts,
markdown, templates, search), so `sitegen check` stays quick; build() imports those as it needs them.

Both use the build cache ``.sitegen-cache/`` (load/cache.py) unless ``cache=False`` (--no-cache):
parsed match files and each league's match-order fingerprint; with it, build() links the files
whose bytes equal the published ones instead of writing them (output/write.py). The output is
byte for byte what a build without it writes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from sitegen.load import config as cfg
from sitegen.load.cache import Cache, open_cache
from sitegen.load.content import content_sources
from sitegen.load.checked import Site
from sitegen.model.history import KERNEL_COLUMNS, RatedLeague
from sitegen.model.resume import rated_league
from sitegen.load.site import load_site
from sitegen.load.problems import InvalidInput, Problems
from sitegen.commands.progress import current
from sitegen.rating import collector
from sitegen.rating.base import RatingDiverged
from sitegen.output.theme import check_templates
from sitegen.load.validate import league_matches
from sitegen.output.memo import Grown, PageMemo, ledger_rows, site_key
from sitegen.output.outfolder import OutputCheck
from sitegen.output.write import Output, Span

if TYPE_CHECKING:
    from sitegen.load.config import Roster
    from sitegen.load.provenance import Provenance


def check(root: Path, *, cache: bool | Cache = True) -> Site:
    """Load and validate a site repository; raises InvalidInput with every problem.

    The command's progress (sitegen/commands/progress.py) hears of the stages; its ``checked`` comes last.
    """
    progress = current()
    progress.reading()
    problems = Problems()
    # check alone writes nothing: it reads the cache a build left, never adds to it.
    store = cache if isinstance(cache, Cache) else open_cache(root, cache, writable=False)
    source = load_site(root, problems, store)
    settings = cfg.site_settings(source, problems)
    roster = cfg.roster(source.players, problems)
    leagues = []
    for league_source in source.leagues:
        config = cfg.league_config(league_source, problems, roster)
        if config is None:
            # Its matches cannot be checked without a system, but its files are still read:
            # what makes one unreadable is reported with the league.toml's problem.
            for f in league_source.match_files:
                f.read(problems)
            continue
        leagues.append(league_matches(league_source, config, roster, problems))
    content = content_sources(root, problems)
    check_templates(root, problems)
    if problems:
        raise InvalidInput(sorted(problems, key=lambda p: (p.file, p.line or 0)))
    site = Site(root, settings, roster, tuple(leagues), tuple(content))
    progress.checked(site)
    return site


def rate(site: Site, cache: Cache | None = None) -> tuple[RatedLeague, ...]:
    """Every league replayed; a league whose math leaves the finite numbers is a problem of its own.
    With the build cache, a league's replay is taken up where the last build's left off, where
    its history is the start of this one's (model/resume.py)."""
    rated, problems = [], Problems()
    for league in site.leagues:
        try:
            rated.append(rated_league(league, site.root, cache))
        except RatingDiverged as exc:
            config = league.config
            match = next((m for m in league.matches if m.id == exc.event), None)
            where = f"match {exc.event!r}" if match else f"rating period {exc.event}"
            problems.add(match.file if match else config.file, line=match.line if match else None,
                         match=exc.event if match else None,
                         message=f"league {config.slug!r}: {exc.what} leaves the finite numbers in {where}: "
                                 f"on these results the {config.system_name} math itself runs away "
                                 + (exc.advice or "(Glicko-2's volatility can grow without bound); lower "
                                                  "tau, or rate by a longer period"))
    if problems:
        raise InvalidInput(list(problems))
    return tuple(rated)


def data_files(rated: tuple[RatedLeague, ...], prov: Provenance, roster: Roster, output: Output,
               grown: Mapping[str, Mapping[str, Grown]] | None = None,
               scores: Callable[[RatedLeague], None] | None = None) -> None:
    """Add every league's data/<league>/ files (model/ledger.py). ``grown`` names, by league and
    table, the CSV files that may be the published file's first rows and the rows that follow
    (output/memo.py). ``scores`` works out a league's scores (accuracy.csv) first, from the
    build before's where it can (baselines.cached_scores)."""
    from sitegen.model.ledger import league_files, matches_kept
    grown = grown or {}
    for league in rated:
        slug = league.league.config.slug
        if scores is not None:
            scores(league)
        after: dict[str, int] = {}
        heads: dict[str, Iterator[Span]] = {}
        for table, found in grown.get(slug, {}).items():
            # changes.csv's rows follow from the matches alone; matches.csv's name their files' commits too.
            kept = found.rows if table == "changes" else matches_kept(league, prov, found.held, found.rows)
            head = _head(found.published, kept + 1, found.rows + 1) if kept else None
            if head is not None:
                after[table], heads[table] = kept, head
        for name, content in league_files(league, prov, roster, after=after):
            if isinstance(content, (str, bytes)):
                output.add(f"data/{slug}/{name}", content)
            elif name.endswith(".csv") and name[:-4] in heads:
                output.add_parts(f"data/{slug}/{name}", chain(heads[name[:-4]], content))
            else:
                output.add_parts(f"data/{slug}/{name}", content)     # written as it is formatted


def _head(path: str, lines: int, total: int, size: int = 1 << 20) -> Iterator[Span] | None:
    """The first ``lines`` lines of a published CSV file of ``total`` lines, as a span of it
    that the kernel copies (write.py); None where it holds another number of line ends (a
    quoted cell holding one: its rows are not its lines). Where every line is kept, the whole
    file is, unread."""
    if lines == total:
        return iter([Span(path, os.stat(path).st_size)])
    ends, offset, cut = 0, 0, -1
    with open(path, "rb") as fh:
        while block := fh.read(size):
            count = block.count(b"\n")
            if cut < 0 and ends + count >= lines:
                at = -1
                for _ in range(lines - ends):
                    at = block.index(b"\n", at + 1)
                cut = offset + at + 1
            ends += count
            offset += len(block)
    if ends != total:
        return None
    return iter([Span(path, cut if cut >= 0 else offset)])     # fewer line ends than lines: all of it


def _growing(rated: tuple[RatedLeague, ...]) -> list[tuple[RatedLeague, str, str]]:
    """The leagues' CSV files that may grow (model/ledger.py ``appends``): league, table, path."""
    from sitegen.model.ledger import GROWING, appends
    return [(league, table, f"data/{league.league.config.slug}/{table}.csv")
            for league in rated for table in GROWING if appends(league, table)]


def _grown_files(rated: tuple[RatedLeague, ...], memo: PageMemo | None, root: Path,
                 output: Output) -> dict[str, dict[str, Grown]]:
    """By league and table, the CSV files that may be written as the published file's first
    rows and the rows that follow."""
    grown: dict[str, dict[str, Grown]] = {}
    for league, table, path in _growing(rated) if memo is not None else ():
        assert memo is not None
        found = memo.appendable(output, path, memo.league_prefixes(root, league))
        if found is not None:
            grown.setdefault(league.league.config.slug, {})[table] = found
    return grown


def build(root: Path, out: Path, *, base_url: str | None = None, repo_url: str | None = None,
          cache: bool = True) -> Output:
    """Build the site of ``root`` into ``out``; on bad input nothing in ``out`` is touched.

    The command's progress (sitegen/commands/progress.py) hears of each stage; by default nothing is shown.
    """
    from sitegen.load import provenance
    from sitegen.model.baselines import cached_scores
    from sitegen.output.pages import Beside, render_site, site_base_url
    from sitegen.model.ledger import file_commits
    from sitegen.model.pools import opponent_pools
    from sitegen.model.predict import player_states, predicts
    from sitegen.model.table import release_ledger_frame
    from sitegen.output.parallel import Background

    progress = current()

    # The output folder is replaced whole: only an absent or empty folder, or a site sitegen
    # wrote, and never a repository, the site's own files or a folder holding them (write.py).
    # A symbolic link is judged by the folder it points to, as the command line resolves --out.
    # The walk through an old site for a nested .git runs beside the check of the input.
    root, out = root.resolve(), out.resolve()
    output_check = OutputCheck(root, out)
    store = open_cache(root, cache)
    # The matches read, their events and the pages' models live to the end of the build: each
    # stage's are frozen out of the collector's reach once made (rating/collector.py).
    with collector.frozen() as freeze:
        try:
            site = check(root, cache=store if store is not None else False)
        finally:
            output_check.finish()       # its problem comes first, as when it was found before the input's
        site_base_url(site.settings.base_url, base_url)     # a bad --base-url stops the build before rating
        # So do a bad --repo-url and SOURCE_DATE_EPOCH: the build date is never the clock.
        prov = provenance.read(root, *provenance.options(site.settings.repo_url, repo_url, os.environ))
        freeze()
        # The jobs beside this process start as soon as what they need exists (output/pages.py
        # Beside): the content pages now, the bootstrap and the accuracy comparisons once the
        # leagues are rated, so the second core works while this one rates.
        beside = Beside(site, store)
        try:
            progress.rating(site)
            rated = rate(site, store)
            # With the cache, the pages and files whose inputs did not change are not made again,
            # and a changes.csv that only grew is the published one and its new rows (output/memo.py);
            # each league's history identity also keys its bootstrap intervals (model/honest.py).
            memo = None if store is None else PageMemo(
                store, out, site_key(site, site_base_url(site.settings.base_url, base_url), prov.repo_url))
            keys = {} if memo is None else {league.league.config.slug: memo.bootstrap_key(root, league)
                                            for league in rated}
            beside.rated(rated, store, keys)
            # The kernel's columns were the bootstrap's: once its process has them, they go.
            if beside.intervals is not None and beside.intervals.forked:
                for league in rated:
                    league.cache.pop(KERNEL_COLUMNS, None)
            scores = None if store is None else cached_scores(store, keys)
            # Each league's predictor states (model/predict.py) are made here, once: the data
            # files' process and this one both read them, and a process forked after them shares
            # them. The ledger frame (model/table.py, 4 s of a million-match league's) is made
            # by the data files' process alone: this one reads the rating columns instead.
            # An elo league's opponent pools (model/pools.py), which the pages and pools.csv both
            # show, are drawn here too, once, not again in the data files' process; with the
            # cache, a player's draws are the last build's where their inputs are unchanged.
            for league in rated:
                if predicts(league.league.config.system):
                    player_states(league)
                if "pools" in league.league.config.system.ledger_tables:
                    opponent_pools(league, store)
            freeze()
            # With the cache, files equal to the published ones are linked, not rewritten (write.py).
            output = Output(out, reuse=store is not None)
            grown = _grown_files(rated, memo, root, output)
            data = None
            try:
                progress.writing_data()
                output.staging()
                # The data files are written by a process of their own while this one renders
                # the pages: they need nothing the pages make. What it works out on the way
                # (the scores) the pages work out again, at less cost than waiting.
                data = Background(lambda: output.journaled(
                    lambda: data_files(rated, prov, site.roster, output, grown, scores)))
                # The frames are the data files' process's: where it could not be forked and
                # made them here, they go, so the page workers do not carry a 200 MB frame.
                for league in rated:
                    release_ledger_frame(league)
                shown = progress.rendering(output)      # on a terminal, it counts the files
                render_site(site, rated, shown, base_url=base_url, provenance=prov, cache=store,
                            beside=beside, memo=memo)
                shown.settle(data.result())
                if memo is not None:
                    for league, table, path in _growing(rated):
                        prefixes = memo.league_prefixes(root, league)
                        if table == "changes":
                            memo.written(output, path, prefixes, ledger_rows(league))
                        else:
                            memo.written(output, path, prefixes, len(league.league.matches),
                                         file_commits(league, prov))
                    memo.save()
                progress.moving(len(output.sizes), out)
                output.commit()
            finally:
                if data is not None:
                    data.close()
                output.discard()
        finally:
            beside.close()
    if store is not None:
        store.prune()       # each league's match order was stored with its bootstrap (model/honest.py)
    collector.hold(site, rated)
    return output
