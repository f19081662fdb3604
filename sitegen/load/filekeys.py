"""A match file's checked key: the digest of its text, its path and the league's other inputs
(league.toml, players.toml and the settings, ``league_head``).

validate.py keeps a file's checked matches in the build cache under it, and a league checked
without a problem leaves its files' keys (duplicates.CLEAN); blocks.py keeps the file's matches'
identities under it too. The league remembers each file's key as it was read for its check
(``League.keys``), so that neither reads every file again to know it.
"""

from __future__ import annotations

import hashlib

from sitegen.load.cache import league_head
from sitegen.load.site import LeagueSource, MatchFile


def checked_head(source: LeagueSource) -> bytes | None:
    """The league's other inputs' digest; None without the cache or a league.toml."""
    if not source.match_files or source.match_files[0].cache is None or source.config is None:
        return None
    return league_head(source.folder.parent.parent, source.slug, source.config.rel).digest()


def checked_key(head: bytes, rel: str, text: str) -> str:
    return hashlib.sha256(head + rel.encode("utf-8") + b"\0" + text.encode("utf-8")).hexdigest()


def text_of(raw: bytes) -> str:
    """A match file's text as it is checked (load/site.py): UTF-8, without a byte-order mark."""
    return raw.decode("utf-8").removeprefix("\ufeff")


def file_keys(files: tuple[MatchFile, ...], head: bytes) -> dict[str, str] | None:
    """Each file's checked key by its path, in order; None where one cannot be read."""
    keys = {}
    for source_file in files:
        try:
            text = text_of(source_file.path.read_bytes())
        except (OSError, UnicodeDecodeError):
            return None
        keys[source_file.rel] = checked_key(head, source_file.rel, text)
    return keys
