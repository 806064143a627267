"""The Textual app of one seat: screens around a :class:`~host.client.TableClient`.

Table updates arrive through the client's callback, possibly from another task on the loop
(another session's, at a shared table), so the callback never touches this app's widgets: it
keeps the update and schedules its delivery on the loop in this app's own context (captured as
the app mounts), and a newer update replaces one not yet delivered, so a burst of moves renders
once. The delivery applies the update to the table screen at once when that screen is the one
shown and nothing else is pending; otherwise (a screen to open or close, an earlier update
still queued) it posts a :class:`TableUpdated` message whose handler does the
rest. Going through the message pump for every move cost a sixth of the CPU of an update.
"""

from __future__ import annotations

import asyncio
import contextvars
import weakref
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import RenderableType
from textual import events
from textual.actions import SkipAction
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.notifications import Notification, Notify
from textual.theme import Theme

from engine.table import Phase
from host.client import TableClient, TableUpdate
from host.coach import Coach, coach_table
from host.table_info import COMPUTER_NAME, computer_names
from themes import CSS_PATHS, DEFAULT_VARIABLES, THEME_NAMES, THEMES
from tui.apps.attention import Attention
from tui.apps.quit_hint import QuitHint
from tui.apps.screens import (
    GameResultScreen,
    HelpScreen,
    NewGameScreen,
    SettingsScreen,
)
from tui.apps.table_screen import TableScreen
from tui.compat import internals
from tui.settings import Settings
from tui.view.faces import Face, default_face, face_named
from words import tr

if TYPE_CHECKING:
    from textual.screen import Screen

    from tui.apps.host_app import HostApp
    from tui.apps.review import ReviewSource


class _KeyBatch:
    """The apps given an update while a key is handled at once (``MahjongApp.key_now``): each
    is drawn as the key's action returns, in its own context, rather than on the loop's next
    turn. Open only until then: a timer or task made by the action (the auto-pass's pause, a
    table's timer) keeps the context and this batch in it, and an update published from there
    later must be delivered as any other (into a batch long drawn, no screen drew it)."""

    __slots__ = ("apps", "open")

    def __init__(self) -> None:
        self.apps: list[MahjongApp] = []
        self.open = True


_KEY_NOW: contextvars.ContextVar[_KeyBatch | None] = contextvars.ContextVar(
    "mahjong_key_now", default=None)


# Work run one item per turn of each event loop (``paced``), in the context it was queued from.
_PACED: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, deque[tuple[contextvars.Context, Callable[[], None]]]
] = weakref.WeakKeyDictionary()


def paced(callback: Callable[[], None]) -> None:
    """Run ``callback`` on a later turn of the event loop, no two such callbacks in one turn.

    Every seat of a table shows the hand's result at the same moment, and drawing it is a
    few milliseconds of one session's CPU; run together, the four held up every key that
    arrived meanwhile for all four. Paced, the keys that arrive are handled between them."""
    loop = asyncio.get_running_loop()
    queue = _PACED.setdefault(loop, deque())
    queue.append((contextvars.copy_context(), callback))
    if len(queue) == 1:
        loop.call_soon(_run_paced, loop, queue)


def _run_paced(loop: asyncio.AbstractEventLoop,
               queue: deque[tuple[contextvars.Context, Callable[[], None]]]) -> None:
    context, callback = queue[0]
    try:
        context.run(callback)
    finally:
        queue.popleft()
        if queue:
            loop.call_soon(_run_paced, loop, queue)


class TableUpdated(Message):
    """A new view of the table for this seat."""

    def __init__(self, update: TableUpdate, seq: int = 0) -> None:
        super().__init__()
        self.update = update
        self.seq = seq

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, TableUpdated)


# theme name -> (the theme, its CSS variables, the app's ``theme_variables`` for it)
_CSS_VARIABLES: dict[str, tuple[Theme, dict[str, str], dict[str, str]]] = {}


