"""The two URLs a site is told about: where it is served (base_url) and its repository (repo_url).

Both end up inside every page, feed or link, so both are checked the same way:
absolute http(s) naming a host, with no query or fragment to leak into every address.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from sitegen.load.problems import InvalidInput, Problem

# Characters a URL may not hold unescaped (RFC 3986); links are written as given.
NOT_IN_URL = frozenset(' "<>\\^`{|}')


def is_http_url(text: str, *, strict: bool = False) -> bool:
    """An absolute http(s) URL naming a host, without query or fragment.

    ``strict`` also refuses credentials and characters that are not allowed in a URL,
    for a URL written into links as it is.
    """
    try:
        parts = urlsplit(text)
        parts.port        # raises on a port that is not a number
    except ValueError:
        return False
    if (parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment
            or any(c.isspace() for c in text)):
        return False
    return not strict or ("@" not in parts.netloc
                          and all(c.isprintable() and c not in NOT_IN_URL for c in text))


def url_option(option: str, configured: str, given: str | None,
               problem: Callable[[str], str | None], normalize: Callable[[str], str]) -> str:
    """The command-line value when given (checked as the setting is), else the setting; "" for none."""
    if given is None:
        return configured
    if not given.strip():
        return ""
    found = problem(given)
    if found:
        raise InvalidInput([Problem(option, message=found)])
    return normalize(given)
