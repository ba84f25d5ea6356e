"""Dice: where the numbers come from, and the record of every die rolled.

Production dice come from ``secrets`` (``SystemDice``). ``ScriptedDice`` serves the tests and
groups that roll their own physical dice ("manual dice"); ``SeededDice`` replays a sequence
from a seed with its *own* ``random.Random`` instance. No global RNG is ever seeded or used.

Every roll goes through a ``Roller``, which records it as a ``Roll`` (kind, purpose, the dice in
order). An ASL DR is recorded as (white, colored): the colored die decides rate of fire and
doubles decide cowering, so the two are never summed away.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Sequence
from typing import Literal, Protocol, get_args

from pydantic import BaseModel, ConfigDict

from .built import built, plain_ints
from .errors import InvalidOrder

RollKind = Literal["DR", "dr", "2d6", "d6", "d10"]


class DiceSource(Protocol):
    """Anything that can produce one die of ``sides`` faces (1..sides)."""

    manual: bool

    def draw(self, sides: int) -> int: ...


class SystemDice:
    """Production dice: ``secrets.randbelow`` is uniform (no modulo bias) and unpredictable."""

    manual = False

    def draw(self, sides: int) -> int:
        return secrets.randbelow(sides) + 1


class SeededDice:
    """Reproducible dice for replays and benchmarks; owns its generator, never the global one."""

    manual = False

    def __init__(self, seed: int | str):
        self.seed = seed
        self._rng = random.Random(seed)

    def draw(self, sides: int) -> int:
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
        return f"{self.kind} {self.total} ({' + '.join(map(str, self.dice))})"


_ROLL_KINDS = frozenset(get_args(RollKind))


class Roller:
    """Rolls dice from a source and keeps the ordered record of every roll."""

    def __init__(self, source: DiceSource):
        self.source = source
        self.rolls: list[Roll] = []

    @property
    def manual(self) -> bool:
        return bool(getattr(self.source, "manual", False))

    def _record(self, kind: RollKind, purpose: str, dice: Sequence[int]) -> Roll:
        faces = tuple(dice)
        if kind in _ROLL_KINDS and type(purpose) is str and plain_ints(faces):
            roll = built(Roll, {"kind": kind, "purpose": purpose, "dice": faces})  # as validated (built.py)
        else:
            roll = Roll(kind=kind, purpose=purpose, dice=faces)
        self.rolls.append(roll)
        return roll

    def _draw(self, kind: RollKind, purpose: str, sides: int, count: int) -> Roll:
        faces: list[int] = []
        try:
            for _ in range(count):
                faces.append(self.source.draw(sides))
        except DiceRanOut:
            given = len(getattr(self.source, "values", ()))
            more = count - len(faces)
            raise InvalidOrder(
                f"the dice given ran out ({given} given) at roll {len(self.rolls) + 1}, the "
                f"{kind} for {purpose}: give at least {more} more (the next one is a d{sides}; more rolls may "
                "follow), in the order the preview lists, or leave 'dice' out to let the bot roll",
                field="dice") from None
        return self._record(kind, purpose, faces)

    def DR(self, purpose: str) -> Roll:
        """ASL Dice Roll: white die first, then the colored die."""
        return self._draw("DR", purpose, 6, 2)

    def dr(self, purpose: str) -> Roll:
        """ASL die roll: one d6."""
        return self._draw("dr", purpose, 6, 1)

    def two_d6(self, purpose: str) -> Roll:
        return self._draw("2d6", purpose, 6, 2)

    def d6(self, purpose: str) -> Roll:
        return self._draw("d6", purpose, 6, 1)

    def d10(self, purpose: str) -> Roll:
        return self._draw("d10", purpose, 10, 1)


def dice_source(values: Sequence[int] | None) -> DiceSource:
    """Manual dice when the players give them, production dice otherwise."""
    return ScriptedDice(values) if values else SystemDice()
