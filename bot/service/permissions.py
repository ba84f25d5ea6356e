"""Who may do what, checked before any die is rolled: an order (its acting sides, the game master's
orders), manual dice, a look at or the reveal of a sealed entry, and the side a seal is made for."""

from __future__ import annotations

from typing import Any

from bot.core.acting import acting_sides as core_acting_sides
from bot.core.api import order_model
from bot.core.errors import InvalidOrder
from bot.core.game import Game
from bot.core.options import current, general
from bot.record import LogEntry
from bot.service.basics import Actor, NotAllowed, sides_of


def acting_sides(game: Game, order: dict[str, Any]) -> dict[int, str]:
    """The sides an order acts for (bot/core/acting.py), each with what in the order made it so."""
    return core_acting_sides(game, order_model(game.ruleset, order.get("action")), order)


def is_game_master(game: Game, actor: Actor) -> bool:
    return actor.is_manager or (game.gm is not None and game.gm == actor.user_id)


def check_game_master(game: Game, actor: Actor, what: str) -> None:
    """Raise NotAllowed unless ``actor`` is the game's master (``what``: end, reopen it)."""
    if not is_game_master(game, actor):
        raise NotAllowed(f"only the game master (who started the game) or someone with Manage Channels may {what}")


def check_hidden_access(game: Game, actor: Actor, seal: LogEntry, what: str) -> None:
    """Raise NotAllowed unless ``actor`` may look at or reveal (``what``) the sealed entry ``seal``
    before its time (issue 28): its sealer and the players of the side that sealed it may; of the
    others only a game master who plays no side, and for a look only while the game option
    gm_peeks allows it. A game master who holds a seat plays against the other side, and someone
    with Manage Channels who is not in the game is not its umpire: neither may."""
    sealed_by = seal.order.get("side")
    if seal.actor == actor.user_id or (isinstance(sealed_by, int) and 0 <= sealed_by < len(game.sides)
                                       and actor.user_id in game.sides[sealed_by].players):
        return
    which = f"sealed #{seal.seq}" + (f" of {game.side_name(sealed_by)}" if isinstance(sealed_by, int) else "")
    mine = [game.side_name(i) for i in sides_of(game, actor.user_id)]
    if mine:
        raise NotAllowed(f"you play {' and '.join(mine)}: you may not {what} {which} before its reveal (only its "
                         "side and a game master who plays no side may)")
    if game.gm is None or game.gm != actor.user_id:
        raise NotAllowed(f"only its side and the game master, playing no side, may {what} {which} before its reveal")
    if what == "look at" and current(game, general("gm_peeks")) is False:
        raise NotAllowed(f"this game's option gm_peeks=no: only its side may look at {which} before its reveal")


def check_manual_dice(game: Game, actor: Actor) -> None:
    """Raise NotAllowed unless ``actor`` may give manual dice in ``game`` (the game option manual_dice:
    all players, only the game master, or nobody); checked before anything is rolled."""
    who = current(game, general("manual_dice"))
    if who == "none":
        raise NotAllowed("this game's option manual_dice=none: the bot draws every die; leave dice: out (the game "
                         "master may allow manual dice with /game options set:manual_dice=all)")
    if who == "gm" and not is_game_master(game, actor):
        raise NotAllowed("this game's option manual_dice=gm: only the game master gives manual dice; leave dice: out "
                         "and the bot draws them")


def check_permission(game: Game, actor: Actor, order: dict[str, Any]) -> None:
    """Raise NotAllowed unless ``actor`` may give ``order`` in ``game`` (checked before any roll)."""
    model = order_model(game.ruleset, order.get("action"))
    game_master = is_game_master(game, actor)

    def consent() -> None:  # whose consent the order needs (a seat, the answer to a request), the GM's too
        refusal = model.refusal_for(game, actor.user_id, game_master, order) if model is not None else None
        if refusal:
            raise NotAllowed(refusal)

    if game_master:
        consent()
        return
    if model is not None and model.for_user is not None:  # an order a user gives for themselves (join, leave)
        consent()
        if order.get(model.for_user) != actor.user_id:
            raise NotAllowed("you may give this only for yourself; the game master acts for others")
        return
    mine = sides_of(game, actor.user_id)
    if not mine:
        raise NotAllowed("only the players of this game give orders here: join a side first "
                         "(anyone may look at the game and its log)")
    gm_only = model.gm_only_in(game) if model is not None else ""
    if gm_only:
        raise NotAllowed(f"only the game master may {gm_only}: it corrects the game, it is not a move")
    for side, what in acting_sides(game, order).items():
        if side not in mine:
            raise NotAllowed(f"{what} belongs to {game.side_name(side)}; you play "
                             f"{' and '.join(game.side_name(i) for i in mine)}")
    consent()


def acting_side(game: Game, actor: Actor, side: int | None, what: str) -> int | None:
    """The side ``actor`` does ``what`` (seals, rolls in secret) for: the one named, which must be theirs
    unless they are the game master, else their first; None for the game master's own."""
    mine = sides_of(game, actor.user_id)
    if side is None:
        if mine:
            return mine[0]
        if is_game_master(game, actor):
            return None  # the game master's own
        raise NotAllowed(f"only the players of this game and its game master may {what}: join a side first")
    if not 0 <= side < len(game.sides):
        raise InvalidOrder(f"this game has {len(game.sides)} sides", field="side")
    if side not in mine and not is_game_master(game, actor):
        raise NotAllowed(f"you play {' and '.join(game.side_name(i) for i in mine) or 'no side'}; "
                         f"only the players of {game.side_name(side)} and the game master may {what} for it")
    return side
