"""The version of the rules core's results, recorded in every log entry.

``/log verify`` and ``python -m bot rules replay`` re-resolve each logged order with its logged
dice. The dice consumed and the state after the entry must always come out the same; the
Outcome itself (headline, trail wording, rule references) is compared bit for bit only for
entries logged under today's ``RULES_VERSION``, so that a game played over weeks still verifies
after the bot is upgraded, instead of reading as tampered with.

Bump RULES_VERSION (never reuse a number) whenever the Outcome of some order could differ from
what the previous release gave for the same game, order and dice: a reworded trail line or
headline, a rule reference corrected, a rule fixed, a table changed. This includes the
Outcomes built outside the rulesets for the creation, end and undo entries
(bot/record/replay.py). A change that alters the *state* an old order leads to cannot be
absorbed by a bump: old logs would no longer replay, so such a fix must keep the old
behaviour for games already under way.

History:
  1. every entry logged before versions were recorded (they carry no version and read as 1)
  2. "player turn of Germans" replaces "Germans's player turn" in the phase trail
  3. an ASL fire naming a support weapon but not its possessor says in the trail that the possessor
     fires with it (its own FP joins the group); an undo names the units' markers in the ruleset's
     words ("DM", "Unshakable"), not by their field names
  4. a secret roll's seal says it is hidden until its reveal or the end of its game turn, whichever
     comes first (it said "until /reveal" only, though the turn's end opens it too)
  5. the ASL clean-up reads data/asl/markers.yaml: each unit whose markers come off at a phase's end
     is one effect, its state before and after in words ("Good Order, Prep Fire" -> "Good Order"),
     and an eliminated unit's markers come off without a line
     And an undo's trail says its entry's dice stay in the log and giving the order again rolls new dice
     (it said "nothing is rerolled"); a game master's /unit edit naming the entry it corrects says so
     And a fire in a game whose map the bot reads (issue 26: created since, the internal option "grid") counts
     its range on the map and reads its line of sight, both in the trail
  6. no trail line says "the bot has no map" (it reads the map since issue 26): the ASL clean-up's DM
     note, Heat of Battle's berserk note and surrender say what the bot does not do (track which enemy
     units are Known, move units for a surrender)
  7. an NHiS fire's headline names the column a shift leads to ("column 4, shifted 2 left -> column 0";
     it read "-> 0", as if the FP were 0); a side's name owns in the trail as written ("US Marines'
     impulse ends", "Americans' order sealed at #7"; it read "US Marines's")
"""

from __future__ import annotations

# Entries logged before the version was recorded read as this one.
LEGACY_RULES_VERSION = 1

RULES_VERSION = 7
