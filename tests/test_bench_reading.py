"""The reading bench's figures of where waits fall (bench/bench_reading.py)."""

from __future__ import annotations

from bench.bench_reading import auc, meld_suit, suit_feature
from engine.melds import Meld, MeldType
from engine.tiles import parse_tile, parse_tiles


def _meld(t: MeldType, tiles: str) -> Meld:
    return Meld(t, tuple(parse_tiles(tiles)))


def test_the_one_suit_of_two_suited_melds() -> None:
    chi, peng = MeldType.CHI, MeldType.PENG
    bamboo = [_meld(chi, "123s"), _meld(peng, "777s")]
    assert meld_suit(bamboo) == 2
    assert meld_suit([*bamboo, _meld(peng, "EEE")]) == 2  # honour melds aside
    assert meld_suit(bamboo[:1]) is None  # one suited meld says little
    assert meld_suit([bamboo[0], _meld(peng, "555p")]) is None  # two suits
    assert meld_suit([_meld(peng, "EEE"), _meld(peng, "FFF")]) is None
    assert suit_feature(parse_tile("4s"), 2) == "meld suit"
    assert suit_feature(parse_tile("4m"), 2) == "other suit"
    assert suit_feature(parse_tile("E"), 2) is None
    assert suit_feature(parse_tile("4s"), None) is None


def test_auc_ranks_positives_over_negatives() -> None:
    assert auc([(0.9, True), (0.1, False)]) == 1.0
    assert auc([(0.1, True), (0.9, False)]) == 0.0
    assert auc([(0.5, True), (0.5, False)]) == 0.5
