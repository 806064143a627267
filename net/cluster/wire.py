"""The messages between worker processes (issue 22) and their compact, checked encoding.

A table lives in one worker, its owner. A session on another worker joins it (:class:`Join`
→ :class:`Joined` or :class:`Refused`), sends what its player does (:class:`Do` →
:class:`Done`) and is pushed its seat's views (:class:`Update`), the table's info
(:class:`Info`), chat (:class:`Chat`), a change of owner (:class:`Moved`) and the end
(:class:`Closed`). The directory of tables holds an :class:`Entry` per table and a
:class:`Heartbeat` per worker.

The payloads are the project's own dataclasses (``host.client.TableUpdate`` with the engine's
``View`` inside, ``TableInfo``, ``Refusal``, ``Account``, ``Action``), unchanged. On the wire a
value is a msgpack array of its fields in declaration order, without field names: at import,
a *mirror* msgspec Struct is made for every dataclass and message from its type hints (the
same fields; collections, texts and numbers bounded; the rules' ``Any`` option values as
scalars), so that msgspec checks a whole message in C while it decodes it, then converts it
back to the project's classes (whose own checks, such as ``Meld``'s, run then). Every
message starts with a fingerprint of that schema, so a worker of another build is refused
rather than misread (positional fields would otherwise swap silently).

A :class:`~host.client.TableUpdate`'s ``deadline`` is on the owner's clock: it travels as the
seconds left and lands on the receiver's clock (see :func:`encode`).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import hashlib
import types
import typing
from typing import Annotated, Any, Final

import msgspec

from engine.actions import Action
from host.client import TableUpdate
from host.refusal import Refusal
from host.table_info import ChatLine, TableInfo, TableState
from net.store.model import Account

MAX_MESSAGE: Final = 1 << 20  # bytes: a longer message is refused unread
MAX_ITEMS: Final = 4096  # elements of any one tuple or mapping (a game's history: ≤ 1000)
MAX_TEXT: Final = 65536  # characters of any one text
FINGERPRINT_BYTES: Final = 4
REASON_CHARS: Final = 160  # a WireError's reason is cut to this


class WireError(ValueError):
    """A message that cannot be encoded or decoded: too long, malformed, of another build."""


class Op(enum.Enum):
    """What a session asks of the table's owner (the ``SharedTableClient`` calls)."""

    SEND = "send"  # play ``action``
    NEXT_HAND = "next_hand"
    NEW_GAME = "new_game"  # a shared table keeps its rules: nothing else to send
    POKE = "poke"
    START = "start"
    CHAT = "chat"  # say ``text``
    STAKE = "stake"  # back seat ``backs`` (None: nobody)
    SET_ALLOW = "set_allow"  # allow spectators' stakes on this seat: ``flag``
    PROGRAM = "program"  # a program's handshake named it: ``text`` (``bot join``)
    LEAVE = "leave"
    PING = "ping"


# --- session → owner ---------------------------------------------------------------------

class Join(msgspec.Struct, tag=True, frozen=True):
    """Session ``sid`` of ``account`` takes its seat (or watches, ``spectate``; ``bot``: a
    program plays it)."""

    sid: str
    account: Account
    spectate: bool
    bot: bool = False  # ``bot join``: a program plays the seat (marked so at the table)
    via: str = ""  # the session's worker's subject for batches of pushes ("": its own)


class Do(msgspec.Struct, tag=True, frozen=True):
    """Session ``sid`` asks for ``op`` (its argument in ``action``, ``text``, ``backs`` or
    ``flag``)."""

    sid: str
    op: Op
    action: Action | None = None
    text: str = ""
    backs: int | None = None
    flag: bool = False


# --- owner → session ---------------------------------------------------------------------

class Joined(msgspec.Struct, tag=True, frozen=True):
    """The answer to :class:`Join`: the place taken and the table as it is now."""

    seat_index: int | None
    nickname: str
    state: TableState
    game_no: int
    chat_log: tuple[ChatLine, ...]
    info: TableInfo
    update: TableUpdate | None


