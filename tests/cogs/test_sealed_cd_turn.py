"""One Command Decision game turn with sealed orders, played end to end through the real bot and the
loopback Discord (issue 12; seed 004: orders placed in the Command & Morale Phase, 5A, revealed in
the Movement Phase, Side A first, 2D-2E; the Orders Summary then limits each stand, and a stand moves
only once its order is open, issue 25).

Both sides seal their orders (/orders ... sealed:yes), the turn moves on with /done, the Germans win
the initiative; the Americans' reveal before the Germans' is refused, the Germans reveal and move, the
Americans reveal, and a stand under Hold is refused a move. Everything the loopback Discord recorded
(but the sealer's own private copy), the exports and the log are searched for each sealed text: absent
before its reveal, present after; /log verify and the offline audit replay it all.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from bot.export import csv_text, markdown_text
from bot.render import safe
from bot.service import export_record
from tests.cogs.conftest import ALICE, BOB, CAROL, refusal
from tests.cogs.helpers import last_entry, start_game, unit
from tests.cogs.test_committed_dice import ROOT, entries, verify

AMERICANS = {"action": "give_orders", "company": "Able", "order": "hold"}  # the canonical sealed texts
GERMANS = {"action": "give_orders", "company": "Kampf", "order": "cautious_advance"}


def text_of(order: dict[str, Any]) -> str:
    return json.dumps(order, sort_keys=True, separators=(",", ":"))


def shows(seen: str, order: dict[str, Any]) -> bool:
    """Whether ``seen`` holds the sealed text of ``order``, as it is or as an embed escapes it (its
    stands' company alone is no sign: the set-up names it)."""
    return any(form in seen for form in (text_of(order), safe(text_of(order))))


def strings(value: Any) -> list[str]:
    """Every string in a JSON value (message contents, embed titles, fields, attachments' names)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


async def everything_seen(table, private: set[int]) -> str:
    """What the loopback Discord recorded of the bot's messages and files (but the private copies of
    the seal interactions in ``private``), the log as /log show pages it, and the three exports."""
    seen = []
    for record in table.fake.interactions.values():
        seen += [s for callback in record.callbacks + record.rejected + record.late for s in strings(callback.data)
                 if not (record.id in private and int(callback.data.get("flags") or 0) & 64)]
        for message in record.all_messages():
            if message.ephemeral and record.id in private:
                continue  # the sealer's own copy of what they sealed
            seen += strings(message.payload)
            seen += [f.data.decode("utf-8", "replace") for f in getattr(message, "files", ())]
    # the channel's messages (its ephemeral ones are the interactions' answers, searched above)
    seen += [s for m in table.fake.channel_messages(table.channel) for s in strings(m.payload)]
    total = (await table.bot.referee.log(table.channel)).total
    for page in range(1, total // 10 + 2):
        seen += strings((await table.send("log show", {"page": page}, user=CAROL)).embeds)
    # the JSON export as players get it; the Markdown report and the CSV of dice from the same record (the
    # heavy commands' quota allows ten exports and verifies a channel in five minutes)
    exported = await table.send("log export", {"format": "json"}, user=CAROL)
    seen.append(exported.files[0].data.decode())
    stored = await table.bot.store.load_latest(table.channel)
    record = export_record(stored, await entries(table))
    seen += [markdown_text(record), csv_text(record)]
    return "\n".join(seen)


async def play(table, command: str, options: dict[str, Any] | None = None, *, user: int):
    reply = await table.send(command, options, user=user)
    assert not reply.ephemeral, reply.embeds
    return reply


async def seal(table, order: dict[str, Any], user: int, private: set[int]):
    options = {"order": order["order"], "company": order["company"], "sealed": True}
    reply = await play(table, "orders", options, user=user)
    private.add(reply.record.id)
    [mine] = reply.followups
    assert mine.ephemeral and shows(mine.content, order)
    return reply, await last_entry(table)


async def test_a_command_decision_turn_with_sealed_orders(table, tmp_path):
    await start_game(table, "cd", ["Americans", "Germans"], [
        unit("S1", 0, "X1", "m4-sherman-75", company="Able"), unit("P1", 0, "X1", "us-rifle", company="Able"),
        unit("G1", 1, "X2", "ger-rifle", company="Kampf"), unit("G2", 1, "X2", "ger-rifle", company="Kampf"),
    ], phase="CommandMorale", options={"sealed_orders": True})
    private: set[int] = set()

    # 5A: an open order is refused while the game seals its orders
    plain = refusal(await table.send("orders", {"order": "hold", "company": "Able"}, user=ALICE))
    assert plain == ("this game seals its orders (game option sealed\\_orders): give it with sealed:yes, e.g. "
                     "/orders order:hold ... sealed:yes; it stays hidden until you reveal it in the Movement Phase, "
                     "Side A first, as each side moves (CD 5A, 2D-2E)")
    reply, americans = await seal(table, AMERICANS, ALICE, private)
    assert reply.embeds[0]["title"] == f"Americans sealed an order (#{americans.seq})"
    assert americans.order == {"action": "seal", "side": 0, "commitment": americans.order["commitment"],
                               "applies": "give_orders"}
    await play(table, "done", user=ALICE)
    _, germans = await seal(table, GERMANS, BOB, private)
    seen = await everything_seen(table, private)
    assert not shows(seen, AMERICANS) and not shows(seen, GERMANS)
    assert "Cautious Advance" not in seen and "under a Hold" not in seen

    # turn 2: the Artillery & Air Phase, then the Movement Phase's initiative: the Germans roll high
    await play(table, "done", user=BOB)
    await play(table, "done", user=ALICE)
    moving = await play(table, "done", {"dice": "3 7"}, user=BOB)
    assert moving.embeds[0]["title"] == "Turn 2, Movement Phase, Side A prep fire: Germans to act"
    await play(table, "done", user=BOB)  # no prep fire
    await play(table, "done", user=ALICE)

    # 2D: Side A (the Germans) reveal first; the Americans' early reveal is refused
    early = refusal(await table.send("reveal", {"sealed": americans.seq}, user=ALICE))
    assert early == (f"Side A (Germans) reveal their orders first (CD 5A, 2D-2E): #{germans.seq} still sealed; "
                     "Americans reveal theirs when they move, after Side A's are open")
    ending = refusal(await table.send("done", user=BOB))
    assert ending == (f"Germans still have sealed orders to reveal (#{germans.seq}): /reveal sealed:{germans.seq} "
                      "first; a side reveals its orders as it moves (CD 5A, 2D-2E)")
    unrevealed = await table.refused("move", {"units": "G1", "to": "X3"}, user=BOB)  # its order is still sealed
    assert unrevealed == (f"German rifle platoon G1 may not move before its order is revealed: Germans still hold "
                          f"sealed orders (#{germans.seq}); they reveal them as they move, /reveal "
                          f"sealed:{germans.seq} first (CD 5A, 2D-2E)")
    opened = await play(table, "reveal", {"sealed": germans.seq}, user=BOB)
    assert opened.embeds[0]["title"] == f"Sealed order #{germans.seq} revealed (Germans): company Kampf"
    assert opened.embeds[0]["description"].startswith("Cautious Advance\n")  # the title within 60 characters
    shown = json.dumps(opened.embeds)
    assert "Revealed in the Movement Phase: the order applies from now, this turn" in shown
    assert "under a Cautious Advance order from now (revealed)" in shown
    seen = await everything_seen(table, private)
    assert shows(seen, GERMANS) and not shows(seen, AMERICANS) and "under a Hold" not in seen
    moved = await play(table, "move", {"units": "G1", "to": "X3"}, user=BOB)  # Cautious Advance: up to 1x
    assert "Cautious Advance, moves up to 1x its movement" in json.dumps(moved.embeds)
    await play(table, "done", user=BOB)

    # 2E: the Americans reveal; Hold keeps their stands where they are
    await play(table, "reveal", {"sealed": americans.seq}, user=ALICE)
    assert [u.order for u in (await table.game()).units.values()] == ["hold", "hold", "cautious_advance",
                                                                       "cautious_advance"]
    held = refusal(await table.send("move", {"units": "S1", "to": "X3"}, user=ALICE))
    assert held == "M4 Sherman S1 is under a Hold order: it does not move (CD Orders Summary [6.1, 7.1-7.3, 21.4])"
    seen = await everything_seen(table, private)
    assert shows(seen, AMERICANS) and shows(seen, GERMANS)

    report = await verify(table)
    assert report["title"] == "The log checks out"
    assert report["description"].endswith("sealed orders: 2, 2 revealed and matching their commitments, 0 still sealed")
    export = tmp_path / "export.json"
    export.write_bytes((await table.send("log export", {"format": "json"}, user=CAROL)).files[0].data)
    done = subprocess.run([sys.executable, "-m", "bot", "rules", "audit", str(export)], capture_output=True,
                          text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr

