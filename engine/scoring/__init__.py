"""Settlement of a finished hand: ``score(situation) -> Settlement``.

One module per ruleset (``yichun``, ``shangrao``, ``gejiu``), reached through the ruleset's own
``settle``; the table engine and the ``mahjong-ssh score`` calculator both settle that way.
"""

from __future__ import annotations

import engine.rulesets as rulesets
from engine.scoring.common import NotAWinError, SituationError
from engine.situation import Settlement, Situation


def score(situation: Situation) -> Settlement:
    """Settle ``situation`` by its ruleset; raises :class:`SituationError` naming the field of a
    bad input (:class:`NotAWinError` when a declared win's tiles do not win)."""
    cls = rulesets.RULESETS.get(situation.rules)
    if cls is None:
        raise SituationError(
            "rules", f"unknown ruleset {situation.rules!r} ({', '.join(rulesets.RULESETS)})"
        )
    return cls.settle(situation)


__all__ = ["NotAWinError", "SituationError", "score"]
