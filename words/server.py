"""The server's words (net/): the login, the lobby, an SSH command's replies, the stats, mostly
shown with :func:`words.both` before a session's language is known."""

from __future__ import annotations

from typing import Final

SERVER: Final[dict[str, tuple[str, str]]] = {
}
