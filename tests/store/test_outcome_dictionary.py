"""Outcomes compressed with a preset dictionary (issue 14: a /fire entry took 2,050 B of the
database, two rows to a 4 KB page): the dictionary is frozen, old rows (plain zlib) still read,
an outcome compressed with a dictionary this bot lacks is refused, not misread, and the saving is
real on the benchmark's fire, which the dictionary was not made from."""

import zlib

import pytest

from bench import scenarios
from bot.core.api import resolve
from bot.core.dice import SeededDice
from bot.record import canonical_json
from bot.service import Referee
from bot.store.sqlite import OUTCOME_DICTIONARY, inflate, pack_json, unpack_json

from .helpers import CHANNEL, GM, open_store, raw
from .test_compact_log import standard_asl_game

# zlib's DICTID of bot/store/outcome-dictionary-1.json: every outcome written with it names it.
# An edit of the file would make those outcomes unreadable: a new dictionary is a new file.
DICTIONARY_1 = 208777070


def fire_outcome(seed: int) -> str:
    game = scenarios.build("asl")
    return canonical_json(resolve(game, scenarios.asl_fire(), SeededDice(seed)).outcome.model_dump(mode="json"))


def test_the_dictionary_is_the_one_outcomes_were_written_with():
    assert zlib.adler32(OUTCOME_DICTIONARY) == DICTIONARY_1
    assert len(OUTCOME_DICTIONARY) <= 32 * 1024  # zlib uses no more


def test_an_outcome_names_its_dictionary_and_reads_back():
    text = fire_outcome(1)
    packed = pack_json(text)
    assert packed[1] & 0x20 and int.from_bytes(packed[2:6], "big") == DICTIONARY_1  # FDICT, DICTID
    assert inflate(packed).decode() == text and unpack_json(packed) == unpack_json(text)


def test_outcomes_compressed_before_the_dictionary_still_read():
    text = fire_outcome(2)
    for old in (zlib.compress(text.encode(), 6), zlib.compress(text.encode(), 1)):  # as schema 4-8 wrote them
        assert inflate(old).decode() == text


def test_an_unknown_dictionary_or_a_damaged_outcome_is_refused():
    text = fire_outcome(3).encode()
    other = zlib.compressobj(6, zdict=b'{"headline":"another dictionary"}')
    with pytest.raises(zlib.error, match="dictionary this bot does not have"):
        inflate(other.compress(text) + other.flush())
    packed = pack_json(text.decode())
    with pytest.raises(zlib.error):
        inflate(packed[:-10])
    with pytest.raises(zlib.error):
        inflate(packed + b"junk")


def test_the_benchmark_fire_it_was_not_made_from_compresses_smaller_with_it():
    texts = [fire_outcome(seed) for seed in range(700, 710)]
    plain = sum(len(zlib.compress(t.encode(), 6)) for t in texts)
    preset = sum(len(pack_json(t)) for t in texts)
    assert preset < 0.8 * plain, (preset, plain)  # 815 against 1,130 B a fire when it was made


async def test_a_fire_entry_is_saved_with_the_dictionary_and_verifies(tmp_path):
    store = await open_store(tmp_path)
    try:
        referee = Referee(store)
        await standard_asl_game(referee)
        acted = await referee.act(CHANNEL, GM, scenarios.asl_fire(), command="/fire")
        [logged] = await store.entries(acted.entry.game_id, after_seq=acted.seq - 1, limit=1)
        assert logged == acted.entry
        assert (await referee.verify(CHANNEL)).ok
    finally:
        await store.close()
    [(stored,)] = raw(tmp_path / "data" / "referee.sqlite3", "SELECT outcome FROM log_entries WHERE seq = ?",
                      (acted.seq,))
    assert stored[1] & 0x20 and int.from_bytes(stored[2:6], "big") == DICTIONARY_1
