"""The renderer: Outcome -> embeds within every Discord limit, nothing dropped, user text escaped."""

import discord
import pytest

from bot.core.api import new_game, resolve
from bot.core.dice import Roll, ScriptedDice
from bot.core.outcome import Outcome, TableCell, UnitEffect
from bot.core.trail import Step
from bot.render import (
    DESCRIPTION_MAX, EMBED_TOTAL_MAX, EMBEDS_PER_MESSAGE, ERROR_COLOUR, FIELD_NAME_MAX, FIELD_VALUE_MAX,
    FIELDS_MAX, NEUTRAL_COLOUR, SIDE_COLOURS, TITLE_MAX, cell_line, effect_line, embed_to_text, error_embed,
    game_status_embed, info_embed, message_groups, outcome_embed, split_line, step_line,
)


def assert_within_limits(embeds):
    assert embeds
    for embed in embeds:
        assert len(embed.title or "") <= TITLE_MAX
        assert len(embed.description or "") <= DESCRIPTION_MAX
        assert len(embed.fields) <= FIELDS_MAX
        for field in embed.fields:
            assert 0 < len(field.name) <= FIELD_NAME_MAX
            assert 0 < len(field.value) <= FIELD_VALUE_MAX
        assert len(embed) <= EMBED_TOTAL_MAX
    for group in message_groups(embeds):
        assert 1 <= len(group) <= EMBEDS_PER_MESSAGE
        assert sum(len(e) for e in group) <= EMBED_TOTAL_MAX


def text_of(embeds):
    return "\n".join(embed_to_text(e.to_dict()) for e in embeds)


@pytest.fixture
def game():
    g = new_game("asl", sides=["Germans", "Russians"], scenario="Guards Counterattack")
    return resolve(g, {"action": "unit_add", "id": "A1", "side": 0, "location": "B5",
                       "stats": {"kind": "squad", "name": "4-6-7", "fp": 4, "range": 6, "morale": 7}}).game


def outcome(**kw):
    base = dict(ruleset="asl", action="fire", headline="8 FP vs B5: DR 6 -> 1MC", actor_side=0)
    base.update(kw)
    return Outcome(**base)


# --- a real set-up outcome through the core ---

def test_setup_outcome_title_is_the_headline_and_colour_neutral(game):
    res = resolve(game, {"action": "unit_add", "id": "R1", "side": 1, "location": "C4",
                         "stats": {"kind": "leader", "name": "8-1", "morale": 8, "leadership": -1}})
    embeds = outcome_embed(res.outcome, res.game, entry_seq=7)
    assert_within_limits(embeds)
    assert embeds[0].title == "8-1 R1 joins Russians"
    assert embeds[0].colour == NEUTRAL_COLOUR
    assert embeds[0].footer.text == "log #7"
    fields = {f.name: f.value for f in embeds[0].fields}
    assert fields["Trail"].splitlines() == ["New location C4: open (set it with /location set)",
                                            "8-1 R1 added for Russians in C4"]
    assert fields["Effects"] == "8-1 R1: in play (added)"


def test_description_names_ruleset_scenario_turn_and_phase(game):
    res = resolve(game, {"action": "unit_move", "unit": "A1", "location": "B6"})
    description = outcome_embed(res.outcome, res.game)[0].description
    assert description == "Advanced Squad Leader · Guards Counterattack · turn 1, Rally Phase (Germans)"


def test_unused_manual_dice_are_listed_not_hidden(game):
    res = resolve(game, {"action": "unit_move", "unit": "A1", "location": "B6"}, ScriptedDice([4, 2]))
    fields = {f.name: f.value for f in outcome_embed(res.outcome, res.game)[0].fields}
    assert fields["Dice"] == "unused dice: 4, 2 (given but not needed)"


def test_no_footer_without_a_log_entry(game):
    res = resolve(game, {"action": "unit_move", "unit": "A1", "location": "B6"})
    assert outcome_embed(res.outcome, res.game)[0].footer.text is None


# --- dice, trail, cells, effects ---

