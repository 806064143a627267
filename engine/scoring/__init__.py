"""Settlement of a finished hand: ``score(situation) -> Settlement``.

One module per ruleset (``yichun``, ``shangrao``, ``gejiu``); the table engine and the
``mahjong-ssh score`` calculator both settle through :func:`score`.
"""

from __future__ import annotations

from engine.scoring import gejiu, shangrao, yichun
from engine.scoring.common import NotAWinError, SituationError
from engine.situation import Settlement, Situation

_SCORERS = {"yichun": yichun.score, "shangrao": shangrao.score, "gejiu": gejiu.score}


def score(situation: Situation) -> Settlement:
    """Settle ``situation``; raises :class:`SituationError` naming the field of a bad input
    (:class:`NotAWinError` when a declared win's tiles do not win)."""
    try:
        scorer = _SCORERS[situation.rules]
    except KeyError:
        raise SituationError(
            "rules", f"unknown ruleset {situation.rules!r} (yichun, shangrao, gejiu)"
        ) from None
    return scorer(situation)


__all__ = ["NotAWinError", "SituationError", "score"]
