"""The referee service: the one path from a cog to the rules core and the store.

For each command it takes the channel's lock, answers a re-delivered interaction from the log
(it never rolls twice), loads the channel's game, checks that the actor may give the order
*before* any die is rolled, resolves it through ``bot.core.api``, and saves the new state with
its hash-chained log entry in one transaction. No Discord code here: actors are plain ids.
"""

from __future__ import annotations

import asyncio
import json
import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel

from bot.core.api import resolve
from bot.core.dice import DiceSource, ScriptedDice, SystemDice
from bot.core.errors import InvalidOrder, RulesError
from bot.core.game import Game
from bot.core.outcome import Outcome
from bot.core.rulesets import RULESET_TITLES
from bot.store import (GENESIS_HASH, ActiveGameExists, DuplicateInteraction, LogEntry, LogFull, StaleGame,
                       Store, StoredGame, consumed_dice, state_hash)
from bot.store.replay import (END_GAME, ChainVerifier, creation_order, creation_outcome,
                              ending_outcome, game_from_creation)

MAX_PER_PAGE = 50


class NoGame(RulesError):
    """The channel has no game."""


class GameExists(RulesError):
    """The channel already has an active game."""


class NotAllowed(RulesError):
    """The actor may not give this order; the message says why."""


@dataclass(frozen=True)
class Actor:
    user_id: int
    is_manager: bool = False  # Manage Channels on the channel: a game master everywhere
    name: str = ""


@dataclass(frozen=True)
class Acted:
    """What a command did: its Outcome, the game after it, and its log entry."""

    outcome: Outcome
    game: Game
    entry: LogEntry
    replayed: bool = False  # True: a re-delivered interaction, answered from the log

    @property
    def seq(self) -> int:
        return self.entry.seq


@dataclass(frozen=True)
class LogPage:
    game_id: int
    status: str
    entries: list[LogEntry]  # newest last
    page: int
    pages: int
    total: int


@dataclass(frozen=True)
class VerifyReport:
    ok: bool
    checked: int
    first_bad_seq: int | None
    reason: str


# --- permissions -------------------------------------------------------------------------

# Corrections of the game's facts: only the game master may make them.
GM_ONLY_ACTIONS = {
    "location_set": "set a location's terrain",
    "unit_edit": "edit a unit",
    "unit_remove": "remove a unit",
}
# Order fields naming the units (or stands) the order acts with. ``weapon`` counts through the
# unit possessing it; ``to`` only where it names a unit (a support weapon's new owner).
UNIT_FIELDS = ("firers", "firer", "unit", "leader", "weapon", "to")


