"""The screens around the table: new game, game result, help, settings.

They use ordinary widgets and may recompose. A hand's result is not among them: every session
of a table shows it at every hand's end, so the table widget draws it over the table
(:meth:`tui.apps.table_screen.TableScreen.show_result`).
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import (
    Button,
    Checkbox,
    Input,
    Label,
    RadioButton,
    RadioSet,
    Select,
    Static,
)

from engine.rulesets import DEFAULT_RULES, OptionError
from host.client import TableUpdate
from themes import THEME_NAMES
from tui.apps.field import Field
from tui.apps.host_app import HostApp
from tui.apps.marked import MarkedCheckbox, MarkedRadioButton
from tui.apps.new_table import INPUT_MAX, RULES_ID, NewTableForm
from tui.apps.rules_page import MISSING, NAV, RulesPage, rules_page
from tui.apps.table_screen import COACH_BINDING, TABLE_BINDINGS
from tui.compat import internals
from tui.view.faces import Face
from tui.view.result_text import (
    game_result_lines,
    game_wait_text,
    help_lines,
    lines_content,
)
from tui.view.score_chart import score_chart_lines
from words import tr


def close_screen(screen: Screen[Any], result: Any = None) -> bool:
    """Dismiss ``screen`` if it is the one on top; False (nothing popped) if it is not.

    Textual's ``dismiss`` pops whatever screen is on top. A key or an Enter still queued for a
    screen that something else closed already (the game starting under the chat line, a new
    game replacing the stack) must not pop the screen beneath it instead."""
    if not screen.is_active:
        return False
    screen.dismiss(result)
    return True


class _Page(Screen[None]):
    RELEASE_ON_REMOVE = True  # made for one showing: taken apart once closed (tui.compat)

    @property
    def mj(self) -> HostApp:
        return self.app  # type: ignore[return-value]

    @property
    def lang(self) -> str:
        return self.mj.settings.lang


class GameResultScreen(_Page):
    BINDINGS = [  # noqa: RUF012
        Binding("enter,space", "new_game", "New game 新游戏", id="game-new"),
        # the page's footer offers "q: leave": as q on the table's result (over SSH: back to
        # the lobby if the player came from there)
        Binding("q,escape", "leave", "Leave 离开", id="game-quit", show=False),
        Binding("r", "review", "Review your play 复盘", id="game-review", show=False),
    ]

    def __init__(self, update: TableUpdate) -> None:
        super().__init__()
        self.update = update

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="page"):
            yield Static(lines_content(game_result_lines(self.update, self.lang)), id="game-result")
            chart = score_chart_lines(self.update, self.lang, self.mj.face)
            if chart:
                yield Static(lines_content(["", *chart]), id="score-chart")
            yield Static(game_wait_text(self.update, self.lang), id="game-wait", markup=False)
            keys = "game_keys_review" if self.mj.can_review() else "game_keys"
            tournament = self.mj.tournament()
            if tournament:  # the table's one game: the next round plays at another table
                yield Static(tr(self.lang, "game_tournament_next", name=tournament),
                             markup=False)
                keys = keys.replace("game_keys", "game_keys_leave")
            yield Static(tr(self.lang, keys), classes="keys")

    def show_waiting(self, update: TableUpdate) -> None:
        """A shared table's new update after the game: whom the new game waits for, and the
        names under the seats (one who left since is marked away)."""
        if not update.game_over:
            return
        names_changed = update.names != self.update.names
        self.update = update
        if self.is_mounted:
            self.query_one("#game-wait", Static).update(game_wait_text(update, self.lang))
            if names_changed:
                self.query_one("#game-result", Static).update(
                    lines_content(game_result_lines(update, self.lang)))

    def action_new_game(self) -> None:
        if self.mj.tournament():  # no new game at a tournament's table: Enter leaves it
            self.action_leave()
            return
        self.mj.show_new_game()

    def action_leave(self) -> None:
        self.app.exit()

    def action_review(self) -> None:
        self.mj.open_review(self.update)


class HelpScreen(_Page):
    """The keys, then the table's ruleset's rules page (``docs/rules/``), in one scroll.

    The keys come first, so they stay one Home away; ``r`` jumps to the rules, ``k`` back."""

    BINDINGS = [  # noqa: RUF012
        Binding("escape,question_mark,q,f1", "close", "Close", id="help-close"),
        Binding("r", "rules", "Rules 规则", id="help-rules", show=False),
        Binding("k", "keys", "Keys 按键", id="help-keys", show=False),
    ]

    def __init__(self, rules: str, coach: bool = False) -> None:
        super().__init__()
        self.rules = rules
        self.coach = coach  # a coach table's seated player: its key is listed

    def compose(self) -> ComposeResult:
        keymap = {k: v for k, v in self.mj.settings.keys.items()}
        coach = [COACH_BINDING] if self.coach else []
        lines = help_lines(self.rules, self.lang,
                           [*TABLE_BINDINGS, *coach, *self.mj.HELP_BINDINGS], keymap,
                           self.mj.settings.persistent)
        lang = self.lang if self.lang in NAV else "en"
        page = rules_page(self.rules, lang)
        with VerticalScroll(classes="page", id="help-scroll"):
            yield Static(NAV[lang], classes="keys")
            yield Static(lines_content(lines), id="help")
            if page is None:
                yield Static(MISSING[lang].format(rules=self.rules), id="rules-missing")
            else:
                yield RulesPage(page, id="rules-page")
            yield Static(tr(self.lang, "close"), classes="keys")

    def action_close(self) -> None:
        close_screen(self)

    def action_rules(self) -> None:
        for target in self.query("#rules-page, #rules-missing"):
            self.query_one("#help-scroll", VerticalScroll).scroll_to_widget(
                target, animate=False, top=True)

    def action_keys(self) -> None:
        self.query_one("#help-scroll", VerticalScroll).scroll_home(animate=False)


class NewGameScreen(_Page):
    """``play``'s new game: the new-table form (:class:`~tui.apps.new_table.NewTableForm`, with
    the values last started with for each ruleset) and a seed."""

    BINDINGS = [  # noqa: RUF012
        # Enter starts the game from every field (Textual's Select would open its list on it,
        # an Input submit only itself): a priority binding, passed over inside an open list,
        # where Enter picks (check_action)
        Binding("enter", "start", "Start", id="new-start", show=False, priority=True),
        # the ruleset list opened from any field (a Select opens on Enter, ↑ or ↓ only when
        # focused, and Tab may be many fields away)
        Binding("ctrl+r,f2", "rules_list", "Rulesets", id="new-rules", show=False),
        Binding("f1", "help", "Help", id="new-help", show=False),
        Binding("ctrl+s", "settings", "Settings", id="new-settings", show=False),
    ]
    DEFAULT_CSS = """
    NewGameScreen .rules-row { height: 3; margin: 0 0 0 1; }
    NewGameScreen .rules-row > Label { width: 1fr; padding: 1 0 0 0; }
    NewGameScreen .rules-row > Select { width: 32; }
    """

    def __init__(self, rules: str | None = None) -> None:
        super().__init__()
        self.initial_rules = rules or DEFAULT_RULES

    @property
    def rules(self) -> str:
        """The ruleset chosen in the form."""
        return self.query_one(NewTableForm).rules

    def on_mount(self) -> None:
        self.query_one("#start", Button).focus()

    def compose(self) -> ComposeResult:
        lang = self.lang
        saved = self.mj.settings.options
        # a page of fields: its scroll is no Tab stop (it shows no focus and takes no
        # choice; the focused field scrolls into view)
        with VerticalScroll(classes="page", can_focus=False):
            yield Label(tr(lang, "ng_title"), classes="page-title")
            yield NewTableForm(self.initial_rules, lang=lang, rules_label=tr(lang, "ng_rules"),
                               options_label=tr(lang, "ng_options"),
                               values=lambda rules: saved.get(rules, {}),
                               extra_rows=lambda: [self._seed_row(lang)],
                               row_class="form-row", rules_class="rules-row", scroll=False)
            yield Label("", id="error", classes="error-text")
            yield Button(tr(lang, "ng_start"), id="start", variant="primary")
            yield Static(tr(lang, "ng_help"), classes="keys")

    @staticmethod
    def _seed_row(lang: str) -> Horizontal:
        return Horizontal(Label(tr(lang, "ng_seed")),
                          Field("", id="seed", type="integer", max_length=INPUT_MAX),
                          classes="form-row")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.start()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.start()

    def _in_open_list(self) -> bool:
        """Whether the focus is in a Select whose list is open (there Enter picks)."""
        node = self.focused
        while node is not None and node is not self:
            if isinstance(node, Select):
                return node.expanded
            node = node.parent  # type: ignore[assignment]
        return False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "start":
            return not self._in_open_list()
        return True

    def action_start(self) -> None:
        self.start()

    def action_rules_list(self) -> None:
        """The ruleset list, open, from whichever field has the focus."""
        select = self.query_one(f"#{RULES_ID}", Select)
        select.focus()
        select.expanded = True

    def start(self) -> None:
        error = self.query_one("#error", Label)
        form = self.query_one(NewTableForm)
        try:
            options = form.options()
        except OptionError as exc:
            error.update(str(exc))
            return
        seed_text = self.query_one("#seed", Input).value.strip()
        seed = int(seed_text) if seed_text.lstrip("-").isdigit() else None
        self.mj.settings.rules = form.rules
        self.mj.settings.options[form.rules] = options
        self.mj.settings.save()
        message = self.mj.start_game(form.rules, options, seed)
        if message:
            error.update(message)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.rules))

    def action_settings(self) -> None:
        self.mj.show_settings()


# the settings screen's checkboxes: each row's words and the setting it turns on and off (the
# box's id is the setting's name with dashes)
CHECKBOXES = (("set_hints", "show_waits"), ("set_suggest", "show_suggestion"),
              ("set_bell", "bell"), ("set_turn_title", "turn_title"), ("set_notify", "notify"),
              ("set_plain", "plain"))


class SettingsScreen(_Page):
    BINDINGS = [Binding("escape", "close", "Close", id="settings-close")]  # noqa: RUF012
    # a row's words wrap under themselves where the terminal is too narrow for them, never
    # cut (the forms' rows are one line, cut at their end)
    DEFAULT_CSS = """
    SettingsScreen .form-row { height: auto; }
    SettingsScreen .form-row > Label { height: auto; text-wrap: wrap; }
    """

    def compose(self) -> ComposeResult:
        s = self.mj.settings
        lang = self.lang
        # a page of fields: its scroll is no Tab stop (it shows no focus and takes no
        # choice; the focused field scrolls into view)
        with VerticalScroll(classes="page", can_focus=False):
            yield Label(tr(lang, "set_title"), classes="page-title")
            yield Label(tr(lang, "set_lang"))
            with RadioSet(id="lang"):
                yield MarkedRadioButton("English", value=s.lang == "en", id="lang-en")
                yield MarkedRadioButton("中文", value=s.lang == "zh", id="lang-zh")
            yield Label(tr(lang, "set_tiles"))
            with RadioSet(id="tiles"):
                for face in ("cjk", "glyph", "ascii"):
                    yield MarkedRadioButton(tr(lang, f"face_{face}"),
                                            value=self.mj.face.value == face,
                                            id=f"tiles-{face}")
            yield Label(tr(lang, "set_theme"))
            with RadioSet(id="theme"):
                for name in THEME_NAMES:
                    yield MarkedRadioButton(tr(lang, f"theme_{name}"),
                                            value=self.app.theme == name,
                                            id=f"theme-{name}")
            found = {True: "ambi_found_wide", False: "ambi_found_narrow", None: "ambi_found_none"}
            yield Label(tr(lang, "set_ambi", found=tr(lang, found[s.detected])), id="ambi-found")
            with RadioSet(id="ambiwidth"):
                for choice in ("auto", "narrow", "wide"):
                    yield MarkedRadioButton(tr(lang, f"ambi_{choice}"),
                                            value=s.ambiwidth == choice, id=f"ambi-{choice}")
            if self.mj.client.controls_pace:  # a table of one's own: its pace
                with Horizontal(classes="form-row"):
                    yield Label(tr(lang, "set_delay"))
                    yield Field(str(s.bot_delay), id="delay", type="number", max_length=INPUT_MAX)
            for words, setting in CHECKBOXES:
                with Horizontal(classes="form-row"):
                    yield Label(tr(lang, words))
                    yield MarkedCheckbox("", getattr(s, setting), id=setting.replace("_", "-"))
            note, fields = s.saved_note()
            yield Static(tr(lang, note, **fields), classes="keys", id="saved")
            if s.persistent:  # a settings file of one's own
                yield Static(tr(lang, "set_keys"), classes="keys")
            yield Static(tr(lang, "set_how"), classes="keys")

    def on_mount(self) -> None:
        # the first control, not the page's scroll (Textual's first focusable widget), which
        # shows no focus and takes no choice. The highlights are set here, with the focus, and
        # not after the first refresh: a key may be handled as soon as the focus is set (the
        # rows are mounted, each RadioSet's own on_mount has run), and a highlight set after
        # it put back a → already taken (the Enter that followed took the chosen row again)
        self.query_one("#lang", RadioSet).focus()
        self._highlight_chosen()

    def _highlight_chosen(self) -> None:
        """Each row's highlight starts on its chosen button (Textual starts on the first, so
        a Chinese player's → Enter would take 中文 again instead of moving to it)."""
        for radio_set in self.query(RadioSet):
            if radio_set.pressed_index >= 0:
                internals.highlight_radio(radio_set, radio_set.pressed_index)

    async def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        pid = event.pressed.id or ""
        s = self.mj.settings
        if pid.startswith("lang-"):
            s.lang = pid.removeprefix("lang-")
            s.save()
            self.mj.settings_changed()
            # the page again in the new language: the focus goes back to the control that
            # had it (the same id), not to the page's start
            focused = self.focused.id if self.focused is not None else None
            await self.recompose()
            self._highlight_chosen()
            if focused is not None:
                for widget in self.query(f"#{focused}"):
                    widget.focus()
            return
        if pid.startswith("tiles-"):
            face = Face(pid.removeprefix("tiles-"))
            if not s.face_usable(face):  # said, and the face shown pressed again
                self.notify(tr(self.lang, "face_not_here", face=face.value), markup=False)
                shown = self.query_one(f"#tiles-{self.mj.face.value}", RadioButton)
                # after this message: the RadioSet's own handling of it holds back the
                # buttons' changes, which it needs to let go of the one pressed
                self.call_after_refresh(setattr, shown, "value", True)
                return
            self.mj.set_face(face)
        elif pid.startswith("ambi-"):
            s.ambiwidth = pid.removeprefix("ambi-")
            s.save()
            self.mj.apply_ambiwidth()
            return
        elif pid.startswith("theme-"):
            self.mj.apply_theme(pid.removeprefix("theme-"))
            s.theme = self.app.theme
        s.save()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        s = self.mj.settings
        for _, setting in CHECKBOXES:
            if event.checkbox.id == setting.replace("_", "-"):
                setattr(s, setting, event.value)
        s.save()
        self.mj.settings_changed()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "delay":
            try:
                value = float(event.value)
            except ValueError:
                return
            if 0 <= value <= 10:
                self.mj.settings.bot_delay = value
                self.mj.settings.save()
                self.mj.settings_changed()

    def action_close(self) -> None:
        close_screen(self)
