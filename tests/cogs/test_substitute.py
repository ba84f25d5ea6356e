"""A substitute (issue 27, item 3) through the real bot and the loopback Discord: the game master's
/game replace invites the new player, who alone accepts (or declines) with a button; the logged
replace order gives him the old player's seat (and the seats index: /games), the old player none."""

from tests.cogs.conftest import ALICE, BOB, CAROL, GM
from tests.cogs.conftest import refusal as refused_embed
from tests.cogs.helpers import last_entry, start_game, unit


def refusal(reply):
    """The refusal's text, its mentions shown as written (the bot breaks them with a zero-width space)."""
    return refused_embed(reply).replace("\u200b", "")


def button(message, label):
    return next(b["custom_id"] for row in message.components for b in row["components"] if b["label"] == label)


async def asl(table):
    return await start_game(table, "asl", ["Germans", "Russians"], [unit("A1", 0, "A4", "ger-467")], phase="MPh")


async def test_a_substitute_takes_the_seat_with_his_consent_and_it_is_logged(table):
    await asl(table)
    invited = await table.as_gm("game replace", {"player": BOB, "with": CAROL})
    assert not invited.ephemeral
    assert invited.message.content == f"<@{CAROL}>"
    assert invited.message.payload["allowed_mentions"]["users"] == [CAROL]
    [embed] = invited.embeds
    assert embed["title"] == "A substitute for Russians"
    assert embed["description"] == (f"<@{GM}>, the game master, asks <@{CAROL}> to take <@{BOB}>'s seat on Russians. "
                                    f"<@{CAROL}> accepts or declines; nothing changes without it.")
    accept = button(invited.message, "Accept")
    before = await table.snapshot()
    for other in (BOB, GM, ALICE):  # nobody answers for the substitute, not even the game master
        assert refusal(await table.fake.click(invited.message, accept, user_id=other)) == (
            f"only <@{CAROL}>, the invited substitute, answers this invitation")
    assert await table.snapshot() == before
    taken = await table.fake.click(invited.message, accept, user_id=CAROL)
    assert taken.embeds[0]["title"].startswith("A substitute takes a seat on Russians")
    assert invited.message.components == []  # answered: the buttons taken off
    game = await table.game()
    assert game.sides[1].players == [CAROL] and game.sides[0].players == [ALICE]
    entry = await last_entry(table)
    assert entry.order == {"action": "replace", "approved_by": GM, "old": BOB, "player": CAROL}
    assert entry.actor == CAROL and entry.command == "/game replace"
    # the seats index follows: the new player lists the game, the old one no longer
    assert (await table.send("games", user=CAROL)).embeds[0]["description"].startswith("1 game")
    assert (await table.send("games", user=BOB)).embeds[0]["description"].startswith("You play in no game")
    # the old player's orders are refused now; the substitute plays on
    assert "join a side first" in await table.refused("done", user=BOB)
    assert (await table.bot.referee.verify(table.channel)).ok


async def test_the_substitute_may_decline_and_nothing_changes(table):
    await asl(table)
    invited = await table.as_gm("game replace", {"player": BOB, "with": CAROL})
    before = await table.snapshot()
    declined = await table.fake.click(invited.message, button(invited.message, "Decline"), user_id=CAROL)
    assert declined.message.embeds[0]["description"] == f"<@{CAROL}> declined: <@{BOB}> keeps the seat."
    assert await table.snapshot() == before


async def test_replace_is_the_game_masters_and_names_a_seated_player_and_a_new_one(table):
    await asl(table)
    assert refusal(await table.send("game replace", {"player": BOB, "with": CAROL}, user=ALICE)) == (
        "only the game master seats a substitute: /game leave gives up your own seat")
    assert refusal(await table.as_gm("game replace", {"player": CAROL, "with": GM})) == (
        f"<@{CAROL}> has no seat in this game: a substitute takes the seat of a player")
    assert refusal(await table.as_gm("game replace", {"player": BOB, "with": ALICE})) == (
        f"<@{ALICE}> already plays in this game")


async def test_an_invitation_accepted_after_the_player_left_is_refused(table):
    await asl(table)
    invited = await table.as_gm("game replace", {"player": BOB, "with": CAROL})
    await table.send("game leave", user=BOB)
    refused = refusal(await table.fake.click(invited.message, button(invited.message, "Accept"), user_id=CAROL))
    assert refused == f"<@{BOB}> has no seat in this game any more: nothing to take over"


def test_the_pace_of_a_side_counts_its_substitutes_entries():
    from bot.pace import side_waits

    def entry(minute, actor, order):
        return {"time": f"2026-03-01T18:{minute:02d}:00+00:00", "actor": actor, "order": order}

    waits = side_waits([
        entry(0, ALICE, {"action": "join", "side": 0, "player": ALICE}),
        entry(1, BOB, {"action": "join", "side": 1, "player": BOB}),
        entry(2, ALICE, {"action": "done", "side": 0}),
        entry(5, CAROL, {"action": "replace", "player": CAROL, "old": BOB, "approved_by": GM}),
        entry(9, CAROL, {"action": "done", "side": 1}),
    ])
    assert [len(w.waits) for w in waits] == [0, 1]  # the Russians waited 7 minutes, answered by the substitute
    assert waits[1].waits[0].total_seconds() == 7 * 60
