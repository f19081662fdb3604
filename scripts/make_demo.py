"""Generate the demo match data of this repository.

Writes five leagues and a players file under ``matches/``:

* ``matches/lunaro-duels/``: 1v1 Lunaro duels (system ``lunaro``), goals and
  pings per player, most matches with a host at ping 0;
* ``matches/ranked-battle/``: ranked 1v1 battles (system ``elo`` with the
  FIDE K-factor taken from the challenger);
* ``matches/battle-royale/``: solo battle royale lobbies of 16 to 40 players
  (system ``placement``), a fifth of them platform-only queues, a few shared
  places, tiers Bronze to Challenger;
* ``matches/world-vs-world/``: weekly three-way matchups of 12 worlds, six
  per region (system ``glicko2``), regrouped every week by rating, with one
  week of maintenance and no matchups;
* ``matches/arena/``: 4v4 Team Slayer and eight-player Free for All games
  with kills, deaths, assists and betrayals (system ``arena``);
* ``matches/players.toml``: platform, region and former names (aliases).

Each league has a ``league.toml`` and one match file per month
(``2025/08-august.toml``) plus a few cup files (``<year>/cups/*.toml``),
covering March 2025 to February 2026; World vs World has one file per ISO
week (``2025/w25.toml``) from March to October 2025. Outcomes are simulated
from hidden player skills (and, in Lunaro, pings; in World vs World, world
populations that drift), so the rated leaderboards look plausible. Every
league draws from a random generator of its own, so a change to one league
leaves the others' files as they are. The output is deterministic: fixed
random seeds, no clock, and running the script twice gives byte-identical
files.

Run from anywhere:

    python scripts/make_demo.py            # writes into this repository
    python scripts/make_demo.py --root DIR # writes into DIR/matches/

Only these five league folders and ``matches/players.toml`` are removed
and rewritten. Every written file is read back with ``tomllib`` and checked
against the match file format; every league's ratings are recomputed and
summarised, and the script exits with status 1 unless some ranked-battle
player plays more than 30 games and some reaches a rating of 2400, every
battle-royale tier holds a player (Challenger one to five), and World vs
World has exactly one week without matchups.
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

BR_SLUG = "battle-royale"
WVW_SLUG = "world-vs-world"
ARENA_SLUG = "arena"
BR_MATCHES = 300
BR_PLATFORM_QUEUES = 0.2  # share of matches in a platform-only queue
BR_TIE_RATE = 0.03  # chance that a player is eliminated together with the one before
ARENA_MATCHES = 250
WVW_FIRST_FRIDAY = date(2025, 3, 7)
WVW_WEEKS = 31
WVW_BREAK = date(2025, 6, 13)  # the Friday of the maintenance week: no matchups

BR_PARAMS = {"initial": 0, "floor": 0, "k": "bands",
             "k_bands": [[0, 32], [2100, 24], [2400, 16]], "normalize": True}
WVW_PARAMS = {"initial_rating": 1500, "initial_rd": 350, "initial_volatility": 0.06,
              "tau": 0.6, "period": "week", "score_transform": "sine"}
ARENA_PARAMS = {"assist_weight": 1, "betrayal_weight": 1, "loss_penalty": 0.96}

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
# Battle Royale: a pool of its own, with platform queues (seed 002, "Platform mode").
BR_PROFILES = [
    # pc
    _profile("Quokka Prime", "OCE", "pc"),
    _profile("Nachtfalke", "EU", "pc"),
    _profile("Zéphyrine", "EU", "pc"),
    _profile("Dropzone Dave", "NA", "pc"),
    _profile("Кирпич", "EU", "pc"),
    _profile("Loot Llama", "SA", "pc"),
    _profile("Høvding", "EU", "pc"),
    _profile("Pixel Pirate", "NA", "pc"),
    _profile("Glide Guru", "ASIA", "pc"),
    _profile("Mœbius", "EU", "pc"),
    _profile("Storm Chaser", "NA", "pc"),
    _profile("Bushwhacker", "OCE", "pc"),
    _profile("Rift Runner", "NA", "pc"),
    _profile("Kraków Kid", "EU", "pc"),
    _profile("Ironsights", "NA", "pc"),
    _profile("Ghost Peppers", "SA", "pc"),
    _profile("Saoirse", "EU", "pc"),
    _profile("Emberline", "NA", "pc"),
    _profile("Third Party Pete", "NA", "pc"),
    _profile("<b>Bold</b> & \"Brash\" 'n' Co", "EU", "pc"),
    _profile("Noémie", "EU", "pc"),
    _profile("Crank90s", "NA", "pc"),
    _profile("Tactical Toaster", "EU", "pc"),
    _profile("Wrenchwright", "OCE", "pc"),
    # ps
    _profile("Blue Shell", "NA", "ps"),
    _profile("Çelik", "EU", "ps"),
    _profile("Penny Drop", "NA", "ps"),
    _profile("Triggerfish", "OCE", "ps"),
    _profile("Łoś", "EU", "ps"),
    _profile("Shield Pot", "NA", "ps"),
    _profile("Jade Ferret", "ASIA", "ps"),
    _profile("Ramón Rampage", "SA", "ps"),
    _profile("Night Owl", "NA", "ps"),
    _profile("Aurelio", "SA", "ps"),
    _profile("Guðrún", "EU", "ps"),
    _profile("Mango Tango", "SA", "ps"),
    _profile("Velvet Hammer", "NA", "ps"),
    _profile("Zuzanna", "EU", "ps"),
    _profile("Sunny Side", "OCE", "ps"),
    _profile("Ōkami", "ASIA", "ps"),
    _profile("Mint Condition", "EU", "ps"),
    _profile("Hot Drop Hana", "ASIA", "ps"),
    _profile("Storm Surge", "NA", "ps"),
    # xbox
    _profile("Xenon", "NA", "xbox"),
    _profile("Grim Harvest", "NA", "xbox"),
    _profile("Lucky Lefty", "NA", "xbox"),
    _profile("Bärbel", "EU", "xbox"),
    _profile("Sergeant Slurp", "NA", "xbox"),
    _profile("Hop Rock", "OCE", "xbox"),
    _profile("Tomás Tempest", "SA", "xbox"),
    _profile("Pumpkin Spice", "NA", "xbox"),
    _profile("Overclock", "EU", "xbox"),
    _profile("Åsa", "EU", "xbox"),
    _profile("Brick Wall", "NA", "xbox"),
    _profile("Falcão", "SA", "xbox"),
    _profile("Vortex Vera", "EU", "xbox"),
    _profile("Drift King", "NA", "xbox"),
    _profile("Echo Seven", "NA", "xbox"),
    _profile("Dunebuggy", "OCE", "xbox"),
    _profile("Frostbyte", "EU", "xbox"),
    # switch
    _profile("Mushroom Mo", "NA", "switch"),
    _profile("桜井 蓮", "ASIA", "switch"),
    _profile("Tiny Tim", "EU", "switch"),
    _profile("Pocket Rocket", "NA", "switch"),
    _profile("Leaf Blower", "OCE", "switch"),
    _profile("Ünal", "EU", "switch"),
    _profile("Shell Shock", "NA", "switch"),
    _profile("Bubblegum", "ASIA", "switch"),
    _profile("Sprout", "EU", "switch"),
    _profile("Marisol", "SA", "switch"),
    _profile("Comet Kid", "NA", "switch"),
    _profile("Frosty", "EU", "switch"),
    _profile("Pip", "OCE", "switch"),
    _profile("Jellybean", "NA", "switch"),
    _profile("Nuée", "EU", "switch"),
    _profile("Dōjō Dan", "ASIA", "switch"),
    _profile("Pancake", "NA", "switch"),
    _profile("Wobble", "EU", "switch"),
    _profile("Sir Squish", "NA", "switch"),
    _profile("Lumen", "SA", "switch"),
]

# World vs World: the worlds are the players (seed 003); a world is on PC in one region.
WVW_PROFILES = [
    _profile("Stormwatch Bastion", "NA", "pc"),
    _profile("Ironmarch Vale", "NA", "pc"),
    _profile("Serpent's Reach", "NA", "pc"),
    _profile("Ember Tide", "NA", "pc"),
    _profile("Shiverwind Gate", "NA", "pc"),
    _profile("Maguuma Deep", "NA", "pc"),
    _profile("Ashford Crossing", "EU", "pc"),
    _profile("Drakkar Hollow", "EU", "pc"),
    _profile("Vigil's Rest", "EU", "pc"),
    _profile("Bärenfels [DE]", "EU", "pc"),
    _profile("Lac d'Émeraude [FR]", "EU", "pc"),
    _profile("Costa de Niebla [SP]", "EU", "pc"),
]

# Arena: Halo: Reach on the Xbox 360 (seed 004).
ARENA_PROFILES = [
    _profile("Plasma Pete", "NA", "xbox"),
    _profile("ThrusterPack", "NA", "xbox"),
    _profile("Kat Lynx", "EU", "xbox"),
    _profile("Grenade Jumper", "NA", "xbox"),
    _profile("Armor Lock Larry", "NA", "xbox"),
    _profile("Ørjan", "EU", "xbox"),
    _profile("Élodie", "EU", "xbox"),
    _profile("DMR Dana", "NA", "xbox"),
    _profile("Needler Ned", "NA", "xbox"),
    _profile("Jetpack Jo", "OCE", "xbox"),
    _profile("Bloom Doom", "NA", "xbox"),
    _profile("Sprint Sarge", "NA", "xbox"),
    _profile("Hologram Hal", "EU", "xbox"),
    _profile("Nikolaï", "EU", "xbox"),
    _profile("Covenant Cole", "NA", "xbox"),
    _profile("Drop Shield", "NA", "xbox"),
    _profile("Frag Queen", "EU", "xbox"),
    _profile("Zealot Zed", "NA", "xbox"),
    _profile("Sword Base Sam", "NA", "xbox"),
    _profile("Évora Eagle", "EU", "xbox"),
    _profile("Camo Kenji", "ASIA", "xbox"),
    _profile("Headshot Hugo", "EU", "xbox"),
    _profile("Overshield", "NA", "xbox"),
    _profile("Magnum Maya", "NA", "xbox"),
    _profile("Spire Sniper", "OCE", "xbox"),
    _profile("Ghost Rider 7", "NA", "xbox"),
    _profile("Björk Bomber", "EU", "xbox"),
    _profile("Pistol Whip", "NA", "xbox"),
    _profile("Countdown Kid", "NA", "xbox"),
    _profile("Rocket Rosa", "SA", "xbox"),
    _profile("Evade Eve", "EU", "xbox"),
    _profile("Warthog Wendy", "NA", "xbox"),
    _profile("Boardwalk Ben", "NA", "xbox"),
    _profile("Šimon Strike", "EU", "xbox"),
    _profile("Beam Rifle Bo", "NA", "xbox"),
    _profile("Team Player", "NA", "xbox"),
    _profile("Assist King", "EU", "xbox"),
    _profile("Oopsie Daisy", "NA", "xbox"),
    _profile("Reflection Rae", "OCE", "xbox"),
    _profile("Noob Tube", "NA", "xbox"),
]

ALL_PROFILES = PROFILES + BR_PROFILES + WVW_PROFILES + ARENA_PROFILES
PROFILE_BY_NAME = {p.name: p for p in ALL_PROFILES}

LUNARO_ROSTER = [p.name for p in PROFILES[:34]]
SHARED = [nfc("Zoe\u0308"), "Dr. Ping", "Salt & Pepper", "さくら", "Łukasz"]
ELO_ROSTER = SHARED + [p.name for p in PROFILES[34:]]
BR_ROSTER = [p.name for p in BR_PROFILES]
WVW_ROSTER = [p.name for p in WVW_PROFILES]
ARENA_ROSTER = [p.name for p in ARENA_PROFILES]

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
    platform: str | None = None  # placement: a platform-only queue
    score_to_win: int | None = None  # arena
    teams: list[dict] | None = None  # arena: [{"won": bool, "players": [...]}]


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


# ---- Placement (battle royale) -------------------------------------------

# Gumbel noise of this scale on top of a hidden skill gives every pair of players
# exactly the Elo odds 1 / (1 + 10^(-(skill_i - skill_j)/400)) of finishing ahead
# (Plackett-Luce), so the placement system has something real to find.
ELO_GUMBEL = 400.0 / math.log(10.0)


def weighted_sample(rng: random.Random, items: list, weights: list[float], count: int) -> list:
    """`count` distinct items drawn with the given weights (Efraimidis-Spirakis keys)."""
    keys = sorted(((rng.random() ** (1.0 / w), index) for index, w in enumerate(weights)),
                  reverse=True)
    return [items[index] for _, index in keys[:count]]


def br_places(rng: random.Random, lobby: list[Entrant]) -> tuple[list[Entrant], list[int]]:
    """Finishing order and places: 1 + the number of players strictly ahead, so two
    players eliminated by the same blast share a place and the next one is skipped."""
    performance = [(p.skill - ELO_GUMBEL * math.log(-math.log(rng.random())), p.name)
                   for p in lobby]
    order = [p for _, p in sorted(zip(performance, lobby), key=lambda t: t[0], reverse=True)]
    places = [1]
    for index in range(1, len(order)):
        # Never a shared win: one player (the last one standing) takes first place.
        shared = index >= 2 and rng.random() < BR_TIE_RATE
        places.append(places[-1] if shared else index + 1)
    return order, places


BR_NOTES = (
    "The final circle closed over open water.",
    "Server restarted once during the warm-up; the match itself ran clean.",
    "Played during the Saint Valentine event weekend.",
    "Replay reviewed after a report; no action taken.",
)


def launch_day(entrants: list[Entrant]) -> None:
    """The players who join in the first three weeks are all there on the first day,
    so the first lobbies are full."""
    for entrant in entrants:
        if entrant.joined <= FIRST_DAY + timedelta(days=21):
            entrant.joined = FIRST_DAY


def simulate_battle_royale(rng: random.Random) -> list[Match]:
    entrants = make_entrants(rng, BR_ROSTER, 230.0, 0.0)
    launch_day(entrants)  # a lobby needs 16
    matches: list[Match] = []
    for day in match_days(rng, BR_MATCHES):
        pool = [p for p in entrants if p.joined <= day]
        platform = None
        if rng.random() < BR_PLATFORM_QUEUES:
            # A platform queue opens once enough of that platform's players are around.
            open_queues = sorted({p.profile.platform for p in pool
                                  if sum(q.profile.platform == p.profile.platform
                                         for q in pool) >= 16})
            if open_queues:
                platform = rng.choice(open_queues)
                pool = [p for p in pool if p.profile.platform == platform]
        size = rng.randint(16, min(40, len(pool)))
        lobby = weighted_sample(rng, pool, [p.activity for p in pool], size)
        order, places = br_places(rng, lobby)
        entries = [{"name": p.name_on(day), "place": place} for p, place in zip(order, places)]
        reference = order[0]
        offset = utc_offset(reference.profile.region, day, rng.random() < 0.3)
        played = make_played(rng, evening(rng, day), offset, (50, 45, 5))
        match = Match(played, entries, monthly_file(played.shown), platform=platform)
        shared = [place for index, place in enumerate(places)
                  if index and places[index - 1] == place]
        if shared and rng.random() < 0.3:
            place = shared[0]
            pair = [e["name"] for e in entries if e["place"] == place]
            match.notes = (f"{' and '.join(pair)} were eliminated by the same blast "
                           f"and share place {place}.")
        elif rng.random() < 0.03:
            match.notes = rng.choice(BR_NOTES)
        for player in lobby:
            player.games += 1
        matches.append(match)
    return matches


# ---- Glicko-2 (World vs World) -------------------------------------------

GLICKO_SCALE = 400.0 / math.log(10.0)  # 173.7178: Glicko-2 step 2


@dataclass
class Glicko:
    """One world's Glicko-2 state on the Glicko scale (rating, RD, volatility)."""

    rating: float
    rd: float
    volatility: float


