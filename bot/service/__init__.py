"""The referee service: the one path from a cog to the rules core and the store.

For each command it takes the channel's lock, answers a re-delivered interaction from the log
(it never rolls twice), loads the channel's game, checks that the actor may give the order
*before* any die is rolled, resolves it through ``bot.core.api``, and saves the new state with
its hash-chained log entry in one transaction. No Discord code here: actors are plain ids.

Its parts, each a module of this package (docs/architecture.md draws them):

- ``desk``: the one way a command opens (``Desk.command``: locks, re-delivery, the game loaded)
  and is written down (``Desk.seal``, ``Desk.save``); ``dice``: committed dice (seeds, proofs);
- ``orders``: orders and the sequence of play, their odds, a dice contribution; ``pacing``:
  deadlines and reaction windows; ``hidden``: seals, secret rolls, peeks, reveals; ``games``: a
  channel's games (new, end, reopen); ``undo``: undo by consent; ``logbook``: the record as read
  (log pages, the map's entries, exports, verification, what was never shown); ``replays``: long
  work on the log; ``jobs``: the functions a worker process runs; ``players``: /games, /away,
  /notify, the hand-off digest;
- ``permissions``: who may do what; ``basics`` and ``results``: what the parts speak and answer;
- ``referee``: ``Referee``, the parts put together under one name.
"""

from bot.service.basics import (Acted, Actor, GameExists, NoGame, NotAllowed, OnLong, OrderBuilder, Sealed,
                                away_spans, plain_order)
from bot.service.games import REOPEN_WITHIN
from bot.service.hidden import HIDDEN_SEAL, SECRET_KINDS
from bot.service.jobs import (ReplayStart, export_record, odds_before, preview_with_plan, replay_cost,
                              state_before_undo, verify_log)
from bot.service.permissions import (acting_sides, check_hidden_access, check_manual_dice, check_permission,
                                     is_game_master)
from bot.service.referee import Referee
from bot.service.results import (Battlefield, LogPage, Odds, SeatedGame, ServerCaps, UndoAnswer, UndoProposal,
                                 VerifyReport)

__all__ = [
    "Acted", "Actor", "Battlefield", "GameExists", "HIDDEN_SEAL", "LogPage", "NoGame", "NotAllowed", "Odds", "OnLong",
    "OrderBuilder", "REOPEN_WITHIN", "Referee", "ReplayStart", "SECRET_KINDS", "SeatedGame", "Sealed", "ServerCaps",
    "UndoAnswer", "UndoProposal", "VerifyReport", "acting_sides", "away_spans", "check_hidden_access",
    "check_manual_dice", "check_permission", "export_record", "is_game_master", "odds_before", "plain_order",
    "preview_with_plan", "replay_cost", "state_before_undo", "verify_log",
]
