"""The three rulesets, found by name: ``find_ruleset("yichun")``; a finished hand settled by
the ruleset it names: ``score(situation)``. Everything in which the regional games differ is
data or a hook on the :class:`Ruleset` subclasses, each handing its scorer (``engine.scoring``,
which imports no ruleset) the options it checked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.rulesets.base import (
    UNLIMITED,
    BotProfile,
    OptionError,
    OptionSpec,
    Ruleset,
    parse_option_pairs,
)
from engine.rulesets.gejiu import Gejiu
from engine.rulesets.shangrao import Shangrao
from engine.rulesets.yichun import Yichun
from engine.scoring.common import SituationError, StakeRules
from engine.situation import Settlement, Situation

RULESETS: dict[str, type[Ruleset]] = {cls.name: cls for cls in (Yichun, Shangrao, Gejiu)}
DEFAULT_RULES: str = Yichun.name  # the ruleset a new game or table has unless told otherwise
# every ruleset's option keys: a situation may carry another ruleset's (they are ignored)
_OPTION_KEYS: frozenset[str] = frozenset(
    spec.key for cls in RULESETS.values() for spec in cls.options_spec)


def find_ruleset(name: str, options: Mapping[str, Any] | None = None) -> Ruleset:
    """The ruleset called ``name`` (yichun, shangrao, gejiu) with ``options`` applied."""
    try:
        cls = RULESETS[name.lower()]
    except KeyError:
        raise ValueError(
            f"unknown ruleset {name!r} (choose from {', '.join(RULESETS)})"
        ) from None
    return cls(options)


def score(situation: Situation) -> Settlement:
    """Settle ``situation`` by its ruleset; raises :class:`SituationError` naming the field of a
    bad input (:class:`~engine.scoring.NotAWinError` when a declared win's tiles do not win)."""
    cls = RULESETS.get(situation.rules)
    if cls is None:
        raise SituationError(
            "rules", f"unknown ruleset {situation.rules!r} ({', '.join(RULESETS)})"
        )
    return cls.settle(situation, _OPTION_KEYS)


__all__ = ["DEFAULT_RULES", "RULESETS", "UNLIMITED", "BotProfile", "Gejiu",
           "OptionError", "OptionSpec", "Ruleset", "Shangrao", "StakeRules", "Yichun",
           "find_ruleset", "parse_option_pairs", "score"]
