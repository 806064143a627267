"""``ssh host replay`` and ``ssh host replay ID``: a session's finished games, read from the
store alone (any worker serves them: a kept game needs no table and no owner), shown in
``tui``'s replay viewer, or as text without a terminal."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from engine.record import RecordError
from engine.replay import read_game
from host.refusal import Refusal
from net.front.remote_app import ServerSide
from net.game_id import shown_game_id
from net.store.base import Store, store_call
from net.store.model import CorruptRow, GameEntry, KeptGame, StorageError
from tui.apps.replay import ListedGame, ReplayApp, ReplayGame, list_row
from tui.settings import Settings
from words import both


class GameNotFound(LookupError):
    """No finished game has this ID (or its record cannot be read: the message says)."""


Held = Callable[[str], Refusal | None]  # why a table's kept game is not shown now, if so


async def kept_game(store: Store, game_id: str, held: Held | None = None) -> KeptGame:
    """The game kept under ``game_id``; :class:`GameNotFound` with what to tell the
    player, also where ``held`` says why its table's games are not shown now (a
    tournament's round not over: net.runtime.tournaments.Tournaments.held_back)."""
    try:
        kept = await store_call(store, store.kept_game, game_id)
    except (StorageError, CorruptRow) as exc:
        shown = shown_game_id(game_id)
        raise GameNotFound(both("game_unreadable", game=shown, problem=exc)) from None
    if kept is None:
        raise GameNotFound(both("no_game_id", game=shown_game_id(game_id))
                           + " (the ID is on the game's game-over screen)")
    refusal = held(kept.table_name) if held is not None else None
    if refusal is not None:
        raise GameNotFound(str(refusal))
    return kept


async def replay_game(store: Store, game_id: str, held: Held | None = None) -> ReplayGame:
    """The game kept under ``game_id``, checked and ready for the viewer."""
    kept = await kept_game(store, game_id, held)
    try:
        steps = await asyncio.to_thread(read_game, kept.record)  # a long game: off the loop
    except (RecordError, RecursionError) as exc:
        raise GameNotFound(f"game {shown_game_id(game_id)}'s record cannot be replayed: "
                           f"{exc}") from None
    return ReplayGame(steps, kept.names, shown_game_id(game_id), kept.finished)


async def games_of(store: Store, account_id: int) -> list[ListedGame]:
    """The account's finished games, newest first (bounded by the store)."""
    entries: list[GameEntry] = await store_call(store, store.games_of, account_id)
    return [ListedGame(e.game_id, e.finished, e.rules, e.table_name, e.seat, e.score, e.hands)
            for e in entries]


def listing_text(games: list[ListedGame], lang: str) -> str:
    """``ssh host replay`` without a terminal: the list, one game a line."""
    from words import tr

    if not games:
        return tr(lang, "rp_list_none") + "\n"
    head = tr(lang, "rp_list_title").split(" · ")[0]
    return "\n".join([head, *("  " + list_row(g, lang) for g in games)]) + "\n"


class RemoteReplayApp(ServerSide, ReplayApp):
    """The viewer (or the list) for one SSH session: the client's terminal, nothing acting
    on the server (:class:`~net.front.remote_app.ServerSide`)."""

    def __init__(self, game: ReplayGame | None, settings: Settings,
                 games: list[ListedGame] | None = None, term: str = "xterm",
                 colorterm: str = "") -> None:
        super().__init__(game, settings, games)
        self.client_terminal(term, colorterm)
