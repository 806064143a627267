"""Win detection (``engine.hands``): shapes per ruleset, edge cases, and agreement properties
against slow references (brute-force wild substitution, a plain recursive decomposer, and the
``mahjong`` library's ``Agari.is_agari``)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations_with_replacement, pairwise

import pytest
from mahjong.agari import Agari

from engine.hands import (
    HandShapes,
    best_pattern,
    can_win,
    is_baodiao_shape,
    lanpai_family,
    readings,
    shapes_named,
    standard_ok,
    waits,
)
from engine.melds import Meld, MeldType
from engine.rulesets import RULESETS
from engine.tiles import Kind, parse_tile, parse_tiles, to_counts
from testkit.hands import special_win

M = Meld.parse
T = parse_tiles


def S(rules: str) -> HandShapes:
    """The winning shapes of the ruleset called ``rules``."""
    return RULESETS[rules].shapes


def win(rules: str, tiles: str, melds: Sequence[str] = (), wild: str | None = None) -> bool:
    return can_win(S(rules), T(tiles), [M(m) for m in melds],
                   None if wild is None else parse_tile(wild))


# --- shapes -------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_standard_hands_win_everywhere(rules: str) -> None:
    assert win(rules, "123m 456p 789s EEE 55m")
    assert win(rules, "11122233344455m")
    assert win(rules, "55m", ["chi 123m", "peng EEE", "mgang 9999s", "agang 1111p"])
    assert not win(rules, "123m 456p 789s EEE 56m")
    assert not win(rules, "123m 456p 789s EE 556m")


def test_honour_sets_only_in_yichun() -> None:
    seed = "123m 345s 567p ESN 99m"  # the Yichun seed's own 平糊 example
    assert win("yichun", seed)
    assert win("yichun", "123m 345s 567p ZFB 99m")
    assert not win("gejiu", seed)
    assert not win("shangrao", seed)
    assert not win("yichun", "123m 345s 567p ZFZ 99m")  # a dragon set is exactly 中發白
    assert not win("yichun", "123m 345s 567p EEN 99m")  # three different winds
    assert win("yichun", "99m", ["chi EWN", "chi ZFB", "peng 111p", "chi 345s"])


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_seven_pairs_with_four_identical(rules: str) -> None:
    assert win(rules, "11m 33m 55p 77p 99s EE ZZ")
    assert win(rules, "2222m 44p 66p 88s SS BB")
    assert win(rules, "1111p 3333p 55p 77p 99p")
    assert not win(rules, "1111p 3333p 55p 77p 9p S")


def test_knitted_gap_rule_yichun_and_shangrao() -> None:
    for rules in ("yichun", "shangrao"):
        assert win(rules, "147m 258p 369s ESWNZ")
        assert win(rules, "158m 269p 147s ESWNZ")  # "间隔" = difference >= 3, not 147/258/369
        assert win(rules, "147m 258p 39s ESWNZF")  # six honours, 3+3+2
        assert win(rules, "14m 258p 39s ESWNZFB")  # seven stars
        assert not win(rules, "147m 258p 369s ESWNN")  # a repeated honour
        assert not win(rules, "146m 258p 369s ESWNZ")  # 4 and 6 too close
    assert not win("gejiu", "158m 269p 147s ESWNZ")  # Gejiu: classes mod 3 [A-G5]


def test_gejiu_lanpai_family() -> None:
    assert win("gejiu", "147m 258p 369s ESWNZ")
    assert win("gejiu", "17m 147p 258s ESWNZF")
    assert lanpai_family(T("47m 147p 14s ESWNZFB")) == "七星一般高"
    assert lanpai_family(T("147m 258p 369s ESWN Z")) == "烂牌"
    assert lanpai_family(T("147m 258p 369s ESWNZ F")) is None  # 15 tiles
    assert lanpai_family(T("14m 258p 36s ESWNZFB")) == "烂牌"  # 七星 烂牌: no extra [A-G7]


def test_yichun_all_honours_free_form() -> None:
    assert win("yichun", "EEE S WW NN ZZZ F BB")
    assert win("yichun", "S WW NN ZZZ F BB", ["agang EEEE"])
    assert not win("yichun", "S WW NN ZZZ F BB", ["peng EEE"])  # chi/peng: sets compulsory
    assert not win("gejiu", "EEE S WW NN ZZZ F BB")
    assert win("shangrao", "EEE S WW NN ZZZ F BB")  # Shangrao: that is 九幺


def test_shangrao_jiuyao_with_melds() -> None:
    assert win("shangrao", "19m 19p 19s EE SS WW ZZ")
    assert win("shangrao", "19m 9p 1s EE SW ZFB", ["peng 111p"])
    assert not win("shangrao", "19m 9p 1s EE SW ZFB", ["peng 222p"])
    assert not win("shangrao", "19m 9p 1s EE SW ZFB", ["chi 123p"])
    assert not win("yichun", "19m 19p 19s EE SS WW ZZ")


def test_shangrao_wilds() -> None:
    assert win("shangrao", "123m 456m 89s 7p EEE 22p", wild="7p")
    assert not win("shangrao", "123m 456m 89s 7p EEE 22p")
    assert win("shangrao", "5m 5m 5m 5m 1p 4s E N Z F B 3m 7s 1s", wild="5m")  # knitted
    assert win("shangrao", "5555m E", ["peng 111p", "peng 999s", "peng WWW"], wild="5m")
    assert win("shangrao", "147m 258p 36s ESWN FF", wild="F")  # S-19
    # a wild never makes an honour chow
    assert not win("shangrao", "123m 456m 789m ES 22s 5p", wild="5p")


def test_baodiao_shape() -> None:
    wild = parse_tile("5m")
    assert is_baodiao_shape(T("5m 123p 456p 789s EEE"), wild)
    assert is_baodiao_shape(T("5m 12p 5m 456s 789s EE 5m"), wild)
    assert is_baodiao_shape(T("5m"), wild)
    assert not is_baodiao_shape(T("6m 123p 456p 789s EEE"), wild)
    assert not is_baodiao_shape(T("5m 123p 456p 789s EE S"), wild)


def test_waits_and_patterns() -> None:
    nine_gates = T("1112345678999m")
    assert sorted(waits(S("gejiu"), nine_gates, [])) == list(range(9))
    assert waits(S("gejiu"), nine_gates, [])[0] == "平胡"
    assert waits(S("yichun"), T("11m 33m 55p 77p 99s EE Z"), []) == {parse_tile("Z"): "小七对"}
    w = waits(S("yichun"), T("123m 456p 789s ES 55m"), [])
    assert set(w) == {parse_tile("W"), parse_tile("N")}
    assert waits(S("gejiu"), T("123m 456p 789s ES 55m"), []) == {}
    assert best_pattern(S("shangrao"), T("111m 999p EEE ZZZ BB"), []) == "清碰碰糊"


def test_four_held_concealed_wait_on_no_fifth() -> None:
    """Four of a kind kept in the hand (a kong not declared): no fifth copy is a wait, and
    the count stays in range (this raised IndexError in the hints and in hard's 报听)."""
    for rules in ("yichun", "shangrao", "gejiu"):
        assert set(waits(S(rules), T("1111m 234m 567m 888p"), [])) == {
            parse_tile("4m"), parse_tile("7m")}
        assert parse_tile("1m") not in waits(S(rules), T("1111m 22m 33m 44m 55m 6m"), [])


def test_wrong_counts_and_unknown_rules() -> None:
    with pytest.raises(ValueError, match="14 concealed"):
        can_win(S("gejiu"), T("123m"), [])
    with pytest.raises(ValueError, match="unknown ruleset"):
        waits("riichi", T("123m 456p 789s EEE 5m"), [])
    assert shapes_named("gejiu") is S("gejiu")
    with pytest.raises(ValueError, match="no wild"):
        can_win(S("gejiu"), T("123m 456p 789s EEE 55m"), [], parse_tile("5m"))


def test_readings_clean_and_wild() -> None:
    rs = readings(S("shangrao"), T("22m 44m 66p 88p 11s 33s 5p5p"), [], parse_tile("5p"))
    assert any(r.shape == "seven_pairs" and r.clean for r in rs)
    rs = readings(S("shangrao"), T("11m 33m 55p 77p 99s EE Z 8s"), [], parse_tile("8s"))
    assert not any(r.clean for r in rs)


# --- reference implementations (slow, straightforward) -----------------------------------


def _ref_sets(c: list[int], yichun: bool) -> bool:
    """All tiles into sets, by plain backtracking on the lowest tile."""
    i = next((k for k in range(34) if c[k]), None)
    if i is None:
        return True
    options: list[tuple[int, ...]] = [(i, i, i)]
    if i < 27 and i % 9 <= 6:
        options.append((i, i + 1, i + 2))
    if yichun and 27 <= i <= 30:
        others = [k for k in range(27, 31) if k > i]
        options += [(i, a, b) for a in others for b in others if a < b]
    if yichun and i == 31:
        options.append((31, 32, 33))
    for opt in options:
        d = list(c)
        ok = True
        for k in opt:
            d[k] -= 1
            ok = ok and d[k] >= 0
        if ok and _ref_sets(d, yichun):
            return True
    return False


def _ref_standard(c: list[int], yichun: bool) -> bool:
    for k in range(34):
        if c[k] >= 2:
            d = list(c)
            d[k] -= 2
            if _ref_sets(d, yichun):
                return True
    return False


def _ref_can_win(rules: str, concealed: Sequence[Kind], melds: Sequence[Meld]) -> bool:
    c = to_counts(concealed)
    if _ref_standard(c, rules == "yichun"):
        return True
    if len(concealed) == 14:
        if all(x % 2 == 0 for x in c):
            return True
        distinct = all(x <= 1 for x in c)
        suits = [[r for r in range(9) if c[s * 9 + r]] for s in range(3)]
        if rules == "gejiu":
            if distinct and all(len({r % 3 for r in ranks}) <= 1 for ranks in suits):
                return True
        elif distinct and all(b - a >= 3 for ranks in suits for a, b in pairwise(ranks)):
            return True
    tiles = list(concealed) + [k for m in melds for k in m.tiles]
    if rules == "shangrao":
        term = all(k >= 27 or k % 9 in (0, 8) for k in tiles)
        if term and all(m.type is not MeldType.CHI for m in melds):
            return True
    return (
        rules == "yichun"
        and all(k >= 27 for k in tiles)
        and all(m.type is MeldType.AGANG for m in melds)
    )


# --- random near-winning hands -----------------------------------------------------------


def _random_hand(rng: random.Random, rules: str) -> tuple[list[Kind], list[Meld]]:
    """A random winning hand of the ruleset (several shapes), often disturbed by one tile."""
    counts = [0] * 34
    melds: list[Meld] = []
    concealed: list[Kind] = []

    def take(kinds: Sequence[Kind]) -> bool:
        trial = list(counts)
        for k in kinds:
            trial[k] += 1
        if max(trial) > 4:
            return False
        counts[:] = trial
        return True

    shape = rng.random()
    if shape < 0.12:
        while len(concealed) < 14:
            k = rng.randrange(34)
            if take([k, k]):
                concealed += [k, k]
    elif shape < 0.2:
        honours = rng.sample(range(27, 34), rng.randint(5, 7))
        suited: list[Kind] = []
        for s in rng.sample(range(3), 3):
            start = rng.randrange(3)
            ranks = list(range(start, 9, 3))
            suited += [s * 9 + r for r in ranks]
        rng.shuffle(suited)
        concealed = honours + suited[: 14 - len(honours)]
    elif shape < 0.25 and rules == "shangrao":
        pool = [0, 8, 9, 17, 18, 26, *range(27, 34)]
        while len(concealed) < 14:
            k = rng.choice(pool)
            if take([k]):
                concealed.append(k)
    else:
        n_melds = rng.choice((0, 0, 0, 1, 2))
        sets = 0
        while sets < 4:
            if (rng.random() < 0.5 and rules != "yichun") or rng.random() < 0.6:
                k = rng.randrange(34)
                group: list[Kind] = [k, k, k]
            elif rng.random() < 0.85 or rules != "yichun":
                s, r = rng.randrange(3), rng.randrange(7)
                group = [s * 9 + r + j for j in range(3)]
            else:
                group = rng.choice([sorted(rng.sample(range(27, 31), 3)), [31, 32, 33]])
            if not take(group):
                continue
            if sets < n_melds:
                mtype = MeldType.PENG if group[0] == group[1] else MeldType.CHI
                melds.append(Meld(mtype, tuple(group)))
            else:
                concealed += group
            sets += 1
        while True:
            k = rng.randrange(34)
            if take([k, k]):
                concealed += [k, k]
                break
    if rng.random() < 0.5:
        i = rng.randrange(len(concealed))
        k = rng.randrange(34)
        if counts[k] < 4:
            concealed[i] = k
    rng.shuffle(concealed)
    return concealed, melds


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_fast_detector_agrees_with_reference_without_wilds(rules: str) -> None:
    rng = random.Random(f"ref-{rules}")
    wins = 0
    for _ in range(10_000):
        concealed, melds = _random_hand(rng, rules)
        expected = _ref_can_win(rules, concealed, melds)
        assert can_win(S(rules), concealed, melds) == expected, (concealed, melds)
        wins += expected
    assert 2_000 < wins < 9_000  # the sample really mixes winning and non-winning hands


def _brute_force_wild(concealed: Sequence[Kind], melds: Sequence[Meld], wild: Kind) -> bool:
    """Slow reference: substitute every wild with every kind (all multisets of kinds, no copy
    limit) and ask the no-wild detector (itself checked against the recursive reference and
    the ``mahjong`` library above) whether the substituted hand wins."""
    rest = [k for k in concealed if k != wild]
    n = len(concealed) - len(rest)
    counts = to_counts(rest)
    for subst in combinations_with_replacement(range(34), n):
        for k in subst:
            counts[k] += 1
        won = standard_ok(counts, 0, S("shangrao")) or special_win(
            S("shangrao"), counts, 0, melds, len(concealed)
        )
        for k in subst:
            counts[k] -= 1
        if won:
            return True
    return False


def _with_wilds(
    rng: random.Random, concealed: list[Kind], melds: Sequence[Meld], target: int
) -> Kind | None:
    """Pick a wild kind and turn tiles of the hand into it until it holds ``target`` wilds."""
    in_melds = {k for m in melds for k in m.tiles}
    choices = [k for k in range(34) if k not in in_melds and concealed.count(k) <= target]
    wild = rng.choice(choices)
    others = [i for i, k in enumerate(concealed) if k != wild]
    for i in rng.sample(others, target - concealed.count(wild)):
        concealed[i] = wild
    return wild


def test_wild_detector_agrees_with_brute_force_substitution() -> None:
    rng = random.Random("wild-substitution")
    checked = {1: 0, 2: 0, 3: 0}
    wins = 0
    for _ in range(10_000):
        concealed, melds = _random_hand(rng, "shangrao")
        target = rng.choices((1, 2, 3), weights=(90, 9.7, 0.3))[0]
        wild = _with_wilds(rng, concealed, melds, target)
        assert wild is not None and concealed.count(wild) == target
        fast = can_win(S("shangrao"), concealed, melds, wild)
        assert fast == _brute_force_wild(concealed, melds, wild), (concealed, melds, wild)
        checked[target] += 1
        wins += fast
    assert checked[1] > 8_500 and checked[2] > 800 and checked[3] > 15
    assert 2_000 < wins < 9_500


def test_four_wilds_agree_with_brute_force() -> None:
    rng = random.Random("four-wilds")
    for _ in range(8):
        concealed, melds = _random_hand(rng, "shangrao")
        wild = _with_wilds(rng, concealed, melds, 4)
        assert wild is not None and concealed.count(wild) == 4
        fast = can_win(S("shangrao"), concealed, melds, wild)
        assert fast == _brute_force_wild(concealed, melds, wild), (concealed, melds, wild)


def _seven_distinct_pairs(c: Sequence[int]) -> bool:
    return sum(1 for x in c if x == 2) == 7


def _kokushi(c: Sequence[int]) -> bool:
    orphans = [0, 8, 9, 17, 18, 26, *range(27, 34)]
    return all(c[k] >= 1 for k in orphans) and sum(c[k] for k in orphans) == 14


def test_standard_shape_agrees_with_mahjong_library() -> None:
    """Standard 4 sets + pair (honours as pungs only) against ``Agari.is_agari``; the library
    also accepts seven distinct pairs and thirteen orphans, which are added to our side."""
    rng = random.Random("agari")
    agreed = wins = 0
    for _ in range(10_000):
        concealed, _melds = _random_hand(rng, "gejiu")
        c = to_counts(concealed)
        ours = standard_ok(c, 0, S("gejiu")) or (
            len(concealed) == 14 and (_seven_distinct_pairs(c) or _kokushi(c))
        )
        assert ours == Agari.is_agari(c), concealed
        agreed += 1
        wins += ours
    assert agreed == 10_000 and 2_000 < wins < 9_000


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_scoring_readings_agree_with_the_fast_detector(rules: str) -> None:
    """The scorer reads hands through ``readings``; it must accept exactly the hands
    ``can_win`` accepts (with wilds in Shangrao)."""
    rng = random.Random(f"readings-{rules}")
    for _ in range(4_000):
        concealed, melds = _random_hand(rng, rules)
        wild = None
        if rules == "shangrao" and rng.random() < 0.7:
            wild = _with_wilds(rng, concealed, melds, rng.choice((1, 1, 2, 3, 4)))
        assert bool(readings(S(rules), concealed, melds, wild)) == can_win(
            S(rules), concealed, melds, wild
        ), (concealed, melds, wild)


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_group_keys_win_test_agrees_with_counts(rules: str) -> None:
    """can_win_keys over the four group keys answers exactly as can_win_counts: near-winning
    hands built at random (sets + pair, some disturbed), with melds and Shangrao wilds."""
    from engine.group_keys import can_win_keys, group_keys, key_of
    from engine.hands import can_win_counts

    shapes = RULESETS[rules].shapes
    rng = random.Random(7)
    wins = 0
    for _ in range(4000):
        counts = [0] * 34
        melds = rng.choice([0, 0, 0, 1, 2])
        for _ in range(4 - melds):
            k = rng.randrange(34)
            if k < 27 and k % 9 <= 6 and rng.random() < 0.6:
                for x in (k, k + 1, k + 2):
                    counts[x] += 1
            else:
                counts[k] += 3
        counts[rng.randrange(34)] += 2
        if rng.random() < 0.5:
            i = rng.choice([k for k in range(34) if counts[k]])
            counts[i] -= 1
            counts[rng.randrange(34)] += 1
        if any(c > 4 for c in counts):
            continue
        wild = rng.randrange(34) if shapes.wild and rng.random() < 0.5 else None
        ms = tuple(Meld(MeldType.PENG, (k, k, k)) for k in (27, 28)[:melds])
        expected = can_win_counts(shapes, counts, ms, wild)
        w = counts[wild] if wild is not None else 0
        plain = list(counts)
        if wild is not None:
            plain[wild] = 0
        keys = group_keys(plain)
        assert can_win_keys(shapes, keys, ms, w) == expected, (counts, wild, melds)
        # keys kept up to date tile by tile agree with keys made afresh
        k0 = rng.randrange(34)
        g, step = key_of(k0)
        keys[g] += step
        plain[k0] += 1
        assert keys == group_keys(plain)
        wins += expected
    assert wins > 400  # the hands were near-winning: a good share wins


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_completing_kinds_are_the_kinds_that_win(rules: str) -> None:
    """completing_kinds looks up only the group a tile joins: its kinds are exactly those
    can_win_counts says complete the hand, over every shape (seven pairs, the knitted and
    烂牌 families, 九幺, melds, Shangrao wilds and the wild kind itself), never a fifth copy."""
    from engine.group_keys import completing_kinds
    from engine.hands import can_win_counts

    shapes = S(rules)
    rng = random.Random(f"completing-{rules}")
    found = 0
    for _ in range(3_000):
        concealed, melds = _random_hand(rng, rules)
        wild = None
        if rules == "shangrao" and rng.random() < 0.5:
            wild = _with_wilds(rng, concealed, melds, rng.choice((1, 1, 2, 3)))
        concealed = list(concealed)
        concealed.pop(rng.randrange(len(concealed)))  # 3n+1 tiles
        counts = to_counts(concealed)
        expected = []
        for k in range(34):
            if counts[k] >= 4 and k != wild:
                continue
            trial = list(counts)
            trial[k] += 1
            if can_win_counts(shapes, trial, melds, wild):
                expected.append(k)
        plain = list(counts)
        w = 0
        if wild is not None:
            w, plain[wild] = plain[wild], 0
        assert completing_kinds(shapes, plain, melds, w, wild) == expected, (
            concealed, melds, wild)
        found += bool(expected)
    assert found > 1_000  # most hands one tile short of a win wait on something


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_completing_kinds_of_any_hand_without_wilds(rules: str) -> None:
    """Without wilds the standard shape's waits come from per-group tables and the other
    shapes are tried only where they can hold: over hands of any make-up (any tiles, thirteen
    distinct, terminals and honours only, honours only; no meld to four), the kinds are
    exactly those can_win_counts says complete the hand."""
    from engine.group_keys import completing_kinds
    from engine.hands import can_win_counts

    shapes = S(rules)
    rng = random.Random(f"completing-any-{rules}")
    pools = {
        "any": list(range(34)),
        "distinct": list(range(34)),
        "terminal": [k for k in range(34) if k >= 27 or k % 9 in (0, 8)],
        "honour": list(range(27, 34)),
        "two suits": list(range(18)),
    }
    seen = dict.fromkeys(pools, 0)
    for i in range(6_000):
        name = list(pools)[i % len(pools)]
        pool = pools[name]
        n_melds = rng.choice((0, 0, 0, 1, 2, 3, 4))
        melds: list[Meld] = []
        counts = [0] * 34
        for _ in range(n_melds):
            k = rng.choice([k for k in pool if counts[k] == 0])
            counts[k] = 3  # the meld's copies, out of reach of the concealed tiles
            melds.append(Meld(MeldType.PENG, (k, k, k)))
        held = [0] * 34
        need = 13 - 3 * n_melds
        if name == "distinct":
            free = [k for k in pool if counts[k] == 0]
            for k in rng.sample(free, min(need, len(free))):
                held[k] = 1
        while sum(held) < need:
            k = rng.choice(pool)
            if counts[k] + held[k] < 4:
                held[k] += 1
        expected = []
        for k in range(34):
            if held[k] >= 4:
                continue
            trial = list(held)
            trial[k] += 1
            if can_win_counts(shapes, trial, melds):
                expected.append(k)
        assert completing_kinds(shapes, held, melds) == expected, (held, melds)
        seen[name] += bool(expected)
    assert all(seen.values()), seen  # every make-up had hands that wait on something
