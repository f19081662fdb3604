"""Generate the demo match data of this repository.

Writes five simulated leagues and a players file under ``matches/``:

* ``lunaro-duels``: 1v1 Lunaro duels (system ``lunaro``), goals and pings per
  player, most matches with a host at ping 0, opponents found by rating;
* ``ranked-battle``: ranked 1v1 battles (``elo``, the FIDE K of the challenger),
  mostly against opponents within 100 rating points;
* ``battle-royale``: solo lobbies of 16 to 40 players (``placement``), a fifth
  of them platform-only queues, a few shared places, tiers Bronze to Challenger;
* ``world-vs-world``: weekly three-way matchups of 12 worlds, six per region
  (``glicko2``), regrouped every week by rating, with one week of maintenance;
* ``arena``: 4v4 Team Slayer and eight-player Free for All games with kills,
  deaths, assists and betrayals (``arena``);
* ``players.toml``: platform, region and former names (aliases).

Each league has a ``league.toml`` and one match file per month
(``2025/08-august.toml``) plus a few cup files (``<year>/cups/*.toml``), March
2025 to February 2026; World vs World has one file per ISO week from March to
October 2025.

Results come from hidden player skills (and, in Lunaro, pings; in World vs World,
world populations that drift). Where the simulation needs the current ratings
(matchmaking, cup seeds, the weekly World vs World groups) it asks sitegen's own
rating system of the league, replaying the matches so far; there is no second
engine here. Every league draws from a random generator of its own, so a change
to one league leaves the others' files as they are. Deterministic: fixed seeds,
no clock, byte-identical files from run to run.

    python scripts/make_demo.py            # writes into this repository
    python scripts/make_demo.py --root DIR # writes into DIR/matches/

Only the match files of these five leagues and ``matches/players.toml`` are
rewritten: a league's ``league.toml`` is its settings, kept as curators wrote it
(copied from this repository with ``--root``) and read as sitegen reads it. The
site is then checked and rated by sitegen itself (``check`` and ``rate`` of
``sitegen build``), each league is summarised, and the script exits with status
1 on any problem or unless: more than half of the ranked-battle players play
more than 30 games and one reaches 2400, every battle-royale tier holds a player
(Challenger one to five), and World vs World has exactly one week without matchups.
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import sys
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from sitegen import rating  # noqa: E402
from sitegen.commands.build import check, rate  # noqa: E402
from sitegen.load import tomlwrite  # noqa: E402
from sitegen.load.config import LeagueConfig, league_config  # noqa: E402
from sitegen.load.problems import InvalidInput, Problems  # noqa: E402
from sitegen.load.site import load_site  # noqa: E402
from sitegen.model.history import RatedLeague  # noqa: E402
from sitegen.rating.base import expected  # noqa: E402  (hidden skills beat each other with Elo's odds)
from sitegen.rating.lunaro import ability  # noqa: E402

SEED = 20250301
FIRST_DAY = date(2025, 3, 1)
LAST_DAY = date(2026, 2, 28)

LUNARO_SLUG, ELO_SLUG, BR_SLUG, WVW_SLUG, ARENA_SLUG = (
    "lunaro-duels", "ranked-battle", "battle-royale", "world-vs-world", "arena")
LUNARO_MATCHES, ELO_MATCHES, BR_MATCHES, ARENA_MATCHES = 540, 640, 300, 250
BR_PLATFORM_QUEUES = 0.2  # share of matches in a platform-only queue
BR_TIE_RATE = 0.03  # chance that a player is eliminated together with the one before
WVW_FIRST_FRIDAY = date(2025, 3, 7)
WVW_WEEKS = 31
WVW_BREAK = date(2025, 6, 13)  # the Friday of the maintenance week: no matchups


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


def profiles(table: str, platform: str | None = None) -> list[Profile]:
    """Entries separated by ';': ``name|REGION`` when ``platform`` is given, else
    ``name|REGION|platform`` ('-': none) with an optional ``|alias|last day`` after."""
    out = []
    for entry in table.split(";"):
        name, region, *rest = (part.strip() for part in entry.split("|"))
        if platform is None:
            own, *rest = rest
            alias, until = rest or (None, None)
            out.append(Profile(unicodedata.normalize("NFC", name), region, None if own == "-" else own,
                               alias, until and date.fromisoformat(until)))
        else:
            out.append(Profile(name, region, platform))
    return out


# The first 34 play Lunaro Duels; the rest, with five of them, Ranked Battle. The order is the
# order of the random draws: a change reshuffles the league.
PROFILES = profiles("""
Zoe\u0308|EU|pc; Ωmega|EU|pc; Łukasz|EU|pc|Lukasz_PL|2025-05-18; さくら|ASIA|switch; Dr. Ping|NA|pc;
O'Neil|NA|xbox; Salt & Pepper|EU|ps; Kestrel|OCE|pc|k3str3l|2025-06-30; NovaKnight|NA|ps;
Jörmungandr|EU|pc; Ana-Lucía|SA|ps; Tenno_Tide|NA|xbox; Błyskawica|EU|pc; Çağrı|EU|ps;
Ngọc Anh|ASIA|pc; 김민준|ASIA|pc; Søren|EU|xbox; Mäander|EU|switch; Kōhai|ASIA|ps; Raccoon Rocket|NA|-;
Ďábel|EU|pc; Вихрь|EU|pc; Αθηνά|EU|ps; João Pé-de-Bola|SA|pc; Lumière|EU|-; Kai "The Wall"|NA|pc;
xX_Volt_Xx|NA|xbox; Mirage Main|OCE|ps; ñandú|SA|-; Fjörd|EU|switch; ŠpičkaCZ|EU|pc; Ørsted|EU|-;
Quill|NA|pc; 🌙 Moonlit|ASIA|switch; Zugzwang|EU|pc|zugzwang_old|2025-04-12; Pawnstorm|NA|pc;
Knightmare|NA|xbox; Rook & Roll|EU|ps; Ħamrun Hammer|EU|pc; Ξένια|EU|pc; Ilsa Ström|EU|switch;
Ümit|EU|ps; Renée|NA|pc; Đorđe|EU|pc; Tōru|ASIA|ps; Jiří|EU|pc; Lưu Bình|ASIA|pc; Ayşe|EU|-;
Chloé|EU|switch; Hà My|ASIA|switch; Mateus|SA|ps; Pérez-Ortiz|SA|pc; Æthelred|EU|xbox; Íñigo|EU|-;
İpek|EU|pc; ミカ|ASIA|switch; 陈静|ASIA|pc; Ngaio|OCE|pc; Tāne|OCE|-; D'Artagnan|EU|xbox; El Niño|SA|ps
""")
# Battle Royale: a pool of its own, with platform queues (the battle-royale rating proposal, "Platform mode").
BR_PROFILES = profiles("""
Quokka Prime|OCE; Nachtfalke|EU; Zéphyrine|EU; Dropzone Dave|NA; Кирпич|EU; Loot Llama|SA;
Høvding|EU; Pixel Pirate|NA; Glide Guru|ASIA; Mœbius|EU; Storm Chaser|NA; Bushwhacker|OCE;
Rift Runner|NA; Kraków Kid|EU; Ironsights|NA; Ghost Peppers|SA; Saoirse|EU; Emberline|NA;
Third Party Pete|NA; <b>Bold</b> & "Brash" 'n' Co|EU; Noémie|EU; Crank90s|NA; Tactical Toaster|EU;
Wrenchwright|OCE""", "pc") + profiles("""
Blue Shell|NA; Çelik|EU; Penny Drop|NA; Triggerfish|OCE; Łoś|EU; Shield Pot|NA; Jade Ferret|ASIA;
Ramón Rampage|SA; Night Owl|NA; Aurelio|SA; Guðrún|EU; Mango Tango|SA; Velvet Hammer|NA; Zuzanna|EU;
Sunny Side|OCE; Ōkami|ASIA; Mint Condition|EU; Hot Drop Hana|ASIA; Storm Surge|NA""", "ps") + profiles("""
Xenon|NA; Grim Harvest|NA; Lucky Lefty|NA; Bärbel|EU; Sergeant Slurp|NA; Hop Rock|OCE;
Tomás Tempest|SA; Pumpkin Spice|NA; Overclock|EU; Åsa|EU; Brick Wall|NA; Falcão|SA; Vortex Vera|EU;
Drift King|NA; Echo Seven|NA; Dunebuggy|OCE; Frostbyte|EU""", "xbox") + profiles("""
Mushroom Mo|NA; 桜井 蓮|ASIA; Tiny Tim|EU; Pocket Rocket|NA; Leaf Blower|OCE; Ünal|EU; Shell Shock|NA;
Bubblegum|ASIA; Sprout|EU; Marisol|SA; Comet Kid|NA; Frosty|EU; Pip|OCE; Jellybean|NA; Nuée|EU;
Dōjō Dan|ASIA; Pancake|NA; Wobble|EU; Sir Squish|NA; Lumen|SA""", "switch")
# World vs World: the worlds are the players (Guild Wars 2's rating); a world is on PC in one region.
WVW_PROFILES = profiles("""
Stormwatch Bastion|NA; Ironmarch Vale|NA; Serpent's Reach|NA; Ember Tide|NA; Shiverwind Gate|NA;
Maguuma Deep|NA; Ashford Crossing|EU; Drakkar Hollow|EU; Vigil's Rest|EU; Bärenfels [DE]|EU;
Lac d'Émeraude [FR]|EU; Costa de Niebla [SP]|EU""", "pc")
# Arena: Halo: Reach on the Xbox 360 (the Halo: Reach arena rating).
ARENA_PROFILES = profiles("""
Plasma Pete|NA; ThrusterPack|NA; Kat Lynx|EU; Grenade Jumper|NA; Armor Lock Larry|NA; Ørjan|EU;
Élodie|EU; DMR Dana|NA; Needler Ned|NA; Jetpack Jo|OCE; Bloom Doom|NA; Sprint Sarge|NA;
Hologram Hal|EU; Nikolaï|EU; Covenant Cole|NA; Drop Shield|NA; Frag Queen|EU; Zealot Zed|NA;
Sword Base Sam|NA; Évora Eagle|EU; Camo Kenji|ASIA; Headshot Hugo|EU; Overshield|NA; Magnum Maya|NA;
Spire Sniper|OCE; Ghost Rider 7|NA; Björk Bomber|EU; Pistol Whip|NA; Countdown Kid|NA;
Rocket Rosa|SA; Evade Eve|EU; Warthog Wendy|NA; Boardwalk Ben|NA; Šimon Strike|EU; Beam Rifle Bo|NA;
Team Player|NA; Assist King|EU; Oopsie Daisy|NA; Reflection Rae|OCE; Noob Tube|NA""", "xbox")

