"""Orders and the sequence of play: an order checked (who may give it, before any die is rolled),
resolved through ``bot.core.api`` and saved with its log entry; its exact odds before anyone rolls;
a side's contribution to the committed dice."""

from __future__ import annotations

from typing import Any

from bot.core.api import as_given, resolve
from bot.core.dice import contribution_value
from bot.core.errors import InvalidOrder
from bot.core.odds import OddsReport
from bot.core.odds import size as odds_size
from bot.loopshare import share
from bot.record.dice_audit import CONTRIBUTE
from bot.record.replay import contribution_outcome, given_again
from bot.service.basics import (Acted, Actor, NotAllowed, OnLong, OrderBuilder, built, hand_off, plain_order,
                                sides_of)
from bot.service.desk import Desk
from bot.service.jobs import PREVIEW_STEPS, preview_with_plan
from bot.service.permissions import check_manual_dice, check_permission, is_game_master
from bot.service.results import Odds
from bot.store import StoredGame

CONTRIBUTION_MAX = 200  # characters of a side's dice contribution


class Orders:
    def __init__(self, desk: Desk) -> None:
        self.desk = desk

    async def act(self, channel_id: int, actor: Actor, order: dict[str, Any] | OrderBuilder, *,
                  dice: list[int] | None = None, command: str, interaction_id: int | None = None,
                  after_seq: int | None = None) -> Acted:
        """Resolve ``order`` in the channel's game and save the result with its log entry.

        ``order`` may be a function of the game (a cog's options mean different orders in
        different rulesets): it is called under the channel's lock, after a re-delivered
        interaction has been answered from the log, so a replay never depends on today's game.
        ``after_seq``: refused unless the game's newest entry is still that one (the referee's own
        order for a game it looked at a moment before: nothing happened in between)."""
        return await self.desk.command(
            channel_id, lambda stored: self._act(stored, actor, order, dice, command, interaction_id, after_seq),
            interaction_id=interaction_id)

    @staticmethod
    def _given(stored: StoredGame, actor: Actor, order: dict[str, Any] | OrderBuilder,
               dice: list[int] | None = None) -> dict[str, Any]:
        """The order as the log will hold it and a replay resolves it, once ``actor`` may give it (and
        give its manual ``dice``): built in the game under the lock, checked before any roll."""
        plain = built(order, stored.game)
        check_permission(stored.game, actor, plain)
        if dice:
            check_manual_dice(stored.game, actor)
        return plain_order(as_given(stored.game, plain))  # what the log holds and a replay resolves

    async def _act(self, stored: StoredGame, actor: Actor, order: dict[str, Any] | OrderBuilder,
                   dice: list[int] | None, command: str, interaction_id: int | None, after_seq: int | None) -> Acted:
        if after_seq is not None and stored.last_seq != after_seq:
            raise NotAllowed(f"the game moved on after entry #{after_seq}: nothing was done")
        self.desk.check_room(stored)
        plain = self._given(stored, actor, order, dice)
        corrects = plain.get("corrects")
        if corrects is not None and not (isinstance(corrects, int) and 1 < corrects <= stored.last_seq):
            raise InvalidOrder(f"the log has entries #2 to #{stored.last_seq} to correct, not '{corrects}'",
                               field="corrects")
        state = await self.desk.dice.state(stored)
        source = await self.desk.dice.source(stored, state, dice, interaction_id)
        # from here to the save (the rules core, the seal) runs on: other channels' turns first if due
        await share()
        resolution = resolve(stored.game, plain, source)
        # the end of a game turn reveals its seed (anyone may then check its dice) and commits the next
        proof = await self.desk.dice.proof(state, source, reveal=resolution.game.turn > stored.game.turn,
                                           game_id=stored.id, turn=stored.game.turn)
        entry = self.desk.next_entry(stored, actor=actor, command=command, order=plain, outcome=resolution.outcome,
                                     game=resolution.game, manual=bool(dice), interaction_id=interaction_id,
                                     dice_proof=proof)
        recorded = await self.desk.save(stored, resolution.game, entry)
        undid = self.desk.undid.get(stored.id)
        regiven = given_again({undid[1]: undid[0]}, entry.seq, plain.get("action"), resolution.outcome.actor_side,
                              lambda seq: undid[2:]) if undid is not None else None
        return recorded or Acted(resolution.outcome, resolution.game, entry,
                                 hand_off=hand_off(stored.game, resolution.game), regiven=regiven)

    async def preview(self, channel_id: int, actor: Actor, order: dict[str, Any] | OrderBuilder) -> OddsReport:
        """The exact odds of ``order`` before anyone rolls (issue 5): the same permission check as
        ``act``, the order refused exactly as it would be, no die rolled and nothing logged."""
        return (await self.odds(channel_id, actor, order)).report

    async def odds(self, channel_id: int, actor: Actor, order: dict[str, Any] | OrderBuilder,
                   on_long: OnLong = None) -> Odds:
        """``preview`` with the game the odds were computed in (for rendering). ``order`` may be
        a function of the game, as in ``act``: it is built under the channel's lock, so it sees
        the same game a roll would; the odds are then enumerated outside the lock, on that
        snapshot (the channel's next command need not wait for them). The size of the enumeration
        is estimated first: too large, it is refused at once with the numbers; else it runs in a
        worker process within the time budget when it is more than a moment's work."""

        async def given(stored: StoredGame) -> tuple[StoredGame, dict[str, Any]]:
            return stored, self._given(stored, actor, order)

        stored, plain = await self.desk.command(channel_id, given, load=lambda: self.desk.active(channel_id))
        estimate = odds_size(stored.game, plain)  # refused now, before anything is enumerated
        cost = estimate * PREVIEW_STEPS
        report, plan = await self.desk.worker.run(
            preview_with_plan, stored.game, plain, cost=cost, on_long=on_long, what="this preview",
            instead="preview an attack on a smaller stack, or roll it")
        return Odds(report, stored.game, plan=plan)

    async def contribute(self, channel_id: int, actor: Actor, text: str, side: int | None = None, *,
                         interaction_id: int | None = None) -> Acted:
        """Set or change a side's contribution to the dice (docs/dice.md): every die drawn after it
        derives from it too. A player sets their own side's; the game master names the side."""
        if not 1 <= len(text) <= CONTRIBUTION_MAX:
            raise InvalidOrder(f"a contribution is 1 to {CONTRIBUTION_MAX} characters of your choosing",
                               field="text")
        return await self.desk.command(
            channel_id, lambda stored: self._contribute(stored, actor, text, side, interaction_id),
            interaction_id=interaction_id, room=True)

    async def _contribute(self, stored: StoredGame, actor: Actor, text: str, side: int | None,
                          interaction_id: int | None) -> Acted:
        game = stored.game
        mine = sides_of(game, actor.user_id)
        if side is None:
            if not mine:
                raise NotAllowed("only the players of this game add to its dice: join a side first (the game "
                                 "master names the side)")
            side = mine[0]
        elif side not in mine and not is_game_master(game, actor):
            raise NotAllowed(f"you may set only your own side's contribution; {game.side_name(side)} sets its own")
        if not 0 <= side < len(game.sides):
            raise InvalidOrder(f"this game has {len(game.sides)} sides", field="side")
        state = await self.desk.dice.state(stored)
        if state is None:
            raise NotAllowed("this game was started before committed dice: its dice take no contribution "
                             "(a new game has them)")
        order = {"action": CONTRIBUTE, "side": side, "value": contribution_value(text)}
        outcome = contribution_outcome(game, order)
        entry = self.desk.next_entry(stored, actor=actor, command="/dice contribute", order=order, outcome=outcome,
                                     game=game, interaction_id=interaction_id,
                                     dice_proof=await self.desk.dice.proof(state, None, reveal=False))
        return await self.desk.save_acted(stored, outcome, game, entry)
