"""Undo by consent: a proposal to revert the newest live entry, the state before it rebuilt by a replay
(outside the channel's lock) and kept with the proposal; its answer by the other side or the game
master, the reverting entry appended in one transaction with closing the proposal; its expiry."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.core.game import Game
from bot.core.options import general
from bot.record.checkpoint import newest_live
from bot.record.replay import OPTION_ORDER, REOPEN_GAME, UNDO, undo_outcome
from bot.service.basics import Acted, Actor, NotAllowed, OnLong, hand_off, log_time, sides_of
from bot.service.desk import Desk
from bot.service.jobs import state_before_undo
from bot.service.permissions import is_game_master
from bot.service.replays import Replays
from bot.service.results import UndoAnswer, UndoProposal
from bot.store import DuplicateInteraction, StaleGame, StoredGame, UndoRequest

UNDO_MINUTES = general("undo_minutes").default  # how long an undo proposal waits (48 hours); the option's default
UNDO_LOOK_BACK = 64  # entries whose undos an undo proposal reads first (``_newest_live``)


class Undo:
    def __init__(self, desk: Desk, replays: Replays) -> None:
        self.desk = desk
        self.replays = replays
        self.undo_minutes = UNDO_MINUTES

    def undo_expiry(self, game: Game) -> timedelta:
        minutes = game.options.get("undo_minutes", self.undo_minutes)
        if not isinstance(minutes, (int, float)) or isinstance(minutes, bool) or not 1 <= minutes <= 7 * 24 * 60:
            minutes = self.undo_minutes  # a bad option never blocks an undo: the default applies
        return timedelta(minutes=minutes)

    # --- proposing ---

    async def propose_undo(self, channel_id: int, actor: Actor, *, interaction_id: int | None = None,
                           on_long: OnLong = None) -> UndoProposal:
        """Propose to revert the newest entry that is not undone. The state before it is rebuilt by
        replaying the log (which must verify up to there) and kept with the proposal, so the
        accepted undo restores exactly that state and never rolls a die. The replay runs outside
        the channel's lock (in a worker process when long); the proposal is stored only if the
        game did not move on meanwhile."""
        found = await self.desk.command(
            channel_id, self._two_live, load=lambda: self._undoable(channel_id, actor),
            earlier=lambda: self._proposed_before(interaction_id))
        if isinstance(found, UndoProposal):
            return found
        stored, live = found
        if len(live) < 2:
            raise NotAllowed("there is nothing to undo: the game's creation cannot be undone")
        before, target = live
        await self._check_undoable(stored, target)
        state_before = await self.replays.replayed(
            state_before_undo, stored.id, before, game=stored.game, on_long=on_long,
            what=lambda count: f"preparing this undo (a replay of the {count:,} entries before entry #{target})",
            instead="the game master can correct the game with /unit edit and /unit move instead")
        return await self.desk.command(
            channel_id, lambda now_stored: self._propose(now_stored, stored, actor, target, state_before,
                                                         interaction_id),
            load=lambda: self._undoable(channel_id, actor))

    async def _proposed_before(self, interaction_id: int | None) -> UndoProposal | None:
        """The proposal a re-delivered interaction already made."""
        if interaction_id is not None and (known := await self.desk.store.undo_by_interaction(interaction_id)):
            return await self._proposal(known, replayed=True)
        return None

    async def _two_live(self, stored: StoredGame) -> tuple[StoredGame, list[int]]:
        return stored, await self._newest_live(stored, 2)

    async def _propose(self, now_stored: StoredGame, stored: StoredGame, actor: Actor, target: int,
                       state_before: str, interaction_id: int | None) -> UndoProposal:
        """Store the proposal, unless the game moved on since ``stored`` was read."""
        if (now_stored.id, now_stored.last_seq, now_stored.head_hash) != (stored.id, stored.last_seq,
                                                                         stored.head_hash):
            raise NotAllowed("the game moved on while this undo was being prepared; nothing was proposed: "
                             "propose it again if it is still wanted")
        now = self.desk.clock()
        request = UndoRequest(
            id=0, game_id=stored.id, target_seq=target, head_seq=stored.last_seq, head_hash=stored.head_hash,
            proposer=actor.user_id, proposed_at=log_time(now), expires_at=log_time(now + self.undo_expiry(stored.game)),
            state_before=state_before, interaction_id=interaction_id)
        try:
            request = await self.desk.store.create_undo(request)
        except DuplicateInteraction:
            request = await self.desk.store.undo_by_interaction(interaction_id)  # type: ignore[arg-type]
            return await self._proposal(request, replayed=True)  # type: ignore[arg-type]
        return await self._proposal(request, stored=now_stored)

    async def _check_undoable(self, stored: StoredGame, target: int) -> None:
        """A game's reopening is not undone. Under the game option ``undo_rolls=never`` an order that
        rolled dice is never undone: the game master corrects what it did, with /unit edit naming the
        entry (logged as its correction)."""
        entry = await self.desk.entry(stored.id, target)
        if entry.order.get("action") == REOPEN_GAME:
            raise NotAllowed(f"entry #{target} reopened the game: a reopening is not undone (the game master ends "
                             "the game again with /game end), nor what came before it")
        if stored.game.options.get("undo_rolls", general("undo_rolls").default) != "never":
            return
        if entry.outcome_model().rolls:
            raise NotAllowed(f"entry #{target} ({entry.command}) rolled dice, and this game's option undo_rolls=never "
                             f"keeps every order that rolled: its result stands. The game master corrects what it did "
                             f"with /unit edit corrects:{target} (logged as a correction of #{target})")

    async def _newest_live(self, stored: StoredGame, count: int) -> list[int]:
        """The ``count`` newest entries not undone (``newest_live``), reading only the undo entries
        of the newest part of the log: an entry can be undone only by a later entry, so the undos
        after seq ``s`` tell which entries after ``s`` are live. The part read grows (x4) until it
        holds ``count`` live entries, or is the whole log. (Reading every undo of the log was a scan
        of the whole log: a cost that grew with it.)"""
        window = UNDO_LOOK_BACK
        while True:
            after = max(0, stored.last_seq - window)
            live = newest_live(stored.last_seq, await self.desk.store.undone(stored.id, after_seq=after), count)
            if after == 0 or (len(live) == count and live[0] > after):
                return live
            window *= 4

    async def _undoable(self, channel_id: int, actor: Actor) -> StoredGame:
        """The channel's active game when ``actor`` may propose an undo in it now (under the lock)."""
        stored = await self.desk.active(channel_id)
        game = stored.game
        if not is_game_master(game, actor) and not sides_of(game, actor.user_id):
            raise NotAllowed("only the players of this game and its game master may propose an undo")
        self.desk.check_room(stored)
        await self._close_stale_proposal(stored)
        return stored

    async def _close_stale_proposal(self, stored: StoredGame) -> None:
        """A proposal still marked pending blocks a new one, unless it expired or the game moved on."""
        pending = await self.desk.store.pending_undo(stored.id)
        if pending is None:
            return
        status = self._lapse(pending, stored)
        if status is None:
            raise NotAllowed(f"an undo of entry #{pending.target_seq} is already waiting for an answer "
                             f"(until <t:{int(datetime.fromisoformat(pending.expires_at).timestamp())}:f>)")
        await self.desk.store.settle_undo(pending.id, status, None, self.desk.now())

    # --- the proposals ---

    async def undo_proposal(self, request_id: int) -> UndoProposal:
        return await self._proposal(await self._request(request_id))

    async def _request(self, request_id: int) -> UndoRequest:
        request = await self.desk.store.undo_request(request_id)
        if request is None:
            raise NotAllowed("this undo proposal is not known here")
        return request

    async def note_undo_message(self, request_id: int, channel_id: int, message_id: int) -> None:
        await self.desk.store.set_undo_message(request_id, channel_id, message_id)

    async def expire_undos(self) -> list[tuple[UndoProposal, UndoAnswer]]:
        """Close the proposals whose time ran out unanswered; each with its answer, so the
        caller can take the buttons off their messages."""
        now = self.desk.now()
        expired = []
        for request in await self.desk.store.overdue_undos(now):
            if await self.desk.store.settle_undo(request.id, "expired", None, now):
                closed = await self.desk.store.undo_request(request.id)
                assert closed is not None
                expired.append((await self._proposal(closed), UndoAnswer("expired", closed)))
        return expired

    async def _proposal(self, request: UndoRequest, *, replayed: bool = False,
                        stored: StoredGame | None = None) -> UndoProposal:
        """The proposal with its target entry and game (``stored``, when just read: not read again)."""
        stored = stored or await self.desk.store.load_game(request.game_id)
        target = await self.desk.entry(request.game_id, request.target_seq)
        assert stored is not None
        return UndoProposal(request, target, stored.game, replayed=replayed)

    def _lapse(self, request: UndoRequest, stored: StoredGame) -> str | None:
        """"expired" or "lapsed" (the game moved on, or ended) when the proposal can no longer be accepted."""
        if self.desk.clock() >= datetime.fromisoformat(request.expires_at):
            return "expired"
        if stored.status != "active" or stored.last_seq != request.head_seq or stored.head_hash != request.head_hash:
            return "lapsed"
        return None

    # --- answering ---

    async def answer_undo(self, request_id: int, actor: Actor, *, accept: bool,
                          interaction_id: int | None = None) -> UndoAnswer:
        """Accept or refuse a proposal. The proposer may withdraw it but not accept it (unless they
        are the game master); accepting appends the reverting entry with the state before the
        undone one, in one transaction with closing the proposal."""
        request = await self._request(request_id)
        stored = await self.desk.store.load_game(request.game_id)
        assert stored is not None  # requests reference their game (foreign key)

        async def accepted_before(done: Acted) -> UndoAnswer:
            return UndoAnswer("accepted", request, done)

        return await self.desk.command(
            stored.channel_id, lambda now: self._answer(*now, actor, accept, interaction_id),
            interaction_id=interaction_id, again=accepted_before, load=lambda: self._request_now(request_id))

    async def _request_now(self, request_id: int) -> tuple[StoredGame, UndoRequest]:
        """The request and its game as they are now (under the channel's lock)."""
        request = await self.desk.store.undo_request(request_id)
        stored = await self.desk.store.load_game(request.game_id)  # type: ignore[union-attr]
        assert request is not None and stored is not None
        return stored, request

    async def _answer(self, stored: StoredGame, request: UndoRequest, actor: Actor, accept: bool,
                      interaction_id: int | None) -> UndoAnswer:
        if request.status != "pending":
            raise NotAllowed(f"this undo proposal is closed: it was {request.status}")
        now = self.desk.now()
        if (status := self._lapse(request, stored)) is not None:
            await self.desk.store.settle_undo(request.id, status, None, now)  # type: ignore[arg-type]
            return UndoAnswer(status, await self.desk.store.undo_request(request.id))  # type: ignore[arg-type]
        self._check_answer(stored.game, request, actor, accept=accept)
        if not accept:
            status = "withdrawn" if actor.user_id == request.proposer else "refused"
            await self.desk.store.settle_undo(request.id, status, actor.user_id, now)  # type: ignore[arg-type]
            return UndoAnswer(status, await self.desk.store.undo_request(request.id))  # type: ignore[arg-type]
        return await self._accept_undo(stored, request, actor, interaction_id)

    @staticmethod
    def _check_answer(game: Game, request: UndoRequest, actor: Actor, *, accept: bool) -> None:
        if is_game_master(game, actor):
            return
        proposer_sides = set(sides_of(game, request.proposer))
        # consent counts from a player seated before the action undone (the game then) and still now:
        # a stranger who sits down after it happened cannot wave it away
        before = Game.model_validate_json(request.state_before)
        actor_sides = {i for i in sides_of(game, actor.user_id)
                       if i < len(before.sides) and actor.user_id in before.sides[i].players}
        if actor.user_id == request.proposer:
            if accept:
                raise NotAllowed("you proposed this undo: a player of the other side (or the game master) "
                                 "must accept it; you may withdraw it with Refuse")
            return
        if not actor_sides - proposer_sides:
            others = [game.side_name(i) for i in range(len(game.sides)) if i not in proposer_sides]
            raise NotAllowed(f"only a player of {' or '.join(others) or 'the other side'} seated before the action "
                             "(or the game master) may answer this undo")

    async def _accept_undo(self, stored: StoredGame, request: UndoRequest, actor: Actor,
                           interaction_id: int | None) -> UndoAnswer:
        restored = Game.model_validate_json(request.state_before)
        # the log keeps orders as canonical JSON, whose keys are sorted: the order of the units and
        # Locations (part of the game: a stack is listed in it) and of the options goes with the
        # state, for the replay
        order = {"action": UNDO, "undoes": request.target_seq, "proposed_by": request.proposer,
                 "accepted_by": actor.user_id, "state": restored.model_dump(mode="json"),
                 "unit_order": list(restored.units), "location_order": list(restored.locations),
                 OPTION_ORDER: list(restored.options)}
        outcome = undo_outcome(stored.game, restored, order)
        # an undo draws nothing and reveals nothing: the seed of the turn stays committed (never rerolled)
        entry = self.desk.next_entry(stored, actor=Actor(request.proposer), command="/undo", order=order,
                                     outcome=outcome, game=restored, interaction_id=interaction_id,
                                     dice_proof=await self.desk.dice.quiet(stored))
        try:
            await self.desk.store.apply_undo(stored, restored, entry, request.id, actor.user_id)
        except DuplicateInteraction:
            return UndoAnswer("accepted", request, await self.desk.recorded(interaction_id))
        except StaleGame:
            raise NotAllowed("the game changed while this undo was being applied; nothing was saved") from None
        self.desk.saved(stored.id, entry)
        undone = await self.desk.entry(stored.id, request.target_seq)
        self.desk.undid[stored.id] = (entry.seq, request.target_seq, undone.order.get("action"),
                                      undone.outcome.get("actor_side"))
        accepted = await self.desk.store.undo_request(request.id)
        return UndoAnswer("accepted", accepted or request,  # type: ignore[arg-type]
                          Acted(outcome, restored, entry, hand_off=hand_off(stored.game, restored)))
