"""axe-core (bundled by axe-playwright-python) run on a page, only its violations sent back.

``violations(page, options)`` is ``Axe().run(page, options=options).response["violations"]``:
the same script injected and the same ``axe.run(options)`` call, but the page returns the
violations alone instead of the whole result (every rule that passed or did not apply, with
its nodes), which Playwright would serialise and send over for nothing: some 10-15% of each
run on the fixture sites' pages.
"""

from __future__ import annotations

import functools


@functools.cache
def _script() -> str:
    from axe_playwright_python.sync_playwright import Axe
    return Axe().axe_script


def violations(page, options: dict | None = None) -> list[dict]:
    """axe's violations on ``page`` (a Playwright sync Page); ``options`` as axe.run takes them,
    by default the package's own ({"resultTypes": ["violations"]})."""
    from axe_playwright_python.sync_playwright import DEFAULT_OPTIONS
    page.evaluate(_script())
    return page.evaluate("options => axe.run(options).then(results => results.violations)",
                         DEFAULT_OPTIONS if options is None else options)
