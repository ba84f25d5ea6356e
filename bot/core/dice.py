"""Dice: where the numbers come from, and the record of every die rolled.

Production dice are committed dice (``CommittedDice``, issue 12, docs/dice.md): each die is
HMAC-SHA256 of the game's secret seed (made by ``secrets``, its SHA-256 published before any die)
over values that do not exist before the order is given, mapped to a face by rejection sampling.
``SystemDice`` (``secrets``) serves games started before committed dice. ``ScriptedDice`` serves
the tests and groups that roll their own physical dice ("manual dice"); ``SeededDice`` replays a
sequence from a seed with its *own* ``random.Random`` instance. No global RNG is ever seeded or used.

Every roll goes through a ``Roller``, which records it as a ``Roll`` (kind, purpose, the dice in
order). An ASL DR is recorded as (white, colored): the colored die decides rate of fire and
doubles decide cowering, so the two are never summed away.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Iterable, Sequence
from typing import Any, Literal, Protocol, get_args

from pydantic import BaseModel, ConfigDict

from .errors import InvalidOrder


def plain_ints(values: tuple[Any, ...]) -> bool:
    """Every item a plain ``int`` (not a bool, which validation turns into 1 or 0): faces that may
    key the cache of Rolls as validation keeps them."""
    for value in values:
        if type(value) is not int:
            return False
    return True


# "nd6", "nd10": several d6 or d10 rolled at once outside the rules (a public /roll of 3d6, 2d10)
RollKind = Literal["DR", "dr", "2d6", "d6", "d10", "nd6", "nd10"]
SEVERAL = {"nd6": 6, "nd10": 10}  # the kinds of several dice, and their faces


class DiceSource(Protocol):
    """Anything that can produce one die of ``sides`` faces (1..sides)."""

    manual: bool

    def draw(self, sides: int) -> int: ...


class SystemDice:
    """Production dice: ``secrets.randbelow`` is uniform (no modulo bias) and unpredictable."""

    manual = False

    def draw(self, sides: int) -> int:
        return secrets.randbelow(sides) + 1


DERIVATION = "referee-dice-v1"  # the first line of every message a die is derived from
SEED_BYTES = 32
_SPAN = 1 << 32  # a die reads the first 4 bytes of an HMAC output as a big-endian unsigned integer


def new_seed() -> bytes:
    """A game's secret seed for one game turn: 32 bytes from ``secrets``."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """What is published before the seed is used: its SHA-256, lowercase hex."""
    return hashlib.sha256(seed).hexdigest()


def contribution_value(text: str) -> str:
    """A side's contribution as it enters the dice: the SHA-256 (hex) of the text its player chose."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def die_message(game_id: int, seq: int, interaction_id: int | None, contributions: Sequence[str],
                index: int, sides: int, attempt: int) -> bytes:
    """The text one attempt at one die is derived from (docs/dice.md, "The derivation"): eight
    lines of ASCII joined by "\n", no line end after the last."""
    return _entry_prefix(game_id, seq, interaction_id, contributions) + f"{index}\n{sides}\n{attempt}".encode("ascii")


def _entry_prefix(game_id: int, seq: int, interaction_id: int | None, contributions: Sequence[str]) -> bytes:
    """The first five lines of every message of one entry's dice, with the line end after them."""
    return f"{DERIVATION}\n{game_id}\n{seq}\n{interaction_id or 0}\n{','.join(contributions)}\n".encode("ascii")


def _keyed(seed: bytes, prefix: bytes) -> hmac.HMAC:
    """The HMAC keyed by the seed over an entry's first five lines: each attempt at each of its dice
    continues a copy of it (the same bytes, so the same digest as ``hmac.digest`` of the whole
    message, ``_message``), so the entry's lines are hashed once."""
    return hmac.new(seed, prefix, "sha256")


def _face(keyed: hmac.HMAC, index: int, sides: int) -> int:
    limit = _SPAN - _SPAN % sides
    attempt = 0
    while True:
        mac = keyed.copy()
        mac.update(f"{index}\n{sides}\n{attempt}".encode("ascii"))
        number = int.from_bytes(mac.digest()[:4], "big")
        if number < limit:
            return 1 + number % sides
        attempt += 1


def derive_die(seed: bytes, game_id: int, seq: int, interaction_id: int | None, contributions: Sequence[str],
               index: int, sides: int) -> int:
    """Die ``index`` (0-based, in the order the rules draw them) of log entry ``seq``: the first
    attempt whose HMAC-SHA256 reads below the largest multiple of ``sides`` under 2**32 gives
    1 + that number mod ``sides``; a reading at or above it is rejected (no modulo bias) and the
    next attempt is tried."""
    if sides < 1:
        raise ValueError("a die has at least one face")
    return _face(_keyed(seed, _entry_prefix(game_id, seq, interaction_id, contributions)), index, sides)


