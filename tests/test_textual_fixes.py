"""The Textual patches of ``tui.compat``: a strip never holds itself in its caches, and what the
fixed methods return is what Textual's return."""

from __future__ import annotations

import gc

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.cache import FIFOCache
from textual.strip import Strip

from tui.compat import compat_textual
from tui.compat.strip_lazy_caches import STRIP_CACHES


def _holds_itself(strip: Strip) -> bool:
    for name in Strip.__slots__:
        cache = getattr(strip, name, None)
        for value in getattr(cache, "_cache", {}).values():
            if value is strip or (isinstance(value, list) and any(v is strip for v in value)):
                return True
    return False


def _strip() -> Strip:
    return Strip([Segment("一万 ", Style(bold=True)), Segment("east", None)], 9)


def test_a_strip_drawn_by_the_compositor_holds_no_reference_to_itself() -> None:
    compat_textual.apply()
    compat_textual.apply()  # once is enough; twice changes nothing
    s = _strip()
    assert s.divide([9]) == [s] and s.crop_extend(0, 9, None) is s
    assert not _holds_itself(s)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(50):
            s = _strip()
            s.divide([9])
            s.crop_extend(0, 9, None)
        del s
        assert gc.collect() == 0
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_the_other_cases_are_textuals_own() -> None:
    compat_textual.apply()
    s = _strip()
    parts = s.divide([5, 9])
    assert [p.text for p in parts] == ["一万 ", "east"]
    assert s.divide([5, 9]) is parts  # cached as before
    assert s.crop_extend(2, 12, None).text == "万 east   "
    assert s.crop_extend(0, 4, None).text == "一万"
    assert s.divide([20]) == []


def test_css_is_parsed_once_per_process_for_the_same_variables() -> None:
    from textual.css.stylesheet import Stylesheet

    compat_textual.apply()
    css = "TableView { background: $surface; color: $text; }"
    where = ("test", "TableView")

    dark = {"surface": "#101010", "text": "#e0e0e0"}
    light = {"surface": "#f0f0f0", "text": "#202020"}
    a, b = Stylesheet(variables=dark), Stylesheet(variables=dict(dark))
    assert a._parse_rules(css, where) is b._parse_rules(css, where)  # shared, not re-parsed
    lit = Stylesheet(variables=light)._parse_rules(css, where)  # the variables are in the key
    assert str(lit[0].styles.background) != str(a._parse_rules(css, where)[0].styles.background)


async def test_a_resize_to_the_size_a_screen_is_laid_out_at_lays_out_nothing() -> None:
    """The ``Resize`` a new screen's first layout sends it, at the size it was just laid out
    at, no longer lays it out again (with the SSH driver that pass drew the whole screen once
    more); a real resize (another size) still does."""
    from textual import events
    from textual._compositor import Compositor
    from textual.app import App, ComposeResult
    from textual.geometry import Size
    from textual.screen import Screen
    from textual.widgets import Static

    compat_textual.apply()

    class Page(Screen[None]):
        def compose(self) -> ComposeResult:
            yield Static("east wind " * 30, id="text")

    layouts: list[int] = []
    reflow = Compositor.reflow

    def counting(self: Compositor, parent: object, size: Size) -> object:
        layouts.append(size.width)
        return reflow(self, parent, size)  # type: ignore[arg-type]

    Compositor.reflow = counting  # type: ignore[assignment,method-assign]
    try:
        app = App[None]()
        async with app.run_test(size=(40, 10)) as pilot:
            page = Page()
            await app.push_screen(page)
            for _ in range(5):
                await pilot.pause()
            assert layouts and layouts[-1] == 40
            layouts.clear()
            page.post_message(events.Resize(Size(40, 10), Size(40, 10)))
            for _ in range(5):
                await pilot.pause()
            assert layouts == []
            await pilot.resize_terminal(60, 12)
            for _ in range(5):
                await pilot.pause()
            assert page.query_one("#text").size.width == 60
            assert layouts and layouts[-1] == 60
    finally:
        Compositor.reflow = reflow  # type: ignore[method-assign]


def test_a_strips_caches_are_made_when_first_used() -> None:
    """A new strip holds no cache objects; the first crop makes the crop cache, which then
    serves the same crop again, and the other caches stay unmade."""
    compat_textual.apply()
    s = _strip()
    slots = {name: Strip.__dict__[name].slot for name in STRIP_CACHES}
    for slot in slots.values():
        with pytest.raises(AttributeError):
            slot.__get__(s, Strip)
    gc.collect()
    before = sum(isinstance(o, FIFOCache) for o in gc.get_objects())
    strips = [_strip() for _ in range(100)]
    assert sum(isinstance(o, FIFOCache) for o in gc.get_objects()) == before
    cropped = s.crop(1, 5)
    assert (cropped.text, cropped.cell_length) == (" 万 ", 4)
    assert s.crop(1, 5) is cropped  # from the cache now made
    assert isinstance(slots["_crop_cache"].__get__(s, Strip), FIFOCache)
    with pytest.raises(AttributeError):
        slots["_style_cache"].__get__(s, Strip)
    assert s.apply_style(Style(italic=True)) is s.apply_style(Style(italic=True))
    assert [x.text for x in strips[0].divide([2, 9])] == ["一", "万 east"]