def sine_score(mine: float, theirs: float) -> float:
    """Seed 003: p = A / (A + B), score = (sin((p - 0.5) pi) + 1) / 2."""
    p = 0.5 if mine + theirs == 0 else mine / (mine + theirs)
    return (math.sin((p - 0.5) * math.pi) + 1.0) / 2.0


def glicko_period(states: dict[str, Glicko], battles: dict[str, list[tuple[str, float]]],
                  tau: float, initial: Glicko, epsilon: float = 1e-6) -> dict[str, Glicko]:
    """Glickman's Glicko-2 steps 1-8 for one rating period, all from the states
    held before it. `battles`: player -> [(opponent, score)]; a player who has a
    state and no battle only has their RD grown (step 6)."""
    new = {}
    for name in sorted(set(states) | set(battles)):
        state = states.get(name, initial)
        mu = (state.rating - 1500.0) / GLICKO_SCALE
        phi = state.rd / GLICKO_SCALE
        sigma = state.volatility
        games = battles.get(name, [])
        if not games:
            phi_star = math.sqrt(phi * phi + sigma * sigma)
            new[name] = Glicko(state.rating, phi_star * GLICKO_SCALE, sigma)
            continue
        v_inv = 0.0
        delta_sum = 0.0
        for opponent, score in games:
            other = states.get(opponent, initial)
            mu_j = (other.rating - 1500.0) / GLICKO_SCALE
            phi_j = other.rd / GLICKO_SCALE
            g = 1.0 / math.sqrt(1.0 + 3.0 * phi_j * phi_j / math.pi ** 2)
            e = 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))
            v_inv += g * g * e * (1.0 - e)
            delta_sum += g * (score - e)
        v = 1.0 / v_inv
        delta = v * delta_sum
        a = math.log(sigma * sigma)

        def f(x: float) -> float:
            ex = math.exp(x)
            return (ex * (delta * delta - phi * phi - v - ex)
                    / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau))

        big_a = a
        if delta * delta > phi * phi + v:
            big_b = math.log(delta * delta - phi * phi - v)
        else:
            k = 1
            while f(a - k * tau) < 0:
                k += 1
            big_b = a - k * tau
        f_a, f_b = f(big_a), f(big_b)
        while abs(big_b - big_a) > epsilon:
            big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
            f_c = f(big_c)
            if f_c * f_b <= 0:
                big_a, f_a = big_b, f_b
            else:
                f_a /= 2.0
            big_b, f_b = big_c, f_c
        sigma_new = math.exp(big_a / 2.0)
        phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
        phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
        mu_new = mu + phi_new * phi_new * delta_sum
        new[name] = Glicko(1500.0 + GLICKO_SCALE * mu_new, GLICKO_SCALE * phi_new, sigma_new)
    return new


