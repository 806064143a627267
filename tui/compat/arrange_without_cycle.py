"""No reference cycle per layout. Upstream: not reported yet; report drafted in docs/upstream.md,
"Compositor._arrange_root leaves a reference cycle per layout".

A laid-out screen's ``Compositor._arrange_root`` calls itself through a nested ``add_widget``
whose closure holds itself, and with it the map of every widget laid out: a cycle per layout,
holding widgets of screens long gone until a full collection, which the server makes rare."""

from __future__ import annotations
import __future__

import inspect
import textwrap
from typing import Any

import textual._compositor

from tui.compat.compat_guard import fixed, install, skip


def arrange_without_cycle() -> None:
    """``Compositor._arrange_root``, compiled from Textual's own source with the closure let go
    of before it returns. Left as it is if the source is not the one this was written for."""
    patch = "compositor_arrange_without_cycle"
    compositor = textual._compositor.Compositor
    method = getattr(compositor, "_arrange_root", None)
    if method is None or not callable(method):
        skip(patch, "Compositor._arrange_root is gone")
        return
    if fixed(method):
        return
    try:
        source = textwrap.dedent(inspect.getsource(method))
        filename = inspect.getsourcefile(method) or "<textual._compositor>"
    except (OSError, TypeError):
        skip(patch, "Compositor._arrange_root has no source")
        return
    end = "    widgets -= invisible_widgets\n    return map, widgets\n"
    if source.count(end) != 1 or "\n    def add_widget(" not in source:
        skip(patch, "Compositor._arrange_root's source is not the one this was written for")
        return
    source = source.replace(
        end, "    widgets -= invisible_widgets\n    del add_widget\n    return map, widgets\n")
    # the same line numbers as Textual's file, for tracebacks
    first = method.__code__.co_firstlineno
    code = compile("\n" * (first - 1) + source, filename, "exec",
                   flags=__future__.annotations.compiler_flag, dont_inherit=True)
    namespace: dict[str, Any] = {}
    exec(code, vars(textual._compositor), namespace)  # Textual's own source, one line added
    arrange = namespace["_arrange_root"]
    arrange.__qualname__ = method.__qualname__
    install(compositor, "_arrange_root", arrange)
