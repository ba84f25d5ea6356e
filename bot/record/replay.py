"""Replaying a game's log: the entries that are not rules orders, and the chain verifier.

Entry 1 of every game is its creation and the last entry of an ended game is its end; neither
goes through the rules core's order union, so their Outcomes are built here, the same way when
the command runs and when verify replays it. ``ChainVerifier`` checks one entry at a time
(seq, link, hash, then a replay through ``bot.core.api``), so verify can stream a long log.

Rules versions (bot/core/version.py): the hash chain always covers every entry whole, and the
replay must always reproduce the dice each entry consumed and the state after it. The Outcome
is compared bit for bit only for entries logged under today's RULES_VERSION: an entry logged
under another version may read differently today (a reworded trail line, a corrected rule
reference) without anything having been tampered with. ``replay_difference`` is that check,
shared by verify and ``python -m bot rules replay``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from bot.core.api import new_game, resolve
from bot.core.sealed import note_sealed, reveal_sealed
from bot.core.dice import ScriptedDice
from bot.core.errors import InvalidOrder, RulesError
from bot.core.game import Game
from bot.core.options import created_values
from bot.core.grid import GRID_MARK
from bot.core.scenario import Scenario, build_game
from bot.core.outcome import Outcome, UnitEffect
from bot.core.rulesets import get_ruleset, title_of
from bot.core.trail import Trail
from bot.core import reactions
from bot.core.sequence import SEQUENCE
from bot.core.version import RULES_VERSION

from .chain import GENESIS_HASH, LogEntry
from .checkpoint import Checkpoint
from .dice_audit import CONTRIBUTE, DiceAudit, opened_of
from .sealing import PEEK, REVEAL, SEAL, check_peek, check_reveal, peek_outcome, reveal_outcome, seal_outcome
from .state_text import StateHasher

log = logging.getLogger(__name__)


class SavedHead(Protocol):
    """What a store saved of a game besides its log: the newest entry it points at and the state.
    (A store's game row, e.g. ``bot.store.StoredGame``; the record needs no store to check it.)"""

    last_seq: int
    head_hash: str
    game: Game


NEW_GAME = "new_game"
END_GAME = "end_game"
REOPEN_GAME = "reopen_game"  # the game master reopens a game ended by mistake (within a day: bot/service/games.py)
UNDO = "undo"  # a reverting entry: its order names the entry it undoes and holds the state before it


def creation_order(ruleset: str, sides: list[str], scenario: str, variant: str | None,
                   options: dict[str, Any] | None, gm: int, setup: dict[str, Any] | None = None) -> dict[str, Any]:
    """A new game's entry 1: everything the game is made from, and that its sequence of play is
    refereed (``sequence``; a creation logged before it was has none, and replays without it).
    ``setup``: a scenario file's whole set-up (bot/core/scenario.py, as plain data), so a game set up
    from a file is one entry, replayed by setting the same scenario up again. A ruleset's
    ``creation_defaults`` and the bot's own options' ``created`` values (how games created today
    play) follow the options given."""
    given = dict(options or {})
    try:
        rules = get_ruleset(ruleset)
        defaults = dict(rules.creation_defaults) | created_values(given)
        if rules.grid is not None:  # the map counts ranges and reads lines of sight (bot/core/grid.py)
            defaults.setdefault(GRID_MARK, 1)
    except InvalidOrder:  # an unknown ruleset: new_game refuses it by name
        defaults = {}
    if (paced := reactions.creation_value(given)) is not None:  # a game paced by post waits for reactions
        given[reactions.OPTION] = paced
        if setup is not None:  # a scenario file's game is made from its set-up: its options say so too
            setup = setup | {"options": dict(setup.get("options") or {}) | {reactions.OPTION: paced}}
    order = {"action": NEW_GAME, "ruleset": ruleset, "sides": list(sides), "scenario": scenario,
             "variant": variant, "options": given | {k: v for k, v in defaults.items() if k not in given},
             "gm": gm, "sequence": SEQUENCE}
    if setup is not None:
        order["setup"] = setup
        # a scenario file's game is made from its set-up, not from "options": the defaults go along
        # by name (a creation logged before they did has none, and replays without them)
        if defaults:
            order["defaults"] = {k: v for k, v in defaults.items() if k not in given}
    return order


OPTION_ORDER = "option_order"  # a creation's record of the order of the new game's options


def game_from_creation(order: dict[str, Any]) -> Game:
    if order.get("setup") is not None:
        try:
            scenario = Scenario.model_validate(order["setup"])
        except ValueError:
            raise ReplayRefused("the game's creation holds a scenario that does not validate") from None
        game = build_game(scenario, gm=order.get("gm"), sequence=order.get("sequence"))
        defaults = order.get("defaults")
        if isinstance(defaults, dict):
            game.options.update({k: v for k, v in defaults.items() if k not in game.options})
    else:
        game = new_game(order.get("ruleset", ""), sides=list(order.get("sides") or []),
                        scenario=order.get("scenario") or "", variant=order.get("variant"),
                        options=order.get("options"), gm=order.get("gm"), sequence=order.get("sequence"))
    return _options_in_created_order(game, order)


def with_option_order(order: dict[str, Any], game: Game) -> dict[str, Any]:
    """The creation ``order`` that made ``game``, with the order of the game's options recorded
    (``option_order``): the log keeps an order as canonical JSON, its keys sorted, so a replay
    would otherwise set the options up sorted, while the game made live keeps them as given (the
    options typed, then the creation defaults): a checkpoint or an undo's state would not be the
    state the replay from entry 1 gives."""
    return order | {OPTION_ORDER: list(game.options)}


def _options_in_created_order(game: Game, order: dict[str, Any]) -> Game:
    """``game`` with its options in the order its creation recorded; a creation logged before the
    order was recorded keeps the order its (sorted) options give."""
    logged = order.get(OPTION_ORDER)
    if logged is None:
        return game
    if not isinstance(logged, list) or not all(type(key) is str for key in logged) \
            or sorted(logged) != sorted(game.options):
        raise ReplayRefused("the game's creation records an order of its options that does not match them")
    game.options = {key: game.options[key] for key in logged}
    return game


def creation_outcome(game: Game) -> Outcome:
    trail = Trail()
    ruleset = get_ruleset(game.ruleset)
    for i, side in enumerate(game.sides):
        given = [f"{option.name.upper()} {getattr(side, option.name)}" for option in ruleset.side_options
                 if getattr(side, option.name, None) is not None]  # the scenario's numbers (ASL's ELR)
        trail.note(f"Side {i + 1}: {side.name}" + (f" ({', '.join(given)})" if given else ""))
    if game.gm is not None:
        trail.note(f"Game master: <@{game.gm}>")
    trail.note(f"Turn {game.turn}, {get_ruleset(game.ruleset).phase_names.get(game.phase, game.phase)}")
    if game.turns is not None:
        trail.note(f"The scenario lasts {game.turns} game turn{'s' * (game.turns != 1)}")
    if game.units or game.locations:  # set up from a scenario file, in this one entry
        counts = ", ".join(f"{side.name} {sum(1 for u in game.units.values() if u.side == i)}"
                           for i, side in enumerate(game.sides))
        trail.note(f"Set up from a scenario file: {len(game.units)} unit{'s' * (len(game.units) != 1)} ({counts}), "
                   f"{len(game.locations)} Location{'s' * (len(game.locations) != 1)}")
    title = title_of(game.ruleset)
    headline = f"New {title} game: {game.sides[0].name} vs {game.sides[1].name}"
    if game.scenario:
        headline += f" ({game.scenario})"
    return Outcome(ruleset=game.ruleset, action=NEW_GAME, headline=headline, trail=trail.freeze())


def ending_outcome(game: Game) -> Outcome:
    trail = Trail()
    for i, side in enumerate(game.sides):
        left = sum(1 for u in game.units.values() if u.side == i and not u.eliminated)
        trail.note(f"{side.name}: {left} unit{'s' if left != 1 else ''} in play")
    return Outcome(ruleset=game.ruleset, action=END_GAME,
                   headline=f"Game over after turn {game.turn}", trail=trail.freeze())


def reopen_outcome(game: Game, order: dict[str, Any]) -> Outcome:
    """The game master reopened the game its end entry closed: the game is as it was at its end."""
    trail = Trail()
    ended = order.get("ended")
    trail.note(f"The game ended at entry #{ended} is reopened by the game master; that entry stays in the log")
    trail.note("A new dice seed is committed for the rest of the game (the last one was revealed at its end)")
    ruleset = get_ruleset(game.ruleset)
    trail.note(f"Play goes on at turn {game.turn}, {ruleset.phase_names.get(game.phase, game.phase)}")
    return Outcome(ruleset=game.ruleset, action=REOPEN_GAME, headline=f"Game reopened after turn {game.turn}",
                   trail=trail.freeze())


def contribution_outcome(game: Game, order: dict[str, Any]) -> Outcome:
    """A side changed its dice contribution (docs/dice.md): the game is unchanged."""
    side = order.get("side")
    name = game.side_name(side) if isinstance(side, int) and 0 <= side < len(game.sides) else f"side {side}"
    trail = Trail()
    trail.note(f"Contribution: SHA-256 {str(order.get('value', ''))[:16]}... of the text its player chose")
    trail.note("Every die drawn from now on derives from it too, with the seed committed before it and "
               "each order's own interaction (docs/dice.md)")
    return Outcome(ruleset=game.ruleset, action=CONTRIBUTE, headline=f"{name} changed its dice contribution",
                   actor_side=side if isinstance(side, int) else None, trail=trail.freeze())


def _unit_summary(unit: Any) -> str:
    """A unit's counter, place and markers in its ruleset's words (never a field's name), to show
    what an undo puts back: "2-2-7, B5, broken, DM"."""
    where = "eliminated" if unit.eliminated else (unit.location or "off board")
    return ", ".join([unit.name, where, get_ruleset(unit.system).unit_status(unit)])


def proposer_side(game: Game, user_id: Any) -> int | None:
    """The side the proposer of an undo plays, when exactly one (the game master: none)."""
    sides = [i for i, side in enumerate(game.sides) if user_id in side.players]
    return sides[0] if len(sides) == 1 else None


def undo_outcome(current: Game, restored: Game, order: dict[str, Any]) -> Outcome:
    """The Outcome of a reverting entry, built from the game before and after it and the undo
    order alone, so that verify and ``rules replay`` rebuild it exactly."""
    target = order["undoes"]
    trail = Trail()
    trail.note(f"Entry #{target} is undone by consent: proposed by one player, accepted by the other "
               "side or the game master")
    trail.note(f"Entry #{target} stays in the log with its dice; giving the order again rolls new dice")
    ruleset = get_ruleset(restored.ruleset)
    trail.note(f"Back to turn {restored.turn}, {ruleset.phase_names.get(restored.phase, restored.phase)} "
               f"({restored.side_name(restored.active_side)})")
    effects = []
    for unit_id in sorted(set(current.units) | set(restored.units)):
        now, then = current.units.get(unit_id), restored.units.get(unit_id)
        if now == then:
            continue
        unit = then or now
        effects.append(UnitEffect(unit=unit_id, name=unit.name, side=unit.side,
                                  before=_unit_summary(now) if now else "not in the game",
                                  after=_unit_summary(then) if then else "not in the game",
                                  effects=("undone",)))
    return Outcome(ruleset=restored.ruleset, action=UNDO, headline=f"Entry #{target} undone",
                   actor_side=proposer_side(restored, order.get("proposed_by")), trail=trail.freeze(),
                   effects=tuple(effects))


def given_again(undone_by: dict[int, int], seq: int, action: Any, side: Any,
                of: Callable[[int], tuple[Any, Any] | None]) -> int | None:
    """The entry that the order of entry ``seq`` gives again, or None: the entry just before it is
    an undo (``undone_by``: seq undone -> seq of the undo) of an entry of the same action by the same
    side (``of(seq)``: that entry's action and acting side, None when unknown). The log shows the
    mark (the reply, /log show, the exports): the dice of the undone entry stay, these are new."""
    if side is None:
        return None
    target = next((undone for undone, undo in undone_by.items() if undo == seq - 1), None)
    if target is None or of(target) != (action, side):
        return None
    return target


class Replayer:
    """The game rebuilt entry by entry from the logged orders and dice, as verify, ``rules
    replay``, the exports and an undo proposal all need it.

    ``live`` is the stack of entries not undone (with the state hash after each): an undo may
    only revert the top one, and the state it restores must hash like the entry below it, so
    an undo entry is checked against the log itself, never trusted.
    """

    def __init__(self) -> None:
        self.game: Game | None = None
        self.ended = False
        self.live: list[tuple[int, str]] = []  # (seq, state hash after it), entries not undone
        self.undone: dict[int, int] = {}  # seq undone -> seq of the undo entry
        # False after an undo logged before undo entries recorded the order of the units and
        # Locations: from there on the replayed game holds them sorted by id, whatever order the
        # live game kept
        self.order_known = True
        self.last_sides: list[int] = []  # the faces of each die the last entry drew, in order
        # sealed orders: seq of the seal -> its commitment, side, and the seq that opened it (or None)
        self.seals: dict[int, dict[str, Any]] = {}
        self.whole_log = True  # False when resumed from a checkpoint (the seals before it are not known)
        self._last_hash: str | None = None  # the state hash after the last entry applied
        self._hash_due = False  # the state was replayed but not hashed yet (``last_hash``)
        # False when resumed from a checkpoint that kept only the top of ``live``
        self.whole = True
        # the state after each entry hashed from the parts that did not change (issue 17)
        self.hasher = StateHasher()
        # True while ``game`` is a copy this replayer made and nothing else holds: an order is
        # then resolved on it in place (copying a 300-unit game was most of a replayed entry);
        # a refusal ends every replay, so a game a refused order half-changed is not played on
        self._owned = False

    @classmethod
    def resume(cls, checkpoint: Checkpoint, game: Game) -> "Replayer":
        """Go on from a checkpoint whose state ``game`` checked out (``Checkpoint.game``)."""
        replayer = cls()
        replayer.game, replayer.last_hash = game, checkpoint.entry.state_hash
        replayer.live, replayer.whole = list(checkpoint.top), checkpoint.whole
        replayer.ended = checkpoint.entry.order.get("action") == END_GAME
        replayer.whole_log = False
        return replayer

    def undo_target(self) -> int | None:
        """The entry an undo would revert now: the newest one not undone (never the creation)."""
        if len(self.live) < 2 and not self.whole:
            raise ReplayRefused("an undo reaches further back than the checkpoint the replay began at "
                                "kept: verify the whole log")
        return self.live[-1][0] if len(self.live) >= 2 else None

    @property
    def last_hash(self) -> str | None:
        """The state hash after the last entry applied (computed when first asked, after an entry
        applied with its ``logged_hash``)."""
        if self._hash_due:
            self._last_hash, self._hash_due = self.hasher.hash(self.game), False  # type: ignore[arg-type]
        return self._last_hash

    @last_hash.setter
    def last_hash(self, value: str | None) -> None:
        self._last_hash, self._hash_due = value, False

    def apply(self, seq: int, order: dict[str, Any], dice: list[int] | tuple[int, ...],
              manual: bool, logged_hash: str | None = None) -> tuple[Game, Outcome]:
        """Replay one entry; raises ReplayRefused (or a RulesError) when it cannot stand.

        With ``logged_hash`` (the state hash the entry recorded) the replayed state is not hashed
        now: the stack of entries not undone takes the logged hash, and the caller compares
        ``last_hash`` with the logged one once, after the last entry (the Odds of an old result:
        a replay that went astray anywhere ends in another state)."""
        action = order.get("action")
        self.last_sides = []
        if self.ended and action != REOPEN_GAME:
            raise ReplayRefused(f"entry #{seq} comes after the game's end")
        if self.game is None:
            if action != NEW_GAME:
                raise ReplayRefused(f"entry #{seq} is not the creation of the game")
            game = game_from_creation(order)
            outcome = creation_outcome(game)
        elif action == NEW_GAME:
            raise ReplayRefused(f"entry #{seq} creates a game inside a game")
        elif action == END_GAME:
            game, outcome = self.game, ending_outcome(self.game)
        elif action == REOPEN_GAME:
            if not self.ended or order.get("ended") != seq - 1:
                raise ReplayRefused(f"entry #{seq} reopens a game its entry #{seq - 1} did not end")
            game, outcome = self.game, reopen_outcome(self.game, order)
        elif action == UNDO:
            game, outcome = self._undo(seq, order)
        elif action == CONTRIBUTE:
            game, outcome = self.game, contribution_outcome(self.game, order)
        elif action == SEAL:
            notes: list[tuple[str, str]] = []
            game = self.game
            if order.get("applies"):  # an order sealed under the sequence of play (bot/core/sealed.py)
                game, notes = note_sealed(self.game, seq, order.get("side"))  # type: ignore[arg-type]
            outcome = seal_outcome(self.game, seq, order, notes)
            self.seals[seq] = {"commitment": order.get("commitment"), "side": order.get("side"), "opened": None,
                               "roll": order.get("roll")}
        elif action == REVEAL:
            # a replay resumed from a checkpoint does not know the seals before it: the check from
            # entry 1 (/log verify, rules audit) checks those
            if self.whole_log or order.get("sealed") in self.seals:
                problem = check_reveal(seq, order, self.seals)
                if problem is not None:
                    raise ReplayRefused(problem)
                self.seals[order["sealed"]]["opened"] = seq
            sealed = order.get("sealed")
            applied = reveal_sealed(self.game, sealed, str(order.get("text", ""))) if isinstance(sealed, int) else None
            game = applied.game if applied is not None else self.game
            outcome = reveal_outcome(self.game, order, applied.outcome if applied is not None else None)
        elif action == PEEK:  # a look at a sealed text: the game is unchanged, the seal still closed
            if self.whole_log or order.get("sealed") in self.seals:
                problem = check_peek(seq, order, self.seals)
                if problem is not None:
                    raise ReplayRefused(problem)
            game, outcome = self.game, peek_outcome(self.game, order)
        else:
            source = ScriptedDice(list(dice), manual=manual)
            owned, self._owned = self._owned, False  # refused: the game may be half-changed
            resolution = resolve(self.game, order, source, in_place=owned)
            game, outcome = resolution.game, resolution.outcome
            self.last_sides = source.sides
            self.game = game
            self._owned = True  # the copy resolve made, or the game it was already
        if game is not self.game:  # a game made elsewhere (the creation, an undo's state): copied first
            self.game, self._owned = game, False
        if logged_hash is None:
            self.last_hash = self.hasher.hash(game)  # computed once: verify compares it with the logged one
        else:
            self._hash_due = True
        if action == END_GAME:
            self.ended = True
        elif action == REOPEN_GAME:
            self.ended = False
        elif action == UNDO:
            target = order["undoes"]
            self.live.pop()
            self.undone[target] = seq
        else:
            self.live.append((seq, logged_hash if logged_hash is not None else self.last_hash))  # type: ignore[arg-type]
        return game, outcome

    def _undo(self, seq: int, order: dict[str, Any]) -> tuple[Game, Outcome]:
        target = order.get("undoes")
        if target != self.undo_target():
            raise ReplayRefused(f"entry #{seq} undoes #{target}, but the entry an undo could revert "
                                f"then was #{self.undo_target()}")
        try:
            restored = Game.model_validate(order.get("state"))
        except ValueError:
            raise ReplayRefused(f"entry #{seq} does not hold a valid game state to restore") from None
        restored = _in_logged_order(seq, restored, order)
        if "unit_order" not in order:
            self.order_known = False
        if self.hasher.hash(restored) != self.live[-2][1]:
            raise ReplayRefused(f"entry #{seq} restores a state that is not the one before #{target}")
        assert self.game is not None
        return restored, undo_outcome(self.game, restored, order)


def _in_logged_order(seq: int, restored: Game, order: dict[str, Any]) -> Game:
    """The restored state with its units, Locations and options in the order the undo entry
    recorded (``unit_order``, ``location_order``, ``option_order``): the state itself comes back
    from canonical JSON with its keys sorted. An undo logged before an order was recorded keeps
    the sorted order."""
    for field in ("units", "locations", "options"):
        logged = order.get(f"{field[:-1]}_order")
        if logged is None:
            continue
        held = getattr(restored, field)
        if (not isinstance(logged, list) or not all(type(key) is str for key in logged)
                or sorted(logged) != sorted(held)):
            raise ReplayRefused(f"entry #{seq} records an order of its {field} that does not match its state")
        setattr(restored, field, {key: held[key] for key in logged})
    return restored


class ReplayRefused(Exception):
    """A logged entry that cannot be replayed (out of place, or an undo that does not match)."""


def first_difference(logged: Any, replayed: Any, path: str = "outcome") -> str | None:
    """Where two JSON values first differ, e.g. "outcome.rolls[0].dice: logged [3, 4], replayed [3, 5]"."""
    if isinstance(logged, dict) and isinstance(replayed, dict):
        for key in list(logged) + [k for k in replayed if k not in logged]:
            found = first_difference(logged.get(key), replayed.get(key), f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(logged, list) and isinstance(replayed, list) and len(logged) == len(replayed):
        for i, (a, b) in enumerate(zip(logged, replayed)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    if logged == replayed:
        return None
    return f"{path}: logged {json.dumps(logged)[:80]}, replayed {json.dumps(replayed)[:80]}"


def dice_view(outcome: dict[str, Any]) -> dict[str, list[int]]:
    """The dice an Outcome consumed: those its rolls used, in order, then those given but not needed."""
    rolled = [d for roll in outcome.get("rolls") or () for d in roll.get("dice") or ()]
    return {"rolled": rolled, "unused": list(outcome.get("unused_dice") or ())}


class Difference(NamedTuple):
    """What a replayed entry got wrong: ``kind`` is "result" (the Outcome, today's rules version
    only), "dice" (the dice consumed) or "state" (the state after it); ``detail`` says where."""

    kind: str
    detail: str


# Orders whose trail lists the fields of a dict in its keys' order. Before the service sorted an
# order's keys (bot.service.basics.plain_order), a /unit edit listed its changes in the order typed live,
# while its logged order (canonical JSON, keys sorted) replays them sorted.
_FIELD_ORDER_ACTIONS = frozenset({"unit_edit", "unit_edit_many"})


def _same_edits_in_another_order(logged: dict[str, Any], replayed: dict[str, Any]) -> bool:
    """A unit edit logged with its trail in the order its fields were typed, the replay's in
    sorted order, and nothing else different: the same result (the typed order is not logged)."""
    if logged.get("action") not in _FIELD_ORDER_ACTIONS or replayed.get("action") != logged.get("action"):
        return False
    trails = [outcome.get("trail") for outcome in (logged, replayed)]
    if not all(isinstance(trail, list) for trail in trails):
        return False
    steps = [sorted(json.dumps(step, sort_keys=True) for step in trail) for trail in trails]  # as multisets
    return first_difference({**logged, "trail": None}, {**replayed, "trail": None}) is None and steps[0] == steps[1]


# A unit added with numbers of its own says so in one trail note (bot/core/setup.py), listing them
# in the order's keys' order. Between the note's arrival (436e610) and the service sorting an
# order's keys live (8296eec), it listed them in the order typed, while the logged order (canonical
# JSON, keys sorted) replays them sorted.
_CUSTOM_NOTE = "Set by the game master, not the library counter's: "
_CUSTOM_ACTIONS = frozenset({"unit_add", "unit_add_many"})


def _same_numbers_in_another_order(logged: dict[str, Any], replayed: dict[str, Any]) -> bool:
    """A unit added with its custom numbers noted in the order they were typed, the replay's in
    sorted order, and nothing else different: every step the same but such notes, each listing the
    same "name value" items (compared as multisets) in another order."""
    if logged.get("action") not in _CUSTOM_ACTIONS or replayed.get("action") != logged.get("action"):
        return False
    trails = [outcome.get("trail") for outcome in (logged, replayed)]
    if not all(isinstance(trail, list) for trail in trails) or len(trails[0]) != len(trails[1]):
        return False
    for then, now in zip(*trails):
        if then == now:
            continue
        if not (isinstance(then, dict) and isinstance(now, dict) and {**then, "label": None} == {**now, "label": None}):
            return False
        labels = [then.get("label"), now.get("label")]
        if not all(isinstance(label, str) and label.startswith(_CUSTOM_NOTE) for label in labels):
            return False
        items = [sorted(label[len(_CUSTOM_NOTE):].split(", ")) for label in labels]
        if items[0] != items[1]:
            return False
    return first_difference({**logged, "trail": None}, {**replayed, "trail": None}) is None


def replay_difference(rules_version: int, logged: dict[str, Any], replayed: dict[str, Any],
                      logged_state: str | None, replayed_state: str | None) -> Difference | None:
    """The first thing a replayed entry got wrong, or None: the whole Outcome for an entry of
    today's rules version, only the dice consumed for an older one, and for every entry the
    state after it (when the entry recorded its state hash)."""
    if rules_version == RULES_VERSION:
        # equal outcomes have no first difference: the walk only runs to say where they differ
        difference = None if logged == replayed else first_difference(logged, replayed)
        if difference and not _same_edits_in_another_order(logged, replayed) \
                and not _same_numbers_in_another_order(logged, replayed):
            return Difference("result", difference)
    else:
        difference = first_difference(dice_view(logged), dice_view(replayed), "dice")
        if difference:
            return Difference("dice", difference)
    if logged_state is not None and logged_state != replayed_state:
        return Difference("state", f"state hash: logged {logged_state[:12]}..., replayed "
                                   f"{(replayed_state or '')[:12]}...")
    return None


def _entries(count: int) -> str:
    return f"{count} entr{'y' if count == 1 else 'ies'}"


def versions_note(total: int, by_version: dict[int, int]) -> str:
    """How the entries of other rules versions were checked, for the reports of verify and
    replay, e.g. "3 entries were logged under earlier rules (version 1; today's rules are version
    2): their dice and the state after each were reproduced, their wording is not compared; the
    other 5 reproduced bit for bit". "" when every entry is of today's version."""
    other = {v: n for v, n in sorted(by_version.items()) if v != RULES_VERSION and n}
    if not other:
        return ""
    count = sum(other.values())
    which = "earlier" if max(other) < RULES_VERSION else "other"
    versions = (f"version {next(iter(other))}" if len(other) == 1
                else ", ".join(f"{n} of version {v}" for v, n in other.items()))
    note = (f"{_entries(count)} {'was' if count == 1 else 'were'} logged under {which} rules ({versions}; "
            f"today's rules are version {RULES_VERSION}): {'its' if count == 1 else 'their'} dice and the "
            f"state after each were reproduced, {'its' if count == 1 else 'their'} wording is not compared")
    if total > count:
        note += f"; the other {total - count} reproduced bit for bit"
    return note


@dataclass(frozen=True)
class Problem:
    seq: int | None  # the first entry that does not match; None when the game row itself is off
    reason: str


class ChainVerifier:
    """Feed it a game's entries in seq order; it reports the first one that does not match."""

    def __init__(self) -> None:
        self.checked = 0
        self.expected_seq = 1
        self.prev_hash = GENESIS_HASH
        self.last_state_hash: str | None = None
        self.replayer = Replayer()
        self.by_version: dict[int, int] = {}  # rules version -> entries checked that were logged under it
        self.dice = DiceAudit()  # committed dice: re-derived at each reveal of a seed
        self.resumed_at = 0  # the checkpoint's entry the check went on from (0: from entry 1)
        # True: each replayed state is not hashed, only the last (``settled``): a check up to a
        # point (an undo proposal) that needs the state there, not which entry first went astray
        self.hash_once = False

    def settled(self) -> Problem | None:
        """After the last entry of a ``hash_once`` check: the replayed state must be the one that
        entry recorded (a replay that went astray anywhere ends in another state)."""
        if self.hash_once and self.expected_seq > 1 and self.replayer.last_hash != self.last_state_hash:
            last = self.expected_seq - 1
            return Problem(last, f"the state after replaying entry #{last} does not match the hash it recorded")
        return None

    @classmethod
    def resume(cls, checkpoint: Checkpoint | None, until: int | None = None, *,
               hash_once: bool = False) -> "ChainVerifier":
        """A verifier that goes on after ``checkpoint`` (bot/record/checkpoint.py) when its state
        checks out against the state hash its entry recorded and, for a check that stops at entry
        ``until``, its kept stack reaches every undo up to there; else one that starts at entry 1.
        Feed it the entries after ``resumed_at``."""
        verifier = cls()
        verifier.hash_once = hash_once
        if checkpoint is None or (until is not None and (checkpoint.seq > until or not checkpoint.reaches(until))):
            return verifier
        game = checkpoint.game()
        if game is None:
            log.warning("checkpoint at entry #%s of game %s does not match its entry: replaying from entry 1",
                        checkpoint.seq, checkpoint.entry.game_id)
            return verifier
        verifier.replayer = Replayer.resume(checkpoint, game)
        verifier.resumed_at = checkpoint.seq
        verifier.expected_seq = checkpoint.seq + 1
        verifier.prev_hash = checkpoint.entry.hash
        verifier.last_state_hash = checkpoint.entry.state_hash
        return verifier

    def check(self, entry: LogEntry) -> Problem | None:
        n = self.expected_seq
        if entry.seq != n:
            return Problem(n, f"entry #{n} is missing: the log goes from #{n - 1} to #{entry.seq}")
        if entry.prev_hash != self.prev_hash:
            return Problem(n, f"entry #{n} does not link to entry #{n - 1}: the chain is broken here")
        if entry.expected_hash() != entry.hash:
            return Problem(n, f"entry #{n} was changed after it was written: its content does not "
                              "match its hash")
        turn = self.replayer.game.turn if self.replayer.game is not None else None  # the turn it was given in
        reason = self._replay(entry)
        if reason:
            return Problem(n, reason)
        dice = self.dice.check(n, entry.game_id, entry.interaction_id, entry.order, entry.dice_proof, entry.dice,
                               entry.manual, self.replayer.last_sides, turn=turn, entry_hash=entry.hash)
        if dice is not None:
            return Problem(dice.seq, dice.reason)
        opened = self._opened_at_turn_end(entry)
        if opened is not None:
            return Problem(n, opened)
        self.checked += 1
        self.by_version[entry.rules_version] = self.by_version.get(entry.rules_version, 0) + 1
        self.expected_seq += 1
        self.prev_hash = entry.hash
        self.last_state_hash = entry.state_hash
        return None

    def _opened_at_turn_end(self, entry: LogEntry) -> str | None:
        """The secret rolls the end of a game turn opens (the proof's ``opened``), each checked against
        its seal's commitment like a /reveal (their dice are re-derived by ``DiceAudit``)."""
        seals = self.replayer.seals
        for item in opened_of(entry.dice_proof):
            target = item.get("sealed")
            if not self.replayer.whole_log and target not in seals:
                continue  # sealed before the checkpoint the check began at: the check from entry 1 covers it
            sealed = seals.get(target) if isinstance(target, int) else None
            order = {"sealed": target, "text": item.get("text"), "nonce": item.get("nonce"),
                     "side": sealed["side"] if sealed else None, "roll": sealed["roll"] if sealed else None}
            problem = check_reveal(entry.seq, order, seals)
            if problem is not None:
                return problem.replace("reveals", "opens at the end of the game turn", 1)
            seals[target]["opened"] = entry.seq
        return None

    def _replay(self, entry: LogEntry) -> str | None:
        n = entry.seq
        try:
            # hash_once: the state is hashed after the last entry only (``settled``)
            _game, outcome = self.replayer.apply(n, entry.order, entry.dice, entry.manual,
                                                 entry.state_hash if self.hash_once else None)
        except ReplayRefused as exc:
            return str(exc)
        except RulesError as exc:
            return f"replaying entry #{n} is refused: {exc}"
        difference = replay_difference(entry.rules_version, entry.outcome, outcome.model_dump(mode="json"),
                                       None if self.hash_once else entry.state_hash,
                                       None if self.hash_once else self.replayer.last_hash)
        if difference is None:
            return None
        if difference.kind == "result":
            return f"replaying entry #{n} gives a different result ({difference.detail})"
        earlier = (f" (it was logged under rules version {entry.rules_version}; today's is {RULES_VERSION})"
                   if entry.rules_version != RULES_VERSION else "")
        if difference.kind == "dice":
            return f"replaying entry #{n} consumes different dice ({difference.detail}){earlier}"
        return f"the state after replaying entry #{n} does not match the hash it recorded{earlier}"

    def summary(self) -> str:
        """The report of a log that checks out, saying how entries of earlier rules were checked."""
        note = versions_note(self.checked, self.by_version)
        dice = self.dice.summary()
        dice = f"; dice: {dice}" if dice else ""
        seals = self.replayer.seals
        if seals:
            opened = sum(1 for sealed in seals.values() if sealed["opened"])
            dice += (f"; sealed orders: {len(seals)}, {opened} revealed and matching their commitments, "
                     f"{len(seals) - opened} still sealed")
        if not note:
            return (f"all {self.checked} entries check out: the chain is intact and the replay "
                    f"reproduces every result and the saved state{dice}")
        return (f"all {self.checked} entries check out: the chain is intact and the replay reproduces "
                f"the saved state; {note}{dice}")

    @property
    def game(self) -> Game | None:
        """The game as replayed up to the last entry checked."""
        return self.replayer.game

    def finish(self, stored: SavedHead) -> Problem | None:
        """After the last entry: the game row must point at it and hold the replayed state."""
        last = self.expected_seq - 1
        if last == 0:
            return Problem(1, "entry #1 is missing: the log is empty")
        if stored.last_seq > last:
            return Problem(last + 1, f"entry #{last + 1} is missing: the log ends at #{last} but "
                                     f"the game recorded #{stored.last_seq}")
        if stored.last_seq < last or stored.head_hash != self.prev_hash:
            return Problem(None, f"the game's record of its last entry (#{stored.last_seq}) does not "
                                 f"match the log's last entry (#{last})")
        if self.replayer.hasher.hash(stored.game) != self.last_state_hash:
            return Problem(None, f"the saved game state does not match the state after entry #{last}: "
                                 "it was changed outside the bot")
        replayed = self.replayer.game
        # the state hash covers sorted JSON, blind to the order of the units and Locations; but
        # the order is part of the game (a stack is listed, and checks, in it), so it is compared
        # here, when the log tells it (an old undo entry does not)
        if replayed is not None and self.replayer.order_known:
            for field, name in (("units", "units"), ("locations", "Locations")):
                if list(getattr(stored.game, field)) != list(getattr(replayed, field)):
                    return Problem(None, f"the saved game state holds its {name} in another order than the "
                                         f"state after entry #{last}: it was changed outside the bot")
        return None
