"""Every word the program shows, in English and Chinese, one catalogue for every layer (it
imports nothing of the program but this package): the screen's (:mod:`words.screen`), plain
mode's (:mod:`words.plain`), the refusals (:mod:`words.refusals`), the server's
(:mod:`words.server`), the tournaments' (:mod:`words.tournament`) and ``find``'s
(:mod:`words.find`), and the seats' names. Rule names keep
their Chinese name in both languages.

``tr(lang, key, **fields)`` is the one lookup; ``both(key, **fields)`` is what is shown before
a session's language is known (the lobby, the login, an SSH command's reply, a log line): the
English and then the Chinese, once where the two are the same.
"""

from __future__ import annotations

from typing import Final

from words.find import FIND
from words.plain import PLAIN
from words.refusals import REFUSALS
from words.screen import SCREEN
from words.server import SERVER
from words.tournament import TOURNAMENT

# each key's (English, Chinese); the tables' keys never meet (tests/test_words.py)
TEXT: Final[dict[str, tuple[str, str]]] = {**SCREEN, **PLAIN, **REFUSALS, **SERVER, **FIND,
                                      **TOURNAMENT}


def tr(lang: str, key: str, /, **fields: object) -> str:
    """``key`` in ``lang`` (Chinese for ``zh``, else English), its fields filled (any name: a
    text may have a field called ``table`` or ``lang``). Where ``n`` is 1 and the key has a
    ``KEY_1`` entry, that one (English's singular: "1 table", not "1 tables")."""
    if fields.get("n") == 1 and f"{key}_1" in TEXT:
        key = f"{key}_1"
    text = TEXT[key][lang == "zh"]
    return text.format(**fields) if fields else text


def both(key: str, /, sep: str = " ", **fields: object) -> str:
    """English, ``sep``, Chinese (no field may be called ``sep``); once where they are one."""
    en, zh = tr("en", key, **fields), tr("zh", key, **fields)
    return en if en == zh else f"{en}{sep}{zh}"


SEAT_WINDS_ZH: Final = "东南西北"
SEAT_WINDS_EN: Final = "ESWN"

# position of a seat relative to the viewer: 0 self, 1 下家 (right), 2 对家 (across), 3 上家 (left)
RELATIVE: Final = {
    "en": ("You", "Right", "Across", "Left"),
    "zh": ("自己", "下家", "对家", "上家"),
}


def seat_wind(seat: int, lang: str) -> str:
    return (SEAT_WINDS_ZH if lang == "zh" else SEAT_WINDS_EN)[seat]


# a seat as a spectator (who sits nowhere) names it: by its wind alone
ABSOLUTE: Final = {
    "en": ("East", "South", "West", "North"),
    "zh": ("东家", "南家", "西家", "北家"),
}


def relative_name(viewer: int | None, seat: int, lang: str) -> str:
    """``下家`` / ``Right`` from the viewer's seat; for a spectator (``None``) ``东家`` /
    ``East``."""
    if viewer is None:
        return ABSOLUTE["zh" if lang == "zh" else "en"][seat]
    return RELATIVE["zh" if lang == "zh" else "en"][(seat - viewer) % 4]


def named_seat(viewer: int | None, seat: int, lang: str,
               names: tuple[str, ...] = ()) -> str:
    """The seat's label with its player's name, as the table shows them (``Left N wes``);
    the label alone for one's own seat or a seat without a name."""
    label = seat_label(viewer, seat, lang)
    name = names[seat] if len(names) == 4 and seat != viewer else ""
    return f"{label} {name}" if name else label


def seat_label(viewer: int | None, seat: int, lang: str) -> str:
    """``下家·南`` / ``Right S``; for a spectator ``南家`` / ``South``."""
    rel = relative_name(viewer, seat, lang)
    if viewer is None:
        return rel
    if lang == "zh":
        return f"{rel}·{SEAT_WINDS_ZH[seat]}"
    return f"{rel} {SEAT_WINDS_EN[seat]}"



def computer_name(lang: str, level: str | None = None) -> str:
    """The name a seat the computer plays shows: ``normal (computer)`` / ``普通电脑`` with its
    level, ``computer`` / ``电脑`` where the level is not known (a game record)."""
    if level is None or f"level_{level}" not in TEXT:
        return tr(lang, "bot_name")
    return tr(lang, "bot_name_level", level=tr(lang, f"level_{level}"))
