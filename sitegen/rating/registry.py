"""The registry of rating systems: the contract's system name -> its class.

A system registers itself where it is defined (``@register``); nothing else names it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from sitegen.rating.protocol import System

T = TypeVar("T")

SYSTEMS: dict[str, type[System]] = {}


def register(cls: T) -> T:
    """Add a system class to SYSTEMS under its ``name`` (CONTRACT section 2 `system`)."""
    SYSTEMS[getattr(cls, "name")] = cls  # type: ignore[assignment]
    return cls
