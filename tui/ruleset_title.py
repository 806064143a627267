"""A ruleset's display name, as the table's status line, the result and the lobby title it."""

from __future__ import annotations

RULES_NAMES = {"yichun": ("宜春", "Yichun"), "shangrao": ("上饶", "Shangrao"),
               "gejiu": ("个旧", "Gejiu")}


def rules_title(rules: str, lang: str) -> str:
    zh, en = RULES_NAMES.get(rules, (rules, rules))
    return zh if lang == "zh" else f"{zh} {en}"
