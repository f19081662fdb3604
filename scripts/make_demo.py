"""Generate the demo match data of this repository.

Writes two leagues and a players file under ``matches/``:

* ``matches/lunaro-duels/``: 1v1 Lunaro duels (system ``lunaro``), goals and
  pings per player, most matches with a host at ping 0;
* ``matches/ranked-battle/``: ranked 1v1 battles (system ``elo`` with the
  FIDE K-factor taken from the challenger);
* ``matches/players.toml``: platform, region and former names (aliases).

Each league has a ``league.toml`` and one match file per month
(``2025/08-august.toml``) plus a few cup files (``<year>/cups/*.toml``),
covering March 2025 to February 2026. Outcomes are simulated from hidden
player skills (and, in Lunaro, pings), so the rated leaderboards look
plausible. The output is deterministic: a fixed random seed, no clock, and
running the script twice gives byte-identical files.

Run from anywhere:

    python scripts/make_demo.py            # writes into this repository
    python scripts/make_demo.py --root DIR # writes into DIR/matches/

Only ``matches/lunaro-duels/``, ``matches/ranked-battle/`` and
``matches/players.toml`` are removed and rewritten. Every written file is
read back with ``tomllib`` and checked against the match file format; the
ranked-battle ratings are recomputed (FIDE K, challenger's K) and the script
exits with status 1 unless some player plays more than 30 games and some
player reaches a rating of 2400.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import shutil
import sys
import tomllib
import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

SEED = 20250301
FIRST_DAY = date(2025, 3, 1)
LAST_DAY = date(2026, 2, 28)

LUNARO_SLUG = "lunaro-duels"
ELO_SLUG = "ranked-battle"
LUNARO_MATCHES = 540
ELO_MATCHES = 640

LUNARO_PARAMS = {"k": 50, "ping_influence": 300, "initial": 1500}
ELO_PARAMS = {"k": "fide", "k_of": "challenger", "initial": 2000}

REGIONS = ("EU", "NA", "SA", "ASIA", "OCE")
PLATFORMS = ("pc", "ps", "xbox", "switch")


# --------------------------------------------------------------------------
# Players
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """Who a player is, as far as players.toml is concerned."""

    name: str
    region: str
    platform: str | None  # None: the player is not listed in players.toml
    alias: str | None = None  # former name, used in matches before alias_until
    alias_until: date | None = None


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text).strip()


def _profile(name, region, platform, alias=None, alias_until=None) -> Profile:
    return Profile(nfc(name), region, platform, alias, alias_until)


PROFILES = [
    # Lunaro Duels
    _profile("Zoe\u0308", "EU", "pc"),
    _profile("Ωmega", "EU", "pc"),
    _profile("Łukasz", "EU", "pc", "Lukasz_PL", date(2025, 5, 18)),
    _profile("さくら", "ASIA", "switch"),
    _profile("Dr. Ping", "NA", "pc"),
    _profile("O'Neil", "NA", "xbox"),
    _profile("Salt & Pepper", "EU", "ps"),
    _profile("Kestrel", "OCE", "pc", "k3str3l", date(2025, 6, 30)),
    _profile("NovaKnight", "NA", "ps"),
    _profile("Jörmungandr", "EU", "pc"),
    _profile("Ana-Lucía", "SA", "ps"),
    _profile("Tenno_Tide", "NA", "xbox"),
    _profile("Błyskawica", "EU", "pc"),
    _profile("Çağrı", "EU", "ps"),
    _profile("Ngọc Anh", "ASIA", "pc"),
    _profile("김민준", "ASIA", "pc"),
    _profile("Søren", "EU", "xbox"),
    _profile("Mäander", "EU", "switch"),
    _profile("Kōhai", "ASIA", "ps"),
    _profile("Raccoon Rocket", "NA", None),
    _profile("Ďábel", "EU", "pc"),
    _profile("Вихрь", "EU", "pc"),
    _profile("Αθηνά", "EU", "ps"),
    _profile("João Pé-de-Bola", "SA", "pc"),
    _profile("Lumière", "EU", None),
    _profile('Kai "The Wall"', "NA", "pc"),
    _profile("xX_Volt_Xx", "NA", "xbox"),
    _profile("Mirage Main", "OCE", "ps"),
    _profile("ñandú", "SA", None),
    _profile("Fjörd", "EU", "switch"),
    _profile("ŠpičkaCZ", "EU", "pc"),
    _profile("Ørsted", "EU", None),
    _profile("Quill", "NA", "pc"),
    _profile("🌙 Moonlit", "ASIA", "switch"),
    # Ranked Battle (besides five players who are in both leagues)
    _profile("Zugzwang", "EU", "pc", "zugzwang_old", date(2025, 4, 12)),
    _profile("Pawnstorm", "NA", "pc"),
    _profile("Knightmare", "NA", "xbox"),
    _profile("Rook & Roll", "EU", "ps"),
    _profile("Ħamrun Hammer", "EU", "pc"),
    _profile("Ξένια", "EU", "pc"),
    _profile("Ilsa Ström", "EU", "switch"),
    _profile("Ümit", "EU", "ps"),
    _profile("Renée", "NA", "pc"),
    _profile("Đorđe", "EU", "pc"),
    _profile("Tōru", "ASIA", "ps"),
    _profile("Jiří", "EU", "pc"),
    _profile("Lưu Bình", "ASIA", "pc"),
    _profile("Ayşe", "EU", None),
    _profile("Chloé", "EU", "switch"),
    _profile("Hà My", "ASIA", "switch"),
    _profile("Mateus", "SA", "ps"),
    _profile("Pérez-Ortiz", "SA", "pc"),
    _profile("Æthelred", "EU", "xbox"),
    _profile("Íñigo", "EU", None),
    _profile("İpek", "EU", "pc"),
    _profile("ミカ", "ASIA", "switch"),
    _profile("陈静", "ASIA", "pc"),
    _profile("Ngaio", "OCE", "pc"),
    _profile("Tāne", "OCE", None),
    _profile("D'Artagnan", "EU", "xbox"),
    _profile("El Niño", "SA", "ps"),
]
PROFILE_BY_NAME = {p.name: p for p in PROFILES}

LUNARO_ROSTER = [p.name for p in PROFILES[:34]]
SHARED = [nfc("Zoe\u0308"), "Dr. Ping", "Salt & Pepper", "さくら", "Łukasz"]
ELO_ROSTER = SHARED + [p.name for p in PROFILES[34:]]

# The ranked-battle prodigy: far stronger than everyone else, plays a lot.
ELO_STAR = "Zugzwang"
# Hidden skill above the initial rating of the prodigy and a few strong
# regulars for the prodigy to measure up against.
ELO_EDGES = {ELO_STAR: 1300.0, "Pawnstorm": 600.0, "Ξένια": 550.0, "Knightmare": 500.0}


@dataclass
class Entrant:
    """A player inside one league's simulation (hidden skill, activity)."""

    profile: Profile
    skill: float
    activity: float
    joined: date
    rating: float
    games: int = 0
    connection: int = 0  # extra milliseconds of a poor line (Lunaro)

    @property
    def name(self) -> str:
        return self.profile.name

    def name_on(self, day: date) -> str:
        """The name the player used on that day (an alias before renaming)."""
        p = self.profile
        if p.alias is not None and p.alias_until is not None and day < p.alias_until:
            return p.alias
        return p.name


