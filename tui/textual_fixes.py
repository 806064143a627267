"""The Textual fixes under the names their callers and tests import: the fixes themselves,
with every other use of Textual's internals, are in ``tui.compat_textual``."""

from tui.compat_textual import (
    _STRIP_CACHES,
    RELEASE_KEEPS,
    RELEASED,
    apply,
    release_app,
    track_nodes,
)

__all__ = ["RELEASED", "RELEASE_KEEPS", "_STRIP_CACHES", "apply", "release_app", "track_nodes"]
