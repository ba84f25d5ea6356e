"""render.safe is one regex pass: it must escape exactly as discord.py's two helpers did."""

from __future__ import annotations

import re

import pytest
from discord.utils import escape_markdown, escape_mentions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.rulesets import BUILT_IN
from bot.render import clean, safe, unmentioned


def old_safe(text: object) -> str:
    """render.safe as it was before issue 5's speed work, after the removal of control and
    bidirectional characters it does first (issue 28, ``clean``): the reference."""
    return escape_mentions(escape_markdown(clean(str(text))))


TRICKY = [
    "", "plain 4-6-7 squad", "8-1 leader", "- list", "  - indented list", "\n- second line",
    "# heading", "### h3", "#### h4", "a # b", "> quote", ">>> block", ">no space", "a\n> quote",
    "**bold** and __under__ and ~~strike~~ and ||spoiler|| and `code`", "back\\slash", "\\*",
    "[link](https://example.com)", "[a](b) and [c](d)", "[@everyone](x)", "[x](@here)",
    "https://example.com/a_b*c", "see https://ex.com/_x_.", "<https://ex.com/_a_>", "<a:/_b_>",
    "steam://run/_1_", "http://x/@everyone", "https://x/@123456789012345678",
    "@everyone", "@here", "@@everyone", "@here_and_now", "@123456789012345678", "@!123456789012345678",
    "@&123456789012345678901", "@1234567890123456", "a@everyone_b", "<@123456789012345678>",
    "unit_1 *A1*", "line one\n# two\n- three\n> four", "\t-\ttab dash", "\u200b@everyone",
    "Ünïcödé *ß* _é_ 🎲", "`@everyone`", "*@here*", "[**x**](https://a.b/_c_)", "[\n](x)",
    "https://a.b/c)", "(https://a.b/c)", "x_https://a.b/_c", "__init__.py", "-", "#", ">", "@",
]


@pytest.mark.parametrize("text", TRICKY)
def test_safe_escapes_tricky_text_as_discord_py_does(text: str) -> None:
    assert safe(text) == old_safe(text)


def test_safe_examples_read_as_expected() -> None:
    assert safe("**8-1** @everyone") == "\\*\\*8-1\\*\\* @\u200beveryone"
    assert safe("https://example.com/a_b") == "https://example.com/a_b"
    assert safe(12) == "12"


# markdown, mention and link pieces, so random text often holds what the escaping acts on
PIECES = st.sampled_from(["*", "_", "~", "|", "`", "\\", ">", ">>> ", "#", "## ", "-", " -", "[", "]", "(",
                          ")", "](", "\n", " ", "\t", "@", "@everyone", "@here", "@!", "@&",
                          "@123456789012345678", "1234567890", "https://", "http://a.b/", "steam://",
                          "<", ">", ":/", ".", ",", "'", '"', "a", "é", "\u200b"])
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=4)), max_size=24).map("".join)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_safe_matches_discord_py_on_random_markdown(text: str) -> None:
    assert safe(text) == old_safe(text)


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_safe_matches_discord_py_on_random_unicode(text: str) -> None:
    assert safe(text) == old_safe(text)


@pytest.mark.parametrize("ruleset", BUILT_IN)
def test_help_shows_side_names_escaped(ruleset: str) -> None:
    # issue 17's full run: /help in a game with a side named "@everyone **x** US Marines" showed it raw
    from bot.core.api import new_game
    from bot.render import help_embeds

    game = new_game(ruleset, sides=["@everyone **x** US Marines", "<@&123456789012345678> _y_"])
    for embed in help_embeds(game, []):
        shown = f"{embed.title}\n{embed.description}\n" + "\n".join(f"{f.name}\n{f.value}" for f in embed.fields)
        assert "@everyone" not in shown.replace("@\u200beveryone", "") and "**x**" not in shown, shown
        assert "<@&123456789012345678>" not in shown and " _y_" not in shown, shown


def test_a_secret_roll_opened_at_turn_end_pings_nobody_from_the_footer() -> None:
    # the roll's purpose is the roller's own words; the turn end shows it in the result's footer, where
    # Discord renders no markdown: the mention is broken, nothing else changed (found by the full run's fuzzer)
    from types import SimpleNamespace

    from bot.record.sealing import roll_text
    from bot.render import dice_note
    from tests.reliability.test_hostile_input import MENTION_RAW

    purpose = "spotting @everyone and @here, <@123456789012345678> *as typed*"
    proof = {"reveal": "ab" * 32, "next": "cd" * 32,
             "opened": [{"sealed": 13, "text": roll_text("d6", purpose, [4]), "nonce": "ef" * 16}]}
    note = dice_note(SimpleNamespace(dice_proof=proof, seq=15))
    assert "secret roll #13 revealed: d6 for spotting @\u200beveryone and @\u200bhere, <@\u200b123456789012345678> " \
           "*as typed*: 4 = 4" in note
    assert not MENTION_RAW.search(note) and not re.search(r"<@\d", note)


CONTROLS = ["\x00", "\x07", "\x08", "\x0b", "\x0c", "\r", "\x1b", "\x1f", "\x7f", "\x85", "\x9f", "\u061c",
            "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
            "\u2069"]


@pytest.mark.parametrize("control", CONTROLS, ids=[f"U+{ord(c):04X}" for c in CONTROLS])
def test_control_and_bidirectional_characters_never_reach_a_message(control: str) -> None:
    text = f"a{control}b *c* @everyone"
    assert control not in safe(text) and control not in unmentioned(text)
    assert safe(text) == "ab \\*c\\* @\u200beveryone" and unmentioned(text) == "ab *c* @\u200beveryone"


def test_the_audits_title_is_shown_without_its_controls_and_lines_and_tabs_are_kept() -> None:
    assert clean("a\0b\x1b[31m\u202e") == "ab[31m"
    assert clean("line one\n\tline two \u200b ok") == "line one\n\tline two \u200b ok"  # kept: layout, our own escape
    assert safe("a\0b\x1b[31m\u202e") == "ab[31m"
