"""What plain mode says about a table, in one player's language: the seats and tiles by name,
each move as a sentence, the hand and its waits, a decision's options and the question that
asks them, the table looked at, a hand's result and the game's end, the waiting room. Lines
only: :mod:`tui.plain.front` says them when due, :mod:`tui.plain.commands` again on request."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.actions import Action, ActionType
from engine.table import Event, EventType, Phase
from engine.tiles import Kind, kind_to_str
from engine.view import MeldView, View
from host.client import TableUpdate
from host.coach import coach_table
from host.table_info import COMPUTER_NAME, ChatLine, TableInfo
from tui.plain.words import RELATIVE, SEATS, tile_name, tiles_names
from tui.view.decisions import KEYS, Decision, Option, decision, must_buy
from tui.view.hints import unseen_counts, waits_of
from tui.words.ruleset_title import rules_title
from words import TEXT, tr


def printable(text: str) -> str:
    """``text`` without control characters (a name or a chat line never carries an escape
    sequence to this terminal)."""
    return "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")


def held(view: View) -> list[Kind]:
    """The hand with the drawn tile last, as the player numbers it."""
    return [*view.hand, *([view.drawn] if view.drawn is not None else [])]


@dataclass(frozen=True)
class Answer:
    """An option of a decision as said in a question: its words and what typed picks it (its
    number, what picks its key, ranked where other options share the key: ``c1``, ``c2``;
    Enter for the option keyed ``pass``)."""

    option: Option
    words: str
    typed: tuple[str, ...]


class Sentences:
    """The lines said to one player (or spectator) in ``lang``; seats are named from where
    the latest :attr:`update` seats him."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.update: TableUpdate | None = None

    # --- words --------------------------------------------------------------------------------
    def tr(self, key: str, /, **fields: object) -> str:
        return tr(self.lang, key, **fields)

    def comma(self, words: Iterable[str]) -> str:
        return ("，" if self.lang == "zh" else ", ").join(words)

    def semi(self, words: Iterable[str]) -> str:
        return ("；" if self.lang == "zh" else "; ").join(words)

    def you(self) -> str:
        """The player as the subject of a sentence."""
        return "你" if self.lang == "zh" else "You"

    # --- naming -------------------------------------------------------------------------------
    def me(self) -> int | None:
        return self.update.view.viewer if self.update is not None else None

    def seat_name(self, seat: int, *, named: bool = False) -> str:
        """``East`` / ``南家``; with ``named`` also the player's name and where he sits."""
        wind = SEATS[self.lang][seat]
        if not named:
            return wind
        me = self.me()
        if me is not None and seat == me:
            return self.tr("p_seat_you", seat=wind)
        names = self.update.names if self.update is not None else ("", "", "", "")
        name = printable(names[seat])[:24] or "-"
        rel = RELATIVE[self.lang][(seat - me) % 4] if me is not None else ""
        if not rel:
            return f"{wind} {name}"
        return self.tr("p_seat_other", seat=wind, name=name, rel=rel)

    def who(self, seat: int | str) -> str:
        """A party of a result: ``East (you)`` / ``South``, or a spectator's name."""
        if not isinstance(seat, int):
            return printable(seat)[:24]
        me = self.me()
        wind = SEATS[self.lang][seat]
        if me is not None and seat == me:
            return f"{wind} ({RELATIVE[self.lang][0]})" if self.lang == "en" else f"{wind}（你）"
        return wind

    def tile(self, kind: Kind) -> str:
        return tile_name(kind, self.lang)

    def tiles(self, kinds: Sequence[Kind]) -> str:
        return tiles_names(kinds, self.lang) if kinds else self.tr("p_nothing")

    def meld(self, m: MeldView) -> str:
        if m.tiles is None:
            return self.tr("p_meld_hidden")
        return self.tr(f"p_meld_{m.type.value}", tiles=self.tiles(sorted(m.tiles)))

    def melds(self, melds: Sequence[MeldView]) -> str:
        return self.comma(self.meld(m) for m in melds) or self.tr("p_nothing")

    def chat_line(self, line: ChatLine) -> str:
        return self.tr("p_chat", who=printable(line.who)[:40], text=printable(line.text))

    # --- the table and the hand ---------------------------------------------------------------
    def table_lines(self, update: TableUpdate) -> list[str]:
        """The table at the start of a hand: the ruleset and hand, the seats, the scores."""
        view = update.view
        out = [self.tr("p_table", rules=rules_title(view.rules, self.lang), n=view.hand_no,
                       of=update.hands_per_game or "?", dealer=self.seat_name(view.dealer)),
               self.tr("p_seats", seats=self.semi(self.seat_name(s, named=True)
                                                for s in range(4)))]
        if view.viewer is None:
            out.append(self.tr("p_seat_spectating"))
        if any(update.totals):
            out.append(self.totals_line(update.totals, "p_scores"))
        return out

    def totals_line(self, values: Sequence[int], key: str) -> str:
        nets = self.comma(f"{self.who(s)} {values[s]:+d}" for s in range(4))
        return self.tr(key, nets=nets, scores=nets)

    def hand_line(self, view: View) -> str:
        if view.drawn is not None:
            return self.tr("p_hand_drawn", tiles=self.tiles(view.hand), tile=self.tile(view.drawn))
        return self.tr("p_hand", tiles=self.tiles(view.hand))

    def numbered_hand(self, view: View) -> str:
        return self.tr("p_hand_numbered", tiles=self.comma(
            f"{i + 1}: {self.tile(k)}" for i, k in enumerate(held(view))))

    def wild_line(self, view: View) -> list[str]:
        if view.wild is None or view.wild_indicator is None:
            return []
        return [self.tr("p_wild_is", wild=self.tile(view.wild), ind=self.tile(view.wild_indicator))]

    def event_line(self, e: Event, view: View, live: bool = True) -> str | None:
        """A move as a sentence, or None for those not said (another seat's draw; with
        ``live`` False, for ``log``, one's own draws too: the view holds only the latest
        drawn tile)."""
        me = view.viewer
        mine = me is not None and e.seat == me
        et = e.type
        if et is EventType.DEAL:
            return self.tr("p_ev_deal", n=view.hand_no)
        if et in (EventType.DRAW, EventType.REPLACEMENT):
            if not live or not mine or view.drawn is None or view.current != me:
                return None
            key = "p_ev_draw_you" if et is EventType.DRAW else "p_ev_replacement_you"
            return self.tr(key, tile=self.tile(view.drawn))
        if et is EventType.WILD:
            if e.tile is None or view.wild is None:
                return None
            return self.tr("p_ev_wild", tile=self.tile(e.tile), wild=self.tile(view.wild))
        key = "p_ev_" + et.value
        if et is EventType.ANGANG and e.tile is not None:
            key = "p_ev_angang_tile"
        if mine and f"{key}_you" in TEXT:
            key += "_you"
        if key not in TEXT:
            return None
        who = self.you() if mine else self.seat_name(e.seat) if e.seat is not None else ""
        return self.tr(key, who=who, tile=self.tile(e.tile) if e.tile is not None else "",
                       tiles=self.tiles(sorted(e.tiles)) if e.tiles else "")

    def waits_words(self, waits: Sequence[Kind]) -> str | None:
        """Any tile, or None where each tile is said."""
        return self.tr("p_waits_any") if len(waits) >= 34 else None

    def waits_line(self, view: View, waits: Sequence[Kind]) -> str:
        unseen = unseen_counts(view) if len(waits) < 34 else {}
        return self.tr("p_waits", tiles=self.waits_words(waits) or self.comma(
            self.tr("p_waits_left", tile=self.tile(k), n=unseen[k]) for k in waits))

    def ready_options(self, view: View) -> str | None:
        """On one's turn: the discards that leave the hand ready, and their waits."""
        tiles = held(view)
        if len(tiles) % 3 != 2:
            return None
        found: list[str] = []
        for k in sorted(set(tiles)):
            rest = list(tiles)
            rest.remove(k)
            waits = waits_of(view, sorted(rest))
            if waits:
                words = self.waits_words(tuple(waits)) or self.tiles(sorted(waits))
                found.append(self.tr("p_ready_option", tile=self.tile(k), waits=words))
            if len(found) == 4:
                break
        return self.tr("p_ready_by", options=self.semi(found)) if found else None

    def look_lines(self, update: TableUpdate) -> list[str]:
        """The table now: each seat's melds, discards and flags; the wall; whose turn."""
        view = update.view
        out = []
        for p in view.seats:
            flags = "".join(self.tr(key, n=p.flown) for key, on in (
                ("p_flag_dealer", p.seat == view.dealer), ("p_flag_ting", p.ting),
                ("p_flag_bought", p.bought), ("p_flag_lighter", p.lighter),
                ("p_flag_flown", p.flown)) if on)
            pond = self.tiles([d.kind for d in p.pond if d.claimed_by is None])
            out.append(self.tr("p_look_seat", who=self.seat_name(p.seat, named=True),
                               n=p.concealed_count, flags=flags, melds=self.melds(p.melds),
                               pond=pond))
        out += self.wild_line(view)
        kongs = [k for k in view.kong_tiles if k is not None]
        if kongs:
            out.append(self.tr("p_kong_tiles", tiles=self.tiles(kongs)))
        out.append(self.tr("p_wall", n=view.remaining))
        if view.current is not None:
            out.append(self.tr("p_your_turn") if view.current == view.viewer
                       else self.tr("p_turn_of", who=self.seat_name(view.current)))
        elif view.phase in (Phase.CLAIM, Phase.ROB):
            out.append(self.tr("p_turn_claims"))
        out.append(self.totals_line(update.totals, "p_res_totals"))
        return out

    # --- questions ----------------------------------------------------------------------------
    def question(self, view: View) -> tuple[str, list[Answer]]:
        """What the table asks of this player now, and the answers that a decision offers."""
        legal = view.legal
        if view.phase is Phase.TURN:
            more = "".join(self.tr(key) for key, on in (
                ("p_ask_turn_win", any(a.type is ActionType.WIN for a in legal)),
                ("p_ask_turn_kong", any(a.type in (ActionType.ANGANG, ActionType.BUGANG)
                                      for a in legal)),
                ("p_ask_turn_ting", any(a.type is ActionType.DISCARD and a.ting for a in legal)))
                if on)
            eg = kind_to_str(view.drawn if view.drawn is not None else
                             (view.hand[-1] if view.hand else 0))
            return self.tr("p_ask_turn", eg=eg, more=more), []
        d = decision(view)
        if d is None:
            return "", []
        answers = self.answers(view, d)
        choices = self.semi(c.words for c in answers)
        if d.kind == "buy":
            why = must_buy(view)  # no "no" to choose: the question says why
            if why is not None:
                return self.tr("p_ask_buy_must", choices=choices,
                               why=self.tr(f"buy_why_{why}", dice=view.dice)), answers
            return self.tr("p_ask_buy", choices=choices), answers
        if d.kind == "declare":
            return self.tr("p_ask_declare", choices=choices), answers
        tile = view.window_tile
        who = self.seat_name(view.window_from) if view.window_from is not None else "?"
        if view.window_from is not None and view.window_from == view.viewer:
            who = self.you()
        return self.tr(f"p_ask_{d.kind}", who=who,
                       tile=self.tile(tile) if tile is not None else "?", choices=choices), answers

    def answers(self, view: View, d: Decision) -> list[Answer]:
        """The decision's options in plain words (``c_WORD``), numbered from 1 but the one
        keyed ``pass`` (pass, cancel), which Enter picks; a key's letter and words take a
        rank too (``c1``, ``c2``), and alone pick an option only where no other shares it."""
        out: list[Answer] = []
        shared = Counter(o.key for o in d.options)
        rank: Counter[str] = Counter()
        n = 0
        for o in d.options:
            if o.key == "pass":
                out.append(Answer(o, self.tr(f"p_c_{o.word}"), ("", *KEYS["pass"])))
                continue
            n += 1
            rank[o.key] += 1
            ranked = tuple(t + str(rank[o.key]) for t in KEYS.get(o.key, ()))
            typed = ranked if shared[o.key] > 1 else (*KEYS.get(o.key, ()), *ranked)
            a = o.action
            assert a is not None
            tile = view.window_tile
            run = sorted((*a.tiles, tile)) if a.type is ActionType.CHI and tile is not None else []
            words = self.tr(f"p_c_{o.word}", n=n, letter=f" ({typed[0]})" if typed else "",
                            tiles=self.tiles(run),
                            tile=self.tile(a.tile) if a.tile is not None else "",
                            slot=self._slot(view, a),
                            lighter=self.tr("p_c_lighter") if a.lighter else "")
            out.append(Answer(o, words, (str(n), *typed)))
        return out

    def _slot(self, view: View, a: Action) -> str:
        if a.slot is None or a.slot >= len(view.kong_tiles):
            return ""
        k = view.kong_tiles[a.slot]
        return self.tr("p_c_slot", k=a.slot + 1, tile=self.tile(k) if k is not None else "?")

    # --- the result ---------------------------------------------------------------------------
    def result_lines(self, update: TableUpdate) -> list[str]:
        """The hand's result: every hand, each win and its items, every payment, the nets."""
        view = update.view
        lang = self.lang
        out = [self.tr("p_res_title", n=view.hand_no)]
        res = view.result
        if res is None:
            return [*out, self.tr("p_res_draw")]
        for s in range(4):
            melds = self.tr("p_res_melds", melds=self.melds(res.melds[s])) if res.melds[s] else ""
            out.append(self.tr("p_res_hand", who=self.who(s), tiles=self.tiles(res.hands[s]),
                               melds=melds))
        out += self.wild_line(view)
        settlement = res.settlement
        if not settlement.wins and not any(e.type is EventType.EXHAUSTED for e in view.events):
            out.append(self.tr("p_res_draw"))  # an exhausted wall said so as it happened
        for w in settlement.wins:
            how = ""
            if res.how is not None:
                src = self.who(res.from_seat) if res.from_seat is not None else "?"
                key = f"how_{res.how.value}"  # plain's own words where they are not the screen's
                how = self.tr(f"p_{key}" if f"p_{key}" in TEXT else key, who=src)
            out.append(self.tr(
                "p_res_win", who=self.who(w.seat), how=how,
                pattern=f"{w.pattern_zh} {w.pattern_en}" if lang == "en" else w.pattern_zh,
                tile=self.tile(res.win_tile) if res.win_tile is not None else "-"))
            for item in w.items:
                tiles = f" ({self.tiles(sorted(item.tiles))})" if item.tiles else ""
                out.append("  " + self.tr("p_res_item", zh=item.zh, en=item.en, value=item.value,
                                          tiles=tiles))
            out.append("  " + self.tr("p_res_value", v=w.value))
        for t in settlement.transfers:
            why = "".join(part.reading(lang) if part.meld is None
                          else f"({self.tiles(sorted(part.meld.tiles))})" for part in t.reason)
            out.append(self.tr("p_res_pays", payer=self.who(t.payer), payee=self.who(t.payee),
                               amount=t.amount, why=why))
        if not settlement.transfers:
            out.append(self.tr("p_res_no_pay"))
        if not _one_hand_game(update):  # else the game's totals are this hand's: said once
            out.append(self.totals_line(settlement.seats, "p_res_net"))
        out += [f"  {printable(name)[:24]} {v:+d}" for name, v in settlement.spectators.items()]
        if not update.game_over:  # the game's end says the totals once, under its hands
            out.append(self.totals_line(update.totals, "p_res_totals"))
        if settlement.next_dealer is not None and not update.game_over:
            out.append(self.tr("p_res_next_dealer", who=self.who(settlement.next_dealer)))
        return out

    def game_lines(self, update: TableUpdate) -> list[str]:
        out = []
        for h in () if _one_hand_game(update) else update.history:  # the totals say it
            nets = self.comma(f"{self.who(s)} {h.net[s]:+d}" for s in range(4))
            won = self.comma(self.who(s) for s in h.winners) or self.tr("nobody")
            out.append(self.tr("p_game_hands", n=h.hand_no, nets=nets, who=won))
        out.append(self.totals_line(update.totals, "p_res_totals"))
        top = max(update.totals)
        best = [s for s in range(4) if update.totals[s] == top]
        key = "p_game_over" if len(best) == 1 else "p_game_tied"
        out.append(self.tr(key, who=self.comma(self.who(s) for s in best)))
        if coach_table(update.view.options):  # practice: its results change no rating
            out.append(self.tr("coach_unrated"))
        if update.game_id:  # kept for replay by the server: shared by its ID
            g = update.game_id  # two groups of four, as the screen shows it (plain needs no
            shown = f"{g[:4]}-{g[4:]}" if len(g) == 8 else g  # Textual: not result_text's)
            out.append(self.tr("p_game_id", id=shown))
        return out

    def game_wait_lines(self, update: TableUpdate) -> list[str]:
        """After the game, once a seated player asked for a new game: that it was asked and
        whom it waits for (the screen's :func:`tui.view.result_text.game_wait_text`)."""
        waiting = update.waiting_for
        if not update.game_over or not waiting:
            return []
        me = self.me()
        who = self.comma(self.seat_name(s, named=True) for s in waiting if s != me)
        if me is not None and me in waiting:  # this player has not answered yet
            return [self.tr("p_game_asked_also", who=who) if who else self.tr("p_game_asked")]
        return [self.tr("p_game_waiting", who=who)]

    # --- the waiting room ---------------------------------------------------------------------
    def waiting_lines(self, info: TableInfo) -> list[str]:
        return [self.tr("p_waiting_table", name=printable(info.name),
                        rules=rules_title(info.rules, self.lang)),
                self.tr("p_seats", seats=self.semi(f"{SEATS[self.lang][s]} {self._sitting(info, s)}"
                                                 for s in range(4)))]

    def _sitting(self, info: TableInfo, s: int) -> str:
        name = info.seats[s].name
        return printable(name)[:24] if name else self.tr("p_empty_seat")

    def seat_changes(self, before: TableInfo, info: TableInfo) -> list[str]:
        """Who sat down and who left since ``before`` (not the computer players)."""
        out = []
        for s in range(4):
            old, new = before.seats[s].name, info.seats[s].name
            if new and new != old and new != COMPUTER_NAME:
                out.append(self.tr("p_sits", seat=SEATS[self.lang][s], name=printable(new)[:24]))
            elif old and not new and old != COMPUTER_NAME:
                out.append(self.tr("p_leaves", seat=SEATS[self.lang][s], name=printable(old)[:24]))
        return out


def _one_hand_game(update: TableUpdate) -> bool:
    """A game over after one hand whose totals are that hand's changes (a one-hand game):
    "this hand", "hand 1" and the totals would say the same numbers three times."""
    history = update.history
    return (update.game_over and len(history) == 1
            and tuple(history[0].net) == tuple(update.totals))
