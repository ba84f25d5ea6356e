"""The loopback Discord, exercised by the real discord.py client running a tiny bot.

Each test starts one bot (function-scoped loops: the client binds to a loop at login) and
asserts what crossed the wire: the synced schema, the exact embed JSON, the callbacks, the
retried 429, the RESUME, a duplicate delivery, and Discord's deadlines (3 s, 15 minutes).
"""

from __future__ import annotations

import re

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot.emulator import MANAGE_CHANNELS, FakeDiscord, running
from bot.emulator.clock import Clock
from bot.emulator.records import (
    AUTOCOMPLETE_RESULT, CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL, UPDATE_MESSAGE,
)

UNITS = ["4-6-7 A1", "4-6-7 A2", "8-3-8 B1", "MMG C1"]


class Confirm(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=30)

    @discord.ui.button(label="Undo", style=discord.ButtonStyle.danger, custom_id="undo")
    async def undo(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.edit_message(content=f"undone by {interaction.user.id}", view=None)


class Orders(discord.ui.Modal, title="Defensive First Fire"):
    """A short form as the Fire button opens one: the target prefilled, the firers to fill."""

    target = discord.ui.TextInput(label="target", default="F4", max_length=20)
    firers = discord.ui.TextInput(label="firers", placeholder="the units that fire", required=True, max_length=100)
    note = discord.ui.TextInput(label="note", style=discord.TextStyle.paragraph, required=False, max_length=200)

    def __init__(self, bot: "TinyBot") -> None:
        super().__init__(timeout=30)
        self.bot = bot

    async def on_submit(self, interaction: discord.Interaction) -> None:
        self.bot.submitted.append((interaction.user.id, self.target.value, self.firers.value, self.note.value))
        await interaction.response.send_message(f"{self.firers.value} fire at {self.target.value}")


def text_input(custom_id: str = "target", **changes) -> dict:
    return {"type": 4, "custom_id": custom_id, "style": 1, "label": custom_id, **changes}


def modal(rows: int = 1, **changes) -> dict:
    """A modal's data as the bot sends it (interaction response type 9)."""
    return {"custom_id": "react:form:1:1", "title": "Defensive First Fire",
            "components": [{"type": 1, "components": [text_input(f"input{n}")]} for n in range(rows)], **changes}


class FormButton(discord.ui.View):
    def __init__(self, bot: "TinyBot") -> None:
        super().__init__(timeout=30)
        self.bot = bot

    @discord.ui.button(label="Fire", custom_id="fire-form")
    async def fire(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.send_modal(Orders(self.bot))


class TinyBot(commands.Bot):
    """Just enough commands to touch every path the emulator serves."""

    def __init__(self) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default(),
                         guild_ready_timeout=0.01)
        self.calls: list[tuple[str, int]] = []  # (command, interaction id), in arrival order
        self.refusals: list[tuple[int, int, str]] = []  # (status, code, text) of answers Discord refused
        self.submitted: list[tuple[int, str, str, str]] = []  # (user, target, firers, note) of each form
        self.raw: list[dict] = []  # modals /rawmodal sends as it is, before its answer
        self.raw_answers: list[tuple[int, int, dict]] = []  # (status, code, errors) Discord gave each
        self.add_commands()

    def add_commands(self) -> None:
        bot = self

        @self.tree.command(name="fire", description="Fire at a target")
        @app_commands.describe(target="the target hex", fp="firepower", unit="the firing unit")
        @app_commands.choices(fp=[app_commands.Choice(name="2", value=2), app_commands.Choice(name="4", value=4)])
        async def fire(interaction: discord.Interaction, target: str, fp: int, unit: str | None = None) -> None:
            bot.calls.append(("fire", interaction.id))
            embed = discord.Embed(title=f"Fire at {target}", description=f"{fp} FP", colour=0x2E7D32)
            embed.add_field(name="Unit", value=unit or "-", inline=True)
            gm = interaction.permissions.manage_channels
            await interaction.response.send_message(embed=embed, ephemeral=not gm, view=Confirm())

        @fire.autocomplete("unit")
        async def fire_unit(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
            return [app_commands.Choice(name=u, value=u) for u in UNITS if current.lower() in u.lower()]

        game = app_commands.Group(name="game", description="Game set-up")

        @game.command(name="new", description="Start a game against an opponent")
        async def new(interaction: discord.Interaction, scenario: str, opponent: discord.Member,
                      turns: app_commands.Range[int, 1, 10] = 6, night: bool = False, odds: float = 1.0) -> None:
            bot.calls.append(("game new", interaction.id))
            await interaction.response.send_message(
                f"{scenario} vs {opponent.display_name} ({type(opponent).__name__}), {turns} turns, "
                f"night={night}, odds={odds}")

        self.tree.add_command(game)

        @self.tree.command(name="slow", description="Defer, then follow up")
        async def slow(interaction: discord.Interaction) -> None:
            bot.calls.append(("slow", interaction.id))
            await interaction.response.defer(thinking=True)
            await interaction.edit_original_response(content="worked it out")
            await interaction.followup.send("and one more thing", file=discord.File(
                __import__("io").BytesIO(b"turn log"), filename="log.txt"))

        @self.tree.command(name="oversize", description="An embed Discord refuses, then one it takes")
        async def oversize(interaction: discord.Interaction) -> None:
            try:
                await interaction.response.send_message(embed=discord.Embed(description="x" * 4097))
            except discord.HTTPException as exc:
                bot.refusals.append((exc.status, exc.code, exc.text))
            await interaction.response.send_message(embed=discord.Embed(description="x" * 4096))

        @self.tree.command(name="form", description="Open the fire form")
        async def form(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(Orders(bot))

        @self.tree.command(name="formbutton", description="A message with a Fire button that opens the form")
        async def formbutton(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("Bob may fire", view=FormButton(bot))

        @self.tree.command(name="deferform", description="Defer, then try a modal")
        async def deferform(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            await self.post_raw(interaction, {"type": 9, "data": modal()})
            await interaction.edit_original_response(content="deferred")

        @self.tree.command(name="rawmodal", description="Send each raw modal, then answer")
        async def rawmodal(interaction: discord.Interaction) -> None:
            for data in bot.raw:
                await self.post_raw(interaction, {"type": 9, "data": data})
            if not any(status in (200, 204) for status, _, _ in bot.raw_answers):  # no modal taken: answered
                await interaction.response.send_message("answered")

        @self.tree.command(name="think", description="Defer in public, then follow up twice asking for privacy")
        async def think(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            first = await interaction.followup.send("asked to be private", ephemeral=True, wait=True)
            second = await interaction.followup.send("private indeed", ephemeral=True, wait=True)
            await interaction.edit_original_response(content=f"{first.id} {second.id}")
            await interaction.followup.send("still public?", ephemeral=True, wait=True)  # after an edit


async def _post_raw(self, interaction: discord.Interaction, body: dict) -> None:
    """Post an interaction callback as it is (discord.py checks some of it first): Discord's answer kept."""
    url = f"{discord.http.Route.BASE}/interactions/{interaction.id}/{interaction.token}/callback"
    async with aiohttp.ClientSession() as http:
        async with http.post(url, json=body) as response:
            answer = await response.json() if response.status != 204 else {}
            self.raw_answers.append((response.status, answer.get("code", 0), answer.get("errors", {})))


TinyBot.post_raw = _post_raw


@pytest.fixture
def bot() -> TinyBot:
    return TinyBot()


async def test_login_ready_and_sync_are_recorded(bot):
    async with running(bot) as (fake, bot):
        assert bot.user.id == fake.app.id
        assert bot.get_guild(fake.guild().id).get_channel_or_thread(fake.guild().channels[2].id).name == "game-thread"
        assert fake.gateway.identifies == 1
        (guild_id, synced), = fake.syncs
        assert guild_id is None
        fire = next(c for c in synced if c["name"] == "fire")
        assert fire["application_id"] == str(fake.app.id) and fire["id"] and fire["version"]
        assert [(o["name"], o["type"], o.get("required", False)) for o in fire["options"]] == [
            ("target", 3, True), ("fp", 4, True), ("unit", 3, False)]


async def test_command_round_trip_posts_the_exact_embed(bot):
    async with running(bot) as (fake, bot):
        reply = await fake.send_command("fire", {"target": "K5", "fp": 4, "unit": "4-6-7 A1"},
                                        member_permissions=MANAGE_CHANNELS)
        assert reply.type == CHANNEL_MESSAGE
        assert reply.embeds == [{"title": "Fire at K5", "description": "4 FP", "color": 0x2E7D32, "type": "rich",
                                 "flags": 0, "fields": [{"name": "Unit", "value": "4-6-7 A1", "inline": True}]}]
        assert reply.ephemeral is False  # the member holds Manage Channels
        assert reply.message.custom_ids() == ["undo"]
        assert bot.calls == [("fire", reply.record.id)]


async def test_member_permissions_reach_the_bot(bot):
    async with running(bot) as (fake, bot):
        reply = await fake.send_command("fire", {"target": "K5", "fp": 2})
        assert reply.ephemeral is True  # an ordinary player: no Manage Channels bit


async def test_autocomplete_returns_the_bots_choices(bot):
    async with running(bot) as (fake, bot):
        choices = await fake.autocomplete("fire", {"target": "K5", "unit": "4-6"}, focused="unit")
        assert choices == [{"name": "4-6-7 A1", "value": "4-6-7 A1"}, {"name": "4-6-7 A2", "value": "4-6-7 A2"}]
        assert fake.interactions[next(reversed(fake.interactions))].callbacks[0].type == AUTOCOMPLETE_RESULT


async def test_button_click_updates_the_message(bot):
    async with running(bot) as (fake, bot):
        reply = await fake.send_command("fire", {"target": "K5", "fp": 2}, member_permissions=MANAGE_CHANNELS)
        clicked = await fake.click(reply, "undo", user_id=fake.guild().members[1].id)
        assert clicked.type == UPDATE_MESSAGE
        assert clicked.message is reply.message  # the same message, edited in place
        assert reply.content == f"undone by {fake.guild().members[1].id}"
        assert reply.components == []


async def test_deferred_reply_is_edited_and_followed_up_with_a_file(bot):
    async with running(bot) as (fake, bot):
        reply = await fake.send_command("slow")
        assert reply.type == DEFERRED_CHANNEL_MESSAGE
        assert reply.content == "worked it out"
        (followup,) = reply.followups
        assert followup.content == "and one more thing"
        assert [(f.filename, f.data) for f in followup.files] == [("log.txt", b"turn log")]
        assert followup.attachments[0]["size"] == len(b"turn log")


async def test_the_first_followup_after_a_deferral_edits_the_thinking_message_and_keeps_its_visibility(bot):
    # Discord's Create Followup Message, right after DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: "no new
    # message will be created, and the loading message will be edited instead. The ephemeral flag
    # will be ignored" (deprecated, but what happens): a bot relying on that flag leaks its text
    async with running(bot) as (fake, bot):
        reply = await fake.send_command("think")
        assert reply.type == DEFERRED_CHANNEL_MESSAGE and not reply.message.ephemeral
        second, third = reply.followups  # the first followup made no message of its own
        assert reply.content == f"{reply.message.id} {second.id}"  # it returned the thinking message
        assert not reply.message.flags & (1 << 7)  # no longer "thinking..."
        assert second.ephemeral and third.ephemeral and second.content == "private indeed"
        assert reply.message.edits == 2


async def test_a_message_over_discords_limits_is_refused_and_does_not_answer_the_interaction(bot):
    async with running(bot) as (fake, bot):
        reply = await fake.send_command("oversize")
        [(status, code, text)] = bot.refusals
        # discord.py reads Discord's nested errors back into one line per bad field
        assert (status, code) == (400, 50035)
        assert text == "Invalid Form Body\nIn data.embeds.0.description: Must be 4096 or fewer in length."
        assert reply.type == CHANNEL_MESSAGE and len(reply.embeds[0]["description"]) == 4096  # the second try
        assert reply.record.refused == [(f"/api/v10/interactions/{reply.record.id}/{reply.record.token}/callback",
                                         50035)]


async def test_followups_edits_and_channel_posts_are_held_to_the_same_limits(bot):
    async with running(bot) as (fake, bot):
        reply = await fake.send_command("slow")
        base = f"{fake.api_url}/webhooks/{fake.app.id}/{reply.record.token}"
        channel = f"{fake.api_url}/channels/{fake.guild().channels[0].id}/messages"
        ten_fields = [{"name": "n", "value": "v" * 1000}] * 7  # 7,007 characters in one embed
        async with aiohttp.ClientSession() as http:
            for method, url, body, code in [
                ("post", base, {"content": "x" * 2001}, 50035),
                ("post", base, {}, 50006),
                ("post", base, {"embeds": [{"fields": ten_fields}]}, 50035),
                ("patch", base + "/messages/@original", {"embeds": [{"title": "t"}] * 11}, 50035),
                ("post", channel, {"embeds": [{"fields": [{"name": "", "value": "v"}]}]}, 50035),
            ]:
                async with http.request(method, url, json=body, headers={"Authorization": "Bot x"}) as response:
                    assert (response.status, (await response.json())["code"]) == (400, code), (method, body)
            form = aiohttp.FormData()
            form.add_field("payload_json", '{"content": "the log"}', content_type="application/json")
            form.add_field("files[0]", b"x" * (8 * 1024 * 1024 + 1), filename="log.json")
            async with http.post(base, data=form) as response:  # over attachment_size_limit
                assert (response.status, (await response.json())["code"]) == (413, 40005)
        assert reply.content == "worked it out" and len(reply.followups) == 1  # nothing refused was kept


@pytest.mark.parametrize(("body", "errors"), [
    ({"content": "x" * 2000}, {}),
    ({"embeds": [{"title": "t" * 257}]}, {"embeds": {"0": {"title": {"_errors": [
        {"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 256 or fewer in length."}]}}}}),
    ({"embeds": [{"description": "d" * 3000}, {"description": "d" * 3001}]}, {"embeds": {"_errors": [
        {"code": "MAX_EMBED_SIZE_EXCEEDED", "message": "Embed size exceeds maximum size of 6000"}]}}),
    ({"embeds": [{"fields": [{"name": "n", "value": "v" * 1025}]}]}, {"embeds": {"0": {"fields": {"0": {
        "value": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 1024 or fewer in length."}]}}}}}}),
    ({"embeds": [{"footer": {"text": "f" * 2049}}]}, {"embeds": {"0": {"footer": {"text": {"_errors": [
        {"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 2048 or fewer in length."}]}}}}}),
    ({"components": [{"type": 1, "components": [{"type": 2, "style": 1, "label": "A", "custom_id": "a"},
                                                {"type": 2, "style": 2, "label": "B", "custom_id": "a"}]}]},
     {"components": {"0": {"components": {"1": {"custom_id": {"_errors": [
         {"code": "COMPONENT_CUSTOM_ID_DUPLICATED", "message": "Component custom id cannot be duplicated"}]}}}}}}),
    ({"components": [{"type": 1, "components": [{"type": 2, "style": 1, "label": "A", "custom_id": "c" * 101}]}]},
     {"components": {"0": {"components": {"0": {"custom_id": {"_errors": [
         {"code": "BASE_TYPE_BAD_LENGTH", "message": "Must be between 1 and 100 in length."}]}}}}}}),
    ({"components": [{"type": 1, "components": [{"type": 2, "style": 1, "label": str(i), "custom_id": str(i)}]}
                     for i in range(6)]},
     {"components": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 5 or fewer in length."}]}}),
], ids=["content-2000", "title", "total-6000", "field-value", "footer", "duplicate-id", "long-id", "six-rows"])
def test_message_limits_are_discords(body, errors):
    from bot.emulator.bodies import message_errors

    assert message_errors(body) == errors


def test_autocomplete_choices_are_held_to_discords_limits():
    from bot.emulator.bodies import choices_errors

    assert choices_errors([{"name": "a", "value": "a"}] * 25) == {}
    assert choices_errors([{"name": "a", "value": "a"}] * 26)["_errors"][0]["code"] == "BASE_TYPE_MAX_LENGTH"
    assert list(choices_errors([{"name": "a", "value": "v" * 101}, {"name": "", "value": "b"}])) == ["0", "1"]


@pytest.mark.parametrize("options, problem", [
    ({"target": "K5", "fp": 3}, "not among the choices"),
    ({"target": "K5", "fp": "4"}, "expects a integer"),
    ({"target": "K5"}, "missing required option(s): ['fp']"),
    ({"target": "K5", "fp": 2, "range": 3}, "has no option 'range'"),
    ([{"name": "target", "type": 4, "value": 5}, {"name": "fp", "type": 4, "value": 2}], "not type 4"),
])
async def test_an_option_the_schema_does_not_allow_is_refused(bot, options, problem):
    async with running(bot) as (fake, bot):
        with pytest.raises(AssertionError, match=re.escape(problem)):
            await fake.send_command("fire", options)
        assert bot.calls == []


async def test_an_unsynced_command_is_refused(bot):
    async with running(bot) as (fake, bot):
        with pytest.raises(AssertionError, match="/melee was not synced"):
            await fake.send_command("melee", {})


async def test_a_429_on_the_callback_is_retried_and_the_reply_arrives(bot):
    async with running(bot) as (fake, bot):
        fake.rate_limit_next("/callback", retry_after=0.05)
        reply = await fake.send_command("fire", {"target": "K5", "fp": 2})
        assert [r.status for r in fake.faults_served] == [429]
        callbacks = [r for r in fake.requests if "/callback" in r.path]
        assert [r.status for r in callbacks] == [429, 200]
        assert reply.embeds[0]["title"] == "Fire at K5"
        assert bot.calls == [("fire", reply.record.id)]


async def test_a_dropped_gateway_resumes_and_commands_still_work(bot):
    async with running(bot) as (fake, bot):
        await fake.drop_gateway()
        assert (fake.gateway.identifies, fake.gateway.resumes) == (1, 1)
        reply = await fake.send_command("fire", {"target": "L6", "fp": 4})
        assert reply.embeds[0]["title"] == "Fire at L6"


async def test_an_interaction_sent_while_the_gateway_is_down_arrives_after_the_resume(bot):
    async with running(bot) as (fake, bot):
        await fake.drop_gateway(wait=False)
        reply = await fake.send_command("fire", {"target": "M7", "fp": 2})
        assert fake.gateway.resumes == 1
        assert reply.embeds[0]["title"] == "Fire at M7"
        assert bot.calls == [("fire", reply.record.id)]


async def test_a_duplicate_delivery_reaches_the_bot_twice_in_one_session(bot):
    async with running(bot) as (fake, bot):
        reply = await fake.send_command("fire", {"target": "K5", "fp": 2})
        await fake.deliver_again(reply)
        assert bot.calls == [("fire", reply.record.id), ("fire", reply.record.id)]
        assert (reply.record.deliveries, reply.record.deliveries_received) == (2, 2)
        # Discord acknowledges an interaction once: the naive bot's second answer is refused
        assert len(reply.record.callbacks) == 1 and len(reply.record.rejected) == 1


async def test_discord_never_sends_an_interaction_to_a_restarted_bot(bot):
    # a restart is a new gateway session (IDENTIFY): Discord does not re-send what the old one got
    async with running(bot) as (fake, bot):
        reply = await fake.send_command("fire", {"target": "K5", "fp": 2})
    async with running(TinyBot(), fake=fake):
        with pytest.raises(AssertionError, match="does not deliver an interaction to a new gateway session"):
            await fake.deliver_again(reply)
    await fake.stop()


async def test_an_answer_after_three_seconds_is_unknown_and_its_token_dead(bot):
    async with running(bot) as (fake, bot):
        fake.lag(3.2)  # the bot's answer reaches Discord 3.2 s after the interaction (nothing waits)
        reply = await fake.send_command("fire", {"target": "K5", "fp": 2})  # discord.py raised NotFound
        record = reply.record
        assert reply.type is None and reply.message is None
        assert not record.callbacks and len(record.late) == 1 and record.refused == [
            (f"/api/v10/interactions/{record.id}/{record.token}/callback", 10062)]
        async with aiohttp.ClientSession() as http:  # nor may a followup make up for it
            async with http.post(f"{fake.api_url}/webhooks/{fake.app.id}/{record.token}?wait=1",
                                 json={"content": "late"}) as response:
                assert (response.status, (await response.json())["code"]) == (404, 10015)
        assert fake.channel_messages(fake.guild().channels[0].id) == []


async def test_an_answer_within_three_seconds_is_taken(bot):
    async with running(bot) as (fake, bot):
        fake.lag(2.9)
        reply = await fake.send_command("fire", {"target": "K5", "fp": 2})
        assert reply.type == CHANNEL_MESSAGE and not reply.record.late


async def test_followups_and_edits_end_fifteen_minutes_after_the_interaction(bot):
    async with running(bot) as (fake, bot):
        reply = await fake.send_command("fire", {"target": "K5", "fp": 2})
        base = f"{fake.api_url}/webhooks/{fake.app.id}/{reply.record.token}"
        async with aiohttp.ClientSession() as http:
            fake.clock.advance(14 * 60)
            async with http.post(base + "?wait=1", json={"content": "still in time"}) as response:
                assert response.status == 200
            fake.clock.advance(61)
            async with http.post(base + "?wait=1", json={"content": "too late"}) as response:
                assert (response.status, (await response.json())["code"]) == (401, 50027)
            async with http.patch(base + "/messages/@original", json={"content": "too late"}) as response:
                assert (response.status, (await response.json())["code"]) == (401, 50027)
        assert [m.content for m in reply.followups] == ["still in time"]


async def test_a_second_initial_response_is_refused_as_already_acknowledged(bot):
    async with running(bot) as (fake, bot):
        reply = await fake.send_command("fire", {"target": "K5", "fp": 2})
        async with aiohttp.ClientSession() as http:
            async with http.post(f"{fake.api_url}/interactions/{reply.record.id}/{reply.record.token}/callback",
                                 json={"type": 4, "data": {"content": "again"}}) as response:
                assert (response.status, (await response.json())["code"]) == (400, 40060)
        assert len(reply.record.callbacks) == 1 and reply.content == ""


def test_the_clock_runs_at_its_time_scale_and_advances_on_demand():
    ticks = iter([100.0, 100.5, 101.0])
    clock = Clock(time_scale=10, source=lambda: next(ticks))
    assert clock.now() == 5.0
    clock.advance(3)
    assert clock.now() == 13.0


async def test_a_bot_may_post_plain_channel_messages(bot):
    async with running(bot) as (fake, bot):
        channel = bot.get_channel(fake.guild().channels[1].id)
        sent = await channel.send("<@2000000000000000002>, your turn", embed=discord.Embed(title="Turn 2"))
        (stored,) = fake.channel_messages(channel.id)
        assert stored.id == sent.id
        assert stored.content == "<@2000000000000000002>, your turn"
        assert stored.embeds == [{"title": "Turn 2", "type": "rich", "flags": 0}]


async def test_a_bot_may_send_direct_messages_and_closed_dms_are_refused_with_50007(bot):
    """As Discord: the DM channel is opened for anyone (POST /users/@me/channels), and a message to a
    user whose DMs are closed to the bot is refused with 403 code 50007."""
    async with running(bot) as (fake, bot):
        alice, bob = fake.guild().members[:2]
        dm = await bot.create_dm(discord.Object(id=alice.id))
        assert isinstance(dm, discord.DMChannel) and dm.recipient.id == alice.id
        sent = await dm.send("your move")
        assert [m.id for m in fake.dm_messages(alice.id)] == [sent.id]
        assert fake.dm_messages(alice.id)[0].content == "your move"
        fake.closed_dms.add(bob.id)
        closed = await bot.create_dm(discord.Object(id=bob.id))  # the channel opens all the same
        with pytest.raises(discord.Forbidden) as refused:
            await closed.send("your move")
        assert refused.value.code == 50007 and refused.value.text == "Cannot send messages to this user"
        assert fake.dm_messages(bob.id) == []
        assert await bot.create_dm(discord.Object(id=alice.id)) is dm  # opened once: the client keeps it


async def test_unknown_routes_answer_404_not_5xx(bot):
    async with running(bot) as (fake, bot):
        with pytest.raises(discord.NotFound):
            await bot.fetch_guild(fake.guild().id)
        assert fake.requests[-1].status == 404


async def test_a_subcommand_gets_typed_nested_options_and_a_resolved_member(bot):
    async with running(bot) as (fake, bot):
        bob = fake.guild().members[1]
        reply = await fake.send_command("game new", {"scenario": "ASL 1", "opponent": bob.id, "turns": 5,
                                                     "night": True, "odds": 1.5})
        (outer,) = reply.record.payload["data"]["options"]
        assert (outer["name"], outer["type"]) == ("new", 1)
        assert [(o["name"], o["type"]) for o in outer["options"]] == [
            ("scenario", 3), ("opponent", 6), ("turns", 4), ("night", 5), ("odds", 10)]
        assert reply.content == "ASL 1 vs bob (Member), 5 turns, night=True, odds=1.5"


async def test_a_value_outside_the_synced_range_is_refused(bot):
    async with running(bot) as (fake, bot):
        with pytest.raises(AssertionError, match=r"'turns': 11 is outside \[1, 10\]"):
            await fake.send_command("game new", {"scenario": "ASL 1", "opponent": 1, "turns": 11})


async def test_a_group_without_its_subcommand_is_refused(bot):
    async with running(bot) as (fake, bot):
        with pytest.raises(AssertionError, match="/game needs a subcommand"):
            await fake.send_command("game", {})


async def test_clicking_a_button_the_message_lacks_is_refused(bot):
    async with running(bot) as (fake, bot):
        reply = await fake.send_command("fire", {"target": "K5", "fp": 2})
        with pytest.raises(AssertionError, match=r"no component 'redo'.*\['undo'\]"):
            await fake.click(reply, "redo")


async def test_a_wrong_token_fails_the_login():
    async with FakeDiscord(token="the-right-token") as fake:
        with pytest.raises(discord.LoginFailure):
            async with running(TinyBot(), fake=fake, token="a-wrong-token"):
                pass
        assert fake.requests[0].status == 401
        assert fake.gateway.identifies == 0


async def test_the_client_urls_are_restored_after_the_run(bot):
    before = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    async with running(bot) as (fake, bot):
        assert discord.http.Route.BASE == fake.api_url
    assert (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == before


async def test_json_answers_carry_exactly_application_json_and_unknown_routes_404():
    async with FakeDiscord() as fake, aiohttp.ClientSession() as session:
        async with session.get(fake.api_url + "/users/@me") as response:
            assert response.headers["Content-Type"] == "application/json"
            assert (await response.json())["id"] == str(fake.app.id)
        async with session.get(fake.api_url + "/no/such/route") as response:
            assert response.status == 404
            assert response.headers["Content-Type"] == "application/json"


class GuildSyncedBot(TinyBot):
    """Syncs to one guild in setup_hook, as RefereeBot does with a dev guild."""

    def __init__(self, guild_id: int) -> None:
        super().__init__()
        self.guild_id = guild_id

    async def setup_hook(self) -> None:
        guild = discord.Object(id=self.guild_id)
        self.tree.copy_global_to(guild=guild)
        await self.tree.sync(guild=guild)


async def test_guild_synced_commands_are_served_as_guild_commands(emulated, fake_discord):
    bot = GuildSyncedBot(fake_discord.guild().id)
    fake = await emulated(bot)
    assert [guild_id for guild_id, _ in fake.syncs] == [fake.guild().id]  # the harness added no global sync
    reply = await fake.send_command("fire", {"target": "K5", "fp": 2})
    assert reply.record.payload["data"]["guild_id"] == str(fake.guild().id)
    assert reply.embeds[0]["title"] == "Fire at K5"


async def test_uploaded_files_pair_with_their_attachments_by_part_name_and_are_typed_as_discord_types_them():
    """Discord pairs the part ``files[n]`` with the ``attachments`` entry of id n, whatever the order
    of the parts, and types an attachment from the file (discord.py uploads application/octet-stream),
    giving an image's width and height."""
    import io
    import json

    from PIL import Image

    picture = io.BytesIO()
    Image.new("RGB", (30, 20), (1, 2, 3)).save(picture, format="PNG")
    async with FakeDiscord() as fake, aiohttp.ClientSession() as session:
        channel = fake.guild().channels[0].id
        form = aiohttp.FormData()
        form.add_field("payload_json", json.dumps({"content": "two files", "attachments": [
            {"id": 0, "filename": "notes.txt"}, {"id": 1, "filename": "map.png", "description": "the map"}]}),
            content_type="application/json")
        form.add_field("files[1]", picture.getvalue(), filename="map.png", content_type="application/octet-stream")
        form.add_field("files[0]", b"turn 3", filename="notes.txt", content_type="application/octet-stream")
        async with session.post(f"{fake.api_url}/channels/{channel}/messages", data=form) as response:
            assert response.status == 200
            payload = await response.json()
        (message,) = fake.channel_messages(channel)
        assert [(f.filename, f.data[:6]) for f in message.files] == [("notes.txt", b"turn 3"),
                                                                    ("map.png", picture.getvalue()[:6])]
        notes, image = payload["attachments"]
        assert (notes["filename"], notes["content_type"], notes["size"]) == ("notes.txt", "text/plain", 6)
        assert "width" not in notes
        assert (image["filename"], image["content_type"], image["width"], image["height"], image["description"]) == (
            "map.png", "image/png", 30, 20, "the map")


async def test_a_command_discord_would_refuse_at_registration_fails_the_sync_and_changes_nothing(bot):
    # real Discord answers a bulk overwrite with a 101-character description 400/50035 and keeps the
    # old commands: a bot must not pass here with a command set it could never register
    async with running(bot) as (fake, bot):
        before = fake.commands[None]

        @bot.tree.command(name="map", description="x" * 101)
        async def too_long(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("never")

        with pytest.raises(app_commands.CommandSyncFailure) as refused:
            await bot.tree.sync()
        assert refused.value.status == 400 and refused.value.code == 50035
        assert "Must be between 1 and 100 in length" in str(refused.value)
        assert fake.commands[None] == before and len(fake.refused_syncs) == 1


@pytest.mark.parametrize("command, where", [
    ({"name": "Fire", "description": "upper case"}, ["name"]),
    ({"name": "x" * 33, "description": "too long a name"}, ["name"]),
    ({"name": "fire", "description": ""}, ["description"]),
    ({"name": "fire", "description": "d", "options": [
        {"type": 3, "name": f"o{i}", "description": "d"} for i in range(26)]}, ["options", "_errors"]),
    ({"name": "fire", "description": "d", "options": [
        {"type": 3, "name": "a", "description": "d"},
        {"type": 3, "name": "b", "description": "d", "required": True}]}, ["options", "1", "required"]),
    ({"name": "fire", "description": "d", "options": [
        {"type": 3, "name": "a", "description": "d", "choices": [
            {"name": str(i), "value": str(i)} for i in range(26)]}]}, ["options", "0", "choices"]),
    ({"name": "fire", "description": "d", "options": [
        {"type": 3, "name": "a", "description": "d", "choices": [{"name": "c" * 101, "value": "c"}]}]},
     ["options", "0", "choices", "0"]),
    ({"name": "fire", "description": "d", "options": [
        {"type": 1, "name": "sub", "description": "y" * 101}]}, ["options", "0", "description"]),
    ({"name": "fire", "description": "d" * 100, "options": [
        {"type": 3, "name": f"o{i}", "description": "d" * 100, "choices": [
            {"name": "c" * 100, "value": "v" * 100} for _ in range(2)]} for i in range(25)]}, ["_errors"]),
])
def test_registration_refuses_what_discord_refuses_naming_the_field(command, where):
    from bot.emulator.schema import registration_errors
    errors = registration_errors([{"name": "ok", "description": "fine"}, command])
    assert list(errors) == ["1"]
    node = errors["1"]
    for key in where:
        node = node[key]
    assert node  # the path Discord would name holds an error
    assert registration_errors([{"name": "ok", "description": "fine"}]) == {}


# --- modals (interaction response type 9) and their submission (interaction type 5) --------------


async def test_a_modal_opened_by_a_command_is_submitted_and_answered(bot):
    async with running(bot) as (fake, bot):
        user = fake.guild().members[1].id
        opened = await fake.send_command("form", user_id=user)
        assert opened.type == MODAL and opened.message is None
        assert opened.modal["title"] == "Defensive First Fire"
        assert [row["components"][0]["custom_id"] for row in opened.modal["components"]] == [
            item.custom_id for item in Orders(bot).children]
        inputs = {row["components"][0]["label"]: row["components"][0]["custom_id"]
                  for row in opened.modal["components"]}
        submitted = await fake.submit_modal(opened, {inputs["firers"]: "B6 C5"}, user_id=user)
        assert submitted.record.payload["type"] == 5 and submitted.content == "B6 C5 fire at F4"
        assert bot.submitted == [(user, "F4", "B6 C5", "")]  # the prefilled target kept, the note left empty
        with pytest.raises(AssertionError, match="submitted already"):
            await fake.submit_modal(opened, {inputs["firers"]: "B6"})


async def test_a_modal_opened_by_a_button_names_its_message_and_only_its_user_submits_it(bot):
    async with running(bot) as (fake, bot):
        posted = await fake.send_command("formbutton")
        bob, alice = fake.guild().members[1].id, fake.guild().members[0].id
        opened = await fake.click(posted, "fire-form", user_id=bob)
        assert opened.type == MODAL
        firers = opened.modal["components"][1]["components"][0]["custom_id"]
        with pytest.raises(AssertionError, match=f"shown to user {bob} alone"):
            await fake.submit_modal(opened, {firers: "B6"}, user_id=alice)
        with pytest.raises(AssertionError, match="'firers' is required"):
            await fake.submit_modal(opened)
        with pytest.raises(AssertionError, match="'target' takes 0-20 characters, not 21"):
            await fake.submit_modal(opened, {firers: "B6", opened.modal["components"][0]["components"][0]["custom_id"]:
                                             "x" * 21})
        with pytest.raises(AssertionError, match="has no input"):
            await fake.submit_modal(opened, {firers: "B6", "range": "3"})
        submitted = await fake.submit_modal(opened, {firers: "B6"})
        assert submitted.record.payload["message"]["id"] == str(posted.message.id)
        assert bot.submitted == [(bob, "F4", "B6", "")]


async def test_a_modals_submission_answered_after_three_seconds_is_unknown(bot):
    async with running(bot) as (fake, bot):
        opened = await fake.send_command("form")
        firers = opened.modal["components"][1]["components"][0]["custom_id"]
        fake.lag(3.5, "/callback")  # the answer reaches Discord past its 3 s
        submitted = await fake.submit_modal(opened, {firers: "B6"})
        assert not submitted.record.callbacks and len(submitted.record.late) == 1
        assert submitted.record.refused[-1][1] == 10062


async def test_a_modal_is_only_a_first_answer(bot):
    async with running(bot) as (fake, bot):
        deferred = await fake.send_command("deferform")
        assert bot.raw_answers == [(400, 40060, {})]  # after a deferral: already acknowledged
        assert deferred.type == DEFERRED_CHANNEL_MESSAGE and deferred.content == "deferred"
        answered = await fake.send_command("fire", {"target": "K5", "fp": 2})
        async with aiohttp.ClientSession() as http:
            async with http.post(f"{fake.api_url}/interactions/{answered.record.id}/{answered.record.token}/callback",
                                 json={"type": 9, "data": modal()}) as response:
                assert (response.status, (await response.json())["code"]) == (400, 40060)  # after a message
        opened = await fake.send_command("form")
        submitted = await fake.submit_modal(opened, {opened.modal["components"][1]["components"][0]["custom_id"]: "B6"})
        async with aiohttp.ClientSession() as http:  # a modal's submission is never answered with a modal
            record = submitted.record
            assert len(record.callbacks) == 1
            record.callbacks.clear()  # as if unanswered: the type itself is refused
            async with http.post(f"{fake.api_url}/interactions/{record.id}/{record.token}/callback",
                                 json={"type": 9, "data": modal()}) as response:
                body = await response.json()
                assert (response.status, body["code"]) == (400, 50035) and "type" in body["errors"]


async def test_a_modals_submission_updates_the_message_only_when_a_component_opened_it(bot):
    async with running(bot) as (fake, bot):
        opened = await fake.send_command("form")  # from a slash command: no message to update
        submitted = await fake.submit_modal(opened, {opened.modal["components"][1]["components"][0]["custom_id"]: "B6"})
        record = submitted.record
        record.callbacks.clear()  # as if unanswered: an update is refused for want of a message
        async with aiohttp.ClientSession() as http:
            for kind in (6, 7):
                async with http.post(f"{fake.api_url}/interactions/{record.id}/{record.token}/callback",
                                     json={"type": kind, "data": {"content": "x"}}) as response:
                    body = await response.json()
                    assert (response.status, body["code"]) == (400, 50035) and "type" in body["errors"]


@pytest.mark.parametrize(("data", "where"), [
    (modal(title="x" * 46), ["title"]),
    (modal(title=""), ["title"]),
    (modal(custom_id="x" * 101), ["custom_id"]),
    (modal(rows=0), ["components"]),
    (modal(rows=6), ["components"]),
    (modal(components=[{"type": 1, "components": [text_input("a"), text_input("b")]}]), ["components", "0"]),
    (modal(components=[{"type": 1, "components": [{"type": 2, "style": 1, "label": "Go", "custom_id": "go"}]}]),
     ["components", "0"]),
    (modal(components=[{"type": 4, "custom_id": "a", "style": 1, "label": "a"}]), ["components", "0"]),
    (modal(components=[{"type": 1, "components": [text_input(label="x" * 46)]}]), ["label"]),
    (modal(components=[{"type": 1, "components": [text_input(custom_id="x" * 101)]}]), ["custom_id"]),
    (modal(components=[{"type": 1, "components": [text_input(style=3)]}]), ["style"]),
    (modal(components=[{"type": 1, "components": [text_input(max_length=4001)]}]), ["max_length"]),
    (modal(components=[{"type": 1, "components": [text_input(max_length=0)]}]), ["max_length"]),
    (modal(components=[{"type": 1, "components": [text_input(min_length=5, max_length=4)]}]), ["max_length"]),
    (modal(components=[{"type": 1, "components": [text_input(min_length=4001)]}]), ["min_length"]),
    (modal(components=[{"type": 1, "components": [text_input(placeholder="x" * 101)]}]), ["placeholder"]),
    (modal(components=[{"type": 1, "components": [text_input(value="x" * 11, max_length=10)]}]), ["value"]),
    (modal(components=[{"type": 1, "components": [text_input("a")]}, {"type": 1, "components": [text_input("a")]}]),
     ["components", "1"]),
])
async def test_a_modal_over_discords_limits_is_refused_and_leaves_the_interaction_unanswered(bot, data, where):
    async with running(bot) as (fake, bot):
        bot.raw = [data, modal(title="x" * 45, rows=5)]  # the second: at every limit, taken
        reply = await fake.send_command("rawmodal")
        (status, code, errors), taken = bot.raw_answers
        assert (status, code) == (400, 50035)
        found = errors["data"]
        for key in where[:-1]:
            found = found[key]
        assert where[-1] in repr(found)
        assert taken[:2] == (204, 0) and reply.type == MODAL  # the second modal, at every limit, was the answer
        assert bot.refusals == []