def wvw_battles(matches: list[dict], score_of) -> dict[str, list[tuple[str, float]]]:
    """Every pair of a three-way match is one battle for each side (seed 003)."""
    battles: dict[str, list[tuple[str, float]]] = {}
    for players in matches:
        for me in players:
            for other in players:
                if other is not me:
                    battles.setdefault(me["name"], []).append(
                        (other["name"], score_of(me["score"], other["score"])))
    return battles


def wvw_reset(region: str, friday: date) -> tuple[datetime, timedelta]:
    """The weekly reset ending a matchup, local time and UTC offset: Friday
    20:00 in Central Europe for EU, Friday 21:00 US Eastern for NA (Saturday
    morning UTC: still the same ISO week)."""
    if region == "EU":
        offset = timedelta(hours=2 if northern_summer(friday) else 1)
        return datetime.combine(friday, time(20, 0)), offset
    offset = timedelta(hours=-4 if northern_summer(friday) else -5)
    return datetime.combine(friday, time(21, 0)), offset


def simulate_wvw(rng: random.Random) -> list[Match]:
    params = WVW_PARAMS
    initial = Glicko(1500.0, 350.0, 0.06)
    strength = {name: rng.lognormvariate(0.0, 0.45) for name in WVW_ROSTER}
    # Last season's standing seeds the first week's matchups.
    seeded = {name: math.log(s) + rng.gauss(0.0, 0.2) for name, s in strength.items()}
    states: dict[str, Glicko] = {}
    matches: list[Match] = []
    after_break = False
    for week in range(WVW_WEEKS):
        friday = WVW_FIRST_FRIDAY + timedelta(weeks=week)
        # Population drifts: guilds move between worlds over the season.
        for name in WVW_ROSTER:
            strength[name] *= math.exp(rng.gauss(0.0, 0.06))
        if rng.random() < 0.08:
            mover = rng.choice(WVW_ROSTER)
            strength[mover] *= rng.choice((0.6, 1.6))
        if friday == WVW_BREAK:
            after_break = True
            states = glicko_period(states, {}, params["tau"], initial)
            continue
        week_matches = []
        for region in ("NA", "EU"):
            worlds = [n for n in WVW_ROSTER if PROFILE_BY_NAME[n].region == region]
            if states:
                worlds.sort(key=lambda n: (-states[n].rating, n))
            else:
                worlds.sort(key=lambda n: (-seeded[n], n))
            local, offset = wvw_reset(region, friday)
            instant = (local - offset).replace(tzinfo=timezone.utc)
            played = Played(local.strftime("%Y-%m-%dT%H:%M:%S") + format_offset(offset),
                            instant, friday)
            for tier in range(len(worlds) // 3):
                group = worlds[tier * 3:tier * 3 + 3]
                # War score: every world holds its home borderland and ticks some points
                # all week (a fifth of the total each), the rest goes by strength.
                total = rng.uniform(560_000, 820_000)
                weights = [strength[n] * rng.lognormvariate(0.0, 0.15) for n in group]
                scores = [round(total * (0.2 + 0.4 * w / sum(weights))) for w in weights]
                entries = [{"name": n, "score": s} for n, s in zip(group, scores)]
                iso_year, iso_week, _ = friday.isocalendar()
                match = Match(played, entries, f"{iso_year}/w{iso_week:02d}.toml",
                              id=f"{iso_year}-w{iso_week:02d}-{region.lower()}-tier-{tier + 1}")
                match.notes = f"{region} tier {tier + 1}."
                if after_break:
                    monday, sunday = WVW_BREAK - timedelta(days=4), WVW_BREAK + timedelta(days=2)
                    match.notes += (" First matchup after the maintenance week "
                                    f"({monday.day} to {sunday.day} {sunday:%B}): no world played"
                                    " then, so every world's RD grew by one period.")
                week_matches.append(match)
        after_break = False
        states = glicko_period(states, wvw_battles([m.players for m in week_matches], sine_score),
                               params["tau"], initial)
        matches.extend(week_matches)
    return matches


# ---- Arena (Halo: Reach) -------------------------------------------------

ARENA_MAPS = ("Sword Base", "Powerhouse", "Countdown", "Zealot", "Boardwalk", "Reflection",
              "Spire", "The Cage")


def arena_game(rng: random.Random, teams: list[list[Entrant]], score_to_win: int
               ) -> list[list[dict]]:
    """Kill by kill until one team reaches score_to_win. Only kills of an opponent
    score; a betrayal (killing a teammate) and a suicide only add a death."""
    stats = [[{"kills": 0, "deaths": 0, "assists": 0, "betrayals": 0} for _ in team]
             for team in teams]
    score = [0] * len(teams)
    seats = [(t, i) for t, team in enumerate(teams) for i in range(len(team))]
    attack = [math.exp(teams[t][i].skill / 120.0) for t, i in seats]
    defence = [math.exp(-teams[t][i].skill / 200.0) for t, i in seats]
    while max(score) < score_to_win:
        roll = rng.random()
        if roll < 0.006:
            t, i = rng.choice(seats)
            stats[t][i]["deaths"] += 1  # suicide: a grenade at one's own feet
            continue
        killer = weighted_pick(rng, seats, attack)
        kt, ki = killer
        if roll < 0.013 and len(teams[kt]) > 1:
            victim = rng.choice([(kt, i) for i in range(len(teams[kt])) if i != ki])
            stats[kt][ki]["betrayals"] += 1
            stats[victim[0]][victim[1]]["deaths"] += 1
            continue
        targets = [s for s in seats if s[0] != kt]
        vt, vi = weighted_pick(rng, targets, [defence[seats.index(s)] for s in targets])
        stats[kt][ki]["kills"] += 1
        stats[vt][vi]["deaths"] += 1
        score[kt] += 1
        helpers = ([(kt, i) for i in range(len(teams[kt])) if i != ki] if len(teams[kt]) > 1
                   else [s for s in seats if s not in (killer, (vt, vi))])
        if rng.random() < (0.4 if len(teams[kt]) > 1 else 0.12):
            ht, hi = rng.choice(helpers)
            stats[ht][hi]["assists"] += 1
    return stats


def arena_entry(player: Entrant, day: date, stat: dict) -> dict:
    entry = {"name": player.name_on(day), "kills": stat["kills"], "deaths": stat["deaths"]}
    if stat["assists"]:
        entry["assists"] = stat["assists"]
    if stat["betrayals"]:
        entry["betrayals"] = stat["betrayals"]
    return entry


def simulate_arena(rng: random.Random) -> list[Match]:
    entrants = make_entrants(rng, ARENA_ROSTER, 60.0, 0.0)
    launch_day(entrants)  # a lobby needs 8
    matches: list[Match] = []
    for day in match_days(rng, ARENA_MATCHES):
        pool = [p for p in entrants if p.joined <= day]
        lobby = weighted_sample(rng, pool, [p.activity for p in pool], 8)
        slayer = rng.random() < 0.6
        if slayer:
            # Balanced teams: a snake draft by skill, as the matchmaker would.
            ranked = sorted(lobby, key=lambda p: (-p.skill, p.name))
            teams = [[ranked[i] for i in (0, 3, 4, 7)], [ranked[i] for i in (1, 2, 5, 6)]]
            score_to_win = 50
        else:
            teams = [[p] for p in lobby]
            score_to_win = 25
        stats = arena_game(rng, teams, score_to_win)
        reference = teams[0][0]
        offset = utc_offset(reference.profile.region, day, rng.random() < 0.3)
        played = make_played(rng, evening(rng, day), offset, (55, 40, 5))
        match = Match(played, [], monthly_file(played.shown), score_to_win=score_to_win)
        team_kills = [sum(s["kills"] for s in team) for team in stats]
        match.teams = [
            {"won": kills == score_to_win,
             "players": [arena_entry(p, day, s) for p, s in zip(team, team_stats)]}
            for team, team_stats, kills in zip(teams, stats, team_kills)
        ]
        mode = "Team Slayer" if slayer else "Free for All"
        match.notes = f"{mode} on {rng.choice(ARENA_MAPS)}."
        for player in lobby:
            player.games += 1
        matches.append(match)
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


def league_toml(name: str, system: str, description: str, tiers: list | None,
                params: dict) -> str:
    lines = [
        f"name = {toml_string(name)}",
        f"system = {toml_string(system)}",
        f"description = {toml_multiline(description)}",
    ]
    if tiers is not None:
        lines.append(f"tiers = {toml_value(tiers)}")
    lines += ["", "[params]"]
    lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in params.items()]
    return "\n".join(lines) + "\n"


