"""The one form for a new table: the rules choice and a field for each option of the chosen
ruleset, read with the engine's option parser (:meth:`engine.rulesets.OptionSpec.parse_text`).

``play``'s new game (:class:`tui.apps.screens.NewGameScreen`) and the lobby's new table
(``net.front.lobby.CreateTableScreen``) put it in their screens, each adding only its own fields (a
seed; a table name and the computer players' levels): a ruleset's options are offered, typed
and refused alike in both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Input, Label, Select, Static

from engine.rulesets import RULESETS, OptionSpec, find_ruleset
from tui.apps.field import Field
from words import both, tr

INPUT_MAX = 20  # characters in a form's field: what is typed is bounded too
RULES_ID = "create-rules"  # the rules choice (a Select of the rulesets' names)
ABOUT_ID = "create-about"  # the focused field's meaning, under the fields


def field_text(value: Any) -> str:
    """An option's value as its field shows it: ``on`` / ``off``, a number, empty for none."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return "" if value is None else str(value)


def option_label(spec: OptionSpec, lang: str | None) -> str:
    """An option's field label, its short name from the words catalogue (``opt_KEY``): in
    Chinese for ``zh``, else (English, and the lobby's bilingual form, ``lang`` None) English
    first, then Chinese, as every other label of the forms. The ruleset's own words (its
    full meaning) and the key a typed ``key=value`` takes are under the fields when the field
    has the focus."""
    key = f"opt_{spec.key}"
    return tr("zh", key) if lang == "zh" else both(key)


def option_label_text(spec: OptionSpec, lang: str | None) -> str | Text:
    """The label a row shows: the lobby's bilingual form gives every option a second, dim
    line on what it does, so a ruleset's options read without focusing each field."""
    if lang is not None:
        return option_label(spec, lang)
    text = Text(option_label(spec, lang))
    text.append("\n" + spec.brief(None), style="dim")
    return text


class NewTableForm(Vertical):
    """The rules choice (``#create-rules``), one field per option of the chosen ruleset
    (``#opt-KEY``) and the host's own rows after them, in ``#options``; under them the
    focused field's meaning (``#create-about``). Choosing another ruleset makes the rows
    again, the host's too."""

    DEFAULT_CSS = """
    NewTableForm { height: auto; }
    NewTableForm > #options { height: auto; }
    NewTableForm > #create-about { height: auto; color: $text-muted; }
    """

    def __init__(
        self,
        rules: str,
        *,
        lang: str | None = None,
        rules_label: str = "Ruleset 规则",
        options_label: str | None = None,
        values: Callable[[str], Mapping[str, Any]] | None = None,
        extra_rows: Callable[[], Iterable[Widget]] | None = None,
        notes: Mapping[str, str] | None = None,
        row_class: str = "row",
        rules_class: str = "row",
        scroll: bool = True,
    ) -> None:
        """``lang``: the labels' language (None: both); ``values``: a ruleset's fields'
        starting values (the defaults otherwise); ``extra_rows``: the host's rows after the
        options; ``notes``: the meaning of the host's fields, by widget id; ``scroll``: the
        rows scroll by themselves (in a host that does not scroll around them)."""
        super().__init__()
        self.rules = rules
        self.lang = lang
        self.rules_label = rules_label
        self.options_label = options_label
        self._values = values
        self._extra_rows = extra_rows
        self.notes = dict(notes or {})
        self.row_class = row_class
        self.rules_class = rules_class
        self.scroll = scroll

    @property
    def specs(self) -> tuple[OptionSpec, ...]:
        return RULESETS[self.rules].options_spec

    def compose(self) -> ComposeResult:
        with Horizontal(classes=self.rules_class):
            yield Label(self.rules_label)
            yield Select([(cls.title("en"), key) for key, cls in RULESETS.items()],
                         value=self.rules, allow_blank=False, id=RULES_ID)
        if self.options_label is not None:
            yield Label(self.options_label)
        # the rows' scroll takes no focus of its own: it would be a Tab stop that shows
        # nothing between the ruleset and the first option (the focused field scrolls into
        # view, and the mouse wheel scrolls it)
        box = VerticalScroll(id="options", can_focus=False) if self.scroll else Vertical(
            id="options")
        with box:
            yield from self._rows()
        yield Static("", id=ABOUT_ID, markup=False)

    def _rows(self) -> list[Widget]:
        given = self._values(self.rules) if self._values is not None else {}
        rows: list[Widget] = []
        for spec in self.specs:
            value = given.get(spec.key, spec.default)
            rows.append(Horizontal(
                Label(option_label_text(spec, self.lang)),
                Field(field_text(value), id=f"opt-{spec.key}", max_length=INPUT_MAX),
                classes=self.row_class))
        if self._extra_rows is not None:
            rows.extend(self._extra_rows())
        return rows

    async def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id != RULES_ID:
            return
        event.stop()
        if event.value == self.rules:
            return
        self.rules = str(event.value)
        box = self.query_one("#options")
        await box.remove_children()
        await box.mount_all(self._rows())

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """The focused field's meaning in both languages, under the fields."""
        widget_id = event.widget.id or ""
        about = self.notes.get(widget_id, "")
        if widget_id.startswith("opt-"):
            key = widget_id.removeprefix("opt-")
            spec = next((sp for sp in self.specs if sp.key == key), None)
            if spec is not None:
                # its meaning first; then the key the lobby's line takes (key=value)
                about = f"{spec.en} · {spec.zh}  ({spec.key}=…)"
        self.query_one(f"#{ABOUT_ID}", Static).update(about)

    def field(self, key: str) -> Input:
        """The field of option ``key``."""
        return self.query_one(f"#opt-{key}", Input)

    def options(self) -> dict[str, Any]:
        """Every option of the chosen ruleset as its field says, checked by the ruleset;
        :class:`~engine.rulesets.OptionError` with the ruleset's message otherwise."""
        values = {spec.key: spec.parse_text(self.field(spec.key).value)
                  for spec in self.specs}
        find_ruleset(self.rules, values)
        return values

    def changed_options(self) -> dict[str, Any]:
        """The options whose fields differ from the ruleset's defaults (checked as in
        :meth:`options`)."""
        defaults = {spec.key: spec.default for spec in self.specs}
        return {k: v for k, v in self.options().items() if v != defaults[k]}
