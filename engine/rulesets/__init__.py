"""The three rulesets, found by name: ``find_ruleset("yichun")``. Everything in which the
regional games differ is data or a hook on the :class:`Ruleset` subclasses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.rulesets.base import (
    UNLIMITED,
    BotProfile,
    OptionError,
    OptionSpec,
    Ruleset,
    StakeRules,
    parse_option_pairs,
)
from engine.rulesets.gejiu import Gejiu
from engine.rulesets.shangrao import Shangrao
from engine.rulesets.yichun import Yichun

RULESETS: dict[str, type[Ruleset]] = {cls.name: cls for cls in (Yichun, Shangrao, Gejiu)}
DEFAULT_RULES: str = Yichun.name  # the ruleset a new game or table has unless told otherwise


def find_ruleset(name: str, options: Mapping[str, Any] | None = None) -> Ruleset:
    """The ruleset called ``name`` (yichun, shangrao, gejiu) with ``options`` applied."""
    try:
        cls = RULESETS[name.lower()]
    except KeyError:
        raise ValueError(
            f"unknown ruleset {name!r} (choose from {', '.join(RULESETS)})"
        ) from None
    return cls(options)


__all__ = ["DEFAULT_RULES", "RULESETS", "UNLIMITED", "BotProfile", "Gejiu", "OptionError",
           "OptionSpec", "Ruleset", "Shangrao", "StakeRules", "Yichun", "find_ruleset",
           "parse_option_pairs"]
