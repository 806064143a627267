"""A payment's reason is parts (words in both languages, figures, melds) that the result screen
reads in its language, and a settlement keeps the seats' results apart from the spectators':
the records and the calculator still write the same text and the same ``net`` map."""

from __future__ import annotations

import re

import pytest

from engine.bots import make_player
from engine.game import Game
from engine.melds import Meld
from engine.record import settlement_json
from engine.simulate import play_hand
from engine.situation import ReasonPart, Settlement, Spectator, reason, words
from engine.tiles import parse_tiles
from tui.view.faces import Face, small
from tui.view.result_text import readable_why

SEEDS = range(12)


def settlements(rules: str) -> list[Settlement]:
    out = []
    for seed in SEEDS:
        game = Game(rules, seed)
        if rules == "yichun":  # 压鸽子: spectators back a seat (names as the server gives them)
            game.spectators = (Spectator("甲", seed % 4), Spectator("乙", (seed + 1) % 4))
        hand = game.new_hand()
        play_hand(hand, [make_player("normal" if s % 2 else "easy") for s in range(4)],
                  check=False)
        assert hand.settlement is not None
        out.append(hand.settlement)
    return out


_MELD = re.compile(r"\[(\w+) ([0-9mpsEWSNZFB ]+)\]")


def parsed_why(why: str, face: Face) -> str:
    """What the screen showed before reasons had parts: melds found in the text again."""
    return _MELD.sub(lambda m: "(" + " ".join(small(k, face).strip()
                                              for k in parse_tiles(m.group(2))) + ")", why)


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_reasons_read_in_each_language(rules: str) -> None:
    transfers = [t for s in settlements(rules) for t in s.transfers]
    assert transfers
    for t in transfers:
        assert t.why == "".join(p.notation() for p in t.reason)
        # English: the record's words, melds as tiles (as the screen always showed them)
        assert readable_why(t.reason, Face.ASCII, "en") == parsed_why(t.why, Face.ASCII)
        # Chinese: the same figures and tiles, no English words
        zh = readable_why(t.reason, Face.ASCII, "zh")
        assert not re.search(r"[A-Za-z]{3,}", zh), zh
        assert re.findall(r"\d+", zh) == re.findall(r"\d+", parsed_why(t.why, Face.ASCII))


def test_reason_parts_join_plain_text_and_keep_words_and_melds() -> None:
    kong = Meld.parse("agang 3333s")
    parts = reason(words("杠分", "kong points"), " ", "暗杠 ", kong, ReasonPart("x", "甲"))
    assert parts == (ReasonPart("杠分 kong points", "杠分"), ReasonPart(" 暗杠 "),
                     ReasonPart(meld=kong), ReasonPart("x", "甲"))
    assert "".join(p.notation() for p in parts) == "杠分 kong points 暗杠 [agang 3333s]x"
    assert readable_why(parts, Face.ASCII, "zh") == "杠分 暗杠 (3s 3s 3s 3s)甲"


def test_spectators_results_are_kept_apart_from_the_seats() -> None:
    staked = [s for s in settlements("yichun") if any(s.spectators.values())]
    assert staked
    for s in staked:
        assert len(s.seats) == 4 and all(isinstance(v, int) for v in s.seats)
        assert set(s.spectators) == {"甲", "乙"}
        assert sum(s.seats) + sum(s.spectators.values()) == 0
        assert s.parties() == (*enumerate(s.seats), *s.spectators.items())
        net = settlement_json(s)["net"]
        assert net == {**dict(zip("ESWN", s.seats, strict=True)), **s.spectators}
        assert [s.seat_net(i) for i in range(4)] == list(s.seats)