def match_toml(match: Match) -> str:
    lines = ["[[match]]"]
    if match.id is not None:
        lines.append(f"id = {toml_string(match.id)}")
    lines.append(f"played = {match.played.text}")
    if match.challenger is not None:
        lines.append(f"challenger = {toml_string(match.challenger)}")
    if match.platform is not None:
        lines.append(f"platform = {toml_string(match.platform)}")
    if match.notes is not None:
        lines.append(f"notes = {toml_string(match.notes)}")
    if match.teams is not None:
        lines.append(f"score_to_win = {match.score_to_win}")
        for team in match.teams:
            lines += ["", "[[match.teams]]", f"won = {toml_value(team['won'])}", "players = ["]
            lines += [f"  {toml_value(entry)}," for entry in team["players"]]
            lines.append("]")
        return "\n".join(lines) + "\n"
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
    if re.fullmatch(r"w[0-9]{2}", name):
        return f"week {int(name[1:])} of {year}"
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

# Chosen from the ratings the matches give: every tier holds players, Challenger only a few.
BR_TIERS = [[0, "Bronze"], [75, "Silver"], [150, "Gold"], [225, "Platinum"], [300, "Diamond"],
            [375, "Master"], [450, "Challenger"]]

BR_DESCRIPTION = """\
Solo **battle royale**: 16 to 40 players drop in and the last one standing is first.
Players eliminated by the same blast share a place. Some matches are **platform
queues** (`platform = "pc"`, `"ps"`, `"xbox"` or `"switch"`) where everyone plays on that
platform; the others mix all four.

Ratings follow the *Elo implementation* of the battle-royale design: a match is a duel against every other
player in the lobby, everyone starts at **0**, no rating goes below 0, and K is 32 (24
from 2100, 16 from 2400). The tiers are the design's leagues, Bronze to Challenger.

**One change from the design's defaults: `normalize = true`.** K is divided by the number
of rivals (n - 1), so one match moves a rating by at most 32 points. Without it, K applies
to the sum of up to 39 duels. Rated that way, this league's own matches move a rating
by about 130 points in a typical match and by over 1000 in the worst one, so the order
of the board says more about the last match than about the player. With it, ratings
settle between 0 and about 500, and the 2100 and 2400 bands are out of reach.
"""

