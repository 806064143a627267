"""net.cluster.wire: every message the workers exchange comes back equal, deadlines land on the
receiver's clock, and no input of any shape gets past ``decode`` but as a WireError."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator
from typing import Any, get_args

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.actions import Action, ActionType
from engine.bots import make_player
from engine.game import Game
from engine.rulesets import find_ruleset
from engine.situation import Spectator
from engine.view import View, build_view
from host.client import TableUpdate
from host.refusal import Refusal
from host.table_info import ChatLine, SeatInfo, TableInfo, TableState
from net.cluster import wire
from net.cluster.wire import (
    FINGERPRINT,
    MAX_ITEMS,
    MAX_MESSAGE,
    MESSAGES,
    Chat,
    Closed,
    Do,
    Done,
    Entry,
    Heartbeat,
    Info,
    Join,
    Joined,
    Message,
    Moved,
    Op,
    Push,
    Refused,
    Reply,
    Request,
    Update,
    WireError,
    decode,
    encode,
)
from net.store import Account

LEVELS = ("hard", "normal", "easy", "hard")
# (rules, seed): fixed games whose views show what each ruleset adds to a view (checked below)
GAMES = {"shangrao": 3, "gejiu": 3, "yichun": 3}
FEATURES = {
    "shangrao": {"wild", "result", "win", "reason_meld"},
    "gejiu": {"doudizhu", "kong_tiles", "ting", "result", "win"},
    "yichun": {"bought", "lighter", "face_down", "result", "win", "spectator_stakes"},
}


def _features(view: View) -> set[str]:
    out = set()
    if view.wild is not None:
        out.add("wild")
    if view.doudizhu:
        out.add("doudizhu")
    if any(t is not None for t in view.kong_tiles):
        out.add("kong_tiles")
    if any(p.ting for p in view.seats):
        out.add("ting")
    if any(p.bought for p in view.seats):
        out.add("bought")
    if any(p.lighter for p in view.seats):
        out.add("lighter")
    if any(m.tiles is None for p in view.seats for m in p.melds):
        out.add("face_down")
    if view.result is not None:
        out.add("result")
        s = view.result.settlement
        if view.result.winners:
            out.add("win")
        if s.spectators and any(isinstance(t.payer, str) or isinstance(t.payee, str)
                                for t in s.transfers):
            out.add("spectator_stakes")
        if any(p.meld is not None for t in s.transfers for p in t.reason):
            out.add("reason_meld")
    return out


def updates(rules: str, seed: int, hands: int = 2) -> Iterator[TableUpdate]:
    """Every seat's and the spectator's update before and after every action of a fixed-seed
    game of computer players, as a table would send them (scores, history, names)."""
    spectators = [Spectator("顾客", 1), Spectator("li", 2)] if rules == "yichun" else []
    game = Game(rules, seed, {"hands_per_game": hands}, spectators=spectators)
    players = [make_player(level) for level in LEVELS]
    step = 0
    while not game.is_over:
        hand = game.new_hand()
        while True:
            for viewer in (0, 1, 2, 3, None):
                step += 1
                yield TableUpdate(
                    view=build_view(hand, viewer),
                    deadline=None if step % 3 else 1000.0 + step / 8,
                    timer_seconds=30.0 if step % 2 else 8.0,
                    totals=(game.scores[0], game.scores[1], game.scores[2], game.scores[3]),
                    history=tuple(game.history),
                    hands_per_game=hands,
                    game_over=game.is_over,
                    names=("东", "bob", "", "Ünïcode"),
                )
            if hand.is_over:
                break
            seat = hand.to_act()[0]
            game.apply(seat, players[seat].choose(build_view(hand, seat)))


@pytest.mark.parametrize("rules", sorted(GAMES))
def test_every_view_of_a_game_round_trips(rules: str) -> None:
    seen: set[str] = set()
    count = 0
    for update in updates(rules, GAMES[rules]):
        msg = Update(update)
        back = decode(encode(msg, 0.0), 0.0)
        assert back == msg
        assert isinstance(back, Update) and type(back.update.view) is View
        seen |= _features(update.view)
        count += 1
    assert FEATURES[rules] <= seen, f"the game shows no {FEATURES[rules] - seen}"
    assert count > 300


def _info(rules: str = "yichun") -> TableInfo:
    return TableInfo(
        name="桌一 table",
        rules=rules,
        options=tuple(sorted(find_ruleset(rules).options.items())),
        seats=(SeatInfo("ann", True, True), SeatInfo("", False, False),
               SeatInfo("张三", True, False, idle=True), SeatInfo("bot", False, True)),
        spectators=2,
        state=TableState.PLAYING,
        hand_no=3,
        hands_per_game=8,
        allow=(True, False, True, True),
        stakes_possible=True,
        stakes=(("gu", 0), ("li", 2)),
        hand_stakes=(("gu", 0),),
        bot_levels=("normal", "hard", "easy", "normal"),
    )


@functools.cache
def _update() -> TableUpdate:
    """A mid-hand update of the Gejiu game."""
    for i, update in enumerate(updates("gejiu", GAMES["gejiu"], hands=1)):
        if i >= 200 and update.view.viewer == 1 and update.view.legal:
            return dataclasses.replace(update, deadline=1234.5)
    raise AssertionError("no mid-hand update")


def every_message() -> list[Message]:
    update = _update()
    account = Account(7, "王五", "SHA256:abc")
    refusal = Refusal.of("stake_full", n=3)
    msgs: list[Message] = [
        Join("s-1", account, False),
        Join("s-2", Account(-3, "guest", None, guest=True), True),
        Joined(2, "王五", TableState.BETWEEN, 4, (ChatLine("ann", "hi 你好"),), _info(), update),
        Joined(None, "watcher", TableState.WAITING, 0, (), _info("shangrao"), None),
        Refused(refusal),
        Refused(Refusal.of("illegal", reason="not your move")),
        Done(),
        Done(refusal, alive=False),
        Update(update),
        Info(_info("gejiu")),
        Chat(ChatLine("张三", "碰!")),
        Moved(),
        Closed(None),
        Closed(Refusal.of("quarantined")),
        Entry("桌一 table", "worker-2", 41, _info(), 7),
        Entry("t2", "worker-1", 1, _info("shangrao"), None),
        Heartbeat("host:4242:ab12cd"),
    ]
    for op in Op:
        msgs.append(Do("s-1", op))
    msgs += [
        Do("s-1", Op.SEND, action=Action(ActionType.DISCARD, 5, ting=True)),
        Do("s-1", Op.SEND, action=Action(ActionType.CHI, None, (3, 5))),
        Do("s-1", Op.SEND, action=Action(ActionType.NO_BUY, lighter=True)),
        Do("s-1", Op.SEND, action=Action(ActionType.ANGANG, 30, slot=1)),
        Do("s-1", Op.CHAT, text="好牌 good"),
        Do("s-1", Op.STAKE, backs=2),
        Do("s-1", Op.SET_ALLOW, flag=True),
    ]
    return msgs


def test_every_message_round_trips() -> None:
    msgs = every_message()
    assert {type(m) for m in msgs} == set(MESSAGES)
    assert set(MESSAGES) == {*get_args(Request), *get_args(Reply), *get_args(Push), Entry,
                             Heartbeat}
    for msg in msgs:
        assert decode(encode(msg, 0.0), 0.0) == msg, type(msg).__name__


def test_a_deadline_travels_as_the_time_left() -> None:
    update = dataclasses.replace(_update(), deadline=112.5)
    back = decode(encode(Update(update), 100.0), 500.0)
    assert isinstance(back, Update) and back.update.deadline == 512.5
    assert back.update.view == update.view
    joined = Joined(0, "a", TableState.PLAYING, 1, (), _info(), update)
    back_joined = decode(encode(joined, 100.0), 90.0)
    assert isinstance(back_joined, Joined) and back_joined.update is not None
    assert back_joined.update.deadline == 102.5
    untimed = Update(dataclasses.replace(update, deadline=None))
    assert decode(encode(untimed, 100.0), 500.0) == untimed


# --- hostile input ----------------------------------------------------------------------

def _rewrite(msg: Message, edit: Callable[[Any], Any]) -> bytes:
    """``msg`` encoded, then its plain msgpack structure edited and encoded again: a message
    of the right build with one thing wrong."""
    tree = msgspec.msgpack.decode(encode(msg, 0.0)[len(FINGERPRINT):])
    return FINGERPRINT + msgspec.msgpack.encode(edit(tree))


def _view_of(tree: Any) -> Any:
    """The view inside an encoded Update: [tag, [view, deadline, ...]]."""
    return tree[1][0]


def _set(path: tuple[int, ...], value: Any) -> Callable[[Any], Any]:
    def edit(tree: Any) -> Any:
        node = tree
        for i in path[:-1]:
            node = node[i]
        node[path[-1]] = value
        return tree
    return edit


def _rejected(data: bytes, *words: str) -> None:
    with pytest.raises(WireError) as info:
        decode(data, 0.0)
    text = str(info.value)
    assert len(text) < 300
    for word in words:
        assert word in text, text


def test_the_rewrite_itself_keeps_a_message_whole() -> None:
    msg = Update(_update())
    assert decode(_rewrite(msg, lambda tree: tree), 0.0) == msg


def test_malformed_messages_are_one_error() -> None:
    msg = Update(_update())
    good = encode(msg, 0.0)
    view_fields = [f.name for f in dataclasses.fields(View)]
    hand = view_fields.index("hand")
    phase = view_fields.index("phase")
    _rejected(b"", "build")
    _rejected("text", "not bytes")  # type: ignore[arg-type]
    assert decode(bytearray(good), 0.0) == decode(memoryview(good), 0.0) == msg
    _rejected(b"garbage!", "build")
    _rejected(FINGERPRINT, "malformed")
    _rejected(FINGERPRINT + b"\xc1", "malformed")
    _rejected(bytes(4) + good[4:], "build")
    _rejected(good[:-1], "malformed")
    _rejected(good + b"\x00", "malformed")
    _rejected(_rewrite(msg, _set((0,), "Nope")), "malformed")  # no such message
    _rejected(_rewrite(msg, _set((1, 1), "soon")), "malformed")  # a text for a number
    _rejected(_rewrite(msg, _set((1, 0, phase), "nope")), "malformed")  # no such phase
    _rejected(_rewrite(msg, _set((1, 0, hand), list(range(MAX_ITEMS + 1)))), "malformed")
    _rejected(_rewrite(msg, _set((1, 1), float("nan"))), "malformed")
    _rejected(_rewrite(msg, _set((1, 1), float("inf"))), "malformed")
    _rejected(_rewrite(msg, lambda t: [*t[:1], [*t[1], 0]]), "malformed")  # a field too many
    _rejected(_rewrite(msg, lambda t: [t[0], t[1][:-1]]), "malformed")  # a field too few
    _rejected(_rewrite(Refused(Refusal.of("quarantined")), _set((1, 0), "no_such_text")),
              "malformed")  # the refusal's own check (KeyError) becomes a WireError
    _rejected(FINGERPRINT + b"\x00" * (MAX_MESSAGE - len(FINGERPRINT) + 1), "exceeds")
    _rejected(_rewrite(Do("s", Op.CHAT, text="x"), _set((4,), "y" * (wire.MAX_TEXT + 1))),
              "malformed")


def test_a_bad_meld_in_a_settlement_is_refused() -> None:
    """A meld's own check (``Meld.__post_init__``) runs on decoding and becomes a WireError."""
    for update in updates("shangrao", GAMES["shangrao"]):
        result = update.view.result
        if result is not None and any(p.meld is not None for t in result.settlement.transfers
                                      for p in t.reason):
            break
    else:
        raise AssertionError("no settlement with a meld")
    settlement = result.settlement
    t_index, transfer = next((i, t) for i, t in enumerate(settlement.transfers)
                             if any(p.meld is not None for p in t.reason))
    p_index = next(i for i, p in enumerate(transfer.reason) if p.meld is not None)
    view_fields = [f.name for f in dataclasses.fields(View)]
    path = (1, 0, view_fields.index("result"), 4, 1, t_index, 3, p_index, 2, 1)
    msg = Update(update)
    assert decode(_rewrite(msg, lambda tree: tree), 0.0) == msg
    _rejected(_rewrite(msg, _set(path, [1, 2, 3, 4, 5, 6])), "malformed")