def test_asl_dr_shows_white_and_colored_apart(game):
    embeds = outcome_embed(outcome(rolls=(Roll(kind="DR", purpose="IFT", dice=(3, 5)),)), game, details=True)
    dice = embeds[0].fields[0]
    assert dice.name == "Dice"
    assert dice.value == "IFT: rolled 3+5 = 8 (white 3, colored 5)"  # named as the short result names it


def test_other_rolls_show_each_die(game):
    rolls = (Roll(kind="2d6", purpose="morale", dice=(2, 6)), Roll(kind="d10", purpose="to hit", dice=(9,)))
    value = outcome_embed(outcome(ruleset="cd", rolls=rolls), game, details=True)[0].fields[0].value
    assert value.splitlines() == ["morale: rolled 2+6 = 8 (2d6)", "to hit: rolled 9 (d10)"]


def test_manual_dice_are_noted(game):
    o = outcome(rolls=(Roll(kind="DR", purpose="IFT", dice=(1, 1)),), manual_dice=True, unused_dice=(6,))
    value = outcome_embed(o, game, details=True)[0].fields[0].value
    assert value.splitlines() == ["IFT: rolled 1+1 = 2 (white 1, colored 1)", "manual dice (given by the players)",
                                  "unused dice: 6 (given but not needed)"]


def test_trail_line_has_label_value_total_and_rule():
    assert step_line(Step(kind="modifier", label="Hindrance", value=1, total=7, rule="A6.7")) == \
        "Hindrance  +1  (=7)  [A6.7]"
    assert step_line(Step(kind="modifier", label="Leadership", value=-1, rule="A10.7")) == \
        "Leadership  -1  [A10.7]"
    assert step_line(Step(kind="multiplier", label="Long range", value=0.5, total=2, rule="A7.22")) == \
        "Long range  x0.5  (=2)  [A7.22]"
    assert step_line(Step(kind="note", label="No fire group")) == "No fire group"


def test_trail_is_grouped_by_section(game):
    trail = (Step(kind="section", label="Fire group", rule="A7.5"),
             Step(kind="base", label="4-6-7 A1", value=4),
             Step(kind="section", label="Morale check: 4-6-7 R1"),
             Step(kind="check", label="Final DR 8 vs morale 7", value="fails", rule="A10.1"))
    fields = outcome_embed(outcome(trail=trail), game)[0].fields
    assert [(f.name, f.value) for f in fields] == [
        ("Fire group [A7.5]", "4-6-7 A1  4"),
        ("Morale check: 4-6-7 R1", "Final DR 8 vs morale 7  fails  [A10.1]"),
    ]


def test_table_cell_reads_like_the_chart():
    cell = TableCell(table="IFT", column="8", row="DR 6", result="1MC", rule="A7.3")
    assert cell_line(cell) == "IFT 8 column, DR 6 -> 1MC [A7.3]"


def test_effect_line_shows_before_after_and_effects():
    effect = UnitEffect(unit="R1", name="4-4-7", side=1, before="Good Order", after="broken, DM",
                        effects=("broken", "DM"))
    assert effect_line(effect) == "4-4-7 R1: Good Order -> broken, DM"  # its effects said by the state after


def test_colour_follows_the_acting_side(game):
    assert outcome_embed(outcome(actor_side=0), game)[0].colour == SIDE_COLOURS[0]
    assert outcome_embed(outcome(actor_side=1), game)[0].colour == SIDE_COLOURS[1]
    assert SIDE_COLOURS[0] != SIDE_COLOURS[1]


# --- escaping ---

def test_user_text_is_escaped_for_markdown_and_mentions():
    g = new_game("asl", sides=["@here", "Russians"], scenario="__Bold__")
    res = resolve(g, {"action": "unit_add", "id": "X1", "side": 0,
                      "stats": {"kind": "squad", "name": "@everyone **x**"}})
    embeds = outcome_embed(res.outcome, res.game)
    raw = str([e.to_dict() for e in embeds])
    assert "@everyone" not in raw and "@here" not in raw and "**x**" not in raw
    assert embeds[0].title == "@\u200beveryone \\*\\*x\\*\\* X1 joins @\u200bhere"
    assert "\\_\\_Bold\\_\\_" in embeds[0].description
    # the terminal shows what Discord would display
    assert "@everyone **x** X1 joins @here" in text_of(embeds)