WVW_DESCRIPTION = """\
**World vs World**: every week the six worlds of each region (NA and EU) fight in two
three-way matchups that run until the weekly reset, and the war score decides. Scores
run into the hundreds of thousands.

Ratings are **Glicko-2** as the game's developers described it. Each pair of
worlds in a matchup is one battle for each side, scored by p = A / (A + B) passed through
the sine transform (sin((p - 0.5) pi) + 1) / 2, so a large lead counts for less than its
size. Tau is 0.6, and each ISO week is one rating period. After every week the worlds of
each region are sorted again by rating and grouped in threes, best three together: these
are the next week's matchups (tier 1 and tier 2).

**No matchups in week 24 of 2025 (9 to 15 June)**: the servers were down for maintenance.
The week still counts as a rating period, so every world's RD grew by one step before
the next matchups.
"""

ARENA_DESCRIPTION = """\
**Arena** in the style of Halo: Reach: 4v4 Team Slayer to 50 kills and eight-player Free
for All to 25. Each game is rated on its own from the player's stats, as in the Arena of
the game's beta:

$$\\text{raw} = \\text{kills} + \\text{assists} - \\left(\\frac{\\text{deaths}}{3} + \\text{betrayals}\\right)$$

$$\\text{game rating} = \\text{penalty} \\times \\left(1000 + \\frac{2000}{\\pi} \\arctan\\left(\\text{raw} \\times \\frac{\\text{players per team}}{\\text{score to win}}\\right)\\right)$$

where the penalty is 1 for the winners and 0.96 for everyone else. A player's rating is the
mean of all their game ratings: it measures how well they play, not whom they beat.
"""  # noqa: E501 - a display formula is one line of markdown