class Refused(msgspec.Struct, tag=True, frozen=True):
    """The answer to :class:`Join` when the table says no."""

    refusal: Refusal


class Done(msgspec.Struct, tag=True, frozen=True):
    """The answer to :class:`Do`: why not (``None``: done), and whether the session is still
    at the table (``alive``)."""

    refusal: Refusal | None = None
    alive: bool = True


class Update(msgspec.Struct, tag=True, frozen=True):
    """The seat's new view."""

    update: TableUpdate


class Info(msgspec.Struct, tag=True, frozen=True):
    """The table's info changed (``game_no``: its game count now)."""

    info: TableInfo
    game_no: int = 0


class Chat(msgspec.Struct, tag=True, frozen=True):
    """A line said at the table."""

    line: ChatLine


class Moved(msgspec.Struct, tag=True, frozen=True):
    """The table's owner changed: join again (at the new owner)."""


class Closed(msgspec.Struct, tag=True, frozen=True):
    """The session is no longer at the table (``reason``: why, if it was sent away)."""

    reason: Refusal | None


# --- the directory -----------------------------------------------------------------------

class Entry(msgspec.Struct, tag=True, frozen=True):
    """A table in the directory: its owner (a worker) under lease ``token``, its info and the
    account that made it."""

    name: str
    owner: str
    token: int
    info: TableInfo
    creator: int | None


class Heartbeat(msgspec.Struct, tag=True, frozen=True):
    """A worker's key in the directory: rewritten every second while it lives; its tables'
    leases hold while it is."""

    worker: str


Request = Join | Do  # a session's, to the owner
Reply = Joined | Refused | Done  # the owner's answer to a Request
# the owner's, to a session, unasked (a Done: its word on a Do sent without waiting)
Push = Update | Info | Chat | Moved | Closed | Done
Message = (Join | Joined | Refused | Do | Done | Update | Info | Chat | Moved | Closed | Entry
           | Heartbeat)
MESSAGES: Final[tuple[type[Any], ...]] = typing.get_args(Message)


# --- the mirrors -------------------------------------------------------------------------

_TEXT = Annotated[str, msgspec.Meta(max_length=MAX_TEXT)]
_FLOAT = Annotated[float, msgspec.Meta(ge=-1e12, le=1e12)]  # finite: no NaN, no infinity
_SCALAR = int | bool | _FLOAT | _TEXT | None  # what an ``Any`` (an option's value) may be
_SCALARS = (int, bool, type(None))
_UNIONS = (typing.Union, types.UnionType)


def _is_struct(tp: Any) -> bool:
    """A class whose instances travel as an array of their fields."""
    return isinstance(tp, type) and (dataclasses.is_dataclass(tp) or issubclass(tp, msgspec.Struct))


