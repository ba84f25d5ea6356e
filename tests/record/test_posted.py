"""The line a turn's end posts, read back from pasted text, and an export's turn ends compared with it
(bot/record/posted.py, issue 28)."""

from __future__ import annotations

from bot.record.posted import TurnSeal, check_posted, parse_posted, posted_line, posted_report

HASH = "9f3a0c1d2e3f4a5b" + "c" * 48
OTHER = "1b2c3d4e5f6a7b8c" + "d" * 48


def test_the_line_is_short_and_says_one_die_or_several():
    assert posted_line(3, 57, HASH, 14) == "Turn 3 sealed at #57: chain 9f3a0c1d2e3f4a5b · 14 dice drawn by the bot"
    assert posted_line(3, 57, HASH, 1).endswith("· 1 die drawn by the bot")
    assert posted_line(3, 57, HASH, None) == "Turn 3 sealed at #57: chain 9f3a0c1d2e3f4a5b"


def test_lines_are_found_in_pasted_text_with_16_to_64_hex_digits():
    text = ("log #57 · dice seed revealed: ab\nTurn 3 sealed at #57: chain 9F3A0C1D2E3F4A5B · 14 dice drawn by the bot\n"
            f"chat\nTurn 4 sealed at #80: chain {HASH}\n"
            "Turn 5 sealed at #90: chain 9f3a0c1d2e3f4a5 · 2 dice drawn by the bot\n")  # 15 digits: not a posted line
    assert parse_posted(text) == [TurnSeal(3, 57, "9f3a0c1d2e3f4a5b", 14), TurnSeal(4, 80, HASH, None)]


def test_a_turn_ended_twice_pairs_each_line_with_its_own_end():
    sealed = [TurnSeal(1, 10, HASH, 4), TurnSeal(1, 14, OTHER, 2), TurnSeal(2, 20, HASH, 0)]
    posted = [TurnSeal(1, 10, HASH[:16], 4), TurnSeal(1, 14, OTHER[:16], 2)]
    check = check_posted(sealed, posted)
    assert check.findings == () and check.covered == 14 and check.unposted == (sealed[2],)
    assert posted_report(sealed, 25, posted) == (
        "posted turn ends matched: 1 (#10), 1 (#14); entries #1-#14 are the ones the bot had when it posted them; "
        "not among the posted lines, so not checked against the channel: turn 2 (#20); entries #15-#25 after the "
        "last posted turn end: no posted line covers them")
    swapped = check_posted(sealed, posted[::-1])
    assert swapped.findings == (
        f"Turn 1: the export is not what was posted: sealed at #10, not #14; chain {HASH[:16]}, not {OTHER[:16]}; "
        "4 dice drawn by the bot, not 2",
        f"Turn 1: the export is not what was posted: sealed at #14, not #10; chain {OTHER[:16]}, not {HASH[:16]}; "
        "2 dice drawn by the bot, not 4")
