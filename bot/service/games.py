"""A channel's games: a new game (its creation entry, a scenario file's set-up and hidden parts sealed
with it, the server's caps), its end by the game master, and its reopening when ended by mistake."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from bot.core.game import Game
from bot.core.options import created_values
from bot.core.rulesets import title_of
from bot.core.scenario import Scenario, public_setup
from bot.record import GENESIS_HASH, LogEntry
from bot.record.dice_audit import counted
from bot.record.replay import (END_GAME, REOPEN_GAME, creation_order, creation_outcome, ending_outcome,
                               game_from_creation, reopen_outcome, with_option_order)
from bot.record.sealing import seal_outcome
from bot.service.basics import Acted, Actor, GameExists, NotAllowed, Sealed, plain_order, stamp
from bot.service.desk import Desk
from bot.service.dice import dice_state_after, quiet_proof
from bot.service.hidden import HIDDEN_SEAL, HeldPart, Hidden
from bot.service.permissions import check_game_master
from bot.service.results import ServerCaps
from bot.store import ActiveGameExists, DuplicateInteraction, StaleGame, StoredGame

SETUP_STEPS_PER_PART = 20  # bot/work.py's steps a unit or Location of a scenario file costs to set up (0.3 ms measured)
REOPEN_WITHIN = timedelta(days=1)  # how long after its end the game master may reopen a game ended by mistake


def exists_message(game: Game) -> str:
    title = title_of(game.ruleset)
    return (f"There is already a game in this channel ({title}, {game.sides[0].name} vs "
            f"{game.sides[1].name}, turn {game.turn}): the game master can end it with /game end, "
            "or start the new one in a thread")


class Games:
    def __init__(self, desk: Desk, hidden: Hidden, caps: ServerCaps) -> None:
        self.desk = desk
        self.hidden = hidden
        self.caps = caps

    # --- a new game ---

    async def new_game(self, channel_id: int, guild_id: int | None, actor: Actor, ruleset: str,
                       sides: list[str], scenario: str = "", variant: str | None = None,
                       options: dict[str, Any] | None = None, interaction_id: int | None = None,
                       setup: Scenario | None = None) -> Acted:
        """A new game in the channel; ``setup``: a scenario file's whole set-up (checked by
        ``bot.scenario.read``), made in this one entry, so a bad file creates nothing. The server's
        games are counted and the new one created under the server's lock, so two /game new at once
        in one server cannot both take its last place."""

        async def create(_: None) -> Acted:
            order, game = await self._creation(actor, ruleset, sides, scenario, variant, options, setup)
            return await self._create(channel_id, guild_id, actor, order, game, setup, interaction_id)

        return await self.desk.command(channel_id, create, interaction_id=interaction_id, guild_id=guild_id,
                                       load=lambda: self._check_room_for_new(channel_id, guild_id))

    async def _check_room_for_new(self, channel_id: int, guild_id: int | None) -> None:
        """Refused while the channel has a game, or the server has as many as it may."""
        existing = await self.desk.store.load_active(channel_id)
        if existing is not None:
            raise GameExists(exists_message(existing.game))
        if guild_id is not None:
            await self._check_server_caps(guild_id)

    async def _check_server_caps(self, guild_id: int) -> None:
        window = self.caps.started
        games = await self.desk.store.server_games(guild_id, window.seconds if not window.off else 0)
        if games.running >= self.caps.running:
            raise NotAllowed(f"this server has {games.running} games running, the most one server may: the game "
                             "master of one can end it with /game end (the bot's host sets this number)")
        if not window.off and games.started >= window.count and games.first_started is not None:
            next_at = datetime.fromisoformat(games.first_started) + timedelta(seconds=window.seconds)
            raise NotAllowed(f"this server started {games.started} games in the last "
                             f"{window.window_words}, the most one server may: the next may start "
                             f"<t:{int(next_at.timestamp()) + 1}:R> (the bot's host sets this number)")

    async def _creation(self, actor: Actor, ruleset: str, sides: list[str], scenario: str, variant: str | None,
                        options: dict[str, Any] | None, setup: Scenario | None) -> tuple[dict[str, Any], Game]:
        """The creation order as logged and the game it makes (through the path verify replays)."""
        if setup is not None:  # a game set up from a file takes the options a new game takes too
            setup = setup.model_copy(update={"options": created_values(setup.options) | dict(setup.options)})
            ruleset, sides, scenario = setup.ruleset, [s.name for s in setup.sides], setup.title
            variant, options = setup.variant, dict(setup.options)
        order = plain_order(creation_order(ruleset, sides, scenario, variant, options, actor.user_id,
                                           setup=None if setup is None else public_setup(setup)),
                            sort_keys=False)
        if setup is None:
            game = game_from_creation(order)  # the same path verify replays
        else:  # a file's set-up (up to 400 units, 2,000 Locations: most of a second) off the loop
            game = await self.desk.worker.run(
                game_from_creation, order, cost=SETUP_STEPS_PER_PART * (len(setup.locations) + sum(
                    len(side.units) for side in setup.sides)),
                what="setting up this scenario", instead="load a scenario of fewer units and Locations")
        return with_option_order(order, game), game  # the log sorts the options' names: the replay reorders them

    async def _create(self, channel_id: int, guild_id: int | None, actor: Actor, order: dict[str, Any], game: Game,
                      setup: Scenario | None, interaction_id: int | None) -> Acted:
        """Entry 1, and a seal entry for each hidden part of a scenario file, saved with the new game."""
        outcome = creation_outcome(game)
        # the first game turn's seed: its commitment is in entry 1, posted with the new game
        proof = ({"commitment": await self.desk.dice.commit_seed(), "contributions": [""] * len(game.sides),
                  "drawn": 0}
                 if self.desk.store.holds_secrets else None)
        hidden = await self.hidden.hold_hidden(game, actor, setup)
        made: list[LogEntry] = []

        def first_entries(game_id: int) -> list[LogEntry]:
            made.clear()  # the callback runs once per transaction: its entries only
            made.append(self.desk.seal(game_id, 0, GENESIS_HASH, actor=actor, command="/game new", order=order,
                                       outcome=outcome, game=game, manual=False, interaction_id=interaction_id,
                                       dice_proof=proof))
            made.extend(self._hidden_seals(made[0], actor, game, hidden))
            return made
        try:
            _stored, entry = await self.desk.store.create_game(channel_id, guild_id, game, first_entries)
        except ActiveGameExists:  # another process created one since the check above
            existing = await self.desk.store.load_active(channel_id)
            raise GameExists(exists_message(existing.game if existing else game)) from None
        except DuplicateInteraction:
            return await self.desk.recorded(interaction_id)  # type: ignore[return-value]
        self.desk.saved(entry.game_id, made[-1])
        return Acted(outcome, game, entry, sealed=tuple(
            Sealed(Acted(seal_entry.outcome_model(), game, seal_entry), held.text, held.nonce)
            for held, seal_entry in zip(hidden, made[1:])))

    def _hidden_seals(self, first: LogEntry, actor: Actor, game: Game, hidden: list[HeldPart]) -> list[LogEntry]:
        """Each hidden part's seal entry after ``first``, as /seal would write it for its side."""
        made = [first]
        for held in hidden:
            last = made[-1]
            made.append(self.desk.seal(last.game_id, last.seq, last.hash, actor=actor, command=HIDDEN_SEAL,
                                       order=held.order, outcome=seal_outcome(game, last.seq + 1, held.order),
                                       game=game, manual=False, interaction_id=None,
                                       dice_proof=quiet_proof(dice_state_after(last))))
        return made[1:]

    # --- the end, and a reopening ---

    async def may_end(self, channel_id: int, actor: Actor) -> StoredGame:
        """The channel's active game, when ``actor`` may end it (asked before the confirmation)."""
        stored = await self.desk.active(channel_id)
        check_game_master(stored.game, actor, "end the game")
        return stored

    async def end_game(self, channel_id: int, actor: Actor, interaction_id: int | None = None, *,
                       game_id: int | None = None) -> Acted:
        """End the channel's game (``game_id``: only if it is still that one, the game a confirmation
        was asked for). No room check: a full log must still be closable (the cap leaves room for the end)."""

        async def end(stored: StoredGame) -> Acted:
            if game_id is not None and stored.id != game_id:
                raise NotAllowed("this confirmation was asked for an earlier game of this channel: nothing was ended")
            check_game_master(stored.game, actor, "end the game")
            outcome = ending_outcome(stored.game)
            proof = await self.desk.dice.proof(await self.desk.dice.state(stored), None, reveal=False, last=True,
                                               game_id=stored.id, turn=stored.game.turn)
            entry = self.desk.next_entry(stored, actor=actor, command="/game end", order={"action": END_GAME},
                                         outcome=outcome, game=stored.game, interaction_id=interaction_id,
                                         dice_proof=proof)
            return await self.desk.save_acted(stored, outcome, stored.game, entry, end=True)

        return await self.desk.command(channel_id, end, interaction_id=interaction_id)

    async def reopen_game(self, channel_id: int, actor: Actor, interaction_id: int | None = None) -> Acted:
        """Reopen the channel's last game, ended by mistake: the game master only, within REOPEN_WITHIN
        of its end, while no other game has started in the channel. One logged entry after the end;
        a new dice seed is committed for the rest of the game (the end revealed the last one)."""
        return await self.desk.command(
            channel_id, lambda ended: self._reopen(*ended, actor, interaction_id), interaction_id=interaction_id,
            load=lambda: self._ended_by_mistake(channel_id, actor))

    async def _ended_by_mistake(self, channel_id: int, actor: Actor) -> tuple[StoredGame, LogEntry]:
        """The channel's last game and its end, when ``actor`` may reopen it now."""
        if await self.desk.store.load_active(channel_id) is not None:
            raise NotAllowed("this channel has a game in play: only a game ended by mistake is reopened, "
                             "before another one starts here")
        stored = await self.desk.latest(channel_id)
        check_game_master(stored.game, actor, "reopen it")
        end = await self.desk.entry(stored.id, stored.last_seq)
        if end.order.get("action") != END_GAME:
            raise NotAllowed(f"the last game's newest entry (#{end.seq}) is not its end: nothing to reopen")
        ended = datetime.fromisoformat(end.time)
        hours = REOPEN_WITHIN / timedelta(hours=1)
        if self.desk.clock() - ended > REOPEN_WITHIN:
            raise NotAllowed(f"this game ended at {stamp(ended)}, more than {hours:g} hours ago: a game is "
                             f"reopened within {hours:g} hours of its end; its log stays readable (/log show, "
                             "/log export), and /game new starts another")
        self.desk.check_room(stored)
        return stored, end

    async def _reopen(self, stored: StoredGame, end: LogEntry, actor: Actor, interaction_id: int | None) -> Acted:
        state = await self.desk.dice.state(stored)
        proof = None if state is None else counted({"commitment": await self.desk.dice.commit_seed(),
                                                    "contributions": list(state.contributions)}, state, 0)
        order = {"action": REOPEN_GAME, "ended": end.seq}
        outcome = reopen_outcome(stored.game, order)
        entry = self.desk.next_entry(stored, actor=actor, command="/game reopen", order=order, outcome=outcome,
                                     game=stored.game, interaction_id=interaction_id, dice_proof=proof)
        try:
            await self.desk.store.reopen_game(stored, entry)
        except DuplicateInteraction:
            return await self.desk.recorded(interaction_id)  # type: ignore[return-value]
        except ActiveGameExists:
            raise NotAllowed("another game started in this channel meanwhile: this one stays ended") from None
        except StaleGame:
            raise NotAllowed("the game changed while it was being reopened; nothing was saved") from None
        self.desk.saved(stored.id, entry)
        return Acted(outcome, stored.game, entry)