class _Mirrors:
    """Builds the wire types from the project's classes' type hints, and the schema text
    whose digest is the fingerprint."""

    def __init__(self) -> None:
        self.made: dict[type[Any], type[msgspec.Struct]] = {}
        self.building: set[type[Any]] = set()
        self.schema: list[str] = []
        self.enums: set[type[enum.Enum]] = set()

    def struct(self, cls: type[Any]) -> type[msgspec.Struct]:
        """The mirror of a dataclass or Struct ``cls``."""
        if cls in self.made:
            return self.made[cls]
        tag: str | None = None
        if issubclass(cls, msgspec.Struct):
            names = [(f.name, f.type) for f in msgspec.structs.fields(cls)]
            tag_value = cls.__struct_config__.tag
            tag = tag_value if isinstance(tag_value, str) else None
        elif dataclasses.is_dataclass(cls):
            hints = typing.get_type_hints(cls)
            names = [(f.name, hints[f.name]) for f in dataclasses.fields(cls) if f.init]
        else:
            raise TypeError(f"no wire form for {cls!r}")
        if cls in self.building:  # a tree of values has no cycle; its wire form neither
            raise TypeError(f"no wire form for {cls.__qualname__}: it contains itself")
        self.building.add(cls)
        fields = [(name, self.type(tp, f"{cls.__qualname__}.{name}")) for name, tp in names]
        self.building.discard(cls)
        mirror = msgspec.defstruct(
            f"Wire{cls.__name__}", fields, module=__name__, tag=tag, array_like=True,
            frozen=True, forbid_unknown_fields=True, gc=False)
        self.made[cls] = mirror
        self.schema.append(f"{mirror.__name__}/{tag}(" + ", ".join(
            f"{name}: {tp!r}" for name, tp in fields) + ")")
        return mirror

    def type(self, tp: Any, where: str) -> Any:
        """The wire type standing for the type hint ``tp`` (of field ``where``)."""
        if tp is Any:
            return _SCALAR
        if tp is str:
            return _TEXT
        if tp is float:
            return _FLOAT
        if tp in _SCALARS:
            return tp
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            if tp not in self.enums:
                self.enums.add(tp)
                self.schema.append(f"{tp.__qualname__}{[m.value for m in tp]}")
            return tp
        if _is_struct(tp):
            return self.struct(tp)
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return Annotated[tuple[self.type(args[0], where), ...],  # type: ignore[misc]
                                 msgspec.Meta(max_length=MAX_ITEMS)]
            return tuple[tuple(self.type(a, where) for a in args)]  # type: ignore[misc]
        if origin in _UNIONS:
            if sum(map(_is_struct, args)) > 1:  # msgspec.convert cannot choose between them
                raise TypeError(f"no wire form for a union of several classes: {tp!r} "
                                f"(in {where})")
            members = tuple(self.type(a, where) for a in args)
            return typing.Union[members]  # noqa: UP007 (a tuple of types, built at run time)
        if origin in (dict, collections.abc.Mapping):
            return Annotated[dict[self.type(args[0], where),  # type: ignore[misc]
                                  self.type(args[1], where)],
                             msgspec.Meta(max_length=MAX_ITEMS)]
        raise TypeError(f"no wire form for {tp!r} (in {where})")


def _build() -> tuple[dict[type[Any], type[msgspec.Struct]], dict[type[msgspec.Struct],
                                                                  type[Any]], bytes]:
    mirrors = _Mirrors()
    to_wire = {cls: mirrors.struct(cls) for cls in MESSAGES}
    back = {m: cls for cls, m in to_wire.items()}
    digest = hashlib.blake2b("\n".join(mirrors.schema).encode(),
                             digest_size=FINGERPRINT_BYTES).digest()
    return to_wire, back, digest


_TO_WIRE, _FROM_WIRE, FINGERPRINT = _build()
_ENCODER = msgspec.msgpack.Encoder()
_DECODER: msgspec.msgpack.Decoder[Any] = msgspec.msgpack.Decoder(
    typing.Union[tuple(_TO_WIRE.values())])  # noqa: UP007


def _update_fields(cls: type[Any]) -> tuple[str, ...]:
    """The fields of message ``cls`` that hold a TableUpdate (whose deadline is translated)."""
    out = []
    for f in msgspec.structs.fields(cls):
        tp = f.type
        members = typing.get_args(tp) if typing.get_origin(tp) in _UNIONS else (tp,)
        if TableUpdate in members:
            out.append(f.name)
    return tuple(out)


_UPDATE_FIELDS: Final = {cls: names for cls in MESSAGES if (names := _update_fields(cls))}


def _shift(msg: Message, by: float) -> Message:
    """``msg`` with each TableUpdate's deadline moved by ``by`` seconds."""
    changes = {}
    for name in _UPDATE_FIELDS.get(type(msg), ()):
        update = getattr(msg, name)
        if update is not None and update.deadline is not None:
            changes[name] = dataclasses.replace(update, deadline=update.deadline + by)
    return msgspec.structs.replace(msg, **changes) if changes else msg


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 1] + "…"


