"""What a player may do now, in words, computed from the game alone (the cogs turn it into /help
and /unit info).

Whether an order may be given is never guessed here: a sample order is resolved on a copy of the
game, exactly as a real one would be (``api.resolve``), with dice that stop it at its first roll.
An order that reaches its first die (or completes without one) may be given now; one that is
refused gives the very words a player would read as the refusal. The sample orders are built from
the game's own units: the side's units as firers, the enemy's Location as the target.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .commands import Command, Option, Suggest, build_order
from .errors import ConfirmSight, RulesError
from .game import Game
from .grid import neighbours
from .orders import refers
from .ruleset import Ruleset
from .sequence import allowed_sides, current, refereed, side_to_act, step_name


class _WouldRoll(Exception):
    """The sample order got as far as its first die: it may be given."""


class _StopAtFirstDie:
    manual = False

    def draw(self, sides: int) -> int:
        raise _WouldRoll


def refusal(game: Game, order: dict[str, Any]) -> RulesError | None:
    """None when ``order`` may be given now (it reaches its first die, or completes), else its
    refusal. The game is not changed (``api.resolve`` works on a copy)."""
    from .api import resolve

    try:
        resolve(game, order, _StopAtFirstDie())
    except _WouldRoll:
        return None
    except ConfirmSight:  # allowed, once the giver confirms a line the bot reads as blocked
        return None
    except RulesError as exc:
        return exc
    return None


# --- sample orders from the game's own units ---------------------------------------------------------


def _live(game: Game, side: int) -> list[Any]:
    return sorted((u for u in game.units.values() if u.side == side and not u.eliminated and u.location),
                  key=lambda u: (u.holder_id is not None, u.id))


def _offered(ruleset: Ruleset, game: Game, kind: str, side: int | None) -> list[str]:
    values = [value for _, value in ruleset.suggestions(Suggest(kind), game, {})]
    if side is None:
        return values
    mine = []
    for value in values:
        unit = game.find_unit(value)
        holder = game.find_unit(unit.holder_id or "") if unit is not None else None
        if kind == "company":
            if any(u.company_name == value and u.side == side for u in game.units.values()):
                mine.append(value)
        elif unit is not None and (holder or unit).side == side:
            mine.append(value)
    return mine


def _acting(command: Command, option: Option) -> bool:
    ref = refers(command.order, option.order_field) if option.order_field in command.order.model_fields else None
    return bool(ref and ref.acting)


def sample_values(game: Game, ruleset: Ruleset, command: Command, side: int,
                  unit: Any = None) -> dict[str, str] | None:
    """Option values (as typed) for an example of ``command`` given by ``side``, with ``unit`` in the
    option it acts with when given; None when the game has no units to make one of."""
    enemy = 1 - side
    values: dict[str, str] = {}
    acted = False
    for option in command.options:
        kind = option.suggest.kind if option.suggest else None
        acting = _acting(command, option)
        value: str | None = None
        if kind in ("unit", "weapon", "company") and acting and not acted:
            if unit is not None:
                fits = {"unit": unit.holder_id is None, "weapon": unit.holder_id is not None
                        or unit.id in _offered(ruleset, game, "weapon", None),
                        "company": bool(unit.company_name)}[kind]
                value = (unit.company_name if kind == "company" else unit.id) if fits else None
            else:
                found = ([u.id for u in _live(game, side)] if kind == "unit"
                         else _offered(ruleset, game, kind, side))
                value = found[0] if found else None
            acted = value is not None
        elif kind == "location" and option.required:
            here = getattr(unit, "location", None) or next((u.location for u in _live(game, side)), None)
            targets = [u.location for u in _live(game, enemy)]
            others = [loc for loc in game.locations if loc != here]
            fired_at = ruleset.shots is not None and option.order_field == ruleset.shots.target
            value = (targets[0] if targets and not acting and fired_at else
                     next(iter(others), None))
        elif kind == "enemy_unit" and option.required:
            value = next((u.id for u in _live(game, enemy)), None)
        elif kind == "unit" and option.required:  # the unit that takes a weapon: one of the side's there
            holder = game.find_unit(unit.holder_id or "") if unit is not None else None
            where = getattr(unit, "location", None)
            value = next((u.id for u in _live(game, side) if u.location == where and u is not holder
                          and u.holder_id is None and (unit is None or u.id != unit.id)), None)
        elif option.required and option.type == "integer":
            value = str(max(option.min or 0, 1))
        elif option.required and option.choices:
            value = option.choices[0][1]
        elif option.required and kind is not None:
            found = _offered(ruleset, game, kind, None)
            value = found[0] if found else None
        if value is None:
            if option.required or (acting and unit is not None and not acted and kind in ("unit", "weapon")):
                return None
            continue
        values[option.name] = value
    if unit is not None and not acted:
        return None
    return values


def _candidates(game: Game, ruleset: Ruleset, option: Option, values: dict[str, str]) -> list[str]:
    """The other values an option may take in an example: its choices, or what autocomplete offers
    for it (a range band the firer named has)."""
    if option.choices:
        return [value for _, value in option.choices]
    if option.suggest is None or option.suggest.kind in ("unit", "enemy_unit", "location", "weapon", "company"):
        return []
    named = {name: value.split() for name, value in values.items()}
    return [value for _, value in ruleset.suggestions(option.suggest, game, named)][:8]


def typed(command: Command, values: dict[str, str]) -> str:
    """'/fire target:B5 firers:A1' as a player types it."""
    return " ".join([f"/{command.name}", *(f"{k}:{v}" for k, v in values.items())])


@dataclass(frozen=True)
class Verdict:
    """Whether ``command`` may be given now with the sample ``example``; ``why_not`` the refusal."""

    command: Command
    example: str
    why_not: str | None


def verdict(game: Game, ruleset: Ruleset, command: Command, side: int, unit: Any = None) -> Verdict | None:
    values = sample_values(game, ruleset, command, side, unit)
    if values is None:
        return None
    tried: set[tuple[str, str]] = set()
    for _ in range(8):
        try:
            refused = refusal(game, build_order(game, command.name, values))
        except RulesError as exc:
            refused = exc
        field = refused.field if refused is not None else None
        option = next((o for o in command.options if field in (o.name, o.order_field)), None)
        if option is None:
            break
        if option.type == "integer" and option.name not in values:
            values[option.name] = str(max(option.min or 0, 1))  # a number the rules need (a range): one
            continue
        untried = [v for v in _candidates(game, ruleset, option, values)
                   if (option.name, v) not in tried and v != values.get(option.name)]
        if not untried:
            break
        tried.add((option.name, values.get(option.name, "")))
        values[option.name] = untried[0]  # another of its choices (a range band the weapon has)
    if refused is not None:  # another target the game has may be a legal one: offer it rather than a refusal
        for option in command.options:
            kind = option.suggest.kind if option.suggest else None
            if option.name not in values or kind not in ("location", "enemy_unit") or _acting(command, option):
                continue
            acting = [game.find_unit(v.split()[0]) for o in command.options if o.name in values
                      and o.suggest is not None and o.suggest.kind in ("unit", "weapon") and _acting(command, o)
                      for v in [values[o.name]]]
            here = getattr(unit, "location", None) or next((u.location for u in acting if u is not None), None)
            for other in _elsewhere(game, ruleset, kind, side, here, values[option.name]):
                trial = {**values, option.name: other}
                try:
                    again = refusal(game, build_order(game, command.name, trial))
                except RulesError as exc:
                    again = exc
                if again is None:
                    return Verdict(command, typed(command, trial), None)
    return Verdict(command, typed(command, values), refused.message if refused is not None else None)


ELSEWHERE_TRIED = 8  # other targets a refused example tries before its refusal is given


def _elsewhere(game: Game, ruleset: Ruleset, kind: str, side: int, here: str | None, given: str) -> list[str]:
    """Other values of a target option, the likeliest first: the enemy's units; or the Locations the
    enemy holds, then the hexes next to ``here`` (the acting unit's: a move's destination, when the
    ruleset's grid places it), then the game's other Locations; at most ``ELSEWHERE_TRIED``."""
    enemy = _live(game, 1 - side)
    if kind == "enemy_unit":
        found = [u.id for u in enemy]
    else:
        grid = ruleset.grid
        cell = grid.cell(here, game.boards) if grid is not None and here else None
        near = [grid.name(c, game.boards) for c in neighbours(cell)
                if grid.cell(grid.name(c, game.boards), game.boards) == c] if cell is not None else []
        found = list(dict.fromkeys([u.location for u in enemy] + near + list(game.locations)))
    return [value for value in found if value not in (given, here)][:ELSEWHERE_TRIED]


def offered_now(game: Game, command: Command) -> bool:
    """Whether /help and /unit info offer ``command`` as an example in the game's phase (its order's
    ``hinted`` phases; every phase it is allowed in when it declares none)."""
    hinted = command.order.hinted
    return hinted is None or game.phase in hinted


def unit_verdicts(game: Game, ruleset: Ruleset, unit: Any) -> list[Verdict]:
    """What ``unit`` may do now: each command of the ruleset it can act in, with why not."""
    found = []
    for command in ruleset.commands:
        if not offered_now(game, command):
            continue
        result = verdict(game, ruleset, command, unit.side, unit)
        if result is not None:
            found.append(result)
    return found


# --- the overview ------------------------------------------------------------------------------------


def step_ender(game: Game, ruleset: Ruleset) -> str:
    """Which command ends the step, and who gives it."""
    if refereed(game):
        holder = game.side_name(side_to_act(game))
        step = current(game, ruleset)
        what = "its impulse" if step is not None and step.holder == "impulse" else "the step"
        return (f"{holder} end {what} with /done (the other side may ask them to with /done; "
                "the game master may jump to a phase with /game phase)")
    return "/game phase moves the game to the next phase"


def command_verdict(game: Game, ruleset: Ruleset, command: Command, side: int) -> Verdict | None:
    """Whether ``side`` may give ``command`` now: the first sample that would be accepted (built
    without a unit, then with each of the side's first units, as ``may_now`` tries them), else the
    first sample's refusal; None when the game has no units to make one of."""
    first = None
    for unit in [None, *_live(game, side)[:6]]:
        found = verdict(game, ruleset, command, side, unit)
        if found is not None and found.why_not is None:
            return found
        first = first or found
    return first


def may_now(game: Game, ruleset: Ruleset) -> dict[int, list[Verdict]]:
    """Per side, the ruleset's commands each side may give now, with a sample built from its units."""
    step = current(game, ruleset)
    result: dict[int, list[Verdict]] = {}
    for side in range(len(game.sides)):
        result[side] = []
        for command in ruleset.commands:
            if step is not None and side not in allowed_sides(game, ruleset, step, command.action):
                continue
            if command.order.gm_only_in(game) or not offered_now(game, command):
                continue  # the game master's correction, not a side's order; or not offered in this phase
            for unit in [None, *_live(game, side)[:6]]:  # the first unit that may give it, if any
                found = verdict(game, ruleset, command, side, unit)
                if found is not None and found.why_not is None:
                    result[side].append(found)
                    break
    return result


def where_now(game: Game, ruleset: Ruleset) -> str:
    return f"Turn {game.turn}, {step_name(game, ruleset)}: {game.side_name(side_to_act(game))} to act"


# --- which dice an order uses, in order ----------------------------------------------------------------


class _Faces:
    """Deterministic dice for the dice plan: every die shows ``face`` (capped at its sides)."""

    manual = True

    def __init__(self, face: int | None):
        self.face = face

    def draw(self, sides: int) -> int:
        return sides if self.face is None else min(self.face, sides)


@dataclass(frozen=True)
class DicePlan:
    """The rolls an order makes, in the order it makes them: ``always`` on every path tried, then
    ``maybe`` ones a result may call for; ``least``/``most`` dice over the paths tried."""

    always: tuple[str, ...]
    maybe: tuple[str, ...]
    least: int
    most: int


def _described(roll: Any) -> str:
    dice = {"DR": "2 d6, white then colored", "2d6": "2 d6", "dr": "1 d6"}.get(roll.kind, f"1 {roll.kind}")
    return f"{roll.kind} for {roll.purpose} ({dice})"


def dice_plan(game: Game, order: dict[str, Any]) -> DicePlan | None:
    """How the manual dice of ``order`` are used: the order resolved (on copies) with every die low,
    middling and high; the rolls every path makes come first, then those a result may call for. None
    when the order cannot be resolved now (its refusal says why) or rolls nothing."""
    from .api import resolve

    paths = []
    for face in (1, 3, 4, None):
        try:
            paths.append(resolve(game, order, _Faces(face)).outcome.rolls)
        except RulesError:
            continue
    if not paths or not any(paths):
        return None
    described = [[_described(r) for r in rolls] for rolls in paths]
    common = 0
    while all(len(d) > common for d in described) and len({d[common] for d in described}) == 1:
        common += 1
    always = tuple(described[0][:common])
    maybe = tuple(dict.fromkeys(text for d in described for text in d[common:]))
    counts = [sum(len(r.dice) for r in rolls) for rolls in paths]
    return DicePlan(always, maybe, min(counts), max(counts))
