"""A ruleset's display name, taken from its engine class so the name is written in one place."""

from __future__ import annotations

from engine.rulesets import RULESETS


def rules_title(rules: str, lang: str) -> str:
    """``宜春`` in Chinese, ``宜春 Yichun`` in English; an unknown name as it is."""
    cls = RULESETS.get(rules)
    zh, en = (cls.zh, cls.en) if cls is not None else (rules, rules)
    return zh if lang == "zh" else f"{zh} {en}"
