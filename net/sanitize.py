"""Text one player types that another player's terminal will show: names and chat lines.

Everything that could act on a terminal is removed: escape sequences (CSI, OSC, DCS and the
rest), C0 and C1 control characters, DEL, bidirectional overrides and other format characters,
and combining marks past the second on one character.
Textual markup is not interpreted in what we draw (callers use ``rich.text.Text``), but square
brackets are kept harmless anyway by the callers that need it.
"""

from __future__ import annotations

import re
import unicodedata

from rich.cells import cell_len

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


MARKS_MAX = 2  # combining marks kept on one character (no "Zalgo" towers over other rows)


def strip_controls(text: str) -> str:
    """``text`` without escape sequences and without any control or format character, and
    with at most :data:`MARKS_MAX` combining marks on a character (none on nothing)."""
    text = _ESCAPE.sub("", text)
    out = []
    marks = MARKS_MAX  # the text's start: no character to carry a mark
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            continue
        if cat in ("Mn", "Me"):
            if marks >= MARKS_MAX:
                continue
            marks += 1
        else:
            marks = 0
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


TABLE_NAME_CELLS = 24
TABLE_NAME_RULE = ("letters, digits, - or _, up to 24 cells (a Chinese character takes two) "
                   "牌桌名：字母、数字、汉字、- 或 _，最长 24 个字符（一个汉字算两个）")


def valid_table_name(name: str) -> bool:
    """A table name: letters and digits of any script (周五, friday2), ``-`` and ``_``, at
    most 24 terminal cells wide (a CJK character takes two)."""
    if not name or cell_len(name) > TABLE_NAME_CELLS:
        return False
    return all(ch in "-_" or (unicodedata.category(ch)[0] in "LN" and cell_len(ch) > 0)
               for ch in name)


def table_name(text: str) -> str:
    """A typed table name as it is kept: NFC-normalised, so the same name typed on two
    keyboards (composed or not) is the same table."""
    return unicodedata.normalize("NFC", text.strip())


def pad(text: str, cells: int) -> str:
    """``text`` padded with spaces to ``cells`` terminal cells (``str.ljust`` counts
    characters: a CJK name would push the columns after it out of line)."""
    return text + " " * max(0, cells - cell_len(text))