def test_what_a_receiver_would_refuse_is_not_sent() -> None:
    with pytest.raises(WireError, match="Do"):
        encode(Do("s", Op.CHAT, text="x" * (wire.MAX_TEXT + 1)), 0.0)
    big = Entry("t", "w", 1, dataclasses.replace(
        _info(), stakes=tuple((str(i), 0) for i in range(MAX_ITEMS + 1))), None)
    with pytest.raises(WireError, match="Entry"):
        encode(big, 0.0)
    with pytest.raises(TypeError):
        encode("not a message", 0.0)  # type: ignore[arg-type]


def _decoded_or_refused(data: bytes) -> None:
    try:
        msg = decode(data, 0.0)
    except WireError:
        return
    assert isinstance(msg, MESSAGES)


@functools.cache
def _samples() -> tuple[tuple[Message, bytes, Any], ...]:
    """Every message with its encoding and that encoding's plain msgpack structure (made on
    first use, not while the tests are collected)."""
    out = []
    for msg in every_message():
        data = encode(msg, 0.0)
        out.append((msg, data, msgspec.msgpack.decode(data[len(FINGERPRINT):])))
    return tuple(out)
_FUZZ = settings(max_examples=300, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@_FUZZ
@given(st.binary(max_size=2048), st.booleans())
def test_fuzz_garbage(data: bytes, prefixed: bool) -> None:
    _decoded_or_refused(FINGERPRINT + data if prefixed else data)


@_FUZZ
@given(st.integers(0, 1 << 16), st.lists(st.tuples(st.integers(0, 1 << 20),
                                                     st.integers(0, 255)), max_size=8),
       st.integers(0, 1 << 20))
def test_fuzz_damaged_messages(which: int, flips: list[tuple[int, int]], cut: int) -> None:
    samples = _samples()
    damaged = bytearray(samples[which % len(samples)][1])
    for at, value in flips:
        damaged[len(FINGERPRINT) + at % (len(damaged) - len(FINGERPRINT))] = value
    _decoded_or_refused(bytes(damaged[: max(len(FINGERPRINT), len(damaged) - cut % 64)]))


_PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers(-(1 << 63), (1 << 64) - 1) | st.floats()
    | st.text(max_size=8) | st.binary(max_size=8) | st.sampled_from([m.__name__ for m in
                                                                      MESSAGES]),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=4),
    max_leaves=40)


