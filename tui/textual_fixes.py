"""The Textual fixes' former home: ``tui.compat_textual`` holds them (and every other use of
Textual's internals) now; these names stay for the callers and tests that import them here."""

from tui.compat_textual import (
    _STRIP_CACHES,
    RELEASE_KEEPS,
    RELEASED,
    apply,
    release_app,
    track_nodes,
)

__all__ = ["RELEASED", "RELEASE_KEEPS", "_STRIP_CACHES", "apply", "release_app", "track_nodes"]