def make_entrants(rng: random.Random, roster: list[str], skill_sd: float,
                  initial: float) -> list[Entrant]:
    span = (LAST_DAY - FIRST_DAY).days
    entrants = []
    for index, name in enumerate(roster):
        skill = rng.gauss(initial, skill_sd)
        activity = rng.choice((0.6, 0.8, 1.0, 1.0, 1.2, 1.5, 2.0))
        if index < len(roster) * 2 // 3:
            joined = FIRST_DAY + timedelta(days=rng.randrange(0, 21))
        else:
            joined = FIRST_DAY + timedelta(days=rng.randrange(30, span * 3 // 4))
        entrants.append(Entrant(PROFILE_BY_NAME[name], skill, activity, joined, initial))
    return entrants


# --------------------------------------------------------------------------
# Time and the `played` field
# --------------------------------------------------------------------------


def northern_summer(day: date) -> bool:
    return date(day.year, 3, 30) <= day < date(day.year, 10, 26)


def southern_summer(day: date) -> bool:
    return not (date(day.year, 4, 6) <= day < date(day.year, 10, 5))


def utc_offset(region: str, day: date, west: bool) -> timedelta:
    """A plausible local UTC offset for a player of the region on that day."""
    if region == "EU":
        hours = 2 if northern_summer(day) else 1
        if west:
            hours -= 1
    elif region == "NA":
        hours = (-7 if west else -4) if northern_summer(day) else (-8 if west else -5)
    elif region == "SA":
        hours = -3
    elif region == "ASIA":
        hours = 8 if west else 9
    else:
        hours = 11 if southern_summer(day) else 10
    return timedelta(hours=hours)


def format_offset(offset: timedelta) -> str:
    minutes = int(offset.total_seconds() // 60)
    if minutes == 0:
        return "Z"
    sign = "+" if minutes > 0 else "-"
    minutes = abs(minutes)
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


@dataclass(frozen=True)
class Played:
    """A `played` value: its TOML text, its UTC instant and the date shown."""

    text: str
    instant: datetime
    shown: date


def make_played(rng: random.Random, local: datetime, offset: timedelta,
                forms: tuple[float, float, float]) -> Played:
    """`local` is the wall-clock time of the reference player.

    `forms` are the weights of: offset date-time, local date-time (written
    in UTC), bare date.
    """
    instant = (local - offset).replace(tzinfo=timezone.utc)
    form = rng.choices(("offset", "utc", "date"), weights=forms)[0]
    if form == "offset":
        text = local.strftime("%Y-%m-%dT%H:%M:%S") + format_offset(offset)
        return Played(text, instant, local.date())
    if form == "utc":
        naive = instant.replace(tzinfo=None)
        return Played(naive.strftime("%Y-%m-%dT%H:%M:%S"), instant, naive.date())
    shown = local.date()
    midnight = datetime.combine(shown, time(0, 0), tzinfo=timezone.utc)
    return Played(shown.isoformat(), midnight, shown)


def evening(rng: random.Random, day: date) -> datetime:
    hour = rng.choices(range(16, 24), weights=(1, 2, 3, 4, 4, 4, 3, 2))[0]
    minute = rng.randrange(0, 60, 5)
    second = rng.choice((0, 0, 0, 0, 0, 0, 0, 0, 0, 17, 42))
    return datetime.combine(day, time(hour, minute, second))


def match_days(rng: random.Random, count: int) -> list[date]:
    """`count` match days over the year: busier on weekends and in winter."""
    days = []
    weights = []
    day = FIRST_DAY
    while day <= LAST_DAY:
        weight = 1.7 if day.weekday() >= 5 else 1.0
        weight *= 1.0 + 0.2 * math.cos((day.timetuple().tm_yday - 15) / 365 * 2 * math.pi)
        weight *= 0.85 + 0.3 * (day - FIRST_DAY).days / (LAST_DAY - FIRST_DAY).days
        days.append(day)
        weights.append(weight)
        day += timedelta(days=1)
    return sorted(rng.choices(days, weights=weights, k=count))


# --------------------------------------------------------------------------
# Matches
# --------------------------------------------------------------------------


@dataclass
class Match:
    played: Played
    players: list[dict]
    file: str = ""
    id: str | None = None
    notes: str | None = None
    challenger: str | None = None


MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")


def monthly_file(shown: date) -> str:
    return f"{shown.year}/{shown.month:02d}-{MONTHS[shown.month - 1]}.toml"


def weighted_pick(rng: random.Random, items: list, weights: list[float]):
    return rng.choices(items, weights=weights)[0]


def expected(r_a: float, r_b: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((r_b - r_a) / 400.0))


def sech(x: float) -> float:
    return 2.0 / (math.exp(x) + math.exp(-x))


# ---- Lunaro --------------------------------------------------------------

BASE_PING = {
    ("EU", "EU"): 30, ("NA", "NA"): 45, ("SA", "SA"): 40, ("ASIA", "ASIA"): 55,
    ("OCE", "OCE"): 25, ("EU", "NA"): 110, ("EU", "SA"): 200, ("ASIA", "EU"): 215,
    ("EU", "OCE"): 245, ("NA", "SA"): 140, ("ASIA", "NA"): 160, ("NA", "OCE"): 170,
    ("ASIA", "SA"): 240, ("OCE", "SA"): 235, ("ASIA", "OCE"): 115,
}
RELAY_PING = {"EU": 25, "NA": 35, "SA": 80, "ASIA": 60, "OCE": 120}
NEAR_REGIONS = {("EU", "NA"), ("NA", "SA"), ("ASIA", "OCE")}


def region_affinity(a: str, b: str) -> float:
    if a == b:
        return 4.0
    if tuple(sorted((a, b))) in NEAR_REGIONS:
        return 1.0
    return 0.25


def host_ping(rng: random.Random, host: Entrant, guest: Entrant) -> int:
    base = BASE_PING[tuple(sorted((host.profile.region, guest.profile.region)))]
    ping = base + guest.connection + host.connection // 2 + rng.randint(-12, 15)
    return max(10, min(250, ping))


def relay_ping(rng: random.Random, player: Entrant) -> int:
    ping = RELAY_PING[player.profile.region] + player.connection + rng.randint(-10, 20)
    return max(10, min(250, ping))


def goal_race(rng: random.Random, p_first: float) -> tuple[int, int, str | None]:
    """Goals of both players; the note says how the match ended, if unusual."""
    if rng.random() < 0.008:
        return 0, 0, "Connection lost at kick-off; recorded as 0-0 by the referee."
    limit = None
    if rng.random() < 0.08:
        limit = rng.randint(4, 30)
    a = b = 0
    while a < 20 and b < 20:
        if limit is not None and a + b >= limit:
            return a, b, rng.choice((
                "Ended on the time limit.",
                "Time-out before either player reached 20.",
                "Stopped by the referee after repeated disconnects.",
            ))
        if rng.random() < p_first:
            a += 1
        else:
            b += 1
    note = None
    if rng.random() < 0.03:
        extra = 1 if rng.random() < 0.7 else 2
        if a >= 20:
            a += extra
        else:
            b += extra
        note = "Unstable Lunaro finish."
    return a, b, note


def handicap(skill: float, ping: int, influence: float) -> float:
    """How well a player actually plays at that ping (a little less harsh
    than the rating's ability formula)."""
    return skill * sech(ping / (1.5 * influence))


def lunaro_game(rng: random.Random, a: Entrant, b: Entrant, day: date,
                influence: float) -> tuple[list[dict], str | None, Entrant]:
    """Simulate one duel; returns the players' entries, a note and the
    player whose clock the `played` value follows."""
    entries = [{"name": a.name_on(day)}, {"name": b.name_on(day)}]
    if rng.random() < 0.82:
        host_index = 0 if rng.random() < 0.55 else 1
        host, guest = (a, b) if host_index == 0 else (b, a)
        pings = [0, 0]
        pings[1 - host_index] = host_ping(rng, host, guest)
        reference = host
    else:
        host_index = None
        pings = [relay_ping(rng, a), relay_ping(rng, b)]
        reference = a
    p_first = expected(handicap(a.skill, pings[0], influence),
                       handicap(b.skill, pings[1], influence))
    goals_a, goals_b, note = goal_race(rng, p_first)
    for entry, goals, ping in zip(entries, (goals_a, goals_b), pings):
        entry["goals"] = goals
        entry["ping"] = ping
    if host_index is not None:
        entries[host_index]["host"] = True
    return entries, note, reference


def lunaro_update(a: Entrant, b: Entrant, entries: list[dict], k: float,
                  influence: float) -> None:
    ability_a = a.rating * sech(entries[0]["ping"] / influence)
    ability_b = b.rating * sech(entries[1]["ping"] / influence)
    e_a = expected(ability_a, ability_b)
    total = entries[0]["goals"] + entries[1]["goals"]
    s_a = 0.5 if total == 0 else entries[0]["goals"] / total
    a.rating += k * (s_a - e_a)
    b.rating -= k * (s_a - e_a)
    a.games += 1
    b.games += 1


def lunaro_opponent(rng: random.Random, first: Entrant, pool: list[Entrant]) -> Entrant:
    others = [p for p in pool if p is not first]
    weights = [
        p.activity
        * region_affinity(first.profile.region, p.profile.region)
        * math.exp(-abs(p.rating - first.rating) / 220.0)
        for p in others
    ]
    return weighted_pick(rng, others, weights)


LUNARO_NOTES = (
    "Host migration mid-match; play resumed from the score.",
    "Played on stream, cast by Dr. Ping.",
    "Rematch after last week's disconnect.",
    "Replay uploaded to the league channel.",
    "Both players agreed to a \"no bullet-jump\" ruleset.",
)

LUNARO_OPEN = ("lunaro-open-2025", date(2025, 9, 13), "Lunaro Open 2025")


def simulate_lunaro(rng: random.Random) -> list[Match]:
    influence = float(LUNARO_PARAMS["ping_influence"])
    k = float(LUNARO_PARAMS["k"])
    entrants = make_entrants(rng, LUNARO_ROSTER, 170.0, float(LUNARO_PARAMS["initial"]))
    for entrant in entrants:
        entrant.connection = rng.choice((0, 0, 0, 0, 5, 10, 15, 40))
        if entrant.profile.region in ("SA", "OCE"):
            entrant.connection += 10
    matches: list[Match] = []
    show_ids = 0
    cup_played = False
    for day in match_days(rng, LUNARO_MATCHES):
        pool = [p for p in entrants if p.joined <= day]
        first = weighted_pick(rng, pool, [p.activity for p in pool])
        second = lunaro_opponent(rng, first, pool)
        a, b = (first, second) if rng.random() < 0.5 else (second, first)
        entries, note, reference = lunaro_game(rng, a, b, day, influence)
        offset = utc_offset(reference.profile.region, day, rng.random() < 0.3)
        played = make_played(rng, evening(rng, day), offset, (62, 33, 5))
        match = Match(played, entries, monthly_file(played.shown))
        if note is None and rng.random() < 0.04:
            note = rng.choice(LUNARO_NOTES)
        match.notes = note
        if rng.random() < 0.025:
            show_ids += 1
            match.id = f"showmatch-{played.shown.isoformat()}-{show_ids}"
            match.notes = match.notes or "Show match between two league regulars."
        lunaro_update(a, b, entries, k, influence)
        matches.append(match)
        if not cup_played and day >= LUNARO_OPEN[1]:
            matches.extend(lunaro_cup(rng, entrants, LUNARO_OPEN[1], k, influence))
            cup_played = True
    return matches


def lunaro_cup(rng: random.Random, entrants: list[Entrant], day: date,
               k: float, influence: float) -> list[Match]:
    """A single-elimination cup of the eight best-rated players, hosted by
    the higher seed, all in one evening."""
    slug, _, title = LUNARO_OPEN
    seeds = sorted((p for p in entrants if p.joined <= day and p.games >= 5),
                   key=lambda p: (-p.rating, p.name))[:8]
    bracket = [seeds[i] for i in (0, 7, 3, 4, 1, 6, 2, 5)]
    rounds = (("qf", "quarter-final"), ("sf", "semi-final"), ("final", "final"))
    clock = datetime.combine(day, time(18, 0))
    offset = utc_offset("EU", day, False)
    matches = []
    for code, label in rounds:
        winners = []
        for index in range(0, len(bracket), 2):
            a, b = bracket[index], bracket[index + 1]
            if (b.rating, b.name) > (a.rating, a.name):
                a, b = b, a
            guest_ping = host_ping(rng, a, b)
            p_host = expected(handicap(a.skill, 0, influence),
                              handicap(b.skill, guest_ping, influence))
            goals_a, goals_b, note = 0, 0, None
            while goals_a < 20 and goals_b < 20:
                goals_a, goals_b, note = goal_race(rng, p_host)
            entries = [
                {"name": a.name_on(day), "goals": goals_a, "ping": 0, "host": True},
                {"name": b.name_on(day), "goals": goals_b, "ping": guest_ping},
            ]
            number = "" if code == "final" else str(index // 2 + 1)
            played = Played(
                clock.strftime("%Y-%m-%dT%H:%M:%S") + format_offset(offset),
                (clock - offset).replace(tzinfo=timezone.utc),
                day,
            )
            match = Match(played, entries, f"{day.year}/cups/{slug}.toml",
                          id=f"{slug}.{code}{number}",
                          notes=f"{title}, {label}." + (f" {note}" if note else ""))
            lunaro_update(a, b, entries, k, influence)
            matches.append(match)
            winners.append(a if goals_a > goals_b else b)
            clock += timedelta(minutes=25)
        bracket = winners
        clock += timedelta(minutes=20)
    return matches


# ---- Elo (ranked battle) -------------------------------------------------


def fide_k(games: int, reached_master: bool) -> float:
    if games < 30:
        return 40.0
    return 10.0 if reached_master else 20.0


def elo_outcome(rng: random.Random, a: Entrant, b: Entrant) -> float:
    p = expected(a.skill, b.skill)
    if rng.random() < 0.22 * (1.0 - abs(2.0 * p - 1.0)):
        return 0.5
    return 1.0 if rng.random() < p else 0.0


def elo_opponent(rng: random.Random, challenger: Entrant, pool: list[Entrant]) -> Entrant:
    """Mostly matchmaking: opponents within 100 points of the challenger,
    widened until there are a few to choose from; sometimes an open
    challenge to anyone."""
    others = [p for p in pool if p is not challenger]
    if challenger.name != ELO_STAR and rng.random() < 0.3:
        return rng.choice(others)
    deviation = 100.0
    while True:
        candidates = [p for p in others if abs(p.rating - challenger.rating) <= deviation]
        if len(candidates) >= 3 or len(candidates) == len(others):
            return rng.choice(candidates)
        deviation += 100.0


class EloState:
    """Online ratings used for matchmaking while simulating."""

    def __init__(self) -> None:
        self.master: dict[str, bool] = {}

    def update(self, challenger: Entrant, a: Entrant, b: Entrant, score_a: float) -> None:
        k = fide_k(challenger.games, self.master.get(challenger.name, False))
        e_a = expected(a.rating, b.rating)
        e_b = expected(b.rating, a.rating)
        a.rating, b.rating = a.rating + k * (score_a - e_a), b.rating + k * (1 - score_a - e_b)
        a.games += 1
        b.games += 1
        for player in (a, b):
            if player.rating >= 2400:
                self.master[player.name] = True


ELO_NOTES = (
    "Played on stream.",
    "Rematch requested after a disconnect.",
    "Replay uploaded to the league channel.",
    "Challenge issued in the \"open challenge\" thread.",
    "Double-checked by a referee from the replay.",
)
ELO_CUPS = (
    ("spring-cup", date(2025, 5, 24), "Spring Cup", None),
    ("summer-cup", date(2025, 8, 23), "Summer Cup", None),
    ("winter-cup", date(2025, 12, 13), "Winter Cup", "final-2025"),
)


def simulate_elo(rng: random.Random) -> list[Match]:
    initial = float(ELO_PARAMS["initial"])
    entrants = make_entrants(rng, ELO_ROSTER, 300.0, initial)
    for entrant in entrants:
        if entrant.name in ELO_EDGES:
            entrant.skill = initial + ELO_EDGES[entrant.name]
            entrant.joined = FIRST_DAY
        if entrant.name == ELO_STAR:
            entrant.activity = 5.0
    state = EloState()
    matches: list[Match] = []
    cups = sorted(ELO_CUPS, key=lambda cup: cup[1])
    grudges = 0
    for day in match_days(rng, ELO_MATCHES):
        pool = [p for p in entrants if p.joined <= day]
        weights = [p.activity * (2.5 if p.name == ELO_STAR and day.month in (3, 4, 5) else 1.0)
                   for p in pool]
        challenger = weighted_pick(rng, pool, weights)
        opponent = elo_opponent(rng, challenger, pool)
        matches.append(elo_match(rng, state, challenger, opponent, day))
        if rng.random() < 0.02:
            grudges += 1
            match = matches[-1]
            match.id = f"grudge-{grudges:02d}"
            match.notes = "Grudge match, announced a week ahead."
        while cups and cups[0][1] <= day:
            slug, cup_day, title, final_id = cups.pop(0)
            matches.extend(elo_cup(rng, state, entrants, cup_day, slug, title, final_id))
    return matches


def elo_match(rng: random.Random, state: EloState, challenger: Entrant,
              opponent: Entrant, day: date, clock: datetime | None = None,
              challenger_first: bool | None = None) -> Match:
    score = elo_outcome(rng, challenger, opponent)
    if challenger_first is None:
        challenger_first = rng.random() < 0.72
    first, second = (challenger, opponent) if challenger_first else (opponent, challenger)
    score_first = score if challenger_first else 1.0 - score
    entries = [
        {"name": first.name_on(day), "score": elo_score(score_first)},
        {"name": second.name_on(day), "score": elo_score(1.0 - score_first)},
    ]
    if clock is None:
        offset = utc_offset(challenger.profile.region, day, rng.random() < 0.3)
        played = make_played(rng, evening(rng, day), offset, (55, 40, 5))
    else:
        offset = utc_offset("EU", day, False)
        played = Played(
            clock.strftime("%Y-%m-%dT%H:%M:%S") + format_offset(offset),
            (clock - offset).replace(tzinfo=timezone.utc),
            day,
        )
    match = Match(played, entries, monthly_file(played.shown))
    if not challenger_first:
        match.challenger = challenger.name_on(day)
    elif rng.random() < 0.04:
        match.challenger = challenger.name_on(day)
    if rng.random() < 0.04:
        match.notes = rng.choice(ELO_NOTES)
    state.update(challenger, first, second, score_first)
    return match


def elo_score(value: float) -> int | float:
    return 0.5 if value == 0.5 else int(value)


def elo_cup(rng: random.Random, state: EloState, entrants: list[Entrant], day: date,
            slug: str, title: str, final_id: str | None) -> list[Match]:
    """Eight best-rated players, single elimination, the higher seed challenges."""
    seeds = sorted((p for p in entrants if p.joined <= day and p.games >= 5),
                   key=lambda p: (-p.rating, p.name))[:8]
    bracket = [seeds[i] for i in (0, 7, 3, 4, 1, 6, 2, 5)]
    rounds = (("qf", "quarter-final"), ("sf", "semi-final"), ("final", "final"))
    clock = datetime.combine(day, time(17, 0))
    matches = []
    for code, label in rounds:
        winners = []
        for index in range(0, len(bracket), 2):
            a, b = bracket[index], bracket[index + 1]
            if (b.rating, b.name) > (a.rating, a.name):
                a, b = b, a
            while True:
                match = elo_match(rng, state, a, b, day, clock, challenger_first=True)
                if match.players[0]["score"] != 0.5:
                    break
                match.notes = f"{title}, {label}: drawn, replayed."
                match.file = f"{day.year}/cups/{slug}.toml"
                matches.append(match)
                clock += timedelta(minutes=15)
            number = "" if code == "final" else str(index // 2 + 1)
            match.id = f"{slug}-{day.year}-{code}{number}"
            if code == "final" and final_id:
                match.id = final_id
            match.notes = f"{title}, {label}."
            match.file = f"{day.year}/cups/{slug}.toml"
            matches.append(match)
            winners.append(a if match.players[0]["score"] == 1 else b)
            clock += timedelta(minutes=30)
        bracket = winners
    return matches


# --------------------------------------------------------------------------
# TOML output
# --------------------------------------------------------------------------

_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r",
            '"': '\\"', "\\": "\\\\"}
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def toml_string(text: str) -> str:
    """A TOML basic string."""
    out = ['"']
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def toml_multiline(text: str) -> str:
    """A TOML multi-line basic string (kept readable: newlines stay newlines)."""
    out = ['"""\n']
    for char in text:
        if char == "\n":
            out.append("\n")
        elif char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    out.append('"""')
    return "".join(out)


def toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else toml_string(key)


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"not a finite number: {value}")
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def self_test_strings() -> None:
    tricky = 'a "quoted" \\ back\tslash\nnew\x00\x1f\x7f é 🌙'
    parsed = tomllib.loads(f"a = {toml_string(tricky)}\nb = {toml_multiline(tricky)}\n")
    assert parsed == {"a": tricky, "b": tricky}, parsed


def league_toml(name: str, system: str, description: str, tiers: list, params: dict) -> str:
    lines = [
        f"name = {toml_string(name)}",
        f"system = {toml_string(system)}",
        f"description = {toml_multiline(description)}",
        f"tiers = {toml_value(tiers)}",
        "",
        "[params]",
    ]
    lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in params.items()]
    return "\n".join(lines) + "\n"


def match_toml(match: Match) -> str:
    lines = ["[[match]]"]
    if match.id is not None:
        lines.append(f"id = {toml_string(match.id)}")
    lines.append(f"played = {match.played.text}")
    if match.challenger is not None:
        lines.append(f"challenger = {toml_string(match.challenger)}")
    if match.notes is not None:
        lines.append(f"notes = {toml_string(match.notes)}")
    lines.append("players = [")
    lines += [f"  {toml_value(entry)}," for entry in match.players]
    lines.append("]")
    return "\n".join(lines) + "\n"


def file_title(path: str) -> str:
    """"2025/08-august.toml" -> "August 2025"; cup files by their name."""
    year, _, name = path.removesuffix(".toml").rpartition("/")
    month = name.partition("-")[2]
    if month in MONTHS:
        return f"{month.capitalize()} {year}"
    return name.replace("-", " ").title()


def match_files(matches: list[Match], title: str) -> dict[str, str]:
    by_file: dict[str, list[Match]] = {}
    for match in matches:
        by_file.setdefault(match.file, []).append(match)
    files = {}
    for path in sorted(by_file):
        ordered = sorted(by_file[path], key=lambda m: m.played.instant)
        header = f"# {title}: {file_title(path)}\n"
        files[path] = header + "".join("\n" + match_toml(m) for m in ordered)
    return files


def players_toml(profiles: list[Profile], used: list[str]) -> str:
    lines = ["# Who is who: platform, region and former names (aliases).", ""]
    for profile in sorted(profiles, key=lambda p: p.name):
        if profile.platform is None or profile.name not in used:
            continue
        lines.append(f"[players.{toml_string(profile.name)}]")
        lines.append(f"platform = {toml_string(profile.platform)}")
        lines.append(f"region = {toml_string(profile.region)}")
        if profile.alias is not None:
            lines.append(f"aliases = {toml_value([profile.alias])}")
        lines.append("")
    return "\n".join(lines)


LUNARO_TIERS = [[0, "Bronze"], [1400, "Silver"], [1500, "Gold"], [1600, "Platinum"],
                [1700, "Diamond"]]
ELO_TIERS = [[0, "Bronze"], [1850, "Silver"], [1950, "Gold"], [2050, "Platinum"],
             [2150, "Diamond"], [2400, "Master"]]

LUNARO_DESCRIPTION = """\
Ranked **1v1 Lunaro** duels, first to 20 goals (or what stands when time runs out).

Ratings follow the community *Lunaro rating specification*: a player's ability is their
rank scaled by the hyperbolic secant of their ping, so a win on a 200 ms connection counts
for more than a win as the host at 0 ms. The goal share decides the score, and K is 50
for everyone while the initial rankings settle.
"""

ELO_DESCRIPTION = """\
Ranked battles, one on one: win, lose or draw. Every fighter enters at 2000.

Ratings are **Elo** with the FIDE K-factor: 40 for a player's first 30 games, then 20,
and 10 for good once a rating has reached 2400 (the *Master* tier). The K of the player
who issued the challenge is used for both sides.
"""


def write_all(root: Path, lunaro: list[Match], elo: list[Match]) -> list[Path]:
    matches_dir = root / "matches"
    written = []

    def write(path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        written.append(path)

    for slug in (LUNARO_SLUG, ELO_SLUG):
        shutil.rmtree(matches_dir / slug, ignore_errors=True)
    write(matches_dir / LUNARO_SLUG / "league.toml", league_toml(
        "Lunaro Duels", "lunaro", LUNARO_DESCRIPTION, LUNARO_TIERS,
        LUNARO_PARAMS))
    for path, text in match_files(lunaro, "Lunaro Duels").items():
        write(matches_dir / LUNARO_SLUG / path, text)
    write(matches_dir / ELO_SLUG / "league.toml", league_toml(
        "Ranked Battle", "elo", ELO_DESCRIPTION, ELO_TIERS,
        ELO_PARAMS))
    for path, text in match_files(elo, "Ranked Battle").items():
        write(matches_dir / ELO_SLUG / path, text)
    used = sorted(set(LUNARO_ROSTER) | set(ELO_ROSTER))
    write(matches_dir / "players.toml", players_toml(PROFILES, used))
    return written


# --------------------------------------------------------------------------
# Reading back: format checks and ratings
# --------------------------------------------------------------------------

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class Problems(list):
    def add(self, where: str, message: str) -> None:
        self.append(f"{where}: {message}")


def as_instant(value) -> datetime | None:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)
    if isinstance(value, date):
        return datetime.combine(value, time(0, 0), tzinfo=timezone.utc)
    return None


def check_name(name, where: str, problems: Problems) -> None:
    if not isinstance(name, str) or not name or len(name) > 64:
        problems.add(where, f"bad name {name!r}")
    elif name != name.strip() or name != unicodedata.normalize("NFC", name):
        problems.add(where, f"name {name!r} not trimmed or not NFC")


def read_players(path: Path, problems: Problems) -> dict[str, str]:
    """Map every name and alias to the player's name."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    owner: dict[str, str] = {}
    for name, info in data.get("players", {}).items():
        check_name(name, f"players.toml [{name}]", problems)
        if set(info) - {"platform", "region", "aliases"}:
            problems.add(f"players.toml [{name}]", "unknown key")
        if info.get("region") not in REGIONS or info.get("platform") not in PLATFORMS:
            problems.add(f"players.toml [{name}]", "bad region or platform")
        for used in [name] + list(info.get("aliases", [])):
            check_name(used, f"players.toml [{name}]", problems)
            if used in owner:
                problems.add(f"players.toml [{name}]", f"{used!r} already used")
            owner[used] = name
    return owner


def read_league(folder: Path, system: str, problems: Problems) -> tuple[dict, list[dict]]:
    """Parse and check one league; returns its league.toml and its matches
    in history order."""
    league = tomllib.loads((folder / "league.toml").read_text(encoding="utf-8"))
    if league.get("system") != system or not isinstance(league.get("name"), str):
        problems.add(f"{folder.name}/league.toml", "bad name or system")
    if set(league) - {"name", "system", "description", "params", "tiers"}:
        problems.add(f"{folder.name}/league.toml", "unknown key")
    extra_keys = {"challenger"} if system == "elo" else set()
    matches = []
    seen_ids: dict[str, str] = {}
    for path in sorted(folder.rglob("*.toml")):
        rel = path.relative_to(folder).as_posix()
        if rel == "league.toml":
            continue
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for position, match in enumerate(data.get("match", []), start=1):
            default_id = rel.removesuffix(".toml").replace("/", "-") + f"-{position}"
            match_id = match.get("id", default_id)
            where = f"{folder.name}/{rel} #{position} ({match_id})"
            if set(match) - {"id", "played", "notes", "players"} - extra_keys:
                problems.add(where, f"unknown key in {sorted(match)}")
            if not (isinstance(match_id, str) and len(match_id) <= 64
                    and ID_PATTERN.fullmatch(match_id)):
                problems.add(where, "bad id")
            if match_id in seen_ids:
                problems.add(where, f"id also used by {seen_ids[match_id]}")
            seen_ids[match_id] = where
            instant = as_instant(match.get("played"))
            if instant is None:
                problems.add(where, "bad played")
                continue
            if "notes" in match and not isinstance(match["notes"], str):
                problems.add(where, "bad notes")
            players = match.get("players", [])
            names = [p.get("name") for p in players]
            for name in names:
                check_name(name, where, problems)
            if len(players) != 2 or len(set(names)) != len(names):
                problems.add(where, "a duel needs two different players")
                continue
            if system == "lunaro":
                check_lunaro(players, where, problems)
            else:
                check_elo(match, players, where, problems)
            matches.append({"instant": instant, "file": rel, "position": position,
                            "id": match_id, "match": match})
    matches.sort(key=lambda m: (m["instant"], m["file"], m["position"]))
    return league, matches


def check_lunaro(players: list[dict], where: str, problems: Problems) -> None:
    for player in players:
        if set(player) - {"name", "goals", "ping", "host"}:
            problems.add(where, "unknown player key")
        goals, ping = player.get("goals"), player.get("ping")
        if type(goals) is not int or not 0 <= goals <= 22:
            problems.add(where, f"bad goals {goals!r}")
        if type(ping) is not int or ping < 0:
            problems.add(where, f"bad ping {ping!r}")
        if "host" in player and (player["host"] is not True or ping != 0):
            problems.add(where, "a host must have host = true and ping 0")
    if sum(1 for p in players if p.get("goals", 0) >= 20) > 1:
        problems.add(where, "two players with 20 or more goals")
    if sum(1 for p in players if p.get("host")) > 1:
        problems.add(where, "two hosts")


def check_elo(match: dict, players: list[dict], where: str, problems: Problems) -> None:
    scores = [p.get("score") for p in players]
    for player in players:
        if set(player) - {"name", "score"}:
            problems.add(where, "unknown player key")
    if any(s not in (0, 0.5, 1) or isinstance(s, bool) for s in scores) or sum(scores) != 1:
        problems.add(where, f"bad scores {scores!r}")
    if "challenger" in match and match["challenger"] not in [p["name"] for p in players]:
        problems.add(where, "challenger is not a player of the match")


@dataclass
class Rated:
    ratings: dict[str, float] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)
    peak: dict[str, float] = field(default_factory=dict)
    master_at: dict[str, str] = field(default_factory=dict)


def rate_lunaro(matches: list[dict], owner: dict[str, str], params: dict) -> Rated:
    rated = Rated()
    initial, k, influence = params["initial"], params["k"], params["ping_influence"]
    for item in matches:
        a, b = item["match"]["players"]
        names = [owner.get(a["name"], a["name"]), owner.get(b["name"], b["name"])]
        r = [rated.ratings.get(n, initial) for n in names]
        ability = [r[0] * sech(a["ping"] / influence), r[1] * sech(b["ping"] / influence)]
        e_a = expected(ability[0], ability[1])
        total = a["goals"] + b["goals"]
        s_a = 0.5 if total == 0 else a["goals"] / total
        for name, rating, s, e in zip(names, r, (s_a, 1 - s_a), (e_a, 1 - e_a)):
            raw = rating + k * (s - e)
            rounded = math.floor(abs(raw) + 0.5) * (1 if raw >= 0 else -1)
            rated.ratings[name] = max(0, rounded)
            rated.games[name] = rated.games.get(name, 0) + 1
    return rated


def rate_elo(matches: list[dict], owner: dict[str, str], params: dict) -> Rated:
    rated = Rated()
    initial = float(params["initial"])
    reached: dict[str, bool] = {}
    for item in matches:
        match = item["match"]
        a, b = match["players"]
        names = [owner.get(a["name"], a["name"]), owner.get(b["name"], b["name"])]
        listed = match.get("challenger", a["name"])
        challenger = owner.get(listed, listed)
        r = [rated.ratings.get(n, initial) for n in names]
        k = fide_k(rated.games.get(challenger, 0), reached.get(challenger, False))
        new = [
            r[0] + k * (a["score"] - expected(r[0], r[1])),
            r[1] + k * (b["score"] - expected(r[1], r[0])),
        ]
        for name, rating in zip(names, new):
            rated.ratings[name] = rating
            rated.games[name] = rated.games.get(name, 0) + 1
            rated.peak[name] = max(rated.peak.get(name, rating), rating)
            if rating >= 2400:
                reached[name] = True
                rated.master_at.setdefault(
                    name, f"{item['id']} ({match['played'].isoformat()}), "
                          f"game {rated.games[name]}, rating {rating:.1f}")
    return rated


def tier_of(rating: float, tiers: list) -> str:
    name = tiers[0][1]
    for bound, label in tiers:
        if rating >= bound:
            name = label
    return name


def summarise(title: str, rated: Rated, matches: list[dict], tiers: list, digits: int) -> None:
    forms = {"offset date-time": 0, "local date-time": 0, "local date": 0}
    for item in matches:
        played = item["match"]["played"]
        if isinstance(played, datetime):
            forms["offset date-time" if played.tzinfo else "local date-time"] += 1
        else:
            forms["local date"] += 1
    files = sorted({m["file"] for m in matches})
    explicit = sum(1 for m in matches if "id" in m["match"])
    notes = sum(1 for m in matches if "notes" in m["match"])
    print(f"== {title}")
    print(f"   {len(rated.ratings)} players, {len(matches)} matches in {len(files)} files "
          f"({matches[0]['instant']:%Y-%m-%d} .. {matches[-1]['instant']:%Y-%m-%d})")
    print("   played forms: " + ", ".join(f"{k} {v}" for k, v in forms.items()))
    print(f"   explicit ids: {explicit}, with notes: {notes}")
    games = sorted(rated.games.values())
    print(f"   games per player: min {games[0]}, median {games[len(games) // 2]}, "
          f"max {games[-1]}; more than 30: {sum(1 for g in games if g > 30)}")
    table = sorted(rated.ratings.items(), key=lambda kv: (-kv[1], kv[0]))
    counts = {label: 0 for _, label in tiers}
    for _, rating in table:
        counts[tier_of(rating, tiers)] += 1
    print("   tiers: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    top = ", ".join(f"{n} {r:.{digits}f} ({rated.games[n]})" for n, r in table[:5])
    print(f"   top 5: {top}")
    print(f"   bottom: {table[-1][0]} {table[-1][1]:.{digits}f}")


def verify(root: Path, written: list[Path]) -> int:
    problems = Problems()
    for path in written:
        try:
            tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as error:
            problems.add(str(path.relative_to(root)), f"does not parse: {error}")
    matches_dir = root / "matches"
    owner = read_players(matches_dir / "players.toml", problems)
    lunaro_league, lunaro = read_league(matches_dir / LUNARO_SLUG, "lunaro", problems)
    elo_league, elo = read_league(matches_dir / ELO_SLUG, "elo", problems)
    for league, items in ((LUNARO_SLUG, lunaro), (ELO_SLUG, elo)):
        for item in items:
            for player in item["match"]["players"]:
                if player["name"] not in owner and player["name"] not in PROFILE_BY_NAME:
                    problems.add(f"{league} {item['id']}", f"unknown player {player['name']!r}")
    lunaro_rated = rate_lunaro(lunaro, owner, lunaro_league["params"])
    elo_rated = rate_elo(elo, owner, elo_league["params"])

    print(f"wrote {len(written)} files under {matches_dir}")
    summarise("lunaro-duels (lunaro)", lunaro_rated, lunaro, lunaro_league["tiers"], 0)
    hosts = sum(1 for m in lunaro if any(p.get("host") for p in m["match"]["players"]))
    pings = [p["ping"] for m in lunaro for p in m["match"]["players"] if p["ping"] > 0]
    wins = [max(p["goals"] for p in m["match"]["players"]) for m in lunaro]
    print(f"   with a host: {hosts}; non-zero pings {min(pings)}..{max(pings)} ms; "
          f"no one at 20: {sum(1 for w in wins if w < 20)}, 21 or 22: "
          f"{sum(1 for w in wins if w > 20)}, 0-0: {sum(1 for w in wins if w == 0)}")
    summarise("ranked-battle (elo)", elo_rated, elo, elo_league["tiers"], 1)
    draws = sum(1 for m in elo if m["match"]["players"][0]["score"] == 0.5)
    second = sum(1 for m in elo
                 if m["match"].get("challenger") == m["match"]["players"][1]["name"])
    print(f"   draws: {draws} ({100 * draws / len(elo):.1f}%), challenger listed second: {second}")
    best, peak = max(elo_rated.peak.items(), key=lambda kv: (kv[1], kv[0]))
    print(f"   max rating: {best} {peak:.1f} (final {elo_rated.ratings[best]:.1f})")
    for name, when in sorted(elo_rated.master_at.items()):
        print(f"   reached 2400: {name} at {when}")
    used_names = [p["name"] for items in (lunaro, elo) for m in items
                  for p in m["match"]["players"]]
    aliases_used = sorted({name for name in used_names if owner.get(name, name) != name})
    print(f"   aliases used in matches: {', '.join(aliases_used)}")

    regulars = sum(1 for games in elo_rated.games.values() if games > 30)
    if regulars * 2 <= len(elo_rated.games):
        problems.add(ELO_SLUG, f"only {regulars} players have played more than 30 games")
    if not elo_rated.master_at:
        problems.add(ELO_SLUG, "no player reached a rating of 2400")
    for problem in problems:
        print(f"PROBLEM {problem}", file=sys.stderr)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the site repository to write into (default: this repository)")
    args = parser.parse_args(argv)
    self_test_strings()
    lunaro = simulate_lunaro(random.Random(f"{SEED}-{LUNARO_SLUG}"))
    elo = simulate_elo(random.Random(f"{SEED}-{ELO_SLUG}"))
    written = write_all(args.root, lunaro, elo)
    return verify(args.root, written)


if __name__ == "__main__":
    sys.exit(main())