@settings(_FUZZ, max_examples=150)
@given(st.sampled_from([m.__name__ for m in MESSAGES]), st.lists(_PLAIN, max_size=8))
def test_fuzz_well_formed_msgpack_of_the_wrong_shape(tag: str, fields: list[Any]) -> None:
    _decoded_or_refused(FINGERPRINT + msgspec.msgpack.encode([tag, *fields]))


def _nodes(tree: Any, path: tuple[int, ...] = ()) -> Iterator[tuple[int, ...]]:
    """The paths of every element inside ``tree``'s arrays, depth first."""
    if isinstance(tree, list):
        for i, item in enumerate(tree):
            yield (*path, i)
            yield from _nodes(item, (*path, i))


@_FUZZ
@given(st.integers(0, 1 << 16), st.integers(0, 1 << 30), _PLAIN)
def test_fuzz_one_value_replaced_anywhere(which: int, where: int, value: Any) -> None:
    """Any element of any message (a tile, a meld, a refusal's key, an enum value, a whole
    nested struct) replaced by an arbitrary plain value."""
    samples = _samples()
    msg, _, tree = samples[which % len(samples)]
    paths = list(_nodes(tree))
    data = _rewrite(msg, _set(paths[where % len(paths)], value))
    _decoded_or_refused(data)