class CommittedDice:
    """The dice of one log entry, derived from the game's committed seed (``derive_die``) and
    from what exists only once the order is given: its game, its log seq, the Discord
    interaction that gave it and the sides' contributions. Records the faces of each die drawn
    (``sides``), which the entry's proof lists so that anyone can re-derive them."""

    manual = False

    def __init__(self, seed: bytes, *, game_id: int, seq: int, interaction_id: int | None,
                 contributions: Sequence[str]):
        self._seed = seed
        self.game_id, self.seq, self.interaction_id = game_id, seq, interaction_id
        self.contributions = tuple(contributions)
        self.sides: list[int] = []
        self._prefix = _entry_prefix(game_id, seq, interaction_id, self.contributions)
        self._keyed: hmac.HMAC | None = None  # the HMAC keyed by the seed over the entry's lines (draw)

    def draw(self, sides: int) -> int:
        # derive_die, with the entry's keyed HMAC made once, at the first draw
        keyed = self._keyed
        if keyed is None:
            keyed = self._keyed = _keyed(self._seed, self._prefix)
        value = _face(keyed, len(self.sides), sides)
        self.sides.append(sides)
        return value

    def __getstate__(self) -> dict[str, object]:
        """Pickled without the keyed HMAC (which cannot be): it is made again at the next draw."""
        state = self.__dict__.copy()
        state["_keyed"] = None
        return state


class SeededDice:
    """Reproducible dice for replays and benchmarks; owns its generator, never the global one."""

    manual = False

    def __init__(self, seed: int | str):
        self.seed = seed
        self._rng = random.Random(seed)

    def draw(self, sides: int) -> int:
        # randint, not the generator's private _randbelow: only the benchmarks roll these dice, so a
        # faster draw here would make the rules core's figure better and no player's command faster
        return self._rng.randint(1, sides)


class ScriptedDice:
    """Dice given in advance, used in order: tests, and groups that roll their own dice.

    A value outside the die's faces, or running out, raises ``InvalidOrder``: a scripted die is
    never replaced by a random one, and nothing is rerolled.
    """

    def __init__(self, values: Iterable[int], *, manual: bool = True):
        self.values: list[int] = [int(v) for v in values]
        self.position = 0
        self.manual = manual
        self.sides: list[int] = []  # the faces of each die drawn (a replay checks a committed entry's proof)

    @property
    def remaining(self) -> list[int]:
        return self.values[self.position :]

    def draw(self, sides: int) -> int:
        if self.position >= len(self.values):
            raise DiceRanOut(
                f"the dice given ran out: this action needs more than {len(self.values)} "
                f"{'die' if len(self.values) == 1 else 'dice'} (the next one is a d{sides})",
                field="dice",
            )
        value = self.values[self.position]
        if not 1 <= value <= sides:
            raise InvalidOrder(
                f"die #{self.position + 1} given is {value}, but a d{sides} reads 1 to {sides}",
                field="dice",
            )
        self.position += 1
        self.sides.append(sides)
        return value


class DiceRanOut(InvalidOrder):
    """The manual dice ran out (``Roller`` names the roll that needed more)."""


