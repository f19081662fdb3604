"""A [[match]] table as `sitegen new-match` writes it: TOML text from a system's own declarations
(``fields`` and the match ``Example``), each value with a comment saying what it is and what is
allowed. `sitegen new-match` prints or appends it; the guide and spec pages show it through the
``{{< example SYSTEM >}}`` shortcode, so a page's match format is the one the command writes.
"""

from __future__ import annotations

from datetime import date, datetime

from sitegen.load import tomlwrite
from sitegen.rating import SYSTEMS, System
from sitegen.rating.base import Example

COMMENT_AT = 36          # comments start in this column unless the code is longer
# The time of the pages' examples: what `sitegen new-match LEAGUE --played EXAMPLE_PLAYED` writes.
EXAMPLE_PLAYED = "2024-05-01T19:30:00+02:00"


def _played_comment(value: datetime | date, now: bool) -> str:
    if now:
        return "now, in UTC (Z); a local time takes its offset: +02:00"
    if not isinstance(value, datetime):
        return "a date: taken as 00:00 UTC"
    if value.tzinfo is None:
        return "no offset: taken as UTC"
    return "in UTC" if not value.utcoffset() else "local time with its UTC offset"


def _line(code: str, comment: str | None = None) -> str:
    if not comment:
        return code
    return f"{code.ljust(COMMENT_AT - 2)}  # {comment}"


def match_table(system: type[System], example: Example, groups: list[list[str]], when: datetime | date,
            now: bool, match_id: str | None) -> str:
    lines = ["[[match]]", _line(f"played = {tomlwrite.value(when)}", _played_comment(when, now))]
    if match_id is not None:
        lines.append(_line(f"id = {tomlwrite.string(match_id)}", "unique in the league"))
    else:
        lines.append(_line('# id = "..."', "optional: letters, digits, . _ -; unique in the league"))
    lines.append(_line('# notes = "..."', "optional: shown on the match's page"))
    for key in example.keys:
        code = f"{key.name} = {tomlwrite.value(key.value)}"
        lines.append(_line("# " + code if key.optional else code, key.about))

    fields = system.fields
    about = ["name: as on the site, or an alias in matches/players.toml (case-sensitive)"
             + ("" if groups[0][0] else "; fill it in")]
    for f in fields:
        if f.required or (f.default is None and f.name in example.entry):
            about.append(f"{f.name}: {f.allowed}")      # required, or by the league's parameters
        elif f.default is None:
            about.append(f"{f.name} (optional): {f.allowed}")
        else:
            about.append(f"{f.name}: {f.allowed} (optional, default {tomlwrite.value(f.default)})")
    about.extend(example.rules)

    # The comments stay outside the arrays: inside one, before a player, they would
    # shift the line `sitegen check` reports for that player.
    def players(group: list[str]) -> list[str]:
        rows = [", ".join([f"name = {tomlwrite.string(name)}"]
                          + [f"{f.name} = {tomlwrite.value(example.entry[f.name])}" for f in fields
                             if f.name in example.entry])
                for name in group]
        return ["players = [", *(f"  {{ {row} }}," for row in rows), "]"]

    if not example.teams:
        lines.append("# Each player:")
        lines.extend(f"#   {a}" for a in about)
        lines.extend(players(groups[0]))
        return "\n".join(lines) + "\n"
    lines.append("# Each [[match.teams]] below is a team; each player in it:")
    lines.extend(f"#   {a}" for a in about)
    for i, team in enumerate(groups):
        if example.team_key == "place":
            result = _line(f"place = {i + 1}", "1 for the winners; equal places tie")
        else:
            result = _line(f"won = {tomlwrite.value(i == 0)}", "true on the winning team only")
        lines += ["", "[[match.teams]]", result]
        lines.extend(players(team))
    return "\n".join(lines) + "\n"


def example_table(system: str) -> str:
    """The table `sitegen new-match LEAGUE --played EXAMPLE_PLAYED` writes for a league of ``system``
    with the default parameters: no names given, so each is left empty to fill in."""
    rules = SYSTEMS[system]()
    example = rules.match_example()
    least = example.players[0]
    groups = [[""] for _ in range(least)] if example.teams else [[""] * least]
    return match_table(type(rules), example, groups, datetime.fromisoformat(EXAMPLE_PLAYED), False, None)
