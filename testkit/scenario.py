"""Rigged hands for tests, examples and tutorials: chosen tiles in chosen hands and wall spots.

``rigged_hand("yichun", {0: "123m ...", 1: "..."}, draws="5p 9s", tail="E")`` deals a normal
hand from ``seed`` and then rearranges the physical tiles so that the given seats hold exactly
the given tiles, the next head draws are ``draws`` and the next tail draws (kong replacements)
are ``tail``. Seats not given keep random tiles. The rest of the wall stays shuffled. Shangrao's
``wild`` and Gejiu's ``kong_tiles`` can be fixed too. Nothing here is used in real play.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.actions import Action, ActionType
from engine.rulesets import find_ruleset
from engine.table import Hand, Phase
from engine.tiles import Kind, TileId, kind_to_str, next_kind, parse_tile, parse_tiles
from engine.wall import tail_position


class ScenarioError(ValueError):
    pass


def _prev_kind(kind: Kind) -> Kind:
    for k in range(34):
        if next_kind(k) == kind:
            return k
    raise ScenarioError(f"no indicator for {kind}")


def rigged_hand(
    rules: str,
    hands: Mapping[int, str],
    draws: str = "",
    tail: str = "",
    dealer: int = 0,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    wild: str | None = None,
    kong_tiles: str | None = None,
    buyers: tuple[int, ...] = (),
) -> Hand:
    """A hand in TURN phase for the dealer with the given tiles (see the module docstring)."""
    hand = Hand(find_ruleset(rules, options), seed=seed, dealer=dealer)
    while hand.phase is Phase.BUY:  # Yichun: buy as asked (compelled seats always buy)
        seat = hand.to_act()[0]
        want = ActionType.BUY if seat in buyers else ActionType.NO_BUY
        choices = [a for a in hand.legal_actions(seat) if not a.lighter]
        pick = next((a for a in choices if a.type is want), choices[0])
        hand.apply(seat, pick)
    hand.actions.clear()  # the rig replaces the start: replaying it is not meaningful
    wall = hand.wall
    # every tile not yet visible: concealed hands + undrawn wall positions
    free_positions = sorted(i for i in range(136) if i not in wall.taken)
    pool: list[TileId] = [t for st in hand.seats for t in st.concealed]
    pool += [wall.seq[i] for i in free_positions]
    pool += [t for t in hand.kong_slots if t is not None]
    by_kind: dict[Kind, list[TileId]] = {}
    for t in sorted(pool):
        by_kind.setdefault(t // 4, []).append(t)

    def take(kind: Kind, what: str) -> TileId:
        ids = by_kind.get(kind, [])
        if not ids:
            raise ScenarioError(
                f"no {kind_to_str(kind)} left for {what} (each kind has four tiles)"
            )
        t = ids.pop()
        return t

    new_hands: dict[int, list[TileId]] = {}
    for seat, text in hands.items():
        kinds = parse_tiles(text)
        need = 14 if seat == dealer else 13
        if len(kinds) != need:
            raise ScenarioError(f"seat {seat} needs {need} tiles, got {len(kinds)}")
        new_hands[seat] = [take(k, f"seat {seat}") for k in kinds]
    head_ids = [take(k, "draws") for k in parse_tiles(draws)]
    tail_ids = [take(k, "tail") for k in parse_tiles(tail)]
    slot_ids: list[TileId] = []
    if kong_tiles is not None:
        slot_ids = [take(k, "kong tiles") for k in parse_tiles(kong_tiles)]
        if len(slot_ids) != 2:
            raise ScenarioError("kong_tiles needs exactly two tiles")
    indicator_id: TileId | None = None
    if wild is not None:
        if hand.indicator_pos is None:
            raise ScenarioError(f"{rules} has no wild")
        indicator_id = take(_prev_kind(parse_tile(wild)), "the wild indicator")
    rest = [t for ids in by_kind.values() for t in ids]
    random.Random(seed).shuffle(rest)
    # seats not given get random tiles
    for seat in range(4):
        if seat not in new_hands:
            need = 14 if seat == dealer else 13
            new_hands[seat], rest = rest[:need], rest[need:]
    for seat in range(4):
        hand.seats[seat].set_concealed(new_hands[seat])
    if hand.kong_slots:
        if kong_tiles is None:
            slot_ids, rest = rest[:2], rest[2:]
        hand.kong_slots = [slot_ids[0], slot_ids[1]]
    # wall: head draws first, tail draws from the tail end, indicator in its place
    head_positions = [i for i in free_positions]
    tail_positions: list[int] = []
    n = wall.tpos
    while len(tail_positions) < len(tail_ids):
        pos = tail_position(n)
        if pos not in wall.taken:
            tail_positions.append(pos)
        n += 1
    placed: dict[int, TileId] = dict(zip(tail_positions, tail_ids, strict=True))
    if indicator_id is not None:
        assert hand.indicator_pos is not None
        if hand.indicator_pos in placed or hand.indicator_pos in wall.taken:
            raise ScenarioError("the wild indicator's place is already used")
        placed[hand.indicator_pos] = indicator_id
    head_iter = iter(head_ids)
    for pos in head_positions:
        if pos in placed:
            continue
        nxt = next(head_iter, None)
        if nxt is None:
            break
        placed[pos] = nxt
    for pos in head_positions:
        if pos not in placed:
            placed[pos] = rest.pop()
    for pos, t in placed.items():
        wall.seq[pos] = t
    if rest:
        raise ScenarioError("internal: tiles left over")
    if hand.indicator_pos is not None:
        hand.indicator = wall.seq[hand.indicator_pos] // 4
        hand.wild = next_kind(hand.indicator)
        for st in hand.seats:
            st.got = sum(1 for t in st.concealed if t // 4 == hand.wild)
    hand.tiles_changed()
    hand.check_invariants()
    return hand


def play(hand: Hand, script: str) -> None:
    """Apply a script: ``"E: discard 5m; S: peng 5m; ..."`` (seat letter, colon, action)."""
    for step in script.split(";"):
        step = step.strip()
        if not step:
            continue
        seat_text, _, action_text = step.partition(":")
        seat = "ESWN".index(seat_text.strip())
        hand.apply(seat, Action.parse(action_text.strip()))


def advance(hand: Hand, script: list[tuple[int, str]]) -> None:
    """Apply the scripted ``(seat, action)`` steps in order; every seat asked in between
    passes (a rigged hand brought to the position a test wants)."""
    steps = list(script)
    while steps:
        seat, text = steps[0]
        if seat in hand.to_act() and (hand.to_act()[0] == seat or
                                      Action.pass_() not in hand.legal_actions(hand.to_act()[0])):
            hand.apply(seat, Action.parse(text))
            steps.pop(0)
        else:
            hand.apply(hand.to_act()[0], Action.pass_())