@dataclasses.dataclass(frozen=True)
class _Pung:
    tile: int


@dataclasses.dataclass(frozen=True)
class _Chow:
    tiles: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class _Either:
    meld: _Pung | _Chow | None


@dataclasses.dataclass(frozen=True)
class _Nested:
    inner: tuple[_Nested, ...]


def test_a_type_without_a_wire_form_fails_at_import_not_in_play() -> None:
    """A union of several dataclasses (msgspec's conversion cannot choose between them),
    a class inside itself, a list: a later payload of such a shape stops the import."""
    with pytest.raises(TypeError, match="union of several"):
        wire._Mirrors().struct(_Either)
    with pytest.raises(TypeError, match="contains itself"):
        wire._Mirrors().struct(_Nested)
    with pytest.raises(TypeError, match="list"):
        wire._Mirrors().type(list[int], "here")


def test_a_batch_carries_each_push_as_sent() -> None:
    pushes = [m for m in every_message() if isinstance(m, get_args(Push))]
    items = [(f"sid{i}", encode(m, 0.0)) for i, m in enumerate(pushes)]
    got = wire.decode_batch(wire.encode_batch(items))
    assert got == items
    assert [decode(data, 0.0) for _, data in got] == pushes


@pytest.mark.parametrize("data", [
    b"", b"MJB1", b"MJB1" + FINGERPRINT, FINGERPRINT + b"\x90",  # a message, not a batch
    b"MJB1" + bytes(4) + msgspec.msgpack.encode([]),  # another build
    b"MJB1" + FINGERPRINT + msgspec.msgpack.encode({"a": 1}),
    b"MJB1" + FINGERPRINT + msgspec.msgpack.encode([["x" * 65, b""]]),  # a session id too long
    b"MJB1" + FINGERPRINT + msgspec.msgpack.encode([["x", b""]] * (wire.MAX_BATCH + 1)),
    b"MJB1" + FINGERPRINT + msgspec.msgpack.encode([[1, b""]]),
    b"MJB1" + FINGERPRINT + b"\x91\x92\xa1x",  # cut short
    b"MJB1" + FINGERPRINT + bytes(MAX_MESSAGE),
])
def test_a_malformed_batch_is_one_error(data: bytes) -> None:
    with pytest.raises(WireError):
        wire.decode_batch(data)


