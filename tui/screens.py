"""The screens around the table: new game, hand result, game result, help, settings.

They use ordinary widgets and may recompose, except the hand result: every session of a table
shows it at every hand's end, so its lines are drawn by a :class:`LinesView`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.segment import Segment
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Button, Checkbox, Input, Label, RadioButton, RadioSet, Static

from engine.rulesets import RULESETS, OptionError, OptionSpec
from themes import THEME_NAMES
from tui.client import TableUpdate
from tui.i18n import tr
from tui.layout import rules_title
from tui.result_text import (
    game_result_lines,
    hand_result_lines,
    help_lines,
    line_content,
    lines_content,
)

if TYPE_CHECKING:
    from tui.app import MahjongApp


class _Page(Screen[None]):
    @property
    def mj(self) -> MahjongApp:
        return self.app  # type: ignore[return-value]

    @property
    def lang(self) -> str:
        return self.mj.settings.lang


def markup(lines: list[str]) -> Content:
    return lines_content(lines)


class LinesView(ScrollView, can_focus=True):
    """Lines of content that scroll, each styled into a strip once (Textual's Line API).

    Every session of a table shows a hand's result at the same moment. In a ``Static`` inside
    a ``VerticalScroll`` every line was styled, wrapped and padded again at each of the three
    renders of a screen change (about 20 ms of a session's CPU at each hand's end); here a line
    becomes a strip once per show, and :meth:`render_lines` hands the compositor the visible
    strips as they are (this widget has no border or padding: the page's margin is a space
    drawn at the start of each line). The last line is the keys, dimmed."""

    COMPONENT_CLASSES = {"lines--keys"}  # noqa: RUF012

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: list[Content] = []
        self._keys = ""
        self._strips: list[Strip | None] = []

    def show(self, lines: list[Content], keys: str) -> None:
        """Show ``lines`` then ``keys``, from the top."""
        self._lines = lines
        self._keys = keys
        self._strips = [None] * (len(lines) + 1)
        width = 1 + max([line.cell_length for line in lines] + [cell_len(keys)])
        self.virtual_size = Size(width, len(lines) + 1)
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    @property
    def text(self) -> str:
        """What is shown, as plain text (tests)."""
        return "\n".join([line.plain for line in self._lines] + [self._keys])

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips = [None] * len(self._strips)

    def _strip(self, index: int) -> Strip:
        strip = self._strips[index]
        if strip is None:
            base = self.visual_style
            margin = Segment(" ", base.rich_style)
            if index < len(self._lines):
                segments = [margin, *self._lines[index].render_segments(base)]
            else:
                style = base.rich_style + self.get_component_rich_style("lines--keys")
                segments = [margin, Segment(self._keys, style)]
            strip = Strip(segments)
            background = self.background_colors[1]
            for line_filter in self.get_line_filters():  # as Textual's styling pass does
                strip = strip.apply_filter(line_filter, background)
            self._strips[index] = strip
        return strip

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = y + scroll_y
        width, height = self.size
        style = self.visual_style.rich_style
        total = len(self._strips)
        if total > height > 0:  # a one-column scroll indicator (a ScrollBar widget cost
            width -= 1  # more to render than all these lines)
            size = max(1, height * height // total)
            top = scroll_y * (height - size) // max(1, total - height)
            mark = Segment("▐" if top <= y < top + size else " ",
                           style + self.get_component_rich_style("lines--keys"))
        else:
            mark = None
        if not 0 <= index < total:
            strip = Strip.blank(width, style)
        else:
            strip = self._strip(index).crop_extend(scroll_x, scroll_x + width, style)
        return strip if mark is None else Strip([*strip, mark], width + 1)

    def render_lines(self, crop: Region) -> list[Strip]:
        strips = [self.render_line(y) for y in crop.line_range]
        x1, x2 = crop.column_span
        if x1 != 0 or x2 != self.size.width:
            strips = [strip.crop(x1, x2) for strip in strips]
        return strips


class HandResultScreen(_Page):
    BINDINGS = [  # noqa: RUF012
        Binding("enter,space", "next", "Next hand 下一盘", id="result-next"),
        Binding("question_mark,f1", "help", "Help", id="result-help", show=False),
        Binding("t", "face", "Tiles", id="result-tiles", show=False),
        Binding("q", "quit", "Quit", id="result-quit", show=False),
    ]

    def __init__(self, update: TableUpdate) -> None:
        super().__init__()
        self.update = update

    def compose(self) -> ComposeResult:
        yield LinesView(id="result")

    def render_lines(self, crop: Region) -> list[Strip]:
        """The screen under its lines view (which covers it): blank, without Textual's styling
        pass over every row at each render."""
        blank = Strip.blank(crop.width, self.visual_style.rich_style)
        return [blank] * crop.height

    def on_mount(self) -> None:
        self._composed = True  # Textual's is_mounted is still false here
        self.show(self.update)

    def on_resize(self) -> None:
        self.show(self.update)  # the lines are laid out for the window's width

    def show(self, update: TableUpdate) -> None:
        """Another hand's result in this screen: the app keeps one result screen and shows it
        again each hand (building and styling its widgets anew was half of the CPU of showing
        a result, four times per table at every hand's end)."""
        self.update = update
        if getattr(self, "_composed", False):
            self.query_one(LinesView).show(self._content(), self._keys())

    def _keys(self) -> str:
        return tr(self.lang, "res_last" if self.update.game_over else "res_next")

    def _content(self) -> list[Content]:
        width = max(40, self.app.size.width - 4)  # the margin and the scroll bar
        lines = hand_result_lines(self.update, self.lang, self.mj.face, width)
        return [line_content(line) for line in lines]

    def action_next(self) -> None:
        self.mj.after_hand_result(self.update)

    def action_help(self) -> None:
        self.mj.show_help()

    def action_face(self) -> None:
        self.mj.set_face(self.mj.face.next())
        self.show(self.update)


class GameResultScreen(_Page):
    BINDINGS = [  # noqa: RUF012
        Binding("enter,space", "new_game", "New game 新游戏", id="game-new"),
        Binding("q", "quit", "Quit", id="game-quit", show=False),
    ]

    def __init__(self, update: TableUpdate) -> None:
        super().__init__()
        self.update = update

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="page"):
            yield Static(markup(game_result_lines(self.update, self.lang)), id="game-result")
            yield Static(tr(self.lang, "game_keys"), classes="keys")

    def action_new_game(self) -> None:
        self.mj.show_new_game()


class HelpScreen(_Page):
    BINDINGS = [  # noqa: RUF012
        Binding("escape,question_mark,q,f1", "close", "Close", id="help-close"),
    ]

    def __init__(self, rules: str) -> None:
        super().__init__()
        self.rules = rules

    def compose(self) -> ComposeResult:
        from tui.table_screen import TABLE_BINDINGS

        keymap = {k: v for k, v in self.mj.settings.keys.items()}
        lines = help_lines(self.rules, self.lang, TABLE_BINDINGS, keymap)
        with VerticalScroll(classes="page"):
            yield Static(markup(lines), id="help")
            yield Static(tr(self.lang, "close"), classes="keys")

    def action_close(self) -> None:
        self.app.pop_screen()


class NewGameScreen(_Page):
    BINDINGS = [  # noqa: RUF012
        Binding("f1", "help", "Help", id="new-help", show=False),
        Binding("ctrl+s", "settings", "Settings", id="new-settings", show=False),
    ]

    def __init__(self, rules: str | None = None) -> None:
        super().__init__()
        self.rules = rules or self.mj_rules_default()

    def mj_rules_default(self) -> str:
        return "yichun"

    def on_mount(self) -> None:
        self.query_one("#start", Button).focus()

    def compose(self) -> ComposeResult:
        lang = self.lang
        saved = self.mj.settings.options.get(self.rules, {})
        with VerticalScroll(classes="page"):
            yield Label(tr(lang, "ng_title"), classes="page-title")
            yield Label(tr(lang, "ng_rules"))
            with RadioSet(id="rules"):
                for name in RULESETS:
                    yield RadioButton(rules_title(name, "en"), value=name == self.rules,
                                      id=f"rules-{name}")
            yield Label(tr(lang, "ng_options"))
            for spec in RULESETS[self.rules].options_spec:
                value = saved.get(spec.key, spec.default)
                with Horizontal(classes="form-row"):
                    yield Label(f"{spec.zh} {spec.en}" if lang == "en" else spec.zh)
                    if isinstance(spec.default, bool):
                        yield Checkbox("", bool(value), id=f"opt-{spec.key}")
                    else:
                        yield Input("" if value is None else str(value), id=f"opt-{spec.key}",
                                    type="integer" if not spec.allow_none else "text")
            with Horizontal(classes="form-row"):
                yield Label(tr(lang, "ng_seed"))
                yield Input("", id="seed", type="integer")
            yield Label("", id="error", classes="error-text")
            yield Button(tr(lang, "ng_start"), id="start", variant="primary")
            yield Static(tr(lang, "ng_help"), classes="keys")

    async def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        if event.pressed.id and event.pressed.id.startswith("rules-"):
            name = event.pressed.id.removeprefix("rules-")
            if name != self.rules:
                self.rules = name
                await self.recompose()
                self.query_one(f"#rules-{name}", RadioButton).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.start()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.start()

    def read_options(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for spec in RULESETS[self.rules].options_spec:
            out[spec.key] = self._read(spec)
        return out

    def _read(self, spec: OptionSpec) -> Any:
        if isinstance(spec.default, bool):
            return self.query_one(f"#opt-{spec.key}", Checkbox).value
        text = self.query_one(f"#opt-{spec.key}", Input).value.strip()
        if not text:
            if spec.allow_none:
                return None
            raise OptionError(f"{spec.key}: a whole number is needed")
        try:
            return spec.check(int(text))
        except ValueError as exc:
            raise OptionError(str(exc)) from None

    def start(self) -> None:
        error = self.query_one("#error", Label)
        try:
            options = self.read_options()
            RULESETS[self.rules].resolve_options(options)
        except OptionError as exc:
            error.update(str(exc))
            return
        seed_text = self.query_one("#seed", Input).value.strip()
        seed = int(seed_text) if seed_text.lstrip("-").isdigit() else None
        self.mj.settings.rules = self.rules
        self.mj.settings.options[self.rules] = options
        self.mj.settings.save()
        message = self.mj.start_game(self.rules, options, seed)
        if message:
            error.update(message)

    def action_help(self) -> None:
        self.mj.push_screen(HelpScreen(self.rules))

    def action_settings(self) -> None:
        self.mj.show_settings()


class SettingsScreen(_Page):
    BINDINGS = [Binding("escape", "close", "Close", id="settings-close")]  # noqa: RUF012

    def compose(self) -> ComposeResult:
        s = self.mj.settings
        lang = self.lang
        with VerticalScroll(classes="page"):
            yield Label(tr(lang, "set_title"), classes="page-title")
            yield Label(tr(lang, "set_lang"))
            with RadioSet(id="lang"):
                yield RadioButton("English", value=s.lang == "en", id="lang-en")
                yield RadioButton("中文", value=s.lang == "zh", id="lang-zh")
            yield Label(tr(lang, "set_tiles"))
            with RadioSet(id="tiles"):
                for face in ("cjk", "glyph", "ascii"):
                    yield RadioButton(face, value=self.mj.face.value == face, id=f"tiles-{face}")
            yield Label(tr(lang, "set_theme"))
            with RadioSet(id="theme"):
                for name in THEME_NAMES:
                    yield RadioButton(name, value=self.app.theme == name, id=f"theme-{name}")
            with Horizontal(classes="form-row"):
                yield Label(tr(lang, "set_delay"))
                yield Input(str(s.bot_delay), id="delay", type="number")
            with Horizontal(classes="form-row"):
                yield Label(tr(lang, "set_hints"))
                yield Checkbox("", s.show_waits, id="show-waits")
            with Horizontal(classes="form-row"):
                yield Label(tr(lang, "set_suggest"))
                yield Checkbox("", s.show_suggestion, id="show-suggestion")
            yield Static(tr(lang, "set_saved", path=str(s.path or "")), classes="keys", id="saved")
            yield Static(tr(lang, "set_keys"), classes="keys")
            yield Static(tr(lang, "close"), classes="keys")

    async def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        pid = event.pressed.id or ""
        s = self.mj.settings
        if pid.startswith("lang-"):
            s.lang = pid.removeprefix("lang-")
            s.save()
            self.mj.settings_changed()
            await self.recompose()
            return
        if pid.startswith("tiles-"):
            from tui.faces import Face

            self.mj.set_face(Face(pid.removeprefix("tiles-")))
        elif pid.startswith("theme-"):
            self.mj.apply_theme(pid.removeprefix("theme-"))
            s.theme = self.app.theme
        s.save()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        s = self.mj.settings
        if event.checkbox.id == "show-waits":
            s.show_waits = event.value
        elif event.checkbox.id == "show-suggestion":
            s.show_suggestion = event.value
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
        self.app.pop_screen()
