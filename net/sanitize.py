"""Text one player types that another player's terminal will show: names and chat lines.

Everything that could act on a terminal is removed: escape sequences (CSI, OSC, DCS and the
rest), C0 and C1 control characters, DEL, bidirectional overrides and other format characters,
and combining marks past the second on one character.
Nicknames are stricter (:func:`clean_name`): no default-ignorable code point (invisible:
U+3164, U+17B5, variation selectors...), no mix of scripts beyond Unicode's "Highly
Restrictive" level (UTS #39: one script, or Latin with Han and the Japanese kana, with Han
and Bopomofo, or with Han and Hangul), and no guest's mark (:data:`GUEST_MARK`, which only
guests' names carry). Two names that look alike have the same :func:`skeleton` (UTS #39,
over Unicode's confusables as the ``confusable-homoglyphs`` package ships them); the store
gives a name whose skeleton another account has the variant a taken name gets.
Textual markup is not interpreted in what we draw (callers use ``rich.text.Text``), but square
brackets are kept harmless anyway by the callers that need it.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from confusable_homoglyphs import categories  # type: ignore[import-untyped]
from confusable_homoglyphs.utils import load as load_confusables  # type: ignore[import-untyped]
from rich.cells import cell_len

from words import both

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
    """A nickname: a clean line without spaces, markup brackets, default-ignorable code
    points or a guest's mark; ``player`` if that leaves nothing, or if it mixes scripts
    (:func:`mixed_script`: ``bоb`` with a Cyrillic о). NFKC-normalised, as PRECIS's
    nickname profile (RFC 8265) has it: ``ｂｏｂ`` (full width) is ``bob``."""
    text = unicodedata.normalize("NFKC", clean_line(text, 4 * max_len))
    text = "".join(ch for ch in text if ch not in " []\\'\"`" and not default_ignorable(ch)
                   and GUEST_MARK not in skeleton(ch))
    text = text[:max_len]
    if mixed_script(text):
        return "player"
    return text or "player"


# --- look-alike names (Unicode Technical Standard #39) ---------------------------------------
# A guest's name ends with this mark (``bob~``): names of real accounts cannot have it (nor a
# character that looks like it), so a guest never holds a name a key or a passphrase asks for.
GUEST_MARK = "~"


def guest_name(base: str) -> str:
    """The name a guest asking for ``base`` (a clean name) plays under: ``base~``."""
    return base[:NAME_MAX - len(GUEST_MARK)] + GUEST_MARK


def is_guest_name(name: str) -> bool:
    return name.endswith(GUEST_MARK)


def name_variant(wanted: str, n: int) -> str:
    """The ``n``-th variant of a taken name, within :data:`NAME_MAX` characters: ``bob-2``,
    a guest's ``bob~2``."""
    if is_guest_name(wanted):
        suffix = f"{GUEST_MARK}{n}"
        return wanted[:-len(GUEST_MARK)][:NAME_MAX - len(suffix)] + suffix
    suffix = f"-{n}"
    return wanted[:NAME_MAX - len(suffix)] + suffix


# Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties.txt): drawn as nothing, so a
# name with one looks like the name without it. The property's ranges have been these since
# Unicode 6 (the rest of U+E0000..U+E0FFF is reserved as default-ignorable ahead).
_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF))


def default_ignorable(ch: str) -> bool:
    c = ord(ch)
    return any(lo <= c <= hi for lo, hi in _DEFAULT_IGNORABLE)


# UTS #39's "Highly Restrictive" level: besides one script (Common and Inherited characters,
# digits and punctuation, go with any), Latin may mix with these sets of East Asian scripts
_SCRIPT_SETS = (frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
                frozenset({"LATIN", "HAN", "BOPOMOFO"}),
                frozenset({"LATIN", "HAN", "HANGUL"}))


def mixed_script(text: str) -> bool:
    """Whether ``text`` mixes scripts beyond UTS #39's Highly Restrictive level (``bоb``
    with a Cyrillic о does; 周五, bob, 周五bob and 東京タワー do not)."""
    scripts = {categories.alias(ch) for ch in text} - {"COMMON", "INHERITED"}
    return len(scripts) > 1 and not any(scripts <= allowed for allowed in _SCRIPT_SETS)


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype, from confusables.txt as ``confusable-homoglyphs``
    ships it: for every line ``source → prototype`` its data lists the prototype under the
    source and the source under the prototype (Unicode's direction marks around right-to-left
    characters included, dropped here). A prototype is never a source, so a character listing
    one other (single) character, which lists more than it, is a source; one listing several
    is a prototype; a pair listing only each other is one source and its prototype, either
    way round: the smaller code point stands for both (a skeleton is only compared)."""
    plain = str.maketrans("", "", "\u200e\u200f")
    lists: dict[str, set[str]] = {}
    for key, entries in load_confusables("confusables.json").items():
        lists.setdefault(key.translate(plain), set()).update(
            str(e["c"]).translate(plain) for e in entries)
    out: dict[str, str] = {}
    for key, others in lists.items():
        if len(key) != 1 or len(others) != 1:
            continue
        (other,) = others
        if len(other) == 1 and len(lists.get(other, ())) == 1:
            if other < key:
                out[key] = other
        elif other:
            out[key] = other
    return out


def skeleton(text: str) -> str:
    """UTS #39's skeleton: two strings that look alike (``bob``, ``bоb`` with a Cyrillic о,
    ``ｂｏｂ``) have the same one. NFD (here NFKD: compatibility forms such as full-width
    letters, which confusables.txt leaves to normalisation, count as what they stand for),
    default-ignorable code points removed, each character replaced by its prototype, NFD
    again."""
    table = _prototypes()
    text = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in text
                                                if not default_ignorable(ch)))


TABLE_NAME_CELLS = 24
TABLE_NAME_RULE = both("table_name_rule")


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
