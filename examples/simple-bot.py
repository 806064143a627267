#!/usr/bin/env python3
"""The smallest useful bot for the mahjong-ssh bot protocol (docs/bot-protocol.md): Python 3,
no packages, stdin/stdout.

It wins whenever it may (胡, 塘子烂糊) and otherwise answers with the request's ``default``,
the action the timer would play (discard the drawn tile, pass, decline to buy), written as a
text answer. Start from here: replace ``choose`` with something cleverer.

    mahjong-ssh arena --rules yichun --seat "python3 examples/simple-bot.py" --deals 2
"""

import json
import sys

START = "--start" in sys.argv  # bot join: start the table's game if it waits
ONE_GAME = "--one-game" in sys.argv  # bot join: leave after one game


def choose(request: dict) -> dict:
    """The answer line for a request: a win by its id, else the default by its text."""
    for choice in request["legal"]:
        if choice["action"]["a"] in ("win", "pond_win"):
            return {"request": request["request"], "choice": choice["id"]}
    return {"request": request["request"], "action": request["default"]}


def send(line: dict) -> None:
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()  # one answer a line, at once: the table is waiting for it


for text in sys.stdin:
    message = json.loads(text)
    kind = message["type"]
    if kind == "hello" and START and message.get("state") == "waiting":
        send({"command": "start"})
    elif kind == "request":
        send(choose(message))
    elif kind == "error":
        print(f"simple-bot.py: refused: {message['message']}", file=sys.stderr)
    elif kind == "game_end" and ONE_GAME:
        break
