"""Re-check a Referee game's committed dice from its JSON export, with nothing but Python's
standard library (docs/dice.md). It imports nothing of the bot, on purpose: it is the derivation
written again from the specification.

    python docs/dice_check.py game-1-log.json      # the hash chain, every die of every revealed turn, the
                                                   # contributions, and every secret roll once it is opened
    python docs/dice_check.py game-1-log.json --posted lines.txt   # and each turn's end against the line
                                                   # it posted in the channel ("Turn 3 sealed at #57: ...")
    python docs/dice_check.py --vectors docs/dice_vectors.json

Exit status 0 when everything checks out, 1 when a die, a seed, a commitment, the chain or a posted
line does not.
"""

import hashlib
import hmac
import json
import re
import sys

POSTED = re.compile(r"Turn (\d+) sealed at #(\d+): chain ([0-9a-fA-F]{16,64})(?:\W+(\d+) dic?e drawn by the bot)?")


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
    sealed = vectors.get("sealed")
    if sealed and hashlib.sha256(bytes.fromhex(sealed["nonce"]) + sealed["text"].encode("utf-8")).hexdigest() \
            != sealed["commitment"]:
        problems.append("the sealed text's commitment is not SHA-256(nonce || text)")
    for case in vectors["dice"]:
        face = die(seed, case["game"], case["seq"], case["interaction"], case["contributions"], case["index"],
                   case["sides"])
        if face != case["face"]:
            problems.append("vector %r gives %d" % (case, face))
    return problems


def entry_hash(entry):
    """SHA-256 of the previous entry's hash followed by the entry's canonical JSON: every field but the two
    hashes, keys sorted, no spaces, non-ASCII as it is; an entry of rules version 1 without the field, an
    entry without committed dice without ``dice_proof`` (they hashed so before those fields existed)."""
    body = {k: v for k, v in entry.items() if k not in ("hash", "prev_hash")}
    if body.get("rules_version", 1) == 1:
        body.pop("rules_version", None)
    if body.get("dice_proof") is None:
        body.pop("dice_proof", None)
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256((entry["prev_hash"] + text).encode("utf-8")).hexdigest()


def check_chain(record):
    """Each entry numbered in turn, linked to the one before, and hashing to its hash. Returns the problems
    and the turns' ends: (turn, seq, hash, dice drawn by the bot from the turn's seed) each."""
    problems, prev, drawn, ends = [], "0" * 64, 0, []
    for number, entry in enumerate(record["entries"], start=1):
        if entry["seq"] != number or entry["prev_hash"] != prev or entry_hash(entry) != entry["hash"]:
            problems.append("entry #%d does not check out: the hash chain is broken there" % number)
            break
        prev = entry["hash"]
        proof, order = entry.get("dice_proof") or {}, entry.get("order") or {}
        if not entry.get("manual"):
            drawn += len(proof.get("sides") or [])
        roll = order.get("roll") if order.get("action") == "seal" else None
        drawn += len(roll.get("sides") or []) if isinstance(roll, dict) else 0
        if "reveal" in proof:
            ends.append((proof.get("turn"), entry["seq"], entry["hash"], drawn))
            drawn = 0
    return problems, ends


def check_posted(ends, text):
    """Each line a turn's end posted (in ``text``) against the export's end of that turn (the n-th line
    of a turn with its n-th end): the same entry, the same hash (its first hex digits), the same count."""
    problems, seen = [], {}
    for match in POSTED.finditer(text):
        turn, seq, chain, count = int(match[1]), int(match[2]), match[3].lower(), match[4]
        n = seen[turn] = seen.get(turn, 0) + 1
        found = [end for end in ends if end[0] == turn]
        if len(found) < n:
            problems.append("turn %d was posted as sealed at #%d, but the export does not end it" % (turn, seq))
            continue
        _turn, at, digest, drawn = found[n - 1]
        if at != seq or not digest.startswith(chain) or (count is not None and int(count) != drawn):
            problems.append("turn %d: posted sealed at #%d, chain %s, %s dice; the export: #%d, chain %s, %d dice"
                            % (turn, seq, chain[:16], count, at, digest[:16], drawn))
    return problems


