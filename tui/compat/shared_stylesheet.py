"""One parse of the same CSS per process. Upstream: Textual PR 3575 ("parse cache") caches parsed
rules per ``Stylesheet``, not across apps; the process-wide cache is not reported yet: report
drafted in docs/upstream.md, "Every App parses the same CSS again".

Each app parses the same CSS again (the app's, every widget's defaults, again on each theme
change): most of the CPU of a new session. Parsed rules depend only on the CSS, where it came
from and the theme's variables, and nothing changes them after parsing, so one process-wide
cache keyed on all of these serves every app; likewise the variables as CSS tokens."""

from __future__ import annotations

from typing import Any

from textual.cache import LRUCache
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.tokenize import tokenize_values
from textual.css.tokenizer import Token

from tui.compat.compat_guard import fixed, has, install, own_method, skip

_TOKENS = "_Stylesheet__variable_tokens"  # the stylesheet's own (name-mangled) token cache


def shared_stylesheet() -> None:
    """``Stylesheet._parse_rules`` and ``_variable_tokens`` served from process-wide caches."""
    patch = "stylesheet_shared_parse"
    parse_rules = own_method(patch, Stylesheet, "_parse_rules",
                             ("self", "css", "read_from", "is_default_rules", "tie_breaker",
                              "scope"))
    if parse_rules is None or fixed(parse_rules):
        return
    if not isinstance(Stylesheet.__dict__.get("_variable_tokens"), property):
        skip(patch, "Stylesheet._variable_tokens is not a property")
        return
    if not (has(Stylesheet, _TOKENS) and has(Stylesheet, "_variables")):
        skip(patch, f"Stylesheet has no {_TOKENS} or _variables")
        return
    shared: LRUCache[tuple[Any, ...], list[RuleSet]] = LRUCache(512)

    def parse_rules_shared(self: Stylesheet, css: str, read_from: Any,
                           is_default_rules: bool = False, tie_breaker: int = 0,
                           scope: str = "") -> list[RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope,
               tuple(sorted(self._variables.items())))
        rules = shared.get(key)
        if rules is None:
            # parsing may add to the variables' token lists ($x defined again): not the shared
            tokens = self._variable_tokens
            setattr(self, _TOKENS, {k: list(v) for k, v in tokens.items()})
            try:
                rules = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
            finally:
                setattr(self, _TOKENS, tokens)
            shared[key] = rules
        return rules

    shared_tokens: LRUCache[tuple[tuple[str, str], ...], dict[str, list[Token]]] = LRUCache(16)

    def variable_tokens_shared(self: Stylesheet) -> dict[str, list[Token]]:
        tokens: dict[str, list[Token]] | None = getattr(self, _TOKENS)
        if tokens is None:
            key = tuple(sorted(self._variables.items()))
            tokens = shared_tokens.get(key)
            if tokens is None:
                tokens = shared_tokens[key] = tokenize_values(self._variables)
            setattr(self, _TOKENS, tokens)
        return tokens

    install(Stylesheet, "_parse_rules", parse_rules_shared)
    Stylesheet._variable_tokens = property(variable_tokens_shared)  # type: ignore[assignment,method-assign]
