"""Textual's input parser, reading also what common SSH clients send. Upstream: not reported yet;
report drafted in docs/upstream.md, "XTermParser holds a complete unknown sequence and replays it
as typed keys".

When a CSI or SS3 sequence has reached its final byte and matches no key, ``XTermParser`` keeps
reading into it until the next Esc or 32 characters, then replays the whole of it as typed
characters: table keys the player never pressed. The SSH driver's parser is this subclass, which
asks ``tui.compat.term_keys`` about such a sequence."""

from __future__ import annotations

import inspect
from collections.abc import Iterable

from textual import events
from textual._xterm_parser import XTermParser
from textual.keys import Keys

from tui.compat import term_keys
from tui.compat.compat_guard import skip

_SEQUENCE_KEYS = getattr(XTermParser, "_sequence_to_key_events", None)
_SEQUENCE_KEYS_OK = callable(_SEQUENCE_KEYS) and list(
    inspect.signature(_SEQUENCE_KEYS).parameters) == ["self", "sequence", "alt"]


class ClientParser(XTermParser):
    """Textual's parser, reading also win32-input-mode key reports as their keys, and dropping a
    complete sequence with no key at its final byte. Where Textual's parser has changed shape,
    it is Textual's parser (said once in the log)."""

    def _sequence_to_key_events(self, sequence: str,
                                alt: bool = False) -> Iterable[events.Key]:
        found = list(super()._sequence_to_key_events(sequence, alt))
        if found or not _SEQUENCE_KEYS_OK or len(sequence) < 3:
            return found
        extra = term_keys.extra_key(sequence)
        if extra is None:
            return found
        if not extra.keys:  # dropped: Textual's own way of ignoring a sequence
            return [events.Key(Keys.Ignore, sequence)]
        out: list[events.Key] = []
        for name, char in extra.keys:
            if name is None and char is not None:
                out += super()._sequence_to_key_events(char, alt)
            elif name is not None:
                out.append(events.Key(name, char))
        return out


if not _SEQUENCE_KEYS_OK:
    skip("client_parser", "XTermParser._sequence_to_key_events(self, sequence, alt) is not there")
