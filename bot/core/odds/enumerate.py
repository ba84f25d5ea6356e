"""Exact odds by running the real resolver once per distinct dice outcome.

``BranchRoller`` is a ``Roller`` that follows a path of choices instead of drawing dice, and
records how many choices each roll had; ``leaves`` replays the order depth first over every path,
so each leaf is one real resolution with its exact probability. Where only a roll's total matters
(a morale or rally DR, 2d6 on the NHiS Fire Table) the roller branches on the 11 totals with their
weights (1..6..1 in 36) instead of the 36 pairs; the IFT attack DR keeps its 36 (white, colored)
pairs, because the colored die decides rate of fire and doubles decide cowering.

This is the reference the fast engines are tested against, and the engine for small trees
(a single check, a rally). ``MAX_LEAVES`` keeps a preview interactive: a tree larger than that
is refused rather than simulated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from pydantic import BaseModel

from ..dice import Roll, Roller
from ..errors import IllegalOrder, InvalidOrder
from ..game import Game
from ..outcome import Outcome
from ..rulesets import get_ruleset

MAX_LEAVES = 4000
MAX_ROLLS = 200  # rolls in one resolution: rerolled ties could otherwise go on along one path
PAIR_PURPOSES = ("IFT attack",)  # ASL DRs whose two dice matter one by one (A7.9, A9.2)
SUM_WEIGHTS = {total: 6 - abs(total - 7) for total in range(2, 13)}  # ways to roll each 2d6 total


def _pair_for(total: int) -> tuple[int, int]:
    """A (white, colored) pair with this total; for rolls whose total alone matters."""
    white = max(1, total - 6)
    return white, total - white


@dataclass
class Choice:
    """One roll's options at one point of a path: dice and weight (out of ``out_of``)."""

    options: list[tuple[tuple[int, ...], int]]
    out_of: int


_PAIRS = Choice([((w, c), 1) for w in range(1, 7) for c in range(1, 7)], 36)
_SUMS = Choice([(_pair_for(t), SUM_WEIGHTS[t]) for t in range(2, 13)], 36)
_FACES = {n: Choice([((v,), 1) for v in range(1, n + 1)], n) for n in (6, 10)}


class BranchRoller(Roller):
    """Rolls by following ``path`` (an option index per roll); extends it with 0 past its end."""

    def __init__(self, path: list[int]):
        super().__init__(source=_NoDice())
        self.path = path
        self.position = 0
        self.widths: list[int] = []
        # the path's weight and the product of its rolls' ``out_of``, as integers: one Fraction at the
        # end instead of one per roll (a brute force over 70,000 paths spent a third of its time there)
        self._weight = 1
        self._out_of = 1

    def _choose(self, kind: Any, purpose: str, choice: Choice) -> Roll:
        if self.position >= MAX_ROLLS:
            raise IllegalOrder(f"this action rolls more than {MAX_ROLLS} times along one line of dice: "
                               "too many to preview exactly")
        if self.position == len(self.path):
            self.path.append(0)
        dice, weight = choice.options[self.path[self.position]]
        self.widths.append(len(choice.options))
        self.position += 1
        self._weight *= weight
        self._out_of *= choice.out_of
        return self._record(kind, purpose, dice)

    @property
    def probability(self) -> Fraction:
        """The chance of the path followed so far."""
        return Fraction(self._weight, self._out_of)

    def DR(self, purpose: str) -> Roll:
        return self._choose("DR", purpose, _PAIRS if purpose in PAIR_PURPOSES else _SUMS)

    def dr(self, purpose: str) -> Roll:
        return self._choose("dr", purpose, _FACES[6])

    def two_d6(self, purpose: str) -> Roll:
        return self._choose("2d6", purpose, _SUMS)

    def d6(self, purpose: str) -> Roll:
        return self._choose("d6", purpose, _FACES[6])

    def d10(self, purpose: str) -> Roll:
        return self._choose("d10", purpose, _FACES[10])


class CyclingDice:
    """Faces in turn (1, 2, 3 ...): a deterministic source that ends every reroll of ties, for the
    one throw-away resolution that checks an order is legal before its odds are worked out."""

    manual = False

    def __init__(self) -> None:
        self.count = 0

    def draw(self, sides: int) -> int:
        self.count += 1
        return (self.count - 1) % sides + 1


