"""The three rulesets, found by name: ``find_ruleset("yichun")``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.rulesets.base import UNLIMITED, OptionError, OptionSpec, Ruleset
from engine.rulesets.gejiu import Gejiu
from engine.rulesets.shangrao import Shangrao
from engine.rulesets.yichun import Yichun

RULESETS: dict[str, type[Ruleset]] = {cls.name: cls for cls in (Yichun, Shangrao, Gejiu)}


def find_ruleset(name: str, options: Mapping[str, Any] | None = None) -> Ruleset:
    """The ruleset called ``name`` (yichun, shangrao, gejiu) with ``options`` applied."""
    try:
        cls = RULESETS[name.lower()]
    except KeyError:
        raise ValueError(
            f"unknown ruleset {name!r} (choose from {', '.join(RULESETS)})"
        ) from None
    return cls(options)


__all__ = ["RULESETS", "UNLIMITED", "Gejiu", "OptionError", "OptionSpec", "Ruleset", "Shangrao",
           "Yichun", "find_ruleset"]
