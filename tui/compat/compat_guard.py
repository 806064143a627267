"""What the compat modules (the Textual and Rich patches in ``tui.compat``,
``net.front.compat_asyncssh``) share: the check that a library's internal is still what a patch
was written for, and the one log line when it is not."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Sequence
from typing import Any


def fall_back(record: dict[str, str], log: logging.Logger, patch: str, why: str) -> None:
    """Leave ``patch`` out (the library's stock behaviour stays): noted in ``record`` and said
    once per process in ``log``."""
    if patch not in record:
        record[patch] = why
        log.warning("compat %s: not applied, stock behaviour kept (%s)", patch, why)


def method(fall_back: Callable[[str, str], None], patch: str, owner: type, name: str,
           params: Sequence[str], own_first: bool = False) -> Any | None:
    """``owner.name`` (with ``own_first``, as ``owner`` itself defines it, before what it
    inherits) if it is a function whose parameters are ``params``; else None after
    ``fall_back(patch, why)``."""
    found = owner.__dict__.get(name) if own_first else None
    if found is None:
        found = getattr(owner, name, None)
    if not callable(found):
        fall_back(patch, f"{owner.__name__}.{name} is gone")
        return None
    try:
        shape = tuple(inspect.signature(found).parameters)
    except (TypeError, ValueError):
        shape = ()
    if shape != tuple(params):
        fall_back(patch, f"{owner.__name__}.{name}{shape} is not {tuple(params)}")
        return None
    return found


def init_sets(cls: type, name: str) -> bool:
    """Whether one of ``cls``'s ``__init__`` methods sets ``name`` (found by name in their
    code, without making an instance)."""
    for klass in cls.__mro__:
        code = getattr(vars(klass).get("__init__"), "__code__", None)
        if code is not None and name in code.co_names:
            return True
    return False


# --- the Textual and Rich patches' own record and checks (``tui.compat``) ---------------------
# patch (or internal) name -> why it fell back to Textual's or Rich's stock behaviour, in this
# process (``make compat-check`` lists them)
FELL_BACK: dict[str, str] = {}
_log = logging.getLogger("tui.compat")
_FIXED = "_mj_fixed"  # set on every replacement: a patch applied twice is applied once


def skip(patch: str, why: str) -> None:
    """Leave ``patch`` out (Textual's or Rich's stock behaviour stays), said once per process
    in the log: a release that renamed what a patch needs must not break the game."""
    fall_back(FELL_BACK, _log, patch, why)


def has(cls: type, name: str) -> bool:
    """Whether instances of ``cls`` have attribute ``name``: on the class, or set by one of
    its ``__init__`` methods."""
    return hasattr(cls, name) or init_sets(cls, name)


def own_method(patch: str, owner: type, name: str, params: Sequence[str]) -> Any | None:
    """``owner.name`` as ``owner`` defines it (before what it inherits) if it is a function
    whose parameters are ``params``, else None after ``skip``."""
    return method(skip, patch, owner, name, params, own_first=True)


def fixed(function: Any) -> bool:
    """Whether ``function`` is one of our replacements (``mark_fixed``)."""
    return bool(getattr(function, _FIXED, False))


def mark_fixed(function: Any) -> None:
    setattr(function, _FIXED, True)


def install(owner: Any, name: str, function: Any, doc_of: Any = None) -> None:
    """``owner.name`` replaced by ``function``, marked as ours (``fixed``); with ``doc_of``,
    the docstring of what it replaces."""
    if doc_of is not None:
        function.__doc__ = doc_of.__doc__
    mark_fixed(function)
    setattr(owner, name, function)