ALL_PROFILES = PROFILES + BR_PROFILES + WVW_PROFILES + ARENA_PROFILES
PROFILE_BY_NAME = {p.name: p for p in ALL_PROFILES}
# Five Lunaro players play Ranked Battle too.
ELO_ROSTER = [PROFILES[i] for i in (0, 4, 6, 3, 2)] + PROFILES[34:]

# The ranked-battle prodigy: far stronger than everyone else, plays a lot; and the hidden
# skill above the initial rating of the prodigy and a few strong regulars to measure up against.
ELO_STAR = "Zugzwang"
ELO_EDGES = {ELO_STAR: 1300.0, "Pawnstorm": 600.0, "Ξένια": 550.0, "Knightmare": 500.0}


@dataclass
class Entrant:
    """A player inside one league's simulation (hidden skill, activity)."""

    profile: Profile
    skill: float
    activity: float
    joined: date
    connection: int = 0  # extra milliseconds of a poor line (Lunaro)

    @property
    def name(self) -> str:
        return self.profile.name

    def name_on(self, day: date) -> str:
        """The name the player used on that day (an alias before renaming)."""
        p = self.profile
        return p.alias if p.alias is not None and day < p.alias_until else p.name


def make_entrants(rng: random.Random, profiles: list[Profile], skill_sd: float,
                  mean: float) -> list[Entrant]:
    span = (LAST_DAY - FIRST_DAY).days
    entrants = []
    for index, profile in enumerate(profiles):
        skill = rng.gauss(mean, skill_sd)
        activity = rng.choice((0.6, 0.8, 1.0, 1.0, 1.2, 1.5, 2.0))
        if index < len(profiles) * 2 // 3:
            joined = FIRST_DAY + timedelta(days=rng.randrange(0, 21))
        else:
            joined = FIRST_DAY + timedelta(days=rng.randrange(30, span * 3 // 4))
        entrants.append(Entrant(profile, skill, activity, joined))
    return entrants


class Live:
    """The league's current ratings while it is simulated: sitegen's own rating system, as the
    league.toml sets it up, replays the matches so far (in the order they are made)."""

    def __init__(self, config: LeagueConfig) -> None:
        self.system = config.system
        self.matches: list[rating.Match] = []
        self.ratings: dict[str, float] = {}
        self.games: dict[str, int] = {}

    def add(self, played: datetime, names: list[str], entries: list[dict], **extra) -> None:
        self.matches.append(rating.Match(f"m{len(self.matches) + 1}", played, "", len(self.matches) + 1,
                                         None, tuple(names), tuple(entries), extra))
        standings = self.system.standings(self.system.rate(self.matches))
        self.ratings = {s.player: s.rating for s in standings}
        self.games = {s.player: s.games for s in standings}

    def rating(self, name: str) -> float:
        return self.ratings.get(name, self.system.initial)


# --------------------------------------------------------------------------
# Time and the `played` field
# --------------------------------------------------------------------------


def northern_summer(day: date) -> bool:
    return date(day.year, 3, 30) <= day < date(day.year, 10, 26)


def utc_offset(region: str, day: date, west: bool) -> timedelta:
    """A plausible local UTC offset for a player of the region on that day."""
    if region == "EU":
        hours = (2 if northern_summer(day) else 1) - (1 if west else 0)
    elif region == "NA":
        hours = (-7 if west else -4) if northern_summer(day) else (-8 if west else -5)
    elif region == "SA":
        hours = -3
    elif region == "ASIA":
        hours = 8 if west else 9
    else:  # OCE: southern summer
        hours = 10 if date(day.year, 4, 6) <= day < date(day.year, 10, 5) else 11
    return timedelta(hours=hours)


@dataclass(frozen=True)
class Played:
    """A `played` value as written (date-time with offset, local date-time, date),
    its UTC instant and the date shown."""

    value: datetime | date
    instant: datetime
    shown: date


def at(local: datetime, offset: timedelta) -> Played:
    """Local wall-clock time with its UTC offset."""
    instant = (local - offset).replace(tzinfo=timezone.utc)
    return Played(local.replace(tzinfo=timezone(offset)), instant, local.date())


def make_played(rng: random.Random, local: datetime, offset: timedelta,
                forms: tuple[float, float, float]) -> Played:
    """`local` is the wall-clock time of the reference player; `forms` weigh the three
    forms: offset date-time, local date-time (written in UTC), bare date."""
    form = rng.choices(("offset", "utc", "date"), weights=forms)[0]
    played = at(local, offset)
    if form == "utc":
        naive = played.instant.replace(tzinfo=None)
        return Played(naive, played.instant, naive.date())
    if form == "date":
        return Played(played.shown, datetime.combine(played.shown, time(0, 0), tzinfo=timezone.utc),
                      played.shown)
    return played


def evening(rng: random.Random, day: date) -> datetime:
    hour = rng.choices(range(16, 24), weights=(1, 2, 3, 4, 4, 4, 3, 2))[0]
    minute = rng.randrange(0, 60, 5)
    second = rng.choice((0, 0, 0, 0, 0, 0, 0, 0, 0, 17, 42))
    return datetime.combine(day, time(hour, minute, second))


def played_on(rng: random.Random, day: date, region: str, forms: tuple[float, float, float]) -> Played:
    offset = utc_offset(region, day, rng.random() < 0.3)
    return make_played(rng, evening(rng, day), offset, forms)


def match_days(rng: random.Random, count: int) -> list[date]:
    """`count` match days over the year: busier on weekends and in winter."""
    days = [FIRST_DAY + timedelta(days=i) for i in range((LAST_DAY - FIRST_DAY).days + 1)]
    weights = [(1.7 if day.weekday() >= 5 else 1.0)
               * (1.0 + 0.2 * math.cos((day.timetuple().tm_yday - 15) / 365 * 2 * math.pi))
               * (0.85 + 0.3 * (day - FIRST_DAY).days / (LAST_DAY - FIRST_DAY).days) for day in days]
    return sorted(rng.choices(days, weights=weights, k=count))


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


def seeded_bracket(live: Live, entrants: list[Entrant], day: date) -> list[Entrant]:
    """A cup's quarter-finals: the eight best-rated players with five games or more, 1-8, 4-5, 2-7, 3-6."""
    seeds = sorted((p for p in entrants if p.joined <= day and live.games.get(p.name, 0) >= 5),
                   key=lambda p: (-live.rating(p.name), p.name))[:8]
    return [seeds[i] for i in (0, 7, 3, 4, 1, 6, 2, 5)]


def higher_seed_first(live: Live, a: Entrant, b: Entrant) -> tuple[Entrant, Entrant]:
    return (b, a) if (live.rating(b.name), b.name) > (live.rating(a.name), a.name) else (a, b)


ROUNDS = (("qf", "quarter-final"), ("sf", "semi-final"), ("final", "final"))


# ---- Lunaro --------------------------------------------------------------

BASE_PING = {
    ("EU", "EU"): 30, ("NA", "NA"): 45, ("SA", "SA"): 40, ("ASIA", "ASIA"): 55,
    ("OCE", "OCE"): 25, ("EU", "NA"): 110, ("EU", "SA"): 200, ("ASIA", "EU"): 215,
    ("EU", "OCE"): 245, ("NA", "SA"): 140, ("ASIA", "NA"): 160, ("NA", "OCE"): 170,
    ("ASIA", "SA"): 240, ("OCE", "SA"): 235, ("ASIA", "OCE"): 115,
}
RELAY_PING = {"EU": 25, "NA": 35, "SA": 80, "ASIA": 60, "OCE": 120}
NEAR_REGIONS = {("EU", "NA"), ("NA", "SA"), ("ASIA", "OCE")}
LUNARO_NOTES = (
    "Host migration mid-match; play resumed from the score.",
    "Played on stream, cast by Dr. Ping.",
    "Rematch after last week's disconnect.",
    "Replay uploaded to the league channel.",
    "Both players agreed to a \"no bullet-jump\" ruleset.",
)
LUNARO_OPEN = ("lunaro-open-2025", date(2025, 9, 13), "Lunaro Open 2025")


def region_affinity(a: str, b: str) -> float:
    if a == b:
        return 4.0
    return 1.0 if tuple(sorted((a, b))) in NEAR_REGIONS else 0.25


def host_ping(rng: random.Random, host: Entrant, guest: Entrant) -> int:
    base = BASE_PING[tuple(sorted((host.profile.region, guest.profile.region)))]
    return max(10, min(250, base + guest.connection + host.connection // 2 + rng.randint(-12, 15)))


def relay_ping(rng: random.Random, player: Entrant) -> int:
    return max(10, min(250, RELAY_PING[player.profile.region] + player.connection + rng.randint(-10, 20)))


def goal_race(rng: random.Random, p_first: float) -> tuple[int, int, str | None]:
    """Goals of both players; the note says how the match ended, if unusual."""
    if rng.random() < 0.008:
        return 0, 0, "Connection lost at kick-off; recorded as 0-0 by the referee."
    limit = rng.randint(4, 30) if rng.random() < 0.08 else None
    a = b = 0
    while a < 20 and b < 20:
        if limit is not None and a + b >= limit:
            return a, b, rng.choice(("Ended on the time limit.", "Time-out before either player reached 20.",
                                     "Stopped by the referee after repeated disconnects."))
        if rng.random() < p_first:
            a += 1
        else:
            b += 1
    if rng.random() >= 0.03:
        return a, b, None
    extra = 1 if rng.random() < 0.7 else 2
    if a >= 20:
        a += extra
    else:
        b += extra
    return a, b, "Unstable Lunaro finish."


def lunaro_game(rng: random.Random, a: Entrant, b: Entrant, day: date,
                influence: float) -> tuple[list[dict], str | None, Entrant]:
    """One duel: the players' entries, a note and the player whose clock `played` follows.
    How well a player plays at a ping: the rating's ability formula, a little less harsh."""
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
    p_first = expected(ability(a.skill, pings[0], 1.5 * influence), ability(b.skill, pings[1], 1.5 * influence))
    goals_a, goals_b, note = goal_race(rng, p_first)
    for entry, goals, ping in zip(entries, (goals_a, goals_b), pings):
        entry["goals"] = goals
        entry["ping"] = ping
    if host_index is not None:
        entries[host_index]["host"] = True
    return entries, note, reference


def simulate_lunaro(rng: random.Random, config: LeagueConfig) -> list[Match]:
    influence = float(config.params["ping_influence"])
    live = Live(config)
    entrants = make_entrants(rng, PROFILES[:34], 170.0, float(config.params["initial"]))
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
        # Matchmaking: nearby regions and ratings close to the first player's.
        others = [p for p in pool if p is not first]
        second = weighted_pick(rng, others, [
            p.activity * region_affinity(first.profile.region, p.profile.region)
            * math.exp(-abs(live.rating(p.name) - live.rating(first.name)) / 220.0) for p in others])
        a, b = (first, second) if rng.random() < 0.5 else (second, first)
        entries, note, reference = lunaro_game(rng, a, b, day, influence)
        played = played_on(rng, day, reference.profile.region, (62, 33, 5))
        match = Match(played, entries, monthly_file(played.shown))
        if note is None and rng.random() < 0.04:
            note = rng.choice(LUNARO_NOTES)
        match.notes = note
        if rng.random() < 0.025:
            show_ids += 1
            match.id = f"showmatch-{played.shown.isoformat()}-{show_ids}"
            match.notes = match.notes or "Show match between two league regulars."
        live.add(played.instant, [a.name, b.name], entries)
        matches.append(match)
        if not cup_played and day >= LUNARO_OPEN[1]:
            matches.extend(lunaro_cup(rng, live, entrants, LUNARO_OPEN[1], influence))
            cup_played = True
    return matches


def lunaro_cup(rng: random.Random, live: Live, entrants: list[Entrant], day: date,
               influence: float) -> list[Match]:
    """Single elimination of the eight best-rated players, hosted by the higher seed, in one evening."""
    slug, _, title = LUNARO_OPEN
    bracket = seeded_bracket(live, entrants, day)
    clock = datetime.combine(day, time(18, 0))
    offset = utc_offset("EU", day, False)
    matches = []
    for code, label in ROUNDS:
        winners = []
        for index in range(0, len(bracket), 2):
            a, b = higher_seed_first(live, bracket[index], bracket[index + 1])
            guest_ping = host_ping(rng, a, b)
            p_host = expected(ability(a.skill, 0, 1.5 * influence), ability(b.skill, guest_ping, 1.5 * influence))
            goals_a, goals_b, note = 0, 0, None
            while goals_a < 20 and goals_b < 20:  # a cup match is played to the end
                goals_a, goals_b, note = goal_race(rng, p_host)
            entries = [{"name": a.name_on(day), "goals": goals_a, "ping": 0, "host": True},
                       {"name": b.name_on(day), "goals": goals_b, "ping": guest_ping}]
            number = "" if code == "final" else str(index // 2 + 1)
            played = at(clock, offset)
            matches.append(Match(played, entries, f"{day.year}/cups/{slug}.toml", id=f"{slug}.{code}{number}",
                                 notes=f"{title}, {label}." + (f" {note}" if note else "")))
            live.add(played.instant, [a.name, b.name], entries)
            winners.append(a if goals_a > goals_b else b)
            clock += timedelta(minutes=25)
        bracket = winners
        clock += timedelta(minutes=20)
    return matches


# ---- Elo (ranked battle) -------------------------------------------------

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


def elo_opponent(rng: random.Random, live: Live, challenger: Entrant, pool: list[Entrant]) -> Entrant:
    """Mostly matchmaking: opponents within 100 points of the challenger, widened until
    there are a few to choose from; sometimes an open challenge to anyone."""
    others = [p for p in pool if p is not challenger]
    if challenger.name != ELO_STAR and rng.random() < 0.3:
        return rng.choice(others)
    deviation = 100.0
    own = live.rating(challenger.name)
    while True:
        candidates = [p for p in others if abs(live.rating(p.name) - own) <= deviation]
        if len(candidates) >= 3 or len(candidates) == len(others):
            return rng.choice(candidates)
        deviation += 100.0


def simulate_elo(rng: random.Random, config: LeagueConfig) -> list[Match]:
    initial = float(config.params["initial"])
    live = Live(config)
    entrants = make_entrants(rng, ELO_ROSTER, 300.0, initial)
    for entrant in entrants:
        if entrant.name in ELO_EDGES:
            entrant.skill = initial + ELO_EDGES[entrant.name]
            entrant.joined = FIRST_DAY
        if entrant.name == ELO_STAR:
            entrant.activity = 5.0
    matches: list[Match] = []
    cups = sorted(ELO_CUPS, key=lambda cup: cup[1])
    grudges = 0
    for day in match_days(rng, ELO_MATCHES):
        pool = [p for p in entrants if p.joined <= day]
        weights = [p.activity * (2.5 if p.name == ELO_STAR and day.month in (3, 4, 5) else 1.0)
                   for p in pool]
        challenger = weighted_pick(rng, pool, weights)
        opponent = elo_opponent(rng, live, challenger, pool)
        matches.append(elo_match(rng, live, challenger, opponent, day))
        if rng.random() < 0.02:
            grudges += 1
            matches[-1].id = f"grudge-{grudges:02d}"
            matches[-1].notes = "Grudge match, announced a week ahead."
        while cups and cups[0][1] <= day:
            matches.extend(elo_cup(rng, live, entrants, *cups.pop(0)))
    return matches


def elo_match(rng: random.Random, live: Live, challenger: Entrant, opponent: Entrant, day: date,
              clock: datetime | None = None, challenger_first: bool | None = None) -> Match:
    p = expected(challenger.skill, opponent.skill)
    if rng.random() < 0.22 * (1.0 - abs(2.0 * p - 1.0)):
        score = 0.5
    else:
        score = 1.0 if rng.random() < p else 0.0
    if challenger_first is None:
        challenger_first = rng.random() < 0.72
    first, second = (challenger, opponent) if challenger_first else (opponent, challenger)
    score_first = score if challenger_first else 1.0 - score
    entries = [{"name": player.name_on(day), "score": 0.5 if s == 0.5 else int(s)}
               for player, s in ((first, score_first), (second, 1.0 - score_first))]
    if clock is None:
        played = played_on(rng, day, challenger.profile.region, (55, 40, 5))
    else:
        played = at(clock, utc_offset("EU", day, False))
    match = Match(played, entries, monthly_file(played.shown))
    if not challenger_first or rng.random() < 0.04:
        match.challenger = challenger.name_on(day)
    if rng.random() < 0.04:
        match.notes = rng.choice(ELO_NOTES)
    live.add(played.instant, [first.name, second.name], [{"score": score_first}, {"score": 1.0 - score_first}],
             challenger=challenger.name)
    return match


def elo_cup(rng: random.Random, live: Live, entrants: list[Entrant], slug: str, day: date,
            title: str, final_id: str | None) -> list[Match]:
    """Eight best-rated players, single elimination, the higher seed challenges; a draw is replayed."""
    bracket = seeded_bracket(live, entrants, day)
    clock = datetime.combine(day, time(17, 0))
    matches = []
    for code, label in ROUNDS:
        winners = []
        for index in range(0, len(bracket), 2):
            a, b = higher_seed_first(live, bracket[index], bracket[index + 1])
            while True:
                match = elo_match(rng, live, a, b, day, clock, challenger_first=True)
                match.file = f"{day.year}/cups/{slug}.toml"
                if match.players[0]["score"] != 0.5:
                    break
                match.notes = f"{title}, {label}: drawn, replayed."
                matches.append(match)
                clock += timedelta(minutes=15)
            number = "" if code == "final" else str(index // 2 + 1)
            match.id = final_id if code == "final" and final_id else f"{slug}-{day.year}-{code}{number}"
            match.notes = f"{title}, {label}."
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
BR_NOTES = (
    "The final circle closed over open water.",
    "Server restarted once during the warm-up; the match itself ran clean.",
    "Played during the Saint Valentine event weekend.",
    "Replay reviewed after a report; no action taken.",
)


def weighted_sample(rng: random.Random, items: list, weights: list[float], count: int) -> list:
    """`count` distinct items drawn with the given weights (Efraimidis-Spirakis keys)."""
    keys = sorted(((rng.random() ** (1.0 / w), index) for index, w in enumerate(weights)), reverse=True)
    return [items[index] for _, index in keys[:count]]


def br_places(rng: random.Random, lobby: list[Entrant]) -> tuple[list[Entrant], list[int]]:
    """Finishing order and places: 1 + the number of players strictly ahead, so two
    players eliminated by the same blast share a place and the next one is skipped."""
    performance = [(p.skill - ELO_GUMBEL * math.log(-math.log(rng.random())), p.name) for p in lobby]
    order = [p for _, p in sorted(zip(performance, lobby), key=lambda t: t[0], reverse=True)]
    places = [1]
    for index in range(1, len(order)):
        # Never a shared win: one player (the last one standing) takes first place.
        shared = index >= 2 and rng.random() < BR_TIE_RATE
        places.append(places[-1] if shared else index + 1)
    return order, places


def launch_day(entrants: list[Entrant]) -> None:
    """The players who join in the first three weeks are all there on the first day, so the first
    lobbies are full."""
    for entrant in entrants:
        if entrant.joined <= FIRST_DAY + timedelta(days=21):
            entrant.joined = FIRST_DAY


def simulate_battle_royale(rng: random.Random, config: LeagueConfig) -> list[Match]:
    entrants = make_entrants(rng, BR_PROFILES, 230.0, 0.0)
    launch_day(entrants)  # a lobby needs 16
    matches: list[Match] = []
    for day in match_days(rng, BR_MATCHES):
        pool = [p for p in entrants if p.joined <= day]
        platform = None
        if rng.random() < BR_PLATFORM_QUEUES:
            # A platform queue opens once enough of that platform's players are around.
            open_queues = sorted({p.profile.platform for p in pool
                                  if sum(q.profile.platform == p.profile.platform for q in pool) >= 16})
            if open_queues:
                platform = rng.choice(open_queues)
                pool = [p for p in pool if p.profile.platform == platform]
        lobby = weighted_sample(rng, pool, [p.activity for p in pool], rng.randint(16, min(40, len(pool))))
        order, places = br_places(rng, lobby)
        entries = [{"name": p.name_on(day), "place": place} for p, place in zip(order, places)]
        played = played_on(rng, day, order[0].profile.region, (50, 45, 5))
        match = Match(played, entries, monthly_file(played.shown), platform=platform)
        shared = [place for index, place in enumerate(places) if index and places[index - 1] == place]
        if shared and rng.random() < 0.3:
            pair = [e["name"] for e in entries if e["place"] == shared[0]]
            match.notes = f"{' and '.join(pair)} were eliminated by the same blast and share place {shared[0]}."
        elif rng.random() < 0.03:
            match.notes = rng.choice(BR_NOTES)
        matches.append(match)
    return matches


# ---- Glicko-2 (World vs World) -------------------------------------------


def wvw_reset(region: str, friday: date) -> Played:
    """The weekly reset ending a matchup: Friday 20:00 in Central Europe for EU, Friday 21:00
    US Eastern for NA (Saturday morning UTC: still the same ISO week)."""
    if region == "EU":
        return at(datetime.combine(friday, time(20, 0)), timedelta(hours=2 if northern_summer(friday) else 1))
    return at(datetime.combine(friday, time(21, 0)), timedelta(hours=-4 if northern_summer(friday) else -5))


def simulate_wvw(rng: random.Random, config: LeagueConfig) -> list[Match]:
    live = Live(config)
    worlds = [p.name for p in WVW_PROFILES]
    strength = {name: rng.lognormvariate(0.0, 0.45) for name in worlds}
    # Last season's standing seeds the first week's matchups.
    seeded = {name: math.log(s) + rng.gauss(0.0, 0.2) for name, s in strength.items()}
    matches: list[Match] = []
    after_break = False
    for week in range(WVW_WEEKS):
        friday = WVW_FIRST_FRIDAY + timedelta(weeks=week)
        # Population drifts: guilds move between worlds over the season.
        for name in worlds:
            strength[name] *= math.exp(rng.gauss(0.0, 0.06))
        if rng.random() < 0.08:
            strength[rng.choice(worlds)] *= rng.choice((0.6, 1.6))
        if friday == WVW_BREAK:
            after_break = True  # a rating period without matches: sitegen grows every RD by one step
            continue
        iso_year, iso_week, _ = friday.isocalendar()
        week_matches = []
        for region in ("NA", "EU"):
            ranked = sorted((n for n in worlds if PROFILE_BY_NAME[n].region == region),
                            key=lambda n: (-live.ratings[n], n) if live.matches else (-seeded[n], n))
            played = wvw_reset(region, friday)
            for tier in range(len(ranked) // 3):
                group = ranked[tier * 3:tier * 3 + 3]
                # War score: every world holds its home borderland and ticks some points
                # all week (a fifth of the total each), the rest goes by strength.
                total = rng.uniform(560_000, 820_000)
                weights = [strength[n] * rng.lognormvariate(0.0, 0.15) for n in group]
                scores = [round(total * (0.2 + 0.4 * w / sum(weights))) for w in weights]
                notes = f"{region} tier {tier + 1}."
                if after_break:
                    monday, sunday = WVW_BREAK - timedelta(days=4), WVW_BREAK + timedelta(days=2)
                    notes += (" First matchup after the maintenance week "
                              f"({monday.day} to {sunday.day} {sunday:%B}): no world played"
                              " then, so every world's RD grew by one period.")
                week_matches.append(Match(played, [{"name": n, "score": s} for n, s in zip(group, scores)],
                                          f"{iso_year}/w{iso_week:02d}.toml", notes=notes,
                                          id=f"{iso_year}-w{iso_week:02d}-{region.lower()}-tier-{tier + 1}"))
        after_break = False
        for match in week_matches:
            live.add(match.played.instant, [p["name"] for p in match.players], match.players)
        matches.extend(week_matches)
    return matches


# ---- Arena (Halo: Reach) -------------------------------------------------

ARENA_MAPS = ("Sword Base", "Powerhouse", "Countdown", "Zealot", "Boardwalk", "Reflection",
              "Spire", "The Cage")


def arena_game(rng: random.Random, teams: list[list[Entrant]], score_to_win: int) -> list[list[dict]]:
    """Kill by kill until one team reaches score_to_win. Only kills of an opponent
    score; a betrayal (killing a teammate) and a suicide only add a death."""
    stats = [[{"kills": 0, "deaths": 0, "assists": 0, "betrayals": 0} for _ in team] for team in teams]
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


def simulate_arena(rng: random.Random, config: LeagueConfig) -> list[Match]:
    entrants = make_entrants(rng, ARENA_PROFILES, 60.0, 0.0)
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
        else:
            teams = [[p] for p in lobby]
        score_to_win = 50 if slayer else 25
        stats = arena_game(rng, teams, score_to_win)
        played = played_on(rng, day, teams[0][0].profile.region, (55, 40, 5))
        match = Match(played, [], monthly_file(played.shown), score_to_win=score_to_win)
        match.teams = [
            {"won": sum(s["kills"] for s in team_stats) == score_to_win,
             "players": [{"name": p.name_on(day), "kills": s["kills"], "deaths": s["deaths"],
                          **{k: s[k] for k in ("assists", "betrayals") if s[k]}}
                         for p, s in zip(team, team_stats)]}
            for team, team_stats in zip(teams, stats)
        ]
        match.notes = f"{'Team Slayer' if slayer else 'Free for All'} on {rng.choice(ARENA_MAPS)}."
        matches.append(match)
    return matches


# --------------------------------------------------------------------------
# The files
# --------------------------------------------------------------------------

def match_toml(match: Match) -> str:
    keys = {"id": match.id, "played": match.played.value, "challenger": match.challenger,
            "platform": match.platform, "notes": match.notes, "score_to_win": match.score_to_win}
    lines = ["[[match]]"] + [f"{k} = {tomlwrite.value(v)}" for k, v in keys.items() if v is not None]

    def players(entries: list[dict]) -> list[str]:  # one player a line
        return ["players = [", *(f"  {tomlwrite.value(entry)}," for entry in entries), "]"]

    if match.teams is None:
        return "\n".join(lines + players(match.players)) + "\n"
    for team in match.teams:
        lines += ["", "[[match.teams]]", f"won = {tomlwrite.value(team['won'])}", *players(team["players"])]
    return "\n".join(lines) + "\n"


def file_title(path: str) -> str:
    """"2025/08-august.toml" -> "August 2025", "2025/w25.toml" -> "week 25 of 2025"; cup files by their name."""
    year, _, name = path.removesuffix(".toml").rpartition("/")
    month = name.partition("-")[2]
    if month in MONTHS:
        return f"{month.capitalize()} {year}"
    if name[0] == "w" and name[1:].isdigit():
        return f"week {int(name[1:])} of {year}"
    return name.replace("-", " ").title()


def write_matches(folder: Path, title: str, matches: list[Match]) -> None:
    """One file per `file` of the matches, in the order they were played."""
    by_file: dict[str, list[Match]] = {}
    for match in matches:
        by_file.setdefault(match.file, []).append(match)
    for path in sorted(by_file):
        ordered = sorted(by_file[path], key=lambda m: m.played.instant)
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(f"# {title}: {file_title(path)}\n" + "".join("\n" + match_toml(m) for m in ordered),
                                   encoding="utf-8", newline="\n")


def players_toml() -> str:
    lines = ["# Who is who: platform, region and former names (aliases).", ""]
    for profile in sorted(ALL_PROFILES, key=lambda p: p.name):
        if profile.platform is not None:
            lines += [f"[players.{tomlwrite.string(profile.name)}]", f"platform = {tomlwrite.string(profile.platform)}",
                      f"region = {tomlwrite.string(profile.region)}"]
            lines += [f"aliases = {tomlwrite.value([profile.alias])}"] if profile.alias else []
            lines.append("")
    return "\n".join(lines)


def league_settings(root: Path) -> dict[str, LeagueConfig]:
    """Empty the league folders but for league.toml, the league's settings as curators write them (copied
    from this repository when writing elsewhere), and read those settings the way sitegen does."""
    for slug in SIMULATIONS:
        folder = root / "matches" / slug
        settings = (REPO / "matches" / slug / "league.toml").read_bytes()
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        (folder / "league.toml").write_bytes(settings)
    problems = Problems()
    sources = {league.slug: league for league in load_site(root, problems).leagues}
    configs = {slug: league_config(sources[slug], problems) for slug in SIMULATIONS}
    if problems:
        raise InvalidInput(list(problems))
    return configs


# --------------------------------------------------------------------------
# Checked and rated by sitegen
# --------------------------------------------------------------------------


def summarise(rated: RatedLeague, matches: list[Match]) -> dict[str, int]:
    """Print a league's numbers as sitegen rates them; returns the number of players in each tier."""
    config, standings = rated.league.config, [r.standing for r in rated.standings]
    played = [m.played for m in rated.league.matches]
    games = sorted(s.games for s in standings)
    digits = 0 if getattr(config.system, "integer_ratings", False) else 1
    print(f"== {config.slug} ({config.system_name})")
    print(f"   {len(standings)} players, {len(played)} matches in {len({m.file for m in matches})} files "
          f"({played[0]:%Y-%m-%d} .. {played[-1]:%Y-%m-%d}); explicit ids: "
          f"{sum(m.id is not None for m in matches)}, with notes: {sum(m.notes is not None for m in matches)}")
    print(f"   games per player: min {games[0]}, median {games[len(games) // 2]}, max {games[-1]}; "
          f"more than 30: {sum(g > 30 for g in games)}")
    tiers = {tier.name: 0 for tier in config.tiers}
    for s in standings if tiers else ():
        tiers[config.tier_of(s.rating).name] += 1
    if tiers:
        print("   tiers: " + ", ".join(f"{k} {v}" for k, v in tiers.items()))
    print("   top 5: " + ", ".join(f"{s.player} {s.rating:.{digits}f} ({s.games})" for s in standings[:5]))
    print(f"   bottom: {standings[-1].player} {standings[-1].rating:.{digits}f}")
    return tiers


def verify(root: Path, simulated: dict[str, list[Match]]) -> list[str]:
    """sitegen's check and rate of the written site, each league summarised; the problems found."""
    site = check(root)
    by_slug = {r.league.config.slug: r for r in rate(site)}
    problems = []
    for slug, matches in simulated.items():
        rated = by_slug[slug]
        tiers = summarise(rated, matches)
        if slug == ELO_SLUG:
            games = [r.standing.games for r in rated.standings]
            if sum(g > 30 for g in games) * 2 <= len(games):
                problems.append(f"{slug}: only {sum(g > 30 for g in games)} players play more than 30 games")
            reached = {}
            for event in rated.events:
                for c in event.changes:
                    if c.after >= 2400 and c.player not in reached:
                        reached[c.player] = f"{event.key} ({event.played:%Y-%m-%d}), rating {c.after:.1f}"
            for name, when in sorted(reached.items()):
                print(f"   reached 2400: {name} at {when}")
            if not reached:
                problems.append(f"{slug}: no player reached a rating of 2400")
        elif slug == BR_SLUG and (min(tiers.values()) == 0 or not 1 <= tiers["Challenger"] <= 5):
            problems.append(f"{slug}: every tier needs a player and Challenger only a few: {tiers}")
        elif slug == WVW_SLUG:
            weeks = [event.index for event in rated.events]
            empty = len(set(range(weeks[0], weeks[-1] + 1)) - set(weeks))
            print(f"   weeks without matchups: {empty}")
            if empty != 1:
                problems.append(f"{slug}: expected one week without matchups, got {empty}")
    return problems


SIMULATIONS = {LUNARO_SLUG: simulate_lunaro, ELO_SLUG: simulate_elo, BR_SLUG: simulate_battle_royale,
               WVW_SLUG: simulate_wvw, ARENA_SLUG: simulate_arena}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO,
                        help="the site repository to write into (default: this repository)")
    root = parser.parse_args(argv).root
    try:
        configs = league_settings(root)
        simulated = {slug: simulate(random.Random(f"{SEED}-{slug}"), configs[slug])
                     for slug, simulate in SIMULATIONS.items()}
        for slug, matches in simulated.items():
            write_matches(root / "matches" / slug, configs[slug].name, matches)
        (root / "matches" / "players.toml").write_text(players_toml(), encoding="utf-8", newline="\n")
        print(f"wrote the match files of {len(simulated)} leagues and players.toml under {root / 'matches'}")
        problems = verify(root, simulated)
    except InvalidInput as exc:
        problems = [str(problem) for problem in exc.problems]
    for problem in problems:
        print(f"PROBLEM {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
