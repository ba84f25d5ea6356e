"""Refusals in the players' words (issue 15): no library text ever, and each says what to do instead.

Every refusal below goes through the real bot and the loopback Discord; the fuzzer
(test_hostile_input.py) checks the same phrases on every message it provokes. These are the inputs
that used to bring pydantic's or discord.py's words to the table."""

from __future__ import annotations

import pytest

from tests.cogs.conftest import ALICE, GM, refusal
from tests.cogs.helpers import asl_game
from tests.reliability.test_hostile_input import LIBRARY_PHRASES

CASES = [  # (command, options, user, what the refusal must say to do instead)
    ("unit add", {"id": "A9!", "side": "Germans", "type": "ger-467"}, GM, "an id is 1 to 24 letters"),
    ("unit add", {"id": "A9", "side": "Germans", "type": "ger-467", "stats": "rnage=3"}, GM,
     "did you mean range?"),
    ("unit add", {"id": "A9", "side": "Germans", "type": "ger-467", "stats": "broken=maybe"}, GM, "yes or no"),
    ("unit edit", {"unit": "A1", "stats": "morale=high"}, GM, "takes a whole number"),
    ("unit move", {"unit": "A1", "to": "C 4"}, GM, "is not a valid id"),
    ("fire", {"firers": "A1", "target": "B5", "range": 2, "options": "from_lower=maybe"}, ALICE,
     "is not an option of this order here (options: "),
    ("fire", {"firers": "A1", "target": "B5", "range": 2, "dice": "4"}, ALICE, "give at least 1 more"),
    ("rally", {"unit": "A3"}, ALICE, "only in the Rally Phase"),
    ("game options", {"set": "typo_opt=3"}, GM, "the options are details, gm_peeks, manual_dice, open_seating"),
    ("game options", {"set": "night=maybe"}, GM, "takes yes or no, not 'maybe': e.g. night=yes"),
    ("game options", {"set": "remind_after_hours=twelve"}, GM, "e.g. remind_after_hours=12"),
    ("help", {"command": "fier"}, ALICE, "did you mean fire?"),
]


@pytest.mark.parametrize(("command", "options", "user", "instead"), CASES, ids=[f"{c[0]}-{i}" for i, c in
                                                                                 enumerate(CASES)])
async def test_a_refusal_says_what_to_do_in_the_players_words(table, command, options, user, instead):
    await asl_game(table)
    text = refusal(await table.send(command, options, user=user)).replace("\\_", "_")
    assert LIBRARY_PHRASES.search(text) is None, text
    assert instead in text, text


def test_the_library_phrases_are_caught():
    """The check itself: pydantic's and discord.py's words as they used to reach players."""
    for text in ("'id': String should match pattern '^[A-Za-z0-9]'", "stats: rnage: Extra inputs are not permitted",
                 "'x': Input should be a valid boolean", "That option could not be read: Failed to convert 'x'"):
        assert LIBRARY_PHRASES.search(text), text
