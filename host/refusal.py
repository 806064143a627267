"""Why a table, a seat or the lobby said no, as data: a key of :data:`words.refusals.REFUSALS`
and its fields, so each player reads it in their own language.

``tui`` and ``net`` both import this; the engine's own refusal (an illegal action) travels as
its reason's key (:func:`illegal`), so a player reads it in his language too.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import IllegalActionError
from words import both, tr
from words.refusals import REFUSALS

Param = str | int

@dataclass(frozen=True)
class Refusal:
    """A refusal: ``key`` names its text in :data:`REFUSALS`, ``params`` fill its fields."""

    key: str
    params: tuple[tuple[str, Param], ...] = ()

    def __post_init__(self) -> None:
        if self.key not in REFUSALS:
            raise KeyError(f"no text for the refusal {self.key!r}")

    @classmethod
    def of(cls, key: str, **params: Param) -> Refusal:
        return cls(key, tuple(sorted(params.items())))

    def text(self, lang: str | None) -> str:
        """In ``lang``; ``None`` (no session language: the lobby, a log line) in English and
        then Chinese."""
        if lang is None:
            return both(self.key, " ", **dict(self.params))  # sep given: no param binds it
        return tr(lang, self.key, **dict(self.params))

    def __str__(self) -> str:
        return self.text(None)


def illegal(exc: IllegalActionError) -> Refusal:
    """The table's refusal of an action it does not allow now, in the player's words: the
    engine's reason's key (``illegal_<why>`` in :data:`REFUSALS`) and its fields."""
    return Refusal.of(f"illegal_{exc.why}", **exc.fields)


class RefusedError(ValueError):
    """An exception that carries a :class:`Refusal` (its message: both languages)."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal


def explain(exc: BaseException, lang: str | None) -> str:
    """An error's message for a player of ``lang``: a refusal's in that language, another's
    as it is (an option's problem, named in the ruleset's own words)."""
    if isinstance(exc, RefusedError):
        return exc.refusal.text(lang)
    return str(exc)
