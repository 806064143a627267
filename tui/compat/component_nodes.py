"""A node's component styles, made again, leave no cyclic garbage. Upstream: not reported yet;
report drafted in docs/upstream.md, "Replaced component-class nodes are cyclic garbage".

Textual extracts a widget's component-class styles (``COMPONENT_CLASSES``, the table widget's
41 ``tv--*`` parts) through a virtual ``DOMNode`` made per class each time the stylesheet is
applied to the widget (a screen resumed, a class toggled, the theme changed). The virtual
nodes of the previous application are dropped, each a web of reference cycles (its styles,
signals, bindings, message queue: about 45 objects), so only a full collection frees them: at
25 tables they were 93,000 of the objects a full collection found (``MJ_BENCH_FULLGC=15
python -m bench server``), and a server that freezes what survives its middle collections
(``net.serve.freeze_survivors``) would keep them for good. Once the new ones are in place,
the dropped ones are taken apart as an ended app's nodes are
(``tui.compat.app_release.take_apart``); their styles, which hold them only weakly, stay
readable by whoever kept them."""

from __future__ import annotations

from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

from tui.compat.app_release import take_apart
from tui.compat.compat_guard import fixed, install, own_method


def component_nodes_released() -> None:
    """``Stylesheet._process_component_classes`` takes apart the virtual nodes it replaced."""
    patch = "component_nodes_released"
    process = own_method(patch, Stylesheet, "_process_component_classes", ("self", "node"))
    if process is None or fixed(process):
        return

    def process_released(self: Stylesheet, node: DOMNode) -> None:
        before = node.__dict__.get("_component_styles")  # a dict of RenderStyles, each
        old = list(before.values()) if before else ()  # holding its virtual node weakly
        process(self, node)
        if not old:
            return
        now = {id(styles) for styles in node.__dict__.get("_component_styles", {}).values()}
        for styles in old:
            if id(styles) in now:
                continue
            virtual = getattr(styles, "node", None)
            if isinstance(virtual, DOMNode) and virtual is not node:
                take_apart(virtual)

    install(Stylesheet, "_process_component_classes", process_released, process)
