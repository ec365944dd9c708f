#!/usr/bin/env python3
"""A Kpé engine speaking the kpe engine protocol (spec/PROTOCOL.md).

Standard library only, one file: copy it with a manifest (engine.json beside
it) into a folder of your own and `kpe-check engine.json` there certifies it.
It plays the rules profile the hello asks for, and each switch name or
`setting=value` word of that profile changes one reading of `default`. Inside
the kpe repository `default` is what spec/default.yaml says (the one place the
default is stated, which `kpe adopt` changes); copied anywhere else, it is
EMBEDDED_DEFAULT below, kpe's default when this file was written, as an engine
of your own would hard-code it. `--variant NAME` plants one typical mistake,
to show what kpe-check says:

  skip-origin     plays the other reading of I1 (whether a sowing of 8+ stones
                  skips its origin pit) than the profile asked
  strict-lock     plays the other reading of I2 (whether the move from the
                  last unused pit may capture) than the profile asked
  own-row         captures 2s and 4s in the mover's own row too (a bug: CAP-3)
  no-feeding      ignores the feeding rule (a bug: FEED-1)
  no-sweep        at the end, stones left on the board are not counted in
                  the totals (a bug: END-2)
"""
import json
import os
import sys

VARIANT = sys.argv[2] if sys.argv[1:2] == ["--variant"] else "correct"
PITS = ["S1", "S2", "S3", "S4", "N1", "N2", "N3", "N4"]  # sowing order

# Each setting: its switch name and its two values, the switch's value second
# (spec/RULES.md, "Readings").
SETTINGS = {
    "origin": ("skip-origin", ["sown", "skipped"]),
    "lock": ("strict-lock", ["after-sowing", "before-sowing"]),
    "feeding": ("feed-after-capture", ["by-sowing", "after-capture"]),
    "unfeedable": ("end-when-unfeedable", ["lapses", "ends-game"]),
    "repetition": ("end-on-repetition", ["continues", "ends-game"]),
}
# kpe's spec/default.yaml, as this file sits in the kpe repository.
DEFAULT_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "spec", "default.yaml")
# The default when the file is copied elsewhere: spec/default.yaml of kpe
# 0.2.0. tests/live.rs certifies a copy outside the repository with
# engine.json, which claims `default`: it conforms only if the two agree.
# (`kpe adopt` leaves this file alone and rewrites engine.json's profile to
# name the same rules against the new default.)
EMBEDDED_DEFAULT = """
origin: sown
lock: after-sowing
feeding: by-sowing
unfeedable: lapses
repetition: continues
"""


def read_default(text):
    """`setting: value` lines (spec/default.yaml) -> {switch name: on?}."""
    on = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        setting, value = (w.strip() for w in line.split(":", 1))
        if setting == "version":  # the file format's version (1)
            continue
        switch, values = SETTINGS[setting]
        on[switch] = values.index(value) == 1
    return on


