"""build(root, out): load -> validate -> rate -> model -> render -> write."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from . import config as cfg
from .content import ContentPage, load_content
from .data import league_files
from .history import RatedLeague, rate_league
from .load import load_site
from .problems import InvalidInput, Problem, Problems
from .pages import check_templates
from .validate import League, league_matches
from .write import Output


@dataclass(frozen=True, slots=True)
class Site:
    """Everything validated: what the rest of the pipeline works from."""

    root: Path
    settings: cfg.SiteSettings
    roster: cfg.Roster
    leagues: tuple[League, ...]
    content: tuple[ContentPage, ...]


def check(root: Path) -> Site:
    """Load and validate a site repository; raises InvalidInput with every problem."""
    problems = Problems()
    source = load_site(root, problems)
    settings = cfg.site_settings(source, problems)
    roster = cfg.roster(source.players, problems)
    leagues = []
    for league_source in source.leagues:
        config = cfg.league_config(league_source, problems)
        if config is None:
            continue
        leagues.append(league_matches(league_source, config, roster, problems))
    content = load_content(root, [lg.config for lg in leagues], problems)
    check_templates(root, problems)
    if problems:
        raise InvalidInput(sorted(problems, key=lambda p: (p.file, p.line or 0)))
    return Site(root, settings, roster, tuple(leagues), tuple(content))


def rate(site: Site) -> tuple[RatedLeague, ...]:
    return tuple(rate_league(league) for league in site.leagues)


def build(root: Path, out: Path, *, base_url: str | None = None, repo_url: str | None = None) -> Output:
    """Build the site of ``root`` into ``out``; on bad input nothing in ``out`` is touched."""
    from .pages import render_site, site_base_url
    from . import provenance

    root, out = root.resolve(), out.resolve()
    inputs = [root / name for name in ("matches", "content", "templates", "pyproject.toml")]
    if root.is_relative_to(out) or any(out.is_relative_to(path) for path in inputs):
        # The output folder is replaced whole: it must never hold the site's own files.
        raise InvalidInput([Problem(str(out), message="the output folder would replace the site's own "
                                    "files; choose a folder such as ROOT/_site")])
    site = check(root)
    site_base_url(site.settings.base_url, base_url)     # a bad --base-url stops the build before rating
    # So do a bad --repo-url and SOURCE_DATE_EPOCH: the build date is never the clock.
    prov = provenance.read(root, *provenance.options(site.settings.repo_url, repo_url, os.environ))
    rated = rate(site)
    output = Output(out)
    try:
        for league in rated:
            for name, text in league_files(league, prov):
                output.add(f"data/{league.league.config.slug}/{name}", text)
        render_site(site, rated, output, base_url=base_url, provenance=prov)
        output.commit()
    finally:
        output.discard()
    return output