def test_a_batch_beyond_the_bounds_is_not_sent() -> None:
    with pytest.raises(WireError):
        wire.encode_batch([("x", b"")] * (wire.MAX_BATCH + 1))
    with pytest.raises(WireError):
        wire.encode_batch([("x", bytes(MAX_MESSAGE))])


@_FUZZ
@given(st.binary(max_size=512))
def test_fuzz_garbage_batches(data: bytes) -> None:
    try:
        items = wire.decode_batch(b"MJB1" + FINGERPRINT + data)
    except WireError:
        return
    assert all(isinstance(s, str) and isinstance(d, bytes) for s, d in items)


def test_pushes_too_long_for_one_batch_go_on_their_sessions_subjects() -> None:
    from typing import cast

    from net.cluster.node import Node
    from net.cluster.remote import seat_subject
    node = Node(cast(Any, None), cast(Any, None), "nats://127.0.0.1:1")
    big = bytes(MAX_MESSAGE // 2 + 1)
    messages = node._drain([(node.via, "a", b"x"), (node.via, "b", b"y"),
                            ("mj.w.other", "c", big), ("mj.w.other", "d", big)])
    assert messages[0][0] == node.via and wire.decode_batch(messages[0][1]) == [
        ("a", b"x"), ("b", b"y")]
    assert messages[1:] == [(seat_subject("c"), big), (seat_subject("d"), big)]
    assert (node.batches, node.pushes) == (1, 2)
