"""Re-check a Referee game's committed dice from its JSON export, with nothing but Python's
standard library (docs/dice.md). It imports nothing of the bot, on purpose: it is the derivation
written again from the specification.

    python docs/dice_check.py game-1-log.json      # every die of every revealed turn
    python docs/dice_check.py --vectors docs/dice_vectors.json

Exit status 0 when everything checks out, 1 when a die, a seed or a commitment does not.
"""

import hashlib
import hmac
import json
import sys


def die(seed, game, seq, interaction, contributions, index, sides):
    head = "referee-dice-v1\n%d\n%d\n%d\n%s\n%d\n%d\n" % (game, seq, interaction or 0, ",".join(contributions),
                                                           index, sides)
    limit = 2 ** 32 - 2 ** 32 % sides
    attempt = 0
    while True:
        mac = hmac.new(seed, (head + str(attempt)).encode("ascii"), hashlib.sha256).digest()
        number = int.from_bytes(mac[:4], "big")
        if number < limit:
            return 1 + number % sides
        attempt += 1


def check_vectors(vectors):
    seed = bytes.fromhex(vectors["seed"])
    problems = []
    if hashlib.sha256(seed).hexdigest() != vectors["commitment"]:
        problems.append("the commitment is not the seed's SHA-256")
    if hashlib.sha256(vectors["contribution_text"].encode("utf-8")).hexdigest() != vectors["contribution"]:
        problems.append("the contribution is not the text's SHA-256")
    for case in vectors["dice"]:
        face = die(seed, case["game"], case["seq"], case["interaction"], case["contributions"], case["index"],
                   case["sides"])
        if face != case["face"]:
            problems.append("vector %r gives %d" % (case, face))
    return problems


def check_export(record):
    """Every entry's proof names the commitment in force; each reveal matches it; each die drawn
    under it derives from the revealed seed. Returns (problems, dice checked, entries waiting)."""
    problems, checked, pending, commitment = [], 0, [], None
    for entry in record["entries"]:
        proof = entry.get("dice_proof")
        if proof is None:
            continue
        if commitment is None:
            commitment = proof["commitment"]
        if proof["commitment"] != commitment:
            problems.append("entry #%d names another commitment than the one in force" % entry["seq"])
        if proof.get("sides"):
            pending.append((entry, proof))
        if "reveal" in proof:
            seed = bytes.fromhex(proof["reveal"])
            if hashlib.sha256(seed).hexdigest() != commitment:
                problems.append("entry #%d reveals a seed that does not match its commitment" % entry["seq"])
            for drawn, drawn_proof in pending:
                for index, (sides, value) in enumerate(zip(drawn_proof["sides"], drawn["dice"])):
                    face = die(seed, drawn["game_id"], drawn["seq"], drawn.get("interaction_id"),
                               drawn_proof["contributions"], index, sides)
                    checked += 1
                    if face != value:
                        problems.append("entry #%d die %d reads %d, the seed gives %d"
                                        % (drawn["seq"], index + 1, value, face))
            pending, commitment = [], proof.get("next")
    return problems, checked, len(pending)


def main(argv):
    if argv[:1] == ["--vectors"]:
        with open(argv[1], encoding="utf-8") as file:
            problems = check_vectors(json.load(file))
        print("\n".join(problems) or "all vectors reproduce")
        return 1 if problems else 0
    with open(argv[0], encoding="utf-8") as file:
        problems, checked, waiting = check_export(json.load(file))
    print("\n".join(problems) or "%d dice check out; %d entries with dice wait for a reveal" % (checked, waiting))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
