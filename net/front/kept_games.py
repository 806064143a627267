"""The kept games a session opens (``net.front.commands_run``): ``replay`` and ``review`` (the
list of the account's games, the game chosen from it, and back to the list: ``KeptGamesRun``;
``replay ID`` / ``review ID`` the game alone), and ``puzzles`` on the screen or in plain mode."""

from __future__ import annotations

import asyncio
from typing import Protocol

from net.commands import Command
from net.front import replay, reviewing
from net.front.plain_puzzles import plain_puzzles
from net.front.remote_app import RemoteSettings
from net.front.reviewing import ReviewPool
from net.front.session import Session, SessionHost
from net.game_id import shown_game_id
from net.runtime.registry import Registry
from net.store.model import Account
from tui.apps.replay import ListedGame, ReplayGame
from tui.apps.review import ReviewGame
from words import both

ERROR = both("error")  # the lead of a refusal's line: "error 错误: ..."


class KeptGamesHost(SessionHost, Protocol):
    """What the kept games need of the server (``net.front.server.MahjongServer``)."""

    reviews: ReviewPool  # the reviews' assessments

    @property
    def registry(self) -> Registry: ...  # its tournaments keep a round's games back


class KeptGamesRun:
    """``replay`` / ``review``: the list of the account's kept games, the game chosen from
    it, and back to the list when the player leaves it; with an ID, that game alone. The
    exit status: 2 for a game that cannot be shown."""

    needs_games = False  # the account's games read even for a game named by its ID

    def __init__(self, host: KeptGamesHost, session: Session, account: Account,
                 colorterm: str) -> None:
        self.host = host
        self.session = session
        self.account = account
        self.colorterm = colorterm

    async def viewer(self, game_id: str, game: ReplayGame, games: list[ListedGame],
                     settings: RemoteSettings
                     ) -> replay.RemoteReplayApp | reviewing.RemoteReviewApp | None:
        """The app that shows ``game``; None after saying why it cannot be shown."""
        raise NotImplementedError

    async def run(self, command: Command, lang: str | None, asked: str | None) -> int:
        session, account = self.session, self.account
        settings = await session.settings(account, asked, lang)
        game_id = command.game_id
        while not session.ended and session.chan is not None:
            games: list[ListedGame] = []
            if (self.needs_games or not game_id) and not account.guest:
                games = await replay.games_of(self.host.store, account.id)
            if not game_id:
                chosen = await self._choose_game(settings, games)
                if chosen is None:
                    return 0
                game_id = chosen
            game = await self._kept_game(game_id)
            if game is None:
                return 2
            app = await self.viewer(game_id, game, games, settings)
            if app is None:
                return 2
            await session.run_app(app)
            session.close_driver()
            if command.game_id or app.ends_session:
                return 0
            game_id = ""
        return 0

    async def _choose_game(self, settings: RemoteSettings, games: list[ListedGame]
                           ) -> str | None:
        """The list of the account's kept games; the ID chosen, ``None`` when left."""
        chooser = replay.RemoteReplayApp(None, settings, games, term=self.session.term or "xterm",
                                         colorterm=self.colorterm)
        chosen = await self.session.run_app(chooser)
        self.session.close_driver()
        if not isinstance(chosen, str) or chooser.ends_session:
            return None
        return chosen

    async def _kept_game(self, game_id: str) -> ReplayGame | None:
        """The kept game ``game_id`` re-run, or ``None`` after saying it is unknown."""
        try:
            return await replay.replay_game(self.host.store, game_id,
                                            self.host.registry.tournaments.held_back)
        except replay.GameNotFound as exc:
            self.session.write_line(f"{ERROR}: {exc}")
            return None


class ReplayRun(KeptGamesRun):
    """``replay``: the viewer of a kept game."""

    async def viewer(self, game_id: str, game: ReplayGame, games: list[ListedGame],
                     settings: RemoteSettings) -> replay.RemoteReplayApp:
        return replay.RemoteReplayApp(game, settings, term=self.session.term or "xterm",
                                      colorterm=self.colorterm)


class ReviewRun(KeptGamesRun):
    """``review``: the expert's review of the account's own seat in a kept game (one it did
    not play is refused)."""

    needs_games = True  # the seat is found in the account's list
    app_class: type[reviewing.RemoteReviewApp] = reviewing.RemoteReviewApp  # or the puzzles'

    async def viewer(self, game_id: str, game: ReplayGame, games: list[ListedGame],
                     settings: RemoteSettings) -> reviewing.RemoteReviewApp | None:
        seat = reviewing.seat_in(game, games, game_id, self.account.nickname)
        if seat is None:
            shown = both("not_your_game", game=shown_game_id(game_id))
            self.session.write_line(f"{ERROR}: {shown}")
            return None
        review = await asyncio.to_thread(ReviewGame.of, game, seat)  # the seat's views
        return self.app_class(review, self.host.reviews, settings,
                              term=self.session.term or "xterm", colorterm=self.colorterm)


class PuzzlesRun(ReviewRun):
    """``puzzles``: the account's costly decisions in a kept game of its own, as puzzles
    (tui.apps.puzzles): the review's assessments, its answers held back until one answers."""

    app_class = reviewing.RemotePuzzleApp


class PlainPuzzlesRun:
    """``puzzles ID --plain`` (or with the plain setting on): the puzzles in lines of text, a
    game of the account's own named by its ID (no list to choose from in plain mode)."""

    def __init__(self, host: KeptGamesHost, session: Session, account: Account) -> None:
        self.host = host
        self.session = session
        self.account = account

    async def run(self, command: Command, lang: str | None, asked: str | None) -> int:
        session, account, store = self.session, self.account, self.host.store
        settings = await session.settings(account, asked, lang)
        if not command.game_id:
            session.write_line(f"{ERROR}: {both('ppz_needs_id')}")
            return 2
        try:
            game = await replay.replay_game(store, command.game_id,
                                            self.host.registry.tournaments.held_back)
        except replay.GameNotFound as exc:
            session.write_line(f"{ERROR}: {exc}")
            return 2
        games = [] if account.guest else await replay.games_of(store, account.id)
        seat = reviewing.seat_in(game, games, command.game_id, account.nickname)
        if seat is None:
            shown = both("not_your_game", game=shown_game_id(command.game_id))
            session.write_line(f"{ERROR}: {shown}")
            return 2
        review = await asyncio.to_thread(ReviewGame.of, game, seat)  # the seat's views
        plain = session.open_plain()
        try:
            return await plain_puzzles(plain, self.host.reviews, review, settings.lang)
        finally:
            session.plain = None
            session.write_line("")
