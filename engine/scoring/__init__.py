"""Settlement of a finished hand, one module per ruleset (``yichun``, ``shangrao``, ``gejiu``):
``score(situation, options) -> Settlement``, reached through the ruleset's own ``settle``
(which checks the options) or by the ruleset's name with :func:`engine.rulesets.score`; the
table engine and the ``mahjong-ssh score`` calculator both settle that way. Scoring imports no
ruleset: the rulesets import their scorers.
"""

from __future__ import annotations

from engine.scoring.common import NotAWinError, SituationError

__all__ = ["NotAWinError", "SituationError"]