@dataclass(frozen=True)
class LeagueOut:
    """One league to write: its folder, league.toml and simulated matches."""

    slug: str
    name: str
    system: str
    description: str
    tiers: list | None
    params: dict
    matches: list[Match]


def leagues_of(lunaro: list[Match], elo: list[Match], battle_royale: list[Match],
               wvw: list[Match], arena: list[Match]) -> list[LeagueOut]:
    return [
        LeagueOut(LUNARO_SLUG, "Lunaro Duels", "lunaro", LUNARO_DESCRIPTION, LUNARO_TIERS,
                  LUNARO_PARAMS, lunaro),
        LeagueOut(ELO_SLUG, "Ranked Battle", "elo", ELO_DESCRIPTION, ELO_TIERS, ELO_PARAMS, elo),
        LeagueOut(BR_SLUG, "Battle Royale", "placement", BR_DESCRIPTION, BR_TIERS, BR_PARAMS,
                  battle_royale),
        LeagueOut(WVW_SLUG, "World vs World", "glicko2", WVW_DESCRIPTION, None, WVW_PARAMS, wvw),
        LeagueOut(ARENA_SLUG, "Arena", "arena", ARENA_DESCRIPTION, None, ARENA_PARAMS, arena),
    ]


def write_all(root: Path, leagues: list[LeagueOut]) -> list[Path]:
    matches_dir = root / "matches"
    written = []

    def write(path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        written.append(path)

    for league in leagues:
        shutil.rmtree(matches_dir / league.slug, ignore_errors=True)
        write(matches_dir / league.slug / "league.toml", league_toml(
            league.name, league.system, league.description, league.tiers, league.params))
        for path, text in match_files(league.matches, league.name).items():
            write(matches_dir / league.slug / path, text)
    used = sorted(set(LUNARO_ROSTER) | set(ELO_ROSTER) | set(BR_ROSTER) | set(WVW_ROSTER)
                  | set(ARENA_ROSTER))
    write(matches_dir / "players.toml", players_toml(ALL_PROFILES, used))
    return written


# --------------------------------------------------------------------------
# Reading back: format checks and ratings
# --------------------------------------------------------------------------

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
MATCH_KEYS = {
    "lunaro": {"players"}, "elo": {"players", "challenger"},
    "placement": {"players", "platform"}, "glicko2": {"players"},
    "arena": {"score_to_win", "teams"},
}


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
            if set(match) - {"id", "played", "notes"} - MATCH_KEYS[system]:
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
            names = match_names(match)
            for name in names:
                check_name(name, where, problems)
            if len(set(names)) != len(names):
                problems.add(where, "a player appears twice")
                continue
            if system in ("lunaro", "elo") and len(names) != 2:
                problems.add(where, "a duel needs two different players")
                continue
            if system == "lunaro":
                check_lunaro(match["players"], where, problems)
            elif system == "elo":
                check_elo(match, match["players"], where, problems)
            elif system == "placement":
                check_placement(match, where, problems)
            elif system == "glicko2":
                check_wvw(match, where, problems)
            else:
                check_arena(match, where, problems)
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


def match_names(match: dict) -> list:
    if "teams" in match:
        return [p.get("name") for team in match["teams"] for p in team.get("players", [])]
    return [p.get("name") for p in match.get("players", [])]


def is_count(value) -> bool:
    return type(value) is int and value >= 0


def check_placement(match: dict, where: str, problems: Problems) -> None:
    players = match["players"]
    if not 16 <= len(players) <= 40:
        problems.add(where, f"{len(players)} players, not 16 to 40")
    places = [p.get("place") for p in players]
    if any(set(p) - {"name", "place"} for p in players):
        problems.add(where, "unknown player key")
    if any(type(v) is not int or v < 1 for v in places):
        problems.add(where, f"bad places {places!r}")
    elif places != sorted(places) or places.count(1) != 1:
        problems.add(where, "places out of order, or not exactly one winner")
    if "platform" in match and match["platform"] not in PLATFORMS:
        problems.add(where, f"bad platform {match['platform']!r}")


def check_wvw(match: dict, where: str, problems: Problems) -> None:
    players = match["players"]
    if len(players) != 3 or any(set(p) - {"name", "score"} for p in players):
        problems.add(where, "a matchup is three worlds, each { name, score }")
    if any(type(p.get("score")) is not int or not 100_000 <= p["score"] < 1_000_000
           for p in players):
        problems.add(where, "a score is not in the hundreds of thousands")


def check_arena(match: dict, where: str, problems: Problems) -> None:
    target = match.get("score_to_win")
    teams = match.get("teams", [])
    if type(target) is not int or target <= 0 or len(teams) < 2:
        problems.add(where, "bad score_to_win or fewer than two teams")
        return
    if sum(1 for team in teams if team.get("won") is True) != 1:
        problems.add(where, "not exactly one winning team")
    if (len(teams), len(teams[0].get("players", []))) not in ((2, 4), (8, 1)) \
            or len({len(team.get("players", [])) for team in teams}) != 1:
        problems.add(where, "neither 4v4 nor a free for all of eight")
    kills = deaths = betrayals = 0
    for team in teams:
        players = team.get("players", [])
        if set(team) - {"won", "players"} or not players:
            problems.add(where, "a team is { won, players }, players not empty")
            continue
        for player in players:
            if set(player) - {"name", "kills", "deaths", "assists", "betrayals"}:
                problems.add(where, "unknown player key")
            if not all(is_count(player.get(key, 0)) for key in
                       ("kills", "deaths", "assists", "betrayals")):
                problems.add(where, f"bad stats of {player.get('name')!r}")
                return
        team_kills = sum(p["kills"] for p in players)
        if team_kills > target or (team.get("won") is True) != (team_kills == target):
            problems.add(where, f"team kills {team_kills} against score_to_win {target}")
        kills += team_kills
        deaths += sum(p["deaths"] for p in players)
        betrayals += sum(p.get("betrayals", 0) for p in players)
    # Every kill and every betrayal is somebody's death; suicides add a few more.
    if not kills + betrayals <= deaths <= kills + betrayals + 5:
        problems.add(where, f"{deaths} deaths for {kills} kills and {betrayals} betrayals")


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
    rd: dict[str, float] = field(default_factory=dict)
    empty_periods: list[str] = field(default_factory=list)


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


def rate_placement(matches: list[dict], owner: dict[str, str], params: dict) -> Rated:
    """docs/curators `placement`: a duel against every other player of the match."""
    rated = Rated()
    bands = params["k_bands"]
    for item in matches:
        players = item["match"]["players"]
        names = [owner.get(p["name"], p["name"]) for p in players]
        before = [rated.ratings.get(n, float(params["initial"])) for n in names]
        after = []
        for me, (rating, player) in enumerate(zip(before, players)):
            e = sum(expected(rating, other) for j, other in enumerate(before) if j != me)
            s = sum(1.0 if other["place"] > player["place"] else 0.5
                    for j, other in enumerate(players)
                    if j != me and other["place"] >= player["place"])
            k = params["k"]
            if k == "bands":
                k = bands[0][1]
                for low, band_k in bands:
                    if rating >= low:
                        k = band_k
            if params["normalize"]:
                k /= len(players) - 1
            after.append(max(float(params["floor"]), rating + k * (s - e)))
        for name, rating in zip(names, after):
            rated.ratings[name] = rating
            rated.games[name] = rated.games.get(name, 0) + 1
            rated.peak[name] = max(rated.peak.get(name, rating), rating)
    return rated


def iso_week(instant: datetime) -> tuple[int, int]:
    year, week, _ = instant.isocalendar()
    return year, week


def rate_wvw(matches: list[dict], owner: dict[str, str], params: dict) -> Rated:
    """Glicko-2 by ISO week, every week from the first to the last, empty ones too."""
    rated = Rated()
    initial = Glicko(float(params["initial_rating"]), float(params["initial_rd"]),
                     float(params["initial_volatility"]))
    by_week: dict[tuple[int, int], list[list[dict]]] = {}
    for item in matches:
        players = [{"name": owner.get(p["name"], p["name"]), "score": p["score"]}
                   for p in item["match"]["players"]]
        by_week.setdefault(iso_week(item["instant"]), []).append(players)
    states: dict[str, Glicko] = {}
    monday = matches[0]["instant"].date() - timedelta(days=matches[0]["instant"].weekday())
    while iso_week(datetime.combine(monday, time(0, 0))) <= iso_week(matches[-1]["instant"]):
        week = by_week.get(iso_week(datetime.combine(monday, time(0, 0))), [])
        if not week:
            rated.empty_periods.append(f"{monday:%G-W%V}")
        states = glicko_period(states, wvw_battles(week, sine_score), params["tau"], initial)
        for players in week:
            for player in players:
                rated.games[player["name"]] = rated.games.get(player["name"], 0) + 1
        monday += timedelta(weeks=1)
    rated.ratings = {name: state.rating for name, state in states.items()}
    rated.rd = {name: state.rd for name, state in states.items()}
    return rated


def rate_arena(matches: list[dict], owner: dict[str, str], params: dict) -> Rated:
    """Seed 004: each game's rating from the player's own stats; the mean of them all."""
    rated = Rated()
    totals: dict[str, float] = {}
    for item in matches:
        match = item["match"]
        for team in match["teams"]:
            norm = len(team["players"]) / match["score_to_win"]
            penalty = 1.0 if team["won"] else params["loss_penalty"]
            for player in team["players"]:
                raw = (player["kills"] + params["assist_weight"] * player.get("assists", 0)
                       - (player["deaths"] / 3.0
                          + params["betrayal_weight"] * player.get("betrayals", 0)))
                game = penalty * (1000.0 + 2000.0 / math.pi * math.atan(raw * norm))
                name = owner.get(player["name"], player["name"])
                totals[name] = totals.get(name, 0.0) + game
                rated.games[name] = rated.games.get(name, 0) + 1
                rated.peak[name] = max(rated.peak.get(name, game), game)
    rated.ratings = {name: total / rated.games[name] for name, total in totals.items()}
    return rated


def tier_of(rating: float, tiers: list) -> str:
    name = tiers[0][1]
    for bound, label in tiers:
        if rating >= bound:
            name = label
    return name


def tier_counts(rated: Rated, tiers: list) -> dict[str, int]:
    counts = {label: 0 for _, label in tiers}
    for rating in rated.ratings.values():
        counts[tier_of(rating, tiers)] += 1
    return counts


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
    if tiers:
        print("   tiers: " + ", ".join(f"{k} {v}" for k, v in tier_counts(rated, tiers).items()))
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
    br_league, br = read_league(matches_dir / BR_SLUG, "placement", problems)
    wvw_league, wvw = read_league(matches_dir / WVW_SLUG, "glicko2", problems)
    arena_league, arena = read_league(matches_dir / ARENA_SLUG, "arena", problems)
    for league, items in ((LUNARO_SLUG, lunaro), (ELO_SLUG, elo), (BR_SLUG, br),
                          (WVW_SLUG, wvw), (ARENA_SLUG, arena)):
        for item in items:
            for name in match_names(item["match"]):
                if name not in owner and name not in PROFILE_BY_NAME:
                    problems.add(f"{league} {item['id']}", f"unknown player {name!r}")
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


    br_rated = rate_placement(br, owner, br_league["params"])
    summarise("battle-royale (placement)", br_rated, br, br_league["tiers"], 1)
    sizes = sorted(len(m["match"]["players"]) for m in br)
    queues: dict[str, int] = {}
    for item in br:
        platform = item["match"].get("platform")
        if platform is None:
            continue
        queues[platform] = queues.get(platform, 0) + 1
        for name in match_names(item["match"]):
            if PROFILE_BY_NAME[owner.get(name, name)].platform != platform:
                problems.add(f"{BR_SLUG} {item['id']}", f"{name!r} is not on {platform}")
    ties = sum(1 for m in br for i, p in enumerate(m["match"]["players"])
               if i and m["match"]["players"][i - 1]["place"] == p["place"])
    print(f"   lobbies of {sizes[0]} to {sizes[-1]} players; platform queues: "
          + ", ".join(f"{k} {v}" for k, v in sorted(queues.items()))
          + f"; shared places: {ties}")
    counts = tier_counts(br_rated, br_league["tiers"])
    if min(counts.values()) == 0 or not 1 <= counts["Challenger"] <= 5:
        problems.add(f"{BR_SLUG}/league.toml", f"tiers: every tier needs a player and "
                                               f"Challenger only a few: {counts}")

    wvw_rated = rate_wvw(wvw, owner, wvw_league["params"])
    summarise("world-vs-world (glicko2)", wvw_rated, wvw, None, 1)
    scores = [p["score"] for m in wvw for p in m["match"]["players"]]
    print(f"   scores {min(scores)}..{max(scores)}; empty weeks: {', '.join(wvw_rated.empty_periods)}")
    print("   RD: " + ", ".join(f"{n} {rd:.1f}" for n, rd in sorted(wvw_rated.rd.items())[:3]))
    if len(wvw_rated.empty_periods) != 1:
        problems.add(WVW_SLUG, f"expected one empty week, got {wvw_rated.empty_periods}")

    arena_rated = rate_arena(arena, owner, arena_league["params"])
    summarise("arena (arena)", arena_rated, arena, None, 1)
    modes = {}
    for item in arena:
        mode = item["match"]["notes"].partition(" on ")[0]
        modes[mode] = modes.get(mode, 0) + 1
    print("   modes: " + ", ".join(f"{k} {v}" for k, v in sorted(modes.items()))
          + f"; with betrayals: {sum(1 for m in arena if 'betrayals' in str(m['match']))}")

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
    battle_royale = simulate_battle_royale(random.Random(f"{SEED}-{BR_SLUG}"))
    wvw = simulate_wvw(random.Random(f"{SEED}-{WVW_SLUG}"))
    arena = simulate_arena(random.Random(f"{SEED}-{ARENA_SLUG}"))
    written = write_all(args.root, leagues_of(lunaro, elo, battle_royale, wvw, arena))
    return verify(args.root, written)


if __name__ == "__main__":
    sys.exit(main())