class _NoDice:
    manual = False

    def draw(self, sides: int) -> int:  # every roll goes through BranchRoller's own methods
        raise AssertionError("BranchRoller draws no dice")


@dataclass(frozen=True)
class Leaf:
    probability: Fraction
    outcome: Outcome
    game: Game


def parsed_order(game: Game, order: dict[str, Any] | BaseModel) -> BaseModel:
    from ..api import BOOKKEEPING_ACTIONS, parse_order

    parsed = parse_order(game.ruleset, order)
    if getattr(parsed, "action", None) in BOOKKEEPING_ACTIONS:
        raise InvalidOrder("only an action that rolls dice has odds to preview (fire, morale, rally ...)",
                           field="action")
    return parsed


def resolve_path(game: Game, parsed: BaseModel, path: list[int]) -> tuple[Leaf, list[int]]:
    """One real resolution along ``path``: the leaf and each roll's number of options."""
    roller = BranchRoller(path)
    work = game.model_copy(deep=True)
    outcome = get_ruleset(game.ruleset).resolve(work, parsed, roller)
    outcome = outcome.model_copy(update={"rolls": tuple(roller.rolls)})
    return Leaf(roller.probability, outcome, work), roller.widths


def leaves(game: Game, order: dict[str, Any] | BaseModel, *, limit: int = MAX_LEAVES) -> Iterator[Leaf]:
    """Every distinct dice outcome of the order, depth first; raises the order's own RulesError
    when it is refused, and IllegalOrder when the tree has more than ``limit`` leaves."""
    parsed = parsed_order(game, order)
    path: list[int] = []
    count = 0
    while True:
        leaf, widths = resolve_path(game, parsed, path)
        count += 1
        if count > limit:
            raise IllegalOrder(f"this action has more than {limit} dice outcomes: too many to preview "
                               f"exactly; preview a smaller attack or check")
        yield leaf
        del path[len(widths):]  # a shorter branch may leave stale choices behind
        while path and path[-1] + 1 >= widths[len(path) - 1]:
            path.pop()
        if not path:
            return
        path[-1] += 1


# --------------------------------------------------------------------------- tallies

def successors(before: Game, after: Game, unit_id: str) -> list[Any]:
    """The unit and any counter created from it (ELR: a squad becomes two half-squads, whose
    second id is the first's plus a suffix, see effects.free_id)."""
    found = [after.units[unit_id]] if unit_id in after.units else []
    for new_id, unit in after.units.items():
        if new_id in before.units:
            continue
        owners = [b for b in before.units if new_id != b and new_id.startswith(b[: min(len(b), 21)])]
        if owners and max(owners, key=len) == unit_id:
            found.append(unit)
    return found


def tally(game: Game, found: Iterator[Leaf], subjects: list[str], snapshot: Callable[[Any], Any],
          result_of: Callable[[Leaf], str]) -> tuple[dict[str, Fraction], dict[str, dict[str, Fraction]],
                                                   dict[str, Fraction], Fraction, int]:
    """(result distribution, unit -> end-state distribution, unit -> P(breaks), P(at least one
    breaks), leaves) over every leaf."""
    from .report import breaks, end_state

    results: dict[str, Fraction] = {}
    states: dict[str, dict[str, Fraction]] = {u: {} for u in subjects}
    broke: dict[str, Fraction] = {u: Fraction(0) for u in subjects}
    any_breaks = Fraction(0)
    count = 0
    for leaf in found:
        count += 1
        key = result_of(leaf)
        results[key] = results.get(key, Fraction(0)) + leaf.probability
        some = False
        for unit_id in subjects:
            before = snapshot(game.units[unit_id])
            after = tuple(snapshot(u) for u in successors(game, leaf.game, unit_id))
            state = end_state(before, after)
            states[unit_id][state] = states[unit_id].get(state, Fraction(0)) + leaf.probability
            if breaks(before, after):
                broke[unit_id] += leaf.probability
                some = True
        if some:
            any_breaks += leaf.probability
    return results, states, broke, any_breaks, count