def test_the_variables_tokens_are_made_once_and_never_changed_by_parsing() -> None:
    """Stylesheets with the same variables share one tokenisation of them; CSS that defines
    one of them again does not change the shared tokens; new variables get their own."""
    from textual.css.stylesheet import Stylesheet

    compat_textual.apply()
    variables = {"accent": "#ff0000", "panel": "#101010"}
    a, b = Stylesheet(variables=dict(variables)), Stylesheet(variables=dict(variables))
    assert a._variable_tokens is b._variable_tokens
    before = {k: list(v) for k, v in a._variable_tokens.items()}
    a.add_source("$accent: #00ff00 $panel;\nScreen { background: $accent; }",
                 read_from=("test", "redefines"))
    a.parse()
    assert {k: list(v) for k, v in b._variable_tokens.items()} == before
    assert str(a.rules[0].styles.background) != "" and before["accent"][0].value == "#ff0000"
    other = Stylesheet(variables={"accent": "#0000ff"})
    assert other._variable_tokens is not a._variable_tokens
    assert other._variable_tokens["accent"][0].value == "#0000ff"


@pytest.mark.parametrize(("chunks", "value"), [
    (["abc", "\x7fq"], "abq"),  # Backspace, then q: in that order
    (["abc", "\x15xyz"], "xyz"),  # Ctrl-U clears, then xyz
    (["abcd\x1b[D\x1b[D\x7fX\x1b[FZ"], "aXcdZ"),  # ← ← Backspace X End Z, all in one go
])
async def test_keys_arriving_together_reach_an_input_in_the_order_typed(
        chunks: list[str], value: str) -> None:
    """Keys parsed from one read (one SSH packet) are posted together: the input's own bound
    keys (Backspace, Ctrl-U, arrows, End) used to bubble to the app and run after the
    printable keys behind them (Textual issue 6605)."""
    from textual._xterm_parser import XTermParser
    from textual.app import App, ComposeResult
    from textual.containers import Vertical
    from textual.widgets import Input

    compat_textual.apply()
    submitted: list[str] = []

    class Form(App[None]):
        def compose(self) -> ComposeResult:
            with Vertical():
                yield Input()

        def on_input_submitted(self, event: Input.Submitted) -> None:
            submitted.append(event.value)

    app = Form()
    async with app.run_test() as pilot:
        box = app.query_one(Input)
        box.focus()
        await pilot.pause()
        for chunk in [*chunks, "\r"]:
            for message in XTermParser().feed(chunk):
                message.set_sender(app)
                app.post_message(message)
            await pilot.pause(0.05)
        assert box.value == value
        assert submitted == [value]


def test_a_style_is_drawn_in_each_sessions_colour_system() -> None:
    """One process serves terminals of 16, 256 and 24-bit colours: the same (shared) style
    drawn for one must not give its codes to another."""
    from rich.color import ColorSystem
    from rich.console import Console

    compat_textual.apply()
    style = Style(color="#005faf", bgcolor="#ffffd7", bold=True)  # the contrast theme's dots
    eight_bit = Strip([Segment("1筒", style)], 3)
    standard = Strip([Segment("1筒", style)], 3)
    wide = eight_bit.render(Console(color_system="256", force_terminal=True))
    narrow = standard.render(Console(color_system="standard", force_terminal=True))
    assert "38;5;" in wide and "38;5;" not in narrow and "48;5;" not in narrow, (wide, narrow)
    assert Strip.render_style(style, "x", ColorSystem.TRUECOLOR).startswith("\x1b[1;38;2;0;95;175")
    assert style._ansi is None  # nothing left in the style for another console to pick up
    # Rich's own rendering of the style still works, for its console's colour system
    out = Console(color_system="standard", force_terminal=True, width=20)
    with out.capture() as captured:
        out.print("x", style=style, end="")
    assert "38;5;" not in captured.get()


def test_a_blank_strip_is_drawn_in_each_sessions_colour_system() -> None:
    """``Strip.blank`` was one strip for every caller, and a strip keeps what it was first
    rendered to: a session of 16 colours drew a blank row in another's 256-colour codes."""
    from rich.console import Console

    compat_textual.apply()
    style = Style(color="#ffffd7", bgcolor="#005f00")  # the table's felt
    wide = Strip.blank(80, style).render(Console(color_system="256", force_terminal=True))
    narrow = Strip.blank(80, style).render(Console(color_system="standard", force_terminal=True))
    assert "48;5;22" in wide and "48;5;" not in narrow, (wide, narrow)
    assert Strip.blank(80, style).text == " " * 80