def _ids(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def acting_sides(game: Game, order: dict[str, Any]) -> dict[int, str]:
    """The sides an order acts for, each with what in the order made it so (a unit's label).
    Unknown ids are skipped: the rules core refuses them with the list of known ones."""
    sides: dict[int, str] = {}
    action = order.get("action")
    for field in UNIT_FIELDS:
        if field == "to" and action == "phase":
            continue  # the phase to advance to, not a unit
        for unit_id in _ids(order.get(field)):
            unit = game.find_unit(unit_id)
            if unit is None:
                continue
            if field == "weapon":
                unit = game.find_unit(getattr(unit, "owner", None) or "")
                if unit is None:
                    continue  # unpossessed: whoever recovers it acts through their own unit
            sides.setdefault(unit.side, unit.label)
    for company in _ids(order.get("company")):  # CD: the side of the company's stands
        for stand in game.units.values():
            if getattr(stand, "company", "").casefold() == company.casefold():
                sides.setdefault(stand.side, f"company {company}")
    if action == "unit_add" and isinstance(order.get("side"), int) and 0 <= order["side"] < len(game.sides):
        sides.setdefault(order["side"], f"a unit for {game.side_name(order['side'])}")
    return sides


def is_game_master(game: Game, actor: Actor) -> bool:
    return actor.is_manager or (game.gm is not None and game.gm == actor.user_id)


def check_permission(game: Game, actor: Actor, order: dict[str, Any]) -> None:
    """Raise NotAllowed unless ``actor`` may give ``order`` in ``game`` (checked before any roll)."""
    if is_game_master(game, actor):
        return
    action = order.get("action")
    if action == "join":
        if order.get("player") != actor.user_id:
            raise NotAllowed("you may join a side only for yourself; the game master seats other players")
        return
    mine = [i for i, side in enumerate(game.sides) if actor.user_id in side.players]
    if not mine:
        raise NotAllowed("only the players of this game give orders here: join a side first "
                         "(anyone may look at the game and its log)")
    if action in GM_ONLY_ACTIONS:
        raise NotAllowed(f"only the game master may {GM_ONLY_ACTIONS[action]}: it corrects the game, "
                         "it is not a move")
    for side, what in acting_sides(game, order).items():
        if side not in mine:
            raise NotAllowed(f"{what} belongs to {game.side_name(side)}; you play "
                             f"{' and '.join(game.side_name(i) for i in mine)}")


# --- the service -------------------------------------------------------------------------


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _plain_order(order: dict[str, Any] | BaseModel) -> dict[str, Any]:
    """The order as plain JSON, exactly as it will be logged and replayed."""
    if isinstance(order, BaseModel):
        order = order.model_dump(mode="json")
    if not isinstance(order, dict):
        raise InvalidOrder("an order is a JSON object with an 'action'", field="order")
    try:
        return json.loads(json.dumps(order))
    except (TypeError, ValueError):
        raise InvalidOrder("the order holds a value that is not plain JSON", field="order") from None


class Referee:
    def __init__(self, store: Store, *, dice: Callable[[], DiceSource] = SystemDice,
                 clock: Callable[[], datetime] = _utc_now):
        self._store = store
        self._dice = dice  # a fresh source per command; tests pass a counting one
        self._clock = clock
        # one lock per channel, dropped once no command holds or awaits it
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    def _lock(self, channel_id: int) -> asyncio.Lock:
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[channel_id] = lock
        return lock

    # --- reading ---

    async def _active(self, channel_id: int) -> StoredGame:
        stored = await self._store.load_active(channel_id)
        if stored is None:
            raise NoGame("There is no game in this channel: start one with /game new")
        return stored

    async def _latest(self, channel_id: int) -> StoredGame:
        stored = await self._store.load_latest(channel_id)
        if stored is None:
            raise NoGame("There is no game in this channel: start one with /game new")
        return stored

    async def game(self, channel_id: int) -> Game:
        return (await self._active(channel_id)).game

    async def _recorded(self, interaction_id: int | None) -> Acted | None:
        """The answer already given to this interaction, if it was logged."""
        if interaction_id is None:
            return None
        entry = await self._store.entry_by_interaction(interaction_id)
        if entry is None:
            return None
        stored = await self._store.load_game(entry.game_id)
        assert stored is not None  # entries reference their game (foreign key)
        return Acted(entry.outcome_model(), stored.game, entry, replayed=True)

    # --- writing ---

    def _seal(self, stored_id: int, last_seq: int, head_hash: str, *, actor: Actor, command: str,
              order: dict[str, Any], outcome: Outcome, game: Game, manual: bool,
              interaction_id: int | None) -> LogEntry:
        return LogEntry.seal(
            prev_hash=head_hash, game_id=stored_id, seq=last_seq + 1,
            time=self._clock().isoformat(timespec="milliseconds"), actor=actor.user_id,
            command=command, order=order, dice=consumed_dice(outcome), manual=manual,
            outcome=outcome.model_dump(mode="json"), state_hash=state_hash(game),
            interaction_id=interaction_id)

    def _check_room(self, stored: StoredGame) -> None:
        if stored.last_seq >= self._store.max_entries:
            raise self._log_full()

    def _log_full(self) -> NotAllowed:
        return NotAllowed(f"this game's log is full ({self._store.max_entries} entries, the most one "
                          "game keeps): the game master can end it with /game end and start another")

    async def _save(self, stored: StoredGame, game: Game, entry: LogEntry, *, end: bool = False) -> Acted | None:
        """Save state + entry; a re-delivered interaction that won the race returns its answer."""
        try:
            if end:
                await self._store.end_game(stored, entry)
            else:
                await self._store.append(stored, game, entry)
        except DuplicateInteraction:
            return await self._recorded(entry.interaction_id)
        except StaleGame:
            raise NotAllowed("the game changed while this order was being resolved; nothing was "
                             "saved: give the order again") from None
        except LogFull:
            raise self._log_full() from None
        return None

    async def new_game(self, channel_id: int, guild_id: int | None, actor: Actor, ruleset: str,
                       sides: list[str], scenario: str = "", variant: str | None = None,
                       options: dict[str, Any] | None = None, interaction_id: int | None = None) -> Acted:
        async with self._lock(channel_id):
            if (done := await self._recorded(interaction_id)) is not None:
                return done
            existing = await self._store.load_active(channel_id)
            if existing is not None:
                raise GameExists(self._exists_message(existing.game))
            order = _plain_order(creation_order(ruleset, sides, scenario, variant, options, actor.user_id))
            game = game_from_creation(order)  # the same path verify replays
            outcome = creation_outcome(game)

            def first_entry(game_id: int) -> LogEntry:
                return self._seal(game_id, 0, GENESIS_HASH, actor=actor, command="/game new", order=order,
                                  outcome=outcome, game=game, manual=False, interaction_id=interaction_id)
            try:
                _stored, entry = await self._store.create_game(channel_id, guild_id, game, first_entry)
            except ActiveGameExists:  # another process created one since the check above
                existing = await self._store.load_active(channel_id)
                raise GameExists(self._exists_message(existing.game if existing else game)) from None
            except DuplicateInteraction:
                return await self._recorded(interaction_id)  # type: ignore[return-value]
            return Acted(outcome, game, entry)

    @staticmethod
    def _exists_message(game: Game) -> str:
        title = RULESET_TITLES.get(game.ruleset, game.ruleset)
        return (f"There is already a game in this channel ({title}, {game.sides[0].name} vs "
                f"{game.sides[1].name}, turn {game.turn}): the game master can end it with /game end, "
                "or start the new one in a thread")

    async def act(self, channel_id: int, actor: Actor, order: dict[str, Any], *, dice: list[int] | None = None,
                  command: str, interaction_id: int | None = None) -> Acted:
        async with self._lock(channel_id):
            if (done := await self._recorded(interaction_id)) is not None:
                return done
            stored = await self._active(channel_id)
            self._check_room(stored)
            plain = _plain_order(order)
            check_permission(stored.game, actor, plain)
            source = ScriptedDice(dice) if dice else self._dice()
            resolution = resolve(stored.game, plain, source)
            entry = self._seal(stored.id, stored.last_seq, stored.head_hash, actor=actor, command=command,
                               order=plain, outcome=resolution.outcome, game=resolution.game,
                               manual=bool(dice), interaction_id=interaction_id)
            recorded = await self._save(stored, resolution.game, entry)
            return recorded or Acted(resolution.outcome, resolution.game, entry)

    async def end_game(self, channel_id: int, actor: Actor, interaction_id: int | None = None) -> Acted:
        async with self._lock(channel_id):
            if (done := await self._recorded(interaction_id)) is not None:
                return done
            stored = await self._active(channel_id)
            if not is_game_master(stored.game, actor):
                raise NotAllowed("only the game master (who started the game) or someone with Manage "
                                 "Channels may end the game")
            # no room check: a full log must still be closable (the cap leaves room for the end)
            outcome = ending_outcome(stored.game)
            entry = self._seal(stored.id, stored.last_seq, stored.head_hash, actor=actor, command="/game end",
                               order={"action": END_GAME}, outcome=outcome, game=stored.game, manual=False,
                               interaction_id=interaction_id)
            recorded = await self._save(stored, stored.game, entry, end=True)
            return recorded or Acted(outcome, stored.game, entry)

    # --- the log ---

    async def log(self, channel_id: int, page: int | None = None, per_page: int = 10) -> LogPage:
        """One page of the channel's game log (the active game, else the last ended one).
        Pages count from the start; ``page=None`` is the last page, the newest entries."""
        if not 1 <= per_page <= MAX_PER_PAGE:
            raise InvalidOrder(f"a log page shows 1 to {MAX_PER_PAGE} entries", field="per_page")
        stored = await self._latest(channel_id)
        pages = max(1, math.ceil(stored.last_seq / per_page))
        page = pages if page is None else page
        if not 1 <= page <= pages:
            raise InvalidOrder(f"the log has {pages} page{'s' if pages != 1 else ''}; there is no page {page}",
                               field="page")
        entries = await self._store.entries(stored.id, after_seq=(page - 1) * per_page, limit=per_page)
        return LogPage(game_id=stored.id, status=stored.status, entries=entries, page=page, pages=pages,
                       total=stored.last_seq)

    async def export(self, channel_id: int) -> dict[str, Any]:
        """The whole log as JSON (``python -m bot rules replay`` reads it)."""
        stored = await self._latest(channel_id)
        entries = [entry.export() async for entry in self._store.iter_entries(stored.id)]
        return {"game_id": stored.id, "channel_id": stored.channel_id, "ruleset": stored.ruleset,
                "status": stored.status, "head_hash": stored.head_hash, "entries": entries}

    async def verify(self, channel_id: int) -> VerifyReport:
        """Recompute the hash chain and replay the game from entry 1; name the first entry that
        does not match (changed, or missing)."""
        async with self._lock(channel_id):
            stored = await self._latest(channel_id)
            verifier = ChainVerifier()
            async for entry in self._store.iter_entries(stored.id):
                problem = verifier.check(entry)
                if problem is not None:
                    return VerifyReport(False, verifier.checked, problem.seq, problem.reason)
                if verifier.checked % 200 == 0:
                    await asyncio.sleep(0)  # a long replay lets other channels' commands run
            problem = verifier.finish(stored)
            if problem is not None:
                return VerifyReport(False, verifier.checked, problem.seq, problem.reason)
            return VerifyReport(True, verifier.checked, None,
                                f"all {verifier.checked} entries check out: the chain is intact and the "
                                "replay reproduces every result and the saved state")


