"""/game map and the Map button of /game status end to end: the real bot, the loopback Discord
(the picture uploaded as a multipart attachment, as discord.py sends it), a real SQLite file."""

import threading

import bot.maps
from bot.core.grid import placer
from bot.core.rulesets import get_ruleset
from bot.pictures import hex_layout, latest_fire, map_png
from bot.pictures.battlefield import TERRAIN_RGB
from bot.pictures.draw import SIDE_RGB
from tests.cogs.conftest import BOB, CAROL
from tests.cogs.helpers import GM_ACTOR, asl_game, cd_game, nhis_game
from tests.test_map import along, decode, near


def picture_of(reply):
    (sent,) = reply.files
    assert sent.filename == "map.png"
    assert reply.embeds[0]["image"]["url"] == "attachment://map.png"
    (attachment,) = reply.message.attachments
    assert (attachment["filename"], attachment["content_type"], attachment["size"]) == (
        "map.png", "image/png", len(sent.data))
    assert (attachment["width"], attachment["height"]) == decode(sent.data).size
    return sent.data


async def test_game_map_draws_the_stacks_terrain_and_latest_fire_in_a_worker(table, monkeypatch):
    await asl_game(table, phase="PFPh")
    await table.send("fire", {"firers": "A1 A2 G1", "target": "B5", "range": 2, "dice": "4 2 3 2 2 4 5 4"})
    threads = []

    def drawn_where(*args):  # the real drawing, noting the thread it ran in
        threads.append(threading.current_thread())
        return map_png(*args)

    monkeypatch.setattr(bot.maps, "map_png", drawn_where)
    bot.maps.PICTURES._pictures.clear()
    reply = await table.send("game map", user=CAROL)  # anyone may look
    assert not reply.ephemeral
    assert reply.embeds[0]["title"] == "Test: turn 1"
    assert reply.embeds[0]["color"] == 0x4A7AB5  # the Germans act
    data = picture_of(reply)
    assert threads and threads[0] is not threading.main_thread()  # off the event loop's thread

    game = await table.game()
    field = await table.bot.referee.battlefield(table.channel)
    drawn = map_png(game, latest_fire(game, field.entries, field.undone))
    assert data == drawn.png  # the picture the bot sent
    image = decode(data)
    centres = drawn.centres  # laid out under a header of two lines: the title and the legend do not fit on one
    a4, b5 = centres["A4"], centres["B5"]
    middle = ((a4[0] + b5[0]) / 2, (a4[1] + b5[1]) / 2)
    assert near(image, middle, SIDE_RGB[0], reach=1)  # the fire, A4 -> B5, in the Germans' colour
    assert image.getpixel((round(b5[0] + 30), round(b5[1] - 40))) == TERRAIN_RGB["woods"]

    again = await table.send("game map")
    assert picture_of(again) == data and len(threads) == 1  # the cache: not drawn again


async def test_the_map_button_under_game_status_shows_the_map_to_the_presser(table):
    await asl_game(table)
    status = await table.send("game status")
    game_id = await table.bot.referee.game_id(table.channel)
    buttons = [b for row in status.message.components for b in row["components"]]
    assert [(b["label"], b["custom_id"]) for b in buttons] == [("Units", f"units:{game_id}"), ("Map", f"map:{game_id}")]
    pressed = await table.fake.click(status.message, f"map:{game_id}", user_id=BOB)
    assert pressed.ephemeral
    data = picture_of(pressed)
    image = decode(data)
    game = await table.game()
    a4 = hex_layout(list(game.locations) + [u.location for u in game.units.values()]).centres["A4"]
    label = image.crop((max(0, round(a4[0]) - 150), round(a4[1]) - 40, round(a4[0]) + 150, round(a4[1]) + 40))
    assert SIDE_RGB[0] in set(label.get_flattened_data()) and SIDE_RGB[1] not in set(label.get_flattened_data())


async def test_an_old_games_map_button_says_so(table):
    await asl_game(table)
    status = await table.send("game status")
    units_id, map_id = (b["custom_id"] for b in status.message.components[0]["components"])
    await table.bot.referee.end_game(table.channel, GM_ACTOR)
    await nhis_game(table)
    refused = await table.fake.click(status.message, map_id, user_id=BOB)
    assert refused.ephemeral and refused.files == []
    assert refused.embeds[0]["description"] == ("this Map button belongs to an earlier game of this channel: "
                                                "/game map shows this one")
    refused = await table.fake.click(status.message, units_id, user_id=BOB)
    assert refused.ephemeral and refused.embeds[0]["description"] == (
        "this Units button belongs to an earlier game of this channel: /game status shows this one")


async def test_an_nhis_map(table):
    await nhis_game(table)  # A1 and B1 are not NHiS hex numbers: drawn in the row under the grid
    image = decode(picture_of(await table.send("game map")))
    game = await table.game()
    centres = hex_layout(game.locations, placer(get_ruleset("nhis").grid, game)).centres
    assert set(centres) == {"A1", "B1"}
    assert image.getpixel((round(centres["B1"][0]) + 20, round(centres["B1"][1]) - 25)) == TERRAIN_RGB["open"]


async def test_cd_table_top_by_position(table):
    await cd_game(table)
    image = decode(picture_of(await table.send("game map")))
    colours = set(image.get_flattened_data())
    assert SIDE_RGB[0] in colours and SIDE_RGB[1] in colours


async def test_no_game_no_map(table):
    refused = await table.send("game map")
    assert refused.ephemeral and refused.files == []
    assert refused.embeds[0]["description"].startswith("There is no game in this channel")


async def test_cd_table_top_draws_the_latest_fire_from_the_firing_stand_to_its_target(table):
    await cd_game(table)
    await table.send("fire", {"firers": "P1", "target": "G2", "band": "medium", "dice": "6 1 1 1 1 1"})
    data = picture_of(await table.send("game map"))
    game = await table.game()
    field = await table.bot.referee.battlefield(table.channel)
    shot = latest_fire(game, field.entries, field.undone)
    assert (shot.side, shot.firers, shot.targets) == (0, ("P1",), ("G2",))  # from the fire's log entry
    picture = map_png(game, shot)
    assert data == picture.png and picture.arrows == [(picture.stands["P1"], picture.stands["G2"])]
    middle = along(picture.paths[0], 0.5)  # half way along the line drawn (bent round any stand between)
    assert near(decode(data), middle, SIDE_RGB[0], reach=1)  # the fire, P1 -> G2, in the Americans' colour


async def test_a_large_map_is_sent_zoomed_to_a_phones_width_and_whole_on_asking(table):
    """Issue 30: the 44-counter scenario's map, as /game map sends it, is the area in play within the
    preview's width (its text 14 px on a phone); /game map whole:yes sends the whole map."""
    from bot.pictures.battlefield import MIN_TEXT_PX, PREVIEW_WIDTH
    from tests.cogs.test_scenario import VILLAGE, attach

    await table.fake.send_command("scenario load", {"file": attach(VILLAGE)}, user_id=GM_ACTOR.user_id,
                                  channel_id=table.channel)
    bot.maps.PICTURES._pictures.clear()
    zoomed = decode(picture_of(await table.send("game map", user=CAROL)))
    whole = decode(picture_of(await table.send("game map", {"whole": True}, user=CAROL)))
    assert zoomed.width <= PREVIEW_WIDTH < whole.width
    game = await table.game()
    assert (map_png(game).size, map_png(game, whole=True).size) == (zoomed.size, whole.size)
    assert map_png(game).preview_text_px() >= MIN_TEXT_PX
