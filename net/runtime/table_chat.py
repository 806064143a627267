"""What is said at a shared table: its chat, within the rates its owner sets, and the host's
commands typed there (``/invite``, ``/close``...), for
:class:`~net.runtime.shared_table.SharedTable` (``table.talk``)."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any, Protocol

from host.refusal import Refusal
from host.table_info import ChatLine
from net import metrics
from net.runtime.config import TableHooks
from net.runtime.privacy import CLOSE_COMMAND, HOST_COMMANDS, Admission
from net.runtime.seat_client import SeatClient
from net.sanitize import CHAT_MAX, clean_line
from net.store.model import Account

CHAT_TOO_FAST = Refusal("chat_fast")
CHAT_TABLE_BUSY = Refusal("chat_busy")


class ChatTable(Protocol):
    """What the chat needs of its table (a :class:`~net.runtime.shared_table.SharedTable`)."""

    closed: bool
    chat_log: deque[ChatLine]
    admission: Admission
    hooks: TableHooks[Any]

    def seat_of(self, account_id: int) -> int | None: ...
    def close_by(self, account: Account) -> Refusal | None: ...
    def closed_refusal(self) -> Refusal: ...
    def save_changed(self) -> None: ...
    def clients(self) -> Sequence[SeatClient]: ...


class TableChat:
    """The table's chat: lines said (cleaned, within the rates), kept for those who come
    later (``table.chat_log``) and told to everyone there; a host's command typed in it."""

    def __init__(self, table: ChatTable) -> None:
        self.table = table

    def say(self, account: Account, text: str) -> Refusal | None:
        """``account`` says ``text``: None when it went to everyone at the table, else why
        not (a line over the account's chat rate, or over the table's for the seated players
        or for the spectators, whichever ``account`` is, goes to nobody)."""
        line = clean_line(text)
        if not line:
            return None
        if self.table.closed:
            return self.table.closed_refusal()
        hooks = self.table.hooks
        muted = hooks.muted(account.id) if hooks.muted is not None else None
        if muted is not None:
            return muted
        if hooks.chat_gate is not None and not hooks.chat_gate(account.id):
            return CHAT_TOO_FAST
        rate = hooks.chat_rate if self.table.seat_of(account.id) is not None else \
            hooks.watchers_chat_rate
        if rate is not None and not rate.allow():
            metrics.limit_hit("chat_per_table_minute" if rate is hooks.chat_rate
                              else "chat_watchers_table_minute")
            return CHAT_TABLE_BUSY
        words = line.split(maxsplit=1)
        if words[0].lower() == CLOSE_COMMAND:
            return self.table.close_by(account)
        if words[0].lower() in HOST_COMMANDS:
            return self.host_command(account, words[0].lower(),
                                     words[1] if len(words) > 1 else "")
        self.chat(account.nickname, line)
        return None

    def host_command(self, account: Account, command: str, rest: str) -> Refusal | None:
        """A private table's host's ``/invite``, ``/uninvite`` or ``/watchers`` typed in the
        chat (:meth:`Admission.command`): saved, and said in the chat (whom the host invites
        to the host alone). Anyone else, or at a public table: a refusal, to the sender only."""
        said = self.table.admission.command(account, command, rest)
        if isinstance(said, Refusal):
            return said
        self.table.save_changed()
        if not said.host_only:
            self.chat(account.nickname, said.text)
            return None
        line = ChatLine(account.nickname, clean_line(said.text, 2 * CHAT_MAX))
        for client in self.table.clients():
            if client.account.id == account.id:
                client.deliver_info(line)
        return None

    def chat(self, who: str, text: str) -> None:
        line = clean_line(text)
        if not line:
            return
        msg = ChatLine(who, line)
        self.table.chat_log.append(msg)
        for client in self.table.clients():
            client.deliver_info(msg)