def default_text():
    """spec/default.yaml inside the kpe repository, else the embedded copy."""
    try:
        with open(DEFAULT_FILE, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return EMBEDDED_DEFAULT


def read_profile(text, default):
    """A profile string (`default`, `skip-origin,feeding=by-sowing`, ...)."""
    on = dict(default)
    for word in (w.strip() for w in text.split(",")):
        if word in ("", "default"):
            continue
        if "=" in word:
            setting, value = (w.strip() for w in word.split("=", 1))
            switch, values = SETTINGS[setting]
            on[switch] = values.index(value) == 1
        elif word in (s for s, _ in SETTINGS.values()):
            on[word] = True
        else:
            raise ValueError(f"unknown rules switch {word!r}")
    return on


DEFAULT = read_default(default_text())
RULES = dict(DEFAULT)  # the profile played: the hello's


def switch(name):
    """Whether the engine plays reading switch `name`: as the hello asked,
    or the other reading for the variant of that name."""
    return RULES[name] != (VARIANT == name)


def parse(text):
    """`6,6,6,6/6,6,6,6 S 0/0 ----/----` -> (board, mover, captured, used)."""
    pits, side, captured, used = text.split(" ")
    board = [int(n) for n in pits.replace("/", ",").split(",")]
    captured = [int(n) for n in captured.split("/")]
    used = [[c != "-" for c in row] for row in used.split("/")]
    return board, "SN".index(side), captured, used


def show(board, mover, captured, used):
    row = lambda r: ",".join(str(n) for n in board[4 * r:4 * r + 4])
    mark = lambda r: "".join(str(k + 1) if used[r][k] else "-" for k in range(4))
    return f"{row(0)}/{row(1)} {'SN'[mover]} {captured[0]}/{captured[1]} {mark(0)}/{mark(1)}"


def own(pit, player):
    return pit // 4 == player


def sow(board, mover, captured, used, pit):
    """Plays `pit` (0..7): sowing, lock, captures. Returns the new state."""
    board, captured, used = board[:], captured[:], [row[:] for row in used]
    stones, board[pit], here = board[pit], 0, pit
    while stones:
        here = (here + 1) % 8
        # SOW-4 (I1): the default reading, or the switch's for the variant.
        if here == pit and switch("skip-origin"):
            continue
        board[here] += 1
        stones -= 1
    unlocked_before = all(used[mover])
    used[mover][pit % 4] = True
    may_capture = unlocked_before if switch("strict-lock") else all(used[mover])
    captures = []
    while may_capture and (not own(here, mover) or VARIANT == "own-row") and board[here] in (2, 4):
        captures.append({"pit": PITS[here], "stones": board[here]})
        captured[mover] += board[here]
        board[here] = 0
        here = (here - 1) % 8
    return board, captured, used, captures


def legal(board, mover, captured, used):
    mine = [p for p in range(4 * mover, 4 * mover + 4) if board[p]]
    opponent_empty = not any(board[p] for p in range(4 * (1 - mover), 4 * (1 - mover) + 4))
    if not mine or not opponent_empty or VARIANT == "no-feeding":
        return mine
    feeding = [p for p in mine if feeds(board, mover, captured, used, p)]
    if feeding:
        return feeding
    # Nothing feeds (I4): the game ends, or the obligation lapses.
    return [] if switch("end-when-unfeedable") else mine


def feeds(board, mover, captured, used, pit):
    """FEED-2 (I3): whether playing `pit` feeds the empty-rowed opponent."""
    if not switch("feed-after-capture"):
        # Its sowing puts at least one stone into the opponent's row.
        return board[pit] >= 4 - pit % 4
    # The opponent keeps at least one stone after the move's captures.
    after = sow(board, mover, captured, used, pit)[0]
    return any(after[p] for p in range(4 * (1 - mover), 4 * (1 - mover) + 4))


def play(state, pit):
    board, mover, captured, used = state
    moves = legal(*state)
    if not moves:
        return {"type": "illegal", "reason": "game-over"}
    if not own(pit, mover):
        return {"type": "illegal", "reason": "not-own-pit"}
    if board[pit] == 0:
        return {"type": "illegal", "reason": "empty-pit"}
    if pit not in moves:
        return {"type": "illegal", "reason": "feeding-required"}
    board, captured, used, captures = sow(board, mover, captured, used, pit)
    after = (board, 1 - mover, captured, used)
    reply = {"type": "played", "position": show(*after), "captures": captures}
    if not legal(*after):
        totals = [captured[p] + sum(board[4 * p:4 * p + 4]) for p in (0, 1)]
        if VARIANT == "no-sweep":
            totals = captured
        reply["end"] = {"totals": totals}
    return reply


def perft(state, depth):
    if depth == 0:
        return 1
    moves = legal(*state)
    if depth == 1:
        return len(moves)
    total = 0
    for pit in moves:
        board, captured, used, _ = sow(state[0], state[1], state[2], state[3], pit)
        total += perft((board, 1 - state[1], captured, used), depth - 1)
    return total


def answer(request):
    kind = request["type"]
    if kind == "hello":
        try:
            RULES.update(read_profile(request.get("profile", "default"), DEFAULT))
        except (ValueError, KeyError) as e:
            return {"type": "error", "message": f"cannot play profile {request.get('profile')!r}: {e}"}
        return {"type": "hello", "protocol": 1, "name": f"kpe-sample-py ({VARIANT})",
                "version": "1.0", "perft": True}
    state = parse(request["position"])
    if kind == "legal":
        return {"type": "legal", "moves": [PITS[p] for p in legal(*state)]}
    if kind == "play":
        return play(state, PITS.index(request["move"]))
    if kind == "perft":
        return {"type": "perft", "nodes": perft(state, request["depth"])}
    return {"type": "error", "message": f"unknown request type {kind!r}"}


for line in sys.stdin:
    request = json.loads(line)
    if request["type"] == "quit":
        break
    print(json.dumps(answer(request)), flush=True)