# --- splitting ---

def long_outcome(sections=12, steps=30, label_len=90):
    trail = []
    for s in range(sections):
        trail.append(Step(kind="section", label=f"Section {s}", rule=f"A{s}.1"))
        for i in range(steps):
            label = f"step {s}-{i} " + "*" * 5 + "x" * (label_len - 16)
            trail.append(Step(kind="modifier", label=label, value=i - 5, total=i, rule=f"A{s}.{i}"))
    effects = tuple(UnitEffect(unit=f"U{i}", name="4-6-7", before="Good Order", after="broken",
                               effects=("broken",)) for i in range(40))
    return outcome(trail=tuple(trail), effects=effects), [t.label for t in trail]


def test_long_trail_splits_within_every_limit_and_drops_nothing(game):
    o, labels = long_outcome()
    embeds = outcome_embed(o, game, entry_seq=12)
    assert len(embeds) > 1
    assert_within_limits(embeds)
    text = text_of(embeds)
    for label in labels:
        assert label in text
    for i in range(40):
        assert f"4-6-7 U{i}: Good Order -> broken" in text


def test_trail_order_is_kept_across_pages(game):
    o, labels = long_outcome(sections=3, steps=60)
    text = text_of(outcome_embed(o, game))
    positions = [text.index(label) for label in labels]
    assert positions == sorted(positions)


def test_continued_fields_and_pages_say_so(game):
    o, _ = long_outcome(sections=2, steps=80)
    embeds = outcome_embed(o, game, entry_seq=3)
    names = [f.name for e in embeds for f in e.fields]
    assert "Section 0 [A0.1] (continued)" in names
    assert embeds[1].title.endswith("(continued)")
    assert embeds[0].footer.text == f"log #3 · page 1/{len(embeds)}"


def test_more_than_25_fields_go_to_a_second_embed(game):
    trail = tuple(step for i in range(30) for step in (Step(kind="section", label=f"S{i}"),
                                                       Step(kind="note", label=f"line {i}")))
    embeds = outcome_embed(outcome(trail=trail), game)
    assert [len(e.fields) for e in embeds] == [25, 5]
    assert_within_limits(embeds)


def test_a_line_longer_than_a_field_continues_in_the_next():
    line = "word " * 500
    pieces = split_line(line)
    assert len(pieces) > 1 and all(len(p) <= FIELD_VALUE_MAX for p in pieces)
    assert pieces[1].startswith("(continued) ")
    assert "".join([pieces[0]] + [p.removeprefix("(continued) ") for p in pieces[1:]]) == line