def encode(msg: Message, now: float) -> bytes:
    """``msg`` as bytes. A TableUpdate's deadline (on the sender's clock, read as ``now``)
    travels as the seconds left. Raises :class:`WireError` for a message beyond the bounds
    (a receiver would refuse it)."""
    mirror = _TO_WIRE.get(type(msg))
    if mirror is None:
        raise TypeError(f"not a wire message: {type(msg).__name__}")
    try:
        wire = msgspec.convert(_shift(msg, -now), mirror, from_attributes=True)
    except msgspec.ValidationError as exc:
        raise WireError(f"cannot send {type(msg).__name__}: {_reason(exc)}") from None
    data = FINGERPRINT + _ENCODER.encode(wire)
    if len(data) > MAX_MESSAGE:
        raise WireError(f"{type(msg).__name__} of {len(data)} bytes exceeds {MAX_MESSAGE}")
    return data


def _body(data: bytes | bytearray | memoryview, head: bytes, what: str) -> memoryview:
    """What follows ``head`` in ``data``; WireError unless ``data`` is bytes within the
    bounds that start with ``head`` (this build's fingerprint)."""
    try:
        view = memoryview(data).cast("B")
    except (TypeError, ValueError) as exc:
        raise WireError(f"not bytes: {_reason(exc)}") from None
    if view.nbytes > MAX_MESSAGE:
        raise WireError(f"{what} of {view.nbytes} bytes exceeds {MAX_MESSAGE}")
    if bytes(view[:len(head)]) != head:
        raise WireError(f"not a {what} of this build (schema fingerprint differs)")
    return view[len(head):]


def decode(data: bytes | bytearray | memoryview, now: float) -> Message:
    """The message in ``data``, a TableUpdate's deadline on the receiver's clock (``now`` plus
    the seconds left). Anything else than a whole, well-formed message of this build raises
    :class:`WireError` (and nothing else)."""
    view = _body(data, FINGERPRINT, "message")
    try:
        wire = _DECODER.decode(view)
        msg: Message = msgspec.convert(wire, _FROM_WIRE[type(wire)], from_attributes=True)
    except Exception as exc:  # a class's own check too (a KeyError, say): one WireError
        raise WireError(f"malformed message: {_reason(exc)}") from None
    return _shift(msg, now)


# --- batches: every push of a loop turn for one worker's sessions in one message ----------

MAX_BATCH: Final = 256  # pushes in one batch at most (a turn's pushes for one worker: ~4)
SID_CHARS: Final = 64
_BATCH_MAGIC: Final = b"MJB1"
_BATCH_ENCODER: Final = msgspec.msgpack.Encoder()
_BATCH_DECODER: Final = msgspec.msgpack.Decoder(
    Annotated[list[tuple[Annotated[str, msgspec.Meta(max_length=SID_CHARS)], bytes]],
              msgspec.Meta(max_length=MAX_BATCH)])


def encode_batch(items: collections.abc.Sequence[tuple[str, bytes]]) -> bytes:
    """Pushes ``(session id, encoded message)`` for one worker's sessions, as one message
    (each message inside read by :func:`decode` and checked on its own)."""
    if len(items) > MAX_BATCH:
        raise WireError(f"a batch of {len(items)} pushes exceeds {MAX_BATCH}")
    data = _BATCH_MAGIC + FINGERPRINT + _BATCH_ENCODER.encode(items)
    if len(data) > MAX_MESSAGE:
        raise WireError(f"a batch of {len(data)} bytes exceeds {MAX_MESSAGE}")
    return data


def decode_batch(data: bytes | bytearray | memoryview) -> list[tuple[str, bytes]]:
    """The pushes in a batch; anything but a whole batch of this build raises
    :class:`WireError`."""
    view = _body(data, _BATCH_MAGIC + FINGERPRINT, "batch")
    try:
        return _BATCH_DECODER.decode(view)
    except Exception as exc:
        raise WireError(f"malformed batch: {_reason(exc)}") from None