class Roll(BaseModel):
    """One roll as the players see it: an ASL DR (white, colored), a dr, 2d6, a d6 or a d10."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: RollKind
    purpose: str
    dice: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.dice)

    @property
    def white(self) -> int | None:
        return self.dice[0] if self.kind == "DR" else None

    @property
    def colored(self) -> int | None:
        return self.dice[1] if self.kind == "DR" else None

    @property
    def doubles(self) -> bool:
        return len(self.dice) == 2 and self.dice[0] == self.dice[1]

    def describe(self) -> str:
        if self.kind == "DR":
            return f"DR {self.total} (white {self.dice[0]}, colored {self.dice[1]})"
        if len(self.dice) == 1:
            return f"{self.kind} {self.dice[0]}"
        return f"{self.name} {self.total} ({' + '.join(map(str, self.dice))})"

    @property
    def name(self) -> str:
        """The kind as players write it: "3d6" for several d6 (kind nd6), else the kind."""
        return f"{len(self.dice)}d{SEVERAL[self.kind]}" if self.kind in SEVERAL else self.kind


_ROLL_KINDS = frozenset(get_args(RollKind))
# Rolls already built, by (kind, purpose, faces): plain str and ints only, so equal keys are equal
# values of the same types. Bounded like the trail's Steps: emptied when full.
ROLL_CACHE_SIZE = 20_000
_ROLLS: dict[tuple[str, str, tuple[int, ...]], Roll] = {}


class Roller:
    """Rolls dice from a source and keeps the ordered record of every roll."""

    __slots__ = ("source", "rolls")

    def __init__(self, source: DiceSource):
        self.source = source
        self.rolls: list[Roll] = []

    @property
    def manual(self) -> bool:
        return bool(getattr(self.source, "manual", False))

    def _record(self, kind: RollKind, purpose: str, dice: Sequence[int]) -> Roll:
        faces = tuple(dice)
        # a frozen Roll is a value: the same kind, purpose and faces again give the same object (as
        # trail Steps, trail.py), validated the first time. Looked up
        # before the exactness check: only what passed it is kept, and an equal key holds values
        # validation turns into the same Roll (a face True becomes 1, a str subclass its str)
        key = (kind, purpose, faces)
        try:
            roll = _ROLLS.get(key)
        except TypeError:  # something unhashable: validation refuses it
            roll, key = None, None
        if roll is None:
            if key is not None and type(kind) is str and kind in _ROLL_KINDS and type(purpose) is str \
                    and plain_ints(faces):
                roll = Roll(kind=kind, purpose=purpose, dice=faces)
                if len(_ROLLS) >= ROLL_CACHE_SIZE:
                    _ROLLS.clear()
                _ROLLS[key] = roll
            else:
                roll = Roll(kind=kind, purpose=purpose, dice=faces)
        self.rolls.append(roll)
        return roll

    def _draw(self, kind: RollKind, purpose: str, sides: int, count: int) -> Roll:
        faces: list[int] = []
        draw, append = self.source.draw, faces.append
        try:
            append(draw(sides))
            for _ in range(count - 1):
                append(draw(sides))
        except DiceRanOut:
            raise self._ran_out(kind, purpose, sides, count - len(faces)) from None
        return self._record(kind, purpose, faces)

    def _ran_out(self, kind: RollKind, purpose: str, sides: int, more: int) -> InvalidOrder:
        """The refusal when the manual dice run out ``more`` dice short of this roll."""
        given = len(getattr(self.source, "values", ()))
        return InvalidOrder(
            f"the dice given ran out ({given} given) at roll {len(self.rolls) + 1}, the "
            f"{kind} for {purpose}: give at least {more} more (the next one is a d{sides}; more rolls may "
            "follow), in the order the preview lists, or leave 'dice' out to let the bot roll",
            field="dice")

    def DR(self, purpose: str) -> Roll:
        """ASL Dice Roll: white die first, then the colored die (``_draw("DR", purpose, 6, 2)``,
        its two draws written out: a fire rolls several)."""
        draw = self.source.draw
        try:
            white = draw(6)
        except DiceRanOut:
            raise self._ran_out("DR", purpose, 6, 2) from None
        try:
            faces = (white, draw(6))
        except DiceRanOut:
            raise self._ran_out("DR", purpose, 6, 1) from None
        return self._record("DR", purpose, faces)

    def dr(self, purpose: str) -> Roll:
        """ASL die roll: one d6."""
        try:
            faces = (self.source.draw(6),)
        except DiceRanOut:
            raise self._ran_out("dr", purpose, 6, 1) from None
        return self._record("dr", purpose, faces)

    def two_d6(self, purpose: str) -> Roll:
        return self._draw("2d6", purpose, 6, 2)

    def d6(self, purpose: str) -> Roll:
        return self._draw("d6", purpose, 6, 1)

    def d10(self, purpose: str) -> Roll:
        return self._draw("d10", purpose, 10, 1)

    def several(self, purpose: str, count: int, sides: int) -> Roll:
        """``count`` dice of ``sides`` faces (6 or 10) in one roll: the kinds above where they fit
        (a d6, 2d6, a d10), else nd6 / nd10."""
        if sides == 6 and count in (1, 2):
            return self.d6(purpose) if count == 1 else self.two_d6(purpose)
        if sides == 10 and count == 1:
            return self.d10(purpose)
        kind = next(k for k, faces in SEVERAL.items() if faces == sides)
        return self._draw(kind, purpose, sides, count)  # type: ignore[arg-type]


def dice_source(values: Sequence[int] | None) -> DiceSource:
    """Manual dice when the players give them, production dice otherwise."""
    return ScriptedDice(values) if values else SystemDice()
