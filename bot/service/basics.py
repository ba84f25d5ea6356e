"""What every part of the service speaks: its refusals, the actor of a command, what a command did
(``Acted``, ``Sealed``), and the small helpers the parts share (the order as logged, one log entry
read, Discord's time markup)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel

from bot.core.errors import InvalidOrder, RulesError
from bot.core.game import Game
from bot.core.outcome import Outcome
from bot.core.sequence import side_to_act
from bot.record import LogEntry
from bot.store import Away, Store

OnLong = Callable[[], Awaitable[Any]] | None  # awaited when the work goes to a process: the cog defers then
OrderBuilder = Callable[[Game], "dict[str, Any] | BaseModel"]
NO_GAME = "There is no game in this channel: start one with /game new"


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
    hand_off: int | None = None  # the side now to act, when this action passed the turn to it
    sealed: tuple["Sealed", ...] = ()  # a scenario file's hidden parts, sealed with the new game (entries 2..)
    regiven: int | None = None  # the entry this order gives again, undone just before it (its dice stay)

    @property
    def seq(self) -> int:
        return self.entry.seq


@dataclass(frozen=True)
class Sealed:
    """A sealed order as its sealer sees it (privately): the logged entry, the text and the nonce."""

    acted: Acted
    text: str
    nonce: str


def hand_off(before: Game, after: Game) -> int | None:
    """The side now to act, when an action passed the game to it (bot/core/sequence.py)."""
    now = side_to_act(after)
    return now if now != side_to_act(before) else None


def stamp(when: datetime) -> str:
    """Discord's timestamp markup (each reader's own time zone), with the UTC time for the log."""
    return f"<t:{int(when.timestamp())}:f> ({when.strftime('%Y-%m-%d %H:%M')} UTC)"


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def log_time(when: datetime) -> str:
    """A time as the log and the store write it (ISO 8601, to the millisecond)."""
    return when.isoformat(timespec="milliseconds")


def players_of(game: Game, side: int) -> list[int]:
    return list(game.sides[side].players) if 0 <= side < len(game.sides) else []


def away_spans(away: dict[int, Away]) -> dict[int, tuple[datetime, datetime]]:
    """Each player's latest away as (from, until) times, as bot/core/deadlines.clock_start reads them."""
    return {user: (datetime.fromisoformat(a.since), datetime.fromisoformat(a.until)) for user, a in away.items()}


def sides_of(game: Game, user_id: int) -> list[int]:
    """The sides ``user_id`` plays in ``game``."""
    return [i for i, side in enumerate(game.sides) if user_id in side.players]


def plain_order(order: dict[str, Any] | BaseModel, *, sort_keys: bool = True) -> dict[str, Any]:
    """The order as plain JSON, exactly as it will be logged and replayed: its keys sorted as the
    log's canonical JSON keeps them, so an order naming several fields (``/unit edit
    stats:range=6 kind=squad``) lists them in the same order live and on replay. A game's creation
    keeps its options and scenario in the order given (``sort_keys=False``), as the game keeps
    them (tests/store/test_compact_state.py)."""
    if isinstance(order, BaseModel):
        order = order.model_dump(mode="json")
    if not isinstance(order, dict):
        raise InvalidOrder("an order is a JSON object with an 'action'", field="order")
    try:
        return json.loads(json.dumps(order, sort_keys=sort_keys))
    except (TypeError, ValueError):
        raise InvalidOrder("the order holds a value that is not plain JSON", field="order") from None


def built(order: dict[str, Any] | OrderBuilder, game: Game) -> dict[str, Any]:
    """``order`` as plain JSON, built first when it is a function of the game (a cog's options mean
    different orders in different rulesets: built under the channel's lock, on the game it acts in)."""
    return plain_order(order(game) if callable(order) else order)


async def read_entry(store: Store, game_id: int, seq: int) -> LogEntry:
    """One entry of a game's log, as logged (the Details button of a result)."""
    entry = next(iter(await store.entries(game_id, after_seq=seq - 1, limit=1)), None)
    if entry is None or entry.seq != seq:
        raise NotAllowed(f"entry #{seq} of this game is not in the log")
    return entry


async def read_sealed(store: Store, commitment: str) -> dict[str, str] | None:
    """The text and nonce the store holds for a seal's commitment until its reveal (None: not held)."""
    held = await store.held_secret(commitment)
    return json.loads(held) if held is not None else None
