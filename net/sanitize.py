"""Text one player types that another player's terminal will show: names and chat lines.

Everything that could act on a terminal is removed: escape sequences (CSI, OSC, DCS and the
rest), C0 and C1 control characters, DEL, bidirectional overrides and other format characters.
Textual markup is not interpreted in what we draw (callers use ``rich.text.Text``), but square
brackets are kept harmless anyway by the callers that need it.
"""

from __future__ import annotations

import re
import unicodedata

# ESC followed by a CSI/OSC/DCS/... sequence, or a lone ESC with one following char.
_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL or ST
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC ... ST
    r"|\x1b[ -/]*[0-~]?"  # other Esc sequences, or a lone Esc
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|[\x90\x9d\x98\x9e\x9f][^\x9c]*\x9c?"  # 8-bit DCS/OSC/SOS/PM/APC ... ST
)

NAME_MAX = 16
CHAT_MAX = 200


def strip_controls(text: str) -> str:
    """``text`` without escape sequences and without any control or format character."""
    text = _ESCAPE.sub("", text)
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            continue
        out.append(ch)
    return "".join(out)


def clean_line(text: str, max_len: int = CHAT_MAX) -> str:
    """One chat line: controls stripped, whitespace collapsed, at most ``max_len`` characters."""
    text = strip_controls(text.replace("\t", " ").replace("\n", " ").replace("\r", " "))
    text = " ".join(text.split())
    return text[:max_len]


def clean_name(text: str, max_len: int = NAME_MAX) -> str:
    """A nickname: a clean line without spaces or markup brackets; ``player`` if empty."""
    text = clean_line(text, 4 * max_len)
    text = "".join(ch for ch in text if ch not in " []\\'\"`")
    return text[:max_len] or "player"
