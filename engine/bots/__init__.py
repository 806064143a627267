"""Computer players. Each sees exactly one seat's :class:`~engine.view.View` — the same view a
human gets — and answers with one of its legal actions."""

from __future__ import annotations

from engine.bots.basic import BasicPlayer

__all__ = ["BasicPlayer"]
