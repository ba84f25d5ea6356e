"""/seal and /reveal end to end through the loopback Discord (issue 12: sealed orders).

The channel sees who sealed, when and the commitment, never the text; the sealer gets a private
copy with the nonce; /reveal opens it and the bot checks it against the commitment. Exports made
before the reveal hold the commitment only; verify and the offline audit handle sealed, revealed
and never-revealed entries, and name a reveal whose text was swapped in the database file.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

from tests.cogs.conftest import BOB, CAROL
from tests.cogs.helpers import cd_game, last_entry
from tests.cogs.test_committed_dice import ROOT, forge, verify

ORDER = "Able company: Attack toward X2, S1 leads"


def public_text(table) -> str:
    """Everything the bot posted that others than its addressee could read: every non-ephemeral
    reply, followup and channel message (the sealer's own request to Discord is theirs)."""
    posted = [m.payload for record in table.fake.interactions.values() for m in record.all_messages()
              if not m.ephemeral]
    posted += [m.payload for m in table.fake.channel_messages(table.channel)]
    return json.dumps(posted)


async def sealed_game(table):
    await cd_game(table)
    reply = await table.send("seal", {"text": ORDER})
    return reply, await last_entry(table)


async def test_the_channel_sees_who_sealed_and_the_commitment_and_the_sealer_alone_the_text(table):
    reply, entry = await sealed_game(table)
    assert not reply.ephemeral
    embed = reply.embeds[0]
    assert embed["title"] == f"Americans sealed an order (#{entry.seq})"
    assert f"Hidden until /reveal sealed:{entry.seq}: shown then" in json.dumps(embed)  # no turn's end opens it
    commitment = entry.order["commitment"]
    assert commitment in json.dumps(embed)
    [mine] = reply.followups
    assert mine.ephemeral and ORDER in mine.content
    nonce = mine.content.split("Nonce: `")[1].split("`")[0]
    assert hashlib.sha256(bytes.fromhex(nonce) + ORDER.encode()).hexdigest() == commitment  # the sealer can check
    assert ORDER not in public_text(table) and nonce not in public_text(table)
    shown = await table.send("log show", user=CAROL)
    assert ORDER not in json.dumps(shown.embeds)
    export = await table.send("log export", {"format": "json"}, user=CAROL)
    assert ORDER not in export.files[0].data.decode() and nonce not in export.files[0].data.decode()
    for fmt in ("markdown", "csv"):
        assert ORDER not in (await table.send("log export", {"format": fmt})).files[0].data.decode()
    report = await verify(table)
    assert report["title"] == "The log checks out"
    assert report["description"].endswith("sealed orders: 1, 0 revealed and matching their commitments, 1 still sealed")


async def test_reveal_opens_it_checked_against_its_commitment_by_its_side_once(table):
    _, entry = await sealed_game(table)
    refused = await table.send("reveal", {"sealed": entry.seq}, user=BOB)
    assert refused.ephemeral and refused.embeds[0]["description"] == (
        f"you play Germans: you may not reveal sealed #{entry.seq} of Americans before its reveal (only its side and "
        "a game master who plays no side may)")
    not_a_seal = await table.send("reveal", {"sealed": 1})
    assert not_a_seal.ephemeral and "entry #1 is not a sealed order" in not_a_seal.embeds[0]["description"]
    opened = await table.send("reveal", {"sealed": entry.seq})
    assert not opened.ephemeral
    assert opened.embeds[0]["title"] == f"Sealed order #{entry.seq} revealed (Americans)"
    assert f"Sealed text: {ORDER}" in json.dumps(opened.embeds)
    again = await table.send("reveal", {"sealed": entry.seq})
    assert again.ephemeral and "it was revealed at entry" in again.embeds[0]["description"]
    report = await verify(table)
    assert report["description"].endswith("sealed orders: 1, 1 revealed and matching their commitments, 0 still sealed")


async def test_an_export_made_before_the_reveal_stays_sealed_and_audits(table, tmp_path):
    _, entry = await sealed_game(table)
    before = await table.send("log export", {"format": "json"}, user=CAROL)
    await table.send("reveal", {"sealed": entry.seq})
    path = tmp_path / "before.json"
    path.write_bytes(before.files[0].data)
    assert ORDER not in path.read_text()
    done = subprocess.run([sys.executable, "-m", "bot", "rules", "audit", str(path)], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 0 and "1 still sealed" in done.stdout, done.stderr


async def test_a_sealed_text_swapped_in_the_file_is_named_by_verify(table):
    _, entry = await sealed_game(table)
    await table.send("reveal", {"sealed": entry.seq})
    reveal = (await last_entry(table)).seq

    def swap(fields):  # the host puts another text in the reveal, and in its result, and re-seals the chain
        item = fields[reveal - 1]
        item["order"]["text"] = "Able company: Hold at X1"
        item["outcome"] = json.loads(json.dumps(item["outcome"]).replace(ORDER, "Able company: Hold at X1"))
        return fields

    await forge(table, swap, replay=False)
    report = await verify(table)
    assert report["title"] == f"Entry #{reveal} does not check out"
    assert report["description"] == (f"entry #{reveal} reveals a text for entry #{entry.seq} that does not match "
                                     "its commitment: it is not what was sealed")


async def test_a_reveal_that_names_another_side_than_its_seal_is_named_by_verify(table):
    # the reveal repeats the seal's side (its result is rebuilt from the reveal alone), and the replay
    # checks that it is the seal's
    _, entry = await sealed_game(table)
    await table.send("reveal", {"sealed": entry.seq})
    reveal = (await last_entry(table)).seq

    def other_side(fields):
        fields[reveal - 1]["order"]["side"] = 1  # the Germans'
        return fields

    await forge(table, other_side, replay=False)
    report = await verify(table)
    assert report["title"] == f"Entry #{reveal} does not check out"
    assert report["description"] == (f"entry #{reveal} reveals entry #{entry.seq} under another side or roll than "
                                     "it was sealed with")