def check_export(record):
    """Every entry's proof names the commitment in force and the contributions the log set (each
    side's changed by its dice_contribution entries); each reveal of a seed matches it; each die drawn
    under it derives from the revealed seed; each secret roll, once opened (by /reveal or with the
    seed at its turn's end), matches its commitment and its dice derive from its turn's seed.
    Returns (problems, dice checked, entries waiting)."""
    problems, checked, pending, commitment, contributions = [], 0, [], None, None
    seeds, secret = {}, {}  # commitment -> seed revealed; seq of a secret roll -> (its entry, the commitment)

    def secret_dice(drawn, at, seed):
        """The dice of secret roll ``drawn`` (its entry, its opened text) derived from ``seed``."""
        found = 0
        for index, (sides, value) in enumerate(zip(drawn["order"]["roll"]["sides"], drawn["opened_dice"])):
            face = die(seed, drawn["game_id"], drawn["seq"], drawn.get("interaction_id"),
                       drawn["dice_proof"]["contributions"], index, sides)
            found += 1
            if face != value:
                problems.append("secret roll #%d die %d reads %d, the seed revealed at entry #%d gives %d"
                                % (drawn["seq"], index + 1, value, at, face))
        return found

    def opened(at, sealed, text, nonce):
        if sealed not in secret:
            return 0
        drawn, under = secret.pop(sealed)
        digest = hashlib.sha256(bytes.fromhex(nonce) + text.encode("utf-8")).hexdigest()
        if digest != drawn["order"]["commitment"]:
            problems.append("entry #%d opens secret roll #%d with a text that does not match its commitment"
                            % (at, sealed))
            return 0
        dice = json.loads(text).get("dice", [])
        if len(dice) != len(drawn["order"]["roll"]["sides"]):
            problems.append("entry #%d opens secret roll #%d without its dice" % (at, sealed))
            return 0
        drawn = dict(drawn, opened_dice=dice)
        if under in seeds:
            return secret_dice(drawn, at, seeds[under])
        pending.append((drawn, None))
        return 0

    for entry in record["entries"]:
        proof, order = entry.get("dice_proof"), entry.get("order") or {}
        if proof is None:
            continue
        if commitment is None:
            commitment, contributions = proof["commitment"], [""] * len(proof["contributions"])
        if proof["commitment"] != commitment:
            problems.append("entry #%d names another commitment than the one in force" % entry["seq"])
        if proof["contributions"] != contributions:
            problems.append("entry #%d names other contributions than the log set" % entry["seq"])
        if proof.get("sides"):
            pending.append((entry, proof))
        roll = order.get("roll") if order.get("action") == "seal" else None
        if isinstance(roll, dict):
            secret[entry["seq"]] = (entry, commitment)
        if order.get("action") == "reveal":
            checked += opened(entry["seq"], order.get("sealed"), str(order.get("text", "")),
                              str(order.get("nonce", "")))
        if order.get("action") == "dice_contribution":
            contributions = list(contributions)
            contributions[order["side"]] = order["value"]
        if "reveal" in proof:
            seed = bytes.fromhex(proof["reveal"])
            if hashlib.sha256(seed).hexdigest() != commitment:
                problems.append("entry #%d reveals a seed that does not match its commitment" % entry["seq"])
            seeds[commitment] = seed
            for drawn, drawn_proof in pending:
                if drawn_proof is None:  # a secret roll opened before its turn's seed
                    checked += secret_dice(drawn, entry["seq"], seed)
                    continue
                for index, (sides, value) in enumerate(zip(drawn_proof["sides"], drawn["dice"])):
                    face = die(seed, drawn["game_id"], drawn["seq"], drawn.get("interaction_id"),
                               drawn_proof["contributions"], index, sides)
                    checked += 1
                    if face != value:
                        problems.append("entry #%d die %d reads %d, the seed gives %d"
                                        % (drawn["seq"], index + 1, value, face))
            pending = []
            for item in proof.get("opened") or []:
                checked += opened(entry["seq"], item.get("sealed"), str(item.get("text", "")),
                                  str(item.get("nonce", "")))
            waiting = [n for n, (drawn, under) in secret.items()
                       if under == commitment and drawn["order"]["roll"].get("turn_end")]
            if waiting:
                problems.append("entry #%d ends the game turn without opening secret rolls %s"
                                % (entry["seq"], ", ".join("#%d" % n for n in waiting)))
            commitment = proof.get("next")
    return problems, checked, len(pending)


def main(argv):
    if argv[:1] == ["--vectors"]:
        with open(argv[1], encoding="utf-8") as file:
            problems = check_vectors(json.load(file))
        print("\n".join(problems) or "all vectors reproduce")
        return 1 if problems else 0
    with open(argv[0], encoding="utf-8") as file:
        record = json.load(file)
    problems, ends = check_chain(record)
    if argv[1:2] == ["--posted"]:
        with open(argv[2], encoding="utf-8") as file:
            problems += check_posted(ends, file.read())
    found, checked, waiting = check_export(record)
    problems += found
    print("\n".join(problems) or "%d dice check out; %d entries with dice wait for a reveal" % (checked, waiting))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
