"""/games through the bot: a player's games, privately, with the channel as a link, the rules and
scenario, whose move and since when; mine:yes keeps those waiting for them (issue 27, item 4)."""

from tests.cogs.conftest import ALICE, BOB, CAROL, GAME_CHANNEL, GUILD, THREAD
from tests.cogs.helpers import start_game, unit
from tests.cogs.test_undo import clock  # noqa: F401  (the fixture: the bot's clock, moved by hand)


async def two_games(table, clock):
    await start_game(table, "asl", ["Germans", "Russians"], [unit("A1", 0, "A4", "ger-467")])
    clock.advance(hours=1)
    table.channel = THREAD
    await start_game(table, "nhis", ["US", "Japan"], [unit("U1", 0, "A1", "us-rifle-squad")])
    table.channel = GAME_CHANNEL
    await table.send("done", user=ALICE)  # the ASL Rally Phase: the Russians' part, bob to act


async def test_games_lists_the_players_games_privately_their_move_first(table, clock):
    await two_games(table, clock)
    reply = await table.send("games", user=ALICE)
    assert reply.ephemeral
    [embed] = reply.embeds
    assert embed["title"] == "Your games"
    assert embed["description"] == "2 games, 1 waiting for your move"
    first, second = embed["fields"]
    assert first["name"] == "Test"
    assert first["value"].startswith(f"https://discord.com/channels/{GUILD.id}/{THREAD} · No Honor in Surrender\n"
                                     "your move (turn 1, Rally Phase, first side) since <t:")
    assert second["value"].startswith(f"https://discord.com/channels/{GUILD.id}/{GAME_CHANNEL} · Advanced Squad "
                                      "Leader\nRussians to act (turn 1, Rally Phase, DEFENDER's part) since <t:")


async def test_mine_yes_keeps_the_games_waiting_for_the_player(table, clock):
    await two_games(table, clock)
    [embed] = (await table.send("games", {"mine": True}, user=BOB)).embeds
    assert embed["title"] == "Your games: your move"
    assert [f["value"].split(" · ")[0] for f in embed["fields"]] == [
        f"https://discord.com/channels/{GUILD.id}/{GAME_CHANNEL}"]
    [embed] = (await table.send("games", {"mine": True}, user=ALICE)).embeds
    assert [f["value"].split(" · ")[0] for f in embed["fields"]] == [
        f"https://discord.com/channels/{GUILD.id}/{THREAD}"]


async def test_someone_in_no_game_is_told_how_to_join_one(table, clock):
    await two_games(table, clock)
    reply = await table.send("games", user=CAROL)
    assert reply.ephemeral
    assert reply.embeds[0]["description"] == ("You play in no game the bot referees: join one with /game join, or "
                                              "start one with /game new.")
    mine = await table.send("games", {"mine": True}, user=CAROL)
    assert mine.embeds[0]["description"] == "No game waits for your move."
