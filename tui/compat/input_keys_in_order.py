"""Keys to an ``Input`` in the order typed. Upstream: Textual issue 6605 ("Input/Textarea action
synchronization bug"); the fix proposed in Textual PR 6631 runs the widget's own bindings inline,
as this does.

An ``Input`` inserts a printable key at once, but its own bound keys (Backspace, Ctrl-U, Enter)
run three queues later: keys that arrive in one SSH packet are applied out of order (Ctrl-U +
``friday`` + Enter in the lobby clears the line after typing it and submits nothing). Priority
bindings were already checked on the way down, so the input's own others run as it handles
the key, as the app would have run them."""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from tui.compat.compat_guard import fixed, has, install, own_method, skip


def input_keys_in_order() -> None:
    """``Input._on_key`` runs the input's own non-priority bindings as it handles the key."""
    patch = "input_keys_in_order"
    input_on_key = own_method(patch, Input, "_on_key", ("self", "event"))
    if input_on_key is None or fixed(input_on_key):
        return
    if not (has(events.Key, "_stop_propagation") and has(Input, "_bindings")):
        skip(patch, "Key._stop_propagation or Input._bindings is gone")
        return

    async def input_on_key_in_order(self: Input, event: events.Key) -> None:
        await input_on_key(self, event)
        if event._stop_propagation:  # a printable key, inserted
            return
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                event.stop()  # done here: not bubbled to the app to run again
                event.prevent_default()
                return

    install(Input, "_on_key", input_on_key_in_order)
