"""Pacing (bot/pacing.py asks): when a side's step ends by its deadline, the step ended with its
default once the deadline has passed, and a reaction window closed as no reaction once its time limit
has: each a logged order the bot gives, only if the game has not moved on meanwhile."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bot.core import deadlines, reactions
from bot.core.errors import RulesError
from bot.core.game import Game
from bot.service.basics import Acted, Actor, NotAllowed, away_spans, players_of
from bot.service.desk import Desk
from bot.service.orders import Orders
from bot.store import StoredGame


class Pacing:
    def __init__(self, desk: Desk, orders: Orders) -> None:
        self.desk = desk
        self.orders = orders

    async def deadline(self, stored: StoredGame) -> tuple[datetime | None, bool]:
        """When the step of the side the game waits for ends by its deadline (game option deadline_hours),
        counted from the newest entry or the return of its first player from an away; and whether every
        player of that side is away now (no deadline meanwhile). (None, False) when no deadline runs."""
        game = stored.game
        if deadlines.limit(game) is None:
            return None, False
        last = await self.desk.entry(stored.id, stored.last_seq)
        away = await self.desk.store.aways(players_of(game, deadlines.waited_side(game)))
        start = deadlines.clock_start(game, datetime.fromisoformat(last.time), away_spans(away), self.desk.clock())
        return (None, True) if start is None else (deadlines.due(game, start), False)

    async def close_reaction(self, channel_id: int, seq: int, actor: Actor) -> Acted | None:
        """Close the channel's open reaction window as no reaction, its time limit (the game option
        reactions=hours=N) having passed since entry ``seq``, the newest: a logged ``react`` order
        given by ``actor`` (the bot). None when the game moved on meanwhile or no such window is open."""

        def order(game: Game) -> dict[str, Any]:
            hours = reactions.timeout_hours(game)
            if hours is None or game.reaction is None:
                raise NotAllowed("no reaction window with a time limit is open")
            return {"action": "react", "side": game.reaction.side, "answer": "timeout", "hours": hours}

        try:
            return await self.orders.act(channel_id, actor, order, command="/react (time limit)", after_seq=seq)
        except RulesError:
            return None

    async def end_by_deadline(self, channel_id: int, seq: int, actor: Actor) -> Acted | RulesError | None:
        """End the step of the side the game waits for with its default (no fire for an open reaction
        window, else its /done), its deadline (the game option deadline_hours) having passed since entry
        ``seq``, the newest: a logged order given by ``actor`` (the bot). None when the game moved on
        meanwhile (another process, or a late order, did); the refusal when the rules do not let the
        step end by itself (a roll it still requires)."""

        def order(game: Game) -> dict[str, Any]:
            if deadlines.limit(game) is None:
                raise NotAllowed("no deadline runs in this game")
            return deadlines.default_order(game)

        try:
            return await self.orders.act(channel_id, actor, order, command="/done (deadline)", after_seq=seq)
        except NotAllowed:
            return None  # moved on, paused, or no deadline any more: nothing to do
        except RulesError as exc:
            return exc
