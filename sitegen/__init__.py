"""sitegen: a static leaderboard site generator."""

__version__ = "0.1.0"
