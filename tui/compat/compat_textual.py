"""Textual's and Rich's internals, patched or read: ``apply()`` runs the patches, each in its own
module of ``tui.compat`` that names the upstream report it works around (``docs/upstream.md``
holds the drafted ones); the reads of private attributes are in ``tui.compat.internals``, and
the rest of the program imports each from its own module.

Each patch checks, when it is applied, that what it replaces is there with the shape it was
written for (the attribute, callable, its parameters); when not, it leaves the stock behaviour and
logs one warning naming the patch (``FELL_BACK`` lists them, for ``make compat-check``). Checked
against textual 8.2 and rich 15.0 (the pins in ``requirements.lock``)."""

from __future__ import annotations

from tui.compat.app_release import node_tracking, screens_released
from tui.compat.arrange_without_cycle import arrange_without_cycle
from tui.compat.component_nodes import component_nodes_released
from tui.compat.inner_outer_shared import inner_outer_shared
from tui.compat.input_keys_in_order import input_keys_in_order
from tui.compat.internals import check_internals
from tui.compat.lru_unlinked import unlinked_lru_cache
from tui.compat.screen_resize_once import screen_resize_once
from tui.compat.shared_stylesheet import shared_stylesheet
from tui.compat.strip_color_codes import blank_strips_per_call, codes_per_color_system
from tui.compat.strip_lazy_caches import lazy_strip_caches
from tui.compat.strip_self_cache import crop_extend_self, divide_self

# applied in this order, the one the suite pins
PATCHES = (divide_self, crop_extend_self, shared_stylesheet, screen_resize_once,
           input_keys_in_order, lazy_strip_caches, arrange_without_cycle, unlinked_lru_cache,
           node_tracking, inner_outer_shared, codes_per_color_system, blank_strips_per_call,
           component_nodes_released,
           screens_released)
_applied = False


def apply() -> None:
    """Every patch, once per process (a second call does nothing), then the check of the
    internals read: the entry points and the test session call it before any app runs. The
    server also calls ``neutralise_redirects`` (``play`` keeps Textual's redirect)."""
    global _applied
    if _applied:
        return
    _applied = True
    for patch in PATCHES:
        patch()
    check_internals()