def test_a_split_never_separates_an_escape_from_its_character():
    line = "\\*" * 1000  # an escaped label of 1,000 asterisks
    for piece in split_line(line):
        body = piece.removeprefix("(continued) ")
        assert len(body) % 2 == 0 and body == "\\*" * (len(body) // 2)


def test_overlong_trail_line_is_kept_whole_over_fields(game):
    label = "L" * 3000
    embeds = outcome_embed(outcome(trail=(Step(kind="note", label=label),)), game)
    assert_within_limits(embeds)
    values = [f.value for e in embeds for f in e.fields]
    assert "".join(v.removeprefix("(continued) ") for v in values) == label


def test_a_headline_over_256_characters_goes_on_whole_in_the_description(game):
    headline = "H" * 300
    embed = outcome_embed(outcome(headline=headline), game)[0]
    assert len(embed.title) == 60 and embed.title.endswith("…")  # one line of a phone (RESULT_LINE)
    rest = embed.description.splitlines()[0]
    assert rest.startswith("…") and embed.title[:-1] + rest[1:] == headline


# --- other embeds ---

def test_error_embed_is_red_and_quotes_the_rule():
    embed = error_embed("4-6-7 A1 is broken and may not fire", "A10.5")
    assert embed.colour == ERROR_COLOUR
    assert embed.description == "4-6-7 A1 is broken and may not fire [A10.5]"


def test_error_embed_does_not_repeat_a_rule_already_quoted():
    embed = error_embed("4-6-7 A1 is marked Final Fire and may not fire in the DFPh (A8.4)", "A8.4")
    assert embed.description.count("A8.4") == 1


def test_status_shows_turn_phase_side_to_act_and_markers(game):
    g = resolve(game, {"action": "unit_add", "id": "R1", "side": 1, "location": "B10",
                       "stats": {"kind": "squad", "name": "4-4-7"}}).game
    g = resolve(g, {"action": "unit_edit", "unit": "R1", "changes": {"broken": True, "dm": True}}).game
    g = resolve(g, {"action": "unit_add", "id": "R2", "side": 1, "stats": {"kind": "squad", "name": "4-4-7"}}).game
    g = resolve(g, {"action": "join", "side": 0, "player": 111}).game
    embeds = game_status_embed(g)
    assert_within_limits(embeds)
    assert embeds[0].title == "Guards Counterattack: turn 1"
    assert embeds[0].colour == SIDE_COLOURS[0]
    assert embeds[0].description.splitlines() == [
        "Advanced Squad Leader · Guards Counterattack · turn 1, Rally Phase (Germans)",
        "Germans (to act): <@111>", "Russians: no player yet"]
    fields = [(f.name, f.value) for f in embeds[0].fields]
    assert fields == [("B5: open", "4-6-7 A1 (Germans): no markers"),
                      ("B10: open", "4-4-7 R1 (Russians): broken, DM"),
                      ("Off board", "4-4-7 R2 (Russians): no markers")]


def test_status_of_a_big_game_splits_within_limits():
    g = new_game("nhis", sides=["US", "Japan"])
    for i in range(120):
        g = resolve(g, {"action": "unit_add", "id": f"U{i}", "side": i % 2, "location": f"H{i % 7}",
                        "stats": {"kind": "squad", "name": "Rifle squad with a rather long name"}}).game
    embeds = game_status_embed(g)
    assert_within_limits(embeds)
    text = text_of(embeds)
    assert all(f"U{i} (" in text for i in range(120))


def test_info_embed_escapes_by_default():
    embed = info_embed("Counter types", fields=[("ASL", ["*ger-467*", "rus-447"])])[0]
    assert embed.fields[0].value == "\\*ger-467\\*\nrus-447"


def test_embed_to_text_reads_title_fields_and_footer():
    embed = discord.Embed(title="A \\*title\\*", description="desc")
    embed.add_field(name="Dice", value="DR 8: white 3, colored 5\nmanual dice (given by the players)")
    embed.set_footer(text="log #2")
    assert embed_to_text(embed.to_dict()) == (
        "== A *title* ==\ndesc\n-- Dice --\n   DR 8: white 3, colored 5\n"
        "   manual dice (given by the players)\n(log #2)")


# --- replies (bot/app.py): how outcomes and errors reach the player ---

class FakeResponse:
    def __init__(self, sent):
        self.sent = sent

    def is_done(self):
        return bool(self.sent)

    async def send_message(self, **kwargs):
        self.sent.append(("response", kwargs))


class FakeFollowup:
    def __init__(self, sent):
        self.sent = sent

    async def send(self, **kwargs):
        self.sent.append(("followup", kwargs))


class FakeInteraction:
    """Just the surface of discord.Interaction the reply helpers use."""

    def __init__(self, interaction_id=99):
        from types import SimpleNamespace

        self.id = interaction_id
        self.user, self.channel_id, self.guild_id = SimpleNamespace(id=1), 10, 100  # the quotas' keys
        self.sent = []
        self.response = FakeResponse(self.sent)
        self.followup = FakeFollowup(self.sent)
        self.command = None
        self.extras = {}


def invoke_error(original):
    """What discord.py raises to the tree when a command body raises ``original``."""
    from types import SimpleNamespace

    from discord import app_commands

    return app_commands.CommandInvokeError(SimpleNamespace(name="fire"), original)


async def test_a_bad_option_value_is_an_ephemeral_message(tree):
    from discord import AppCommandOptionType, app_commands

    interaction = FakeInteraction()
    error = app_commands.TransformerError("x", AppCommandOptionType.integer, app_commands.Transformer())
    await tree.on_error(interaction, error)
    [(_, kwargs)] = interaction.sent
    assert kwargs["ephemeral"] and kwargs["embed"].description == (
        "'x' cannot be read here: this option takes a whole number (/help command:name shows each option)")


async def test_a_followup_is_used_once_the_response_was_sent(tree):
    from bot.core.errors import InvalidOrder

    interaction = FakeInteraction()
    interaction.sent.append(("response", {}))
    await tree.on_error(interaction, invoke_error(InvalidOrder("'range' is required", field="range")))
    assert interaction.sent[-1][0] == "followup"
    assert interaction.sent[-1][1]["embed"].description == "'range' is required"


@pytest.fixture
def tree():
    from bot.app import RefereeBot
    from bot.config import load_settings

    return RefereeBot(load_settings(token="x")).tree


async def test_a_refused_order_is_a_red_ephemeral_embed_quoting_the_rule(tree):
    from bot.core.errors import IllegalOrder

    interaction = FakeInteraction()
    error = IllegalOrder("4-6-7 A1 is broken and may not fire", rule="A10.5")
    await tree.on_error(interaction, invoke_error(error))
    [(where, kwargs)] = interaction.sent
    assert where == "response" and kwargs["ephemeral"] is True
    assert kwargs["embed"].colour == ERROR_COLOUR
    assert kwargs["embed"].description == "4-6-7 A1 is broken and may not fire [A10.5]"


async def test_an_unexpected_error_is_logged_with_the_interaction_and_answered_politely(tree):
    import io
    import logging

    from bot.logs import setup_logging

    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    stream = io.StringIO()
    setup_logging("INFO", stream=stream)
    try:
        interaction = FakeInteraction(4321)
        assert await tree.interaction_check(interaction)
        await tree.on_error(interaction, invoke_error(ZeroDivisionError("boom")))
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    [(where, kwargs)] = interaction.sent
    assert kwargs["content"] == "Something went wrong on our side; nothing was changed (reference: 4321)"
    assert kwargs["ephemeral"] is True
    assert "[interaction 4321] unexpected error in /?" in stream.getvalue()
    assert "ZeroDivisionError: boom" in stream.getvalue()


async def test_a_long_outcome_is_sent_as_response_then_followups(game):
    from types import SimpleNamespace

    from bot.replies import reply_outcome

    o, _ = long_outcome()
    interaction = FakeInteraction()
    await reply_outcome(interaction, SimpleNamespace(outcome=o, game=game, seq=5))
    places = [where for where, _ in interaction.sent]
    assert places[0] == "response" and set(places[1:]) == {"followup"} and len(places) > 1
    embeds = [e for _, kwargs in interaction.sent for e in kwargs["embeds"]]
    assert embeds[0].footer.text.startswith("log #5 · page 1/")
    assert len(embeds) == len(outcome_embed(o, game))


# --- outcome first (issue 15) ---

def test_the_title_names_who_it_happened_to_once_and_not_the_units_only_marked(game):
    effects = (UnitEffect(unit="R1", name="4-4-7", side=1, before="Good Order", after="broken, DM",
                          effects=("broken",)),
               UnitEffect(unit="A1", name="4-6-7", side=0, before="Good Order", after="Good Order, Prep Fire",
                          effects=("marked Prep Fire",)),
               UnitEffect(unit="B5", name="8-1", side=1, before="Good Order", after="pinned", effects=("pinned",)))
    o = outcome(rolls=(Roll(kind="DR", purpose="IFT", dice=(3, 5)),), effects=effects,
                headline="8 FP vs B5: DR 8 -> 1MC")
    [embed] = outcome_embed(o, game, entry_seq=4)
    # B5 is named by the headline already (it is the target's hex here): not named twice
    assert embed.title == "R1 broken — 8 FP vs B5: DR 8 -> 1MC"
    # the roll first (the cause), with its dice as rolled, then each unit changed, then the units marked
    assert embed.description.splitlines() == ["🎲 IFT: rolled 3+5 = 8", "4-4-7 R1: Good Order → broken, DM",
                                              "8-1 B5: Good Order → pinned", "4-6-7 A1: marked Prep Fire"]
    assert not embed.fields and embed.footer.text == "log #4 · turn 1, Rally Phase · Germans to act"


def test_bookkeeping_that_rolls_and_results_that_roll_nothing_are_shown_whole(game):
    initiative = outcome(action="phase", headline="Movement Phase",
                         rolls=(Roll(kind="d10", purpose="initiative", dice=(7,)),),
                         trail=(Step(kind="note", label="Begins: the Movement Phase"),))
    assert [f.name for f in outcome_embed(initiative, game)[0].fields] == ["Dice", "Trail"]
    assert [f.name for f in outcome_embed(outcome(trail=(Step(kind="note", label="x"),)), game)[0].fields] == ["Trail"]


def test_the_game_option_details_always_shows_the_whole_trail(game):
    o = outcome(rolls=(Roll(kind="DR", purpose="IFT", dice=(3, 5)),))
    assert not outcome_embed(o, game)[0].fields
    always = game.model_copy(update={"options": {"details": "always"}})
    assert [f.name for f in outcome_embed(o, always)[0].fields] == ["Dice"]


def test_a_title_over_60_characters_goes_on_in_the_first_line():
    """Issue 30, item 3: a short result's title is one line of a phone (60 characters): a longer one is
    split after its last ': ' that keeps the first part within 60, the rest opening the description;
    with no such ': ', after a '; ', ' — ', ', ' or ' -> ' (kept at the title's end), else between
    two words or, a word longer than the line, inside it, '…' at both ends of the cut."""
    from bot.render import RESULT_LINE, split_title

    short = "8 FP (IFT 8) vs B5: final DR 6 -> 1MC"
    assert split_title(short) == (short, "")
    head = "US rifle platoon 1-A fires 2 ROF at German rifle platoon G1"  # 59 characters
    assert split_title(f"{head}: 1 hit -> eliminated") == (head, "1 hit -> eliminated")
    at_most = "x" * RESULT_LINE
    assert split_title(f"{at_most}: y") == (at_most, "y")
    assert split_title(f"{at_most}x: y") == ("x" * 59 + "…", "…xx: y")  # no break that fits: cut in the word
    no_break = "y" * 70
    assert split_title(no_break) == ("y" * 59 + "…", "…" + "y" * 11)
    # CD's fire at two stands: the list's comma the last break within 60 (no ': ' fits)
    fire = "US 105mm battery RA1 fires IDF at German rifle platoon G1, German MG42 platoon G2: no hits"
    assert split_title(fire) == ("US 105mm battery RA1 fires IDF at German rifle platoon G1,",
                                 "German MG42 platoon G2: no hits")
    semi = "Close Combat in E5 at 1:1 final DR 9 -> no effect; R3 vs A3 at 1:1: final DR 8 -> KIA"
    assert split_title(semi) == ("Close Combat in E5 at 1:1 final DR 9 -> no effect;", "R3 vs A3 at 1:1: final DR 8 -> KIA")
    early = "A: " + "z " * 40  # a ': ' too early to say anything (under 24 characters): between two words
    head, rest = split_title(early)
    assert len(head) <= RESULT_LINE and head.endswith(" …") and rest.startswith("… ") and head.startswith("A: z")
    arrow = "Q" * 30 + " -> " + "R" * 40
    assert split_title(arrow) == ("Q" * 30 + " ->", "R" * 40)
    for title in (fire, semi, early, arrow, no_break, "w " * 100):
        assert len(split_title(title)[0]) <= RESULT_LINE
