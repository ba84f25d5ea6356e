"""Replaying a game's log: the entries that are not rules orders, and the chain verifier.

Entry 1 of every game is its creation and the last entry of an ended game is its end; neither
goes through the rules core's order union, so their Outcomes are built here, the same way when
the command runs and when verify replays it. ``ChainVerifier`` checks one entry at a time
(seq, link, hash, then a replay through ``bot.core.api``), so verify can stream a long log.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bot.core.api import new_game, resolve
from bot.core.dice import ScriptedDice
from bot.core.errors import RulesError
from bot.core.game import Game
from bot.core.outcome import Outcome
from bot.core.rulesets import RULESET_TITLES, get_ruleset
from bot.core.trail import Trail

from .base import StoredGame
from .chain import GENESIS_HASH, LogEntry, state_hash

NEW_GAME = "new_game"
END_GAME = "end_game"


def creation_order(ruleset: str, sides: list[str], scenario: str, variant: str | None,
                   options: dict[str, Any] | None, gm: int) -> dict[str, Any]:
    return {"action": NEW_GAME, "ruleset": ruleset, "sides": list(sides), "scenario": scenario,
            "variant": variant, "options": dict(options or {}), "gm": gm}


def game_from_creation(order: dict[str, Any]) -> Game:
    return new_game(order.get("ruleset", ""), sides=list(order.get("sides") or []),
                    scenario=order.get("scenario") or "", variant=order.get("variant"),
                    options=order.get("options"), gm=order.get("gm"))


def creation_outcome(game: Game) -> Outcome:
    trail = Trail()
    for i, side in enumerate(game.sides):
        trail.note(f"Side {i + 1}: {side.name}" + (f" (ELR {side.elr})" if side.elr is not None else ""))
    if game.gm is not None:
        trail.note(f"Game master: <@{game.gm}>")
    trail.note(f"Turn {game.turn}, {get_ruleset(game.ruleset).phase_names.get(game.phase, game.phase)}")
    title = RULESET_TITLES.get(game.ruleset, game.ruleset)
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
        self.game: Game | None = None
        self.ended = False

    def check(self, entry: LogEntry) -> Problem | None:
        n = self.expected_seq
        if entry.seq != n:
            return Problem(n, f"entry #{n} is missing: the log goes from #{n - 1} to #{entry.seq}")
        if entry.prev_hash != self.prev_hash:
            return Problem(n, f"entry #{n} does not link to entry #{n - 1}: the chain is broken here")
        if entry.expected_hash() != entry.hash:
            return Problem(n, f"entry #{n} was changed after it was written: its content does not "
                              "match its hash")
        reason = self._replay(entry)
        if reason:
            return Problem(n, reason)
        self.checked += 1
        self.expected_seq += 1
        self.prev_hash = entry.hash
        self.last_state_hash = entry.state_hash
        return None

    def _replay(self, entry: LogEntry) -> str | None:
        n = entry.seq
        action = entry.order.get("action")
        if self.ended:
            return f"entry #{n} comes after the game's end"
        try:
            if n == 1:
                if action != NEW_GAME:
                    return "entry #1 is not the creation of the game"
                game = game_from_creation(entry.order)
                outcome = creation_outcome(game)
            elif action == END_GAME:
                game, outcome, self.ended = self.game, ending_outcome(self.game), True
            else:
                dice = ScriptedDice(entry.dice, manual=entry.manual)
                resolution = resolve(self.game, entry.order, dice)
                game, outcome = resolution.game, resolution.outcome
        except RulesError as exc:
            return f"replaying entry #{n} is refused: {exc}"
        difference = first_difference(entry.outcome, outcome.model_dump(mode="json"))
        if difference:
            return f"replaying entry #{n} gives a different result ({difference})"
        if state_hash(game) != entry.state_hash:
            return f"the state after replaying entry #{n} does not match the hash it recorded"
        self.game = game
        return None

    def finish(self, stored: StoredGame) -> Problem | None:
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
        if state_hash(stored.game) != self.last_state_hash:
            return Problem(None, f"the saved game state does not match the state after entry #{last}: "
                                 "it was changed outside the bot")
        return None