class MahjongApp(QuitHint, App[None]):
    CSS_PATH = [str(p) for p in CSS_PATHS]  # noqa: RUF012
    ENABLE_COMMAND_PALETTE = False
    TITLE = "mahjong-ssh"
    # keys of the app's own (beyond the table screen's) that the help lists
    HELP_BINDINGS: ClassVar[tuple[Binding, ...]] = ()

    def __init__(
        self,
        client: TableClient,
        settings: Settings,
        rules: str | None = None,
        seed: int | None = None,
        options: Mapping[str, Any] | None = None,
        table_ready: bool = False,
    ) -> None:
        super().__init__()
        self.client = client
        self.settings = settings
        # the chosen face where the terminal can show it (tui.settings.Settings.face_shown)
        self.face = settings.face_shown(face_named(settings.tiles) or default_face())
        self.start_rules = rules
        self.start_seed = seed
        self.start_options = options
        self.table_screen: TableScreen | None = None
        self.update: TableUpdate | None = None
        self._result_shown: tuple[int, int] | None = None
        self._game_no = 0
        self.table_ready = table_ready  # the client already has (or will start) a game
        self._update_context: contextvars.Context | None = None  # this app's, once mounted
        self._undelivered: TableUpdate | None = None
        # a shared table's computer levels by seat, fixed for its life: read once, not from
        # its info at every update
        self._computer_levels: tuple[str, ...] | None = None
        self._delivery: asyncio.Handle | None = None
        self._posts = 0  # TableUpdated messages posted
        self._queued: int | None = None  # the last one posted, until handled
        # where the game-over screen's review (r) comes from: the game's record and the
        # process its assessments run in (None: no review)
        self.review_source: ReviewSource | None = None
        # the coach at a coach table (host.coach: the option coach=on), where the app has one
        self.coach: Coach | None = None
        self._review_opening = False
        # the terminal's title and desktop notifications while the table waits for this player
        self.attention = Attention(settings, self.to_terminal, self.table_name)
        self._face_notice: Notification | None = None  # the face note while it may show

    # --- start-up -------------------------------------------------------------------------
    def get_css_variables(self) -> dict[str, str]:
        """The theme's CSS variables, generated once per theme in the process: a theme's
        colour system is dear to generate, and every new session would do it twice."""
        theme = self.current_theme
        known = _CSS_VARIABLES.get(theme.name)
        if known is None or known[0] is not theme:
            variables = dict(DEFAULT_VARIABLES)
            variables.update(super().get_css_variables())
            known = _CSS_VARIABLES[theme.name] = (theme, variables, self.theme_variables)
        self.theme_variables = dict(known[2])
        return dict(known[1])

    def on_mount(self) -> None:
        self._update_context = contextvars.copy_context()
        self.apply_ambiwidth()
        self.screen_change_signal.subscribe(self, self._face_note)
        for theme in THEMES:
            self.register_theme(theme)
        self.apply_theme(self.settings.theme)
        if self.settings.keys:
            # the settings' key remapping (binding id -> keys)
            self.set_keymap({k: v for k, v in self.settings.keys.items()
                             if isinstance(v, str) and v})
        self.client.subscribe(self._on_client_update)
        if self.table_ready:
            if self.table_now():
                self.open_table()
        elif self.start_rules:
            options = dict(self.start_options or self.settings.options.get(self.start_rules, {}))
            message = self.start_game(self.start_rules, options, self.start_seed)
            if message:  # saved options no longer valid: fall back to the defaults
                self.start_game(self.start_rules, {}, self.start_seed)
        else:
            self.push_screen(NewGameScreen(self.settings.rules))

    def _face_note(self, screen: Screen[Any]) -> None:
        """Why the saved tile face is not the one drawn, said once a session: as the table
        screen first shows (in the language of that moment, where the table places its
        notices), and taken off when another screen opens over it (it was drawn over the
        settings' rows, in the language they were then changed from)."""
        shown = self._face_notice
        if not isinstance(screen, TableScreen):
            if shown is not None:
                self._face_notice = None
                internals.dismiss_notification(self, shown)
            return
        fallback = self.settings.face_fallback()
        if fallback is None or not self.settings.face_note_due:
            return
        self.settings.face_note_due = False
        note = Notification(tr(self.settings.lang, fallback, face=self.settings.tiles or ""),
                            timeout=10)
        self._face_notice = note
        self.post_message(Notify(note))

    def table_now(self) -> bool:
        """Whether the table screen opens at once when the client already has a game (a
        remote session at a table still waiting for its players opens it with the first
        update instead: building it before would be much of the server's work for such a
        connect)."""
        return True

    def open_table(self) -> None:
        self._game_no += 1
        self.table_screen = TableScreen()
        self.push_screen(self.table_screen)

    def apply_theme(self, name: str) -> None:
        if name not in THEME_NAMES and name not in self.available_themes:
            name = THEME_NAMES[0]
        self.theme = name
        for other in THEME_NAMES:
            self.set_class(other == name, f"-theme-{other}")

    # --- the terminal beyond the screen: its title, notifications (tui.apps.attention) ---------
    def table_name(self) -> str:
        """The table's name for the terminal's title ("" at a table of one's own)."""
        return ""

    def to_terminal(self, data: str) -> None:
        """Write ``data`` (a sequence that sets the terminal's state) through the driver,
        between two frames: the SSH driver's ``write_control``, Textual's own ``write``."""
        driver = self._driver
        if driver is None or self.is_headless:
            return
        write = getattr(driver, "write_control", driver.write)
        try:
            write(data)
        except Exception:  # a driver already out of application mode: nothing to set
            return

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.MouseDown) and not event.is_forwarded:
            self.attention.key()  # the keys a driver posts (``key_now`` tells the others)
        await super().on_event(event)

    def on_app_focus(self, event: events.AppFocus) -> None:
        self.attention.focus(True)

    def on_app_blur(self, event: events.AppBlur) -> None:
        self.attention.focus(False)

    def exit(self, result: None = None, return_code: int = 0,
             message: RenderableType | None = None) -> None:
        self.attention.close()  # the terminal's title as it was before the table
        super().exit(result, return_code, message)

    # --- the table ------------------------------------------------------------------------
    def _on_client_update(self, update: TableUpdate) -> None:
        """Called by the table (maybe from another task): keep the update and schedule its
        delivery in this app's context; touch nothing else."""
        if COMPUTER_NAME in update.names:  # a shared table's computer seats, in our language
            levels = self._computer_levels
            if levels is None:
                info = getattr(self.client, "info", None)  # their levels: a shared table's
                levels = self._computer_levels = info().bot_levels if info else ()
            update = replace(update, names=computer_names(
                update.names, self.settings.lang, levels or None))
        if self._update_context is None:  # not mounted yet
            self._post_update(update)
            return
        self._undelivered = update
        batch = _KEY_NOW.get()
        if batch is not None and batch.open:  # during a key handled at once: drawn after it
            if self not in batch.apps:
                batch.apps.append(self)
            return
        if self._delivery is None:
            self._delivery = asyncio.get_running_loop().call_soon(
                self._deliver, context=self._update_context)

    def _deliver_now(self) -> None:
        """Deliver the kept update now, in this app's context (it may be another app's key
        that published it), instead of on the loop's next turn."""
        if self._delivery is not None:
            self._delivery.cancel()
            self._delivery = None
        if internals.current_app() is self:
            self._deliver()
            return
        context = self._update_context
        try:
            assert context is not None
            context.run(self._deliver)
        except RuntimeError:  # its context is running further up the stack: next turn
            self._delivery = asyncio.get_running_loop().call_soon(self._deliver,
                                                                  context=context)

    def _deliver(self) -> None:
        self._delivery = None
        update, self._undelivered = self._undelivered, None
        if update is None or internals.exiting(self) or not self.is_running:
            return
        try:
            if self._queued is not None or not self.direct_update_ok(update):
                self._post_update(update)  # after the one queued, never before it
                return
            self.apply_table_update(update)
        except Exception as error:  # as Textual does for an error in a handler
            internals.handle_exception(self, error)

    # --- keys -----------------------------------------------------------------------------
    def key_now(self, event: events.Key) -> bool:
        """Handle a key at once (called by a driver as its bytes arrive, from any context),
        when it can only run a table-screen action and nothing is waiting before it; else
        return False and the driver posts the key as usual.

        A posted key crosses four turns of the event loop before its action runs (the app's
        queue, forwarded to the screen, bubbled back to the app, then the bindings); on a busy
        server every turn waits for all the sessions' work that became ready in the turn
        before. Run here, the key's action, the engine, the publish to every seat and the
        seats' screens all happen in the turn its bytes arrive in. Textual's own dispatch
        (``App._check_bindings``, ``run_action``; textual 8.2) is a coroutine and cannot: this
        walks its binding chain in its order and leaves every other case to it."""
        self.attention.key()
        context = self._update_context
        if context is None:
            return False
        return context.run(self._key_now, event)

    def _key_now(self, event: events.Key) -> bool:
        screen = self.table_screen
        if (internals.exiting(self) or not self.is_running or screen is None
                or not screen.live or self._queued is not None or self._undelivered is not None
                or internals.messages_pending(self) is not False
                or internals.messages_pending(screen) is not False
                or not self.screen_stack or self.screen_stack[-1] is not screen):
            return False
        focused = screen.focused
        if focused is not None and focused is not screen.table:
            return False
        key = event.key
        chain = internals.modal_binding_chain(screen)
        if chain is None:
            return False
        if any(b.priority for _, m in chain for b in m.key_to_bindings.get(key, ())):
            return False
        for namespace, bindings in chain:
            for binding in bindings.key_to_bindings.get(key, ()):
                if namespace is not screen:
                    return False  # the app's own, or a widget's: Textual runs it
                parsed = internals.parse_action(self, binding.action, screen)
                if parsed is None:
                    return False
                target, name, params = parsed
                method = getattr(target, f"action_{name}", None)
                if (target is not screen or not callable(method)
                        or asyncio.iscoroutinefunction(method)
                        or not target.check_action(name, params)):
                    return False
                batch = _KeyBatch()
                token = _KEY_NOW.set(batch)
                try:
                    method(*params)
                except SkipAction:  # Textual would go on to the next binding: let it
                    return False
                except Exception as error:  # as Textual does for an error in an action
                    internals.handle_exception(self, error)
                finally:
                    _KEY_NOW.reset(token)
                    batch.open = False
                    for app in batch.apps:
                        app._deliver_now()
                return True
        return False

    def _post_update(self, update: TableUpdate) -> None:
        self._posts += 1
        if self.post_message(TableUpdated(update, self._posts)):
            self._queued = self._posts

    def direct_update_ok(self, update: TableUpdate) -> bool:
        """Whether ``update`` only redraws the table screen now shown."""
        screen = self.table_screen
        stack = self.screen_stack
        return screen is not None and screen.is_mounted and bool(stack) and stack[-1] is screen

    def apply_table_update(self, update: TableUpdate) -> None:
        self.update = update
        self.attention.table_waits(update.view.my_move)
        for screen in self.screen_stack:
            if isinstance(screen, GameResultScreen):
                screen.show_waiting(update)
        if self.table_screen is not None:
            self.table_screen.apply_update(update)
        view = update.view
        if view.phase is Phase.ENDED:  # the result, over the table, on a turn of its own
            key = (self._game_no, view.hand_no)
            if self._result_shown != key:
                self._result_shown = key
                paced(partial(self._show_result, update, key))

    def on_table_updated(self, message: TableUpdated) -> None:
        # Textual also calls the handler of each base class that has one: a subclass whose
        # handler calls this one through super() would otherwise apply every update twice.
        message.prevent_default()
        if message.seq == self._queued:  # the messages are handled in order (or replaced)
            self._queued = None
        self.apply_table_update(message.update)

    def _show_result(self, update: TableUpdate, key: tuple[int, int]) -> None:
        """The hand's result, drawn over the table by the table screen itself."""
        screen = self.table_screen
        if (internals.exiting(self) or not self.is_running or self._result_shown != key
                or screen is None or not screen.live):
            return
        try:
            screen.show_result(update)
        except Exception as error:  # as Textual does for an error in a handler
            internals.handle_exception(self, error)

    def start_game(self, rules: str, options: Mapping[str, Any], seed: int | None) -> str | None:
        self._game_no += 1
        self.table_screen = TableScreen()
        self._result_shown = None
        refusal = self.client.new_game(rules, options, seed)
        if refusal is not None:
            return refusal.text(self.settings.lang)
        if len(self.screen_stack) > 1:
            self.switch_screen(self.table_screen)
        else:
            self.push_screen(self.table_screen)
        return None

    def after_hand_result(self, update: TableUpdate) -> None:
        if update.game_over:
            # ``update`` is the one the hand's result was drawn from; a player may have asked
            # for a new game since (a later update of the same game-over): the screen opens
            # with what the table says now, not only from the next ask on
            latest = self.update if self.update is not None and self.update.game_over else update
            self.push_screen(GameResultScreen(latest))
        else:
            if self.table_screen is not None:
                self.table_screen.hide_result()
            self.client.next_hand()

    # --- the review of the game just played (r on the game-over screen) ---------------------
    def review_seat(self) -> int | None:
        """The seat whose play a review weighs: this player's (None: a spectator's)."""
        return self.client.seat

    def can_review(self) -> bool:
        return self.review_source is not None and self.review_seat() is not None

    def open_review(self, update: TableUpdate) -> None:
        """The expert's review of this player's play in the game of ``update`` (its game-over
        view), over the game-over screen; leaving it comes back there."""
        lang = self.settings.lang
        if self.review_seat() is None:
            self.notify(tr(lang, "rv_spectator"), markup=False)
            return
        if self.review_source is None:
            self.notify(tr(lang, "rv_no_game"), markup=False)
            return
        if self._review_opening:
            return
        self._review_opening = True
        # the toast is taken off as the review opens (or fails): it stayed over the review
        opening = Notification(tr(lang, "rv_opening"), timeout=3)
        self.post_message(Notify(opening))
        self.run_worker(self._open_review(update, opening), group="review", exclusive=True,
                        exit_on_error=False)

    async def _open_review(self, update: TableUpdate, opening: Notification | None = None
                           ) -> None:
        from tui.apps.review import ReviewGame, ReviewScreen, ReviewUnavailable

        source, seat, lang = self.review_source, self.review_seat(), self.settings.lang
        try:
            assert source is not None and seat is not None
            try:
                game = await source.game(update, lang)
                # the seat's views, a few ms a hand: off the loop
                review = await asyncio.to_thread(ReviewGame.of, game, seat)
            except ReviewUnavailable as exc:
                self.notify(str(exc), markup=False, severity="warning")
                return
            except Exception as exc:  # a record that cannot be replayed: said, not a crash
                self.notify(tr(lang, "rv_not_found", why=exc), markup=False,
                            severity="warning")
                return
            on_top = self.screen_stack[-1] if self.screen_stack else None
            if internals.exiting(self) or not isinstance(on_top, GameResultScreen):
                return  # left meanwhile, or a new game began
            self.push_screen(ReviewScreen(review, lang, self.face, source.submit,
                                          source.samples))
        finally:
            self._review_opening = False
            if opening is not None:  # after the toast's own message, which came first
                self.call_later(internals.dismiss_notification, self, opening)

    def tournament(self) -> str:
        """The tournament whose round this table plays ("": none; a table of one's own)."""
        return ""

    def show_new_game(self) -> None:
        while len(self.screen_stack) > 2:
            self.pop_screen()
        self.table_screen = None
        self.switch_screen(NewGameScreen(self.settings.rules))

    # --- settings -------------------------------------------------------------------------
    def set_face(self, face: Face) -> None:
        face = self.face = self.settings.next_usable(face)
        self.settings.tiles = face.value
        self.settings.save()
        self.settings_changed()

    def apply_ambiwidth(self) -> None:
        """Draw for the terminal's ambiguous width (``tui.compat.ambiwidth``) as the settings say:
        the driver writes every frame in the narrow glyph set or not; after a change the whole
        screen is drawn again."""
        wide = self.settings.ambiwide()
        driver = self._driver
        if driver is None or getattr(driver, "ambiwide", wide) == wide:
            return
        driver.ambiwide = wide  # type: ignore[attr-defined]
        internals.repaint_all(self)

    def settings_changed(self) -> None:
        self.attention.settings_changed()
        if self.client.controls_pace:
            self.client.set_bot_delay(self.settings.bot_delay)
        if self.table_screen is not None and self.table_screen.is_mounted:
            self.table_screen.refresh_settings()

    def show_help(self) -> None:
        rules = self.update.view.rules if self.update is not None else self.settings.rules
        coach = self.update is not None and coach_table(self.update.view.options) \
            and self.update.view.viewer is not None
        self.push_screen(HelpScreen(rules, coach=coach))

    def show_settings(self) -> None:
        self.push_screen(SettingsScreen())


if TYPE_CHECKING:  # the screens take their app for a HostApp: mypy checks that it is one
    _HOST: type[HostApp] = MahjongApp
