"""No stdout/stderr redirection for the server's apps. Upstream: not reported yet; report drafted
in docs/upstream.md, "Overlapping apps restore sys.stdout out of order".

``App._process_messages`` wraps each app's life in ``redirect_stdout``/``stderr``; with
overlapping sessions they are restored out of order (``sys.stdout`` left pointing at a dead app,
which is never freed). For apps marked ``mj_remote`` the redirect does nothing. The server applies
it once per process (not ``apply()``: ``play`` keeps Textual's redirect)."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any

import textual.app as textual_app

from tui.compat.compat_guard import fixed, install, skip


def _remote(target: Any) -> bool:
    app = getattr(target, "app", None)
    return bool(getattr(app, "mj_remote", False))


def neutralise_redirects() -> None:
    """Textual's redirects of an app's stdout and stderr do nothing for an ``mj_remote`` app."""
    patch = "app_redirects_for_remote"
    real_out = getattr(textual_app, "redirect_stdout", None)
    real_err = getattr(textual_app, "redirect_stderr", None)
    if not (callable(real_out) and callable(real_err)):
        skip(patch, "textual.app has no redirect_stdout and redirect_stderr")
        return
    if fixed(real_out):
        return

    def redirect_out(target: Any) -> AbstractContextManager[Any]:
        return nullcontext() if _remote(target) else real_out(target)

    def redirect_err(target: Any) -> AbstractContextManager[Any]:
        return nullcontext() if _remote(target) else real_err(target)

    install(textual_app, "redirect_stdout", redirect_out)
    install(textual_app, "redirect_stderr", redirect_err)
