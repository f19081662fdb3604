"""The registry of rating systems: the contract's system name -> its class.

A system registers itself where it is defined (``@register``); nothing else names it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from sitegen.rating.protocol import System

# Bound to the Protocol: a type checker holds every registered class to all of System.
SystemT = TypeVar("SystemT", bound="System")

SYSTEMS: dict[str, type[System]] = {}


def register(cls: type[SystemT]) -> type[SystemT]:
    """Add a system class to SYSTEMS under its ``name`` (league.toml's `system`, docs/configuration)."""
    SYSTEMS[cls.name] = cls
    return cls
