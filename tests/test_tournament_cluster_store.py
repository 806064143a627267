"""A tournament changed by several workers at once (issue 56, a server of several workers):
two stores on one database as two worker processes have them (two SQLite connections to one
file, two PostgreSQL stores on one database). A change is one read-change-write under the
database's lock (``update_tournament``), so two results recorded at once are both kept and
the next round is seated once; a stale whole save never takes a result back."""

from __future__ import annotations

import threading
import time

import pytest

from engine.tournament import FINISHED, RUNNING, Entry, TableResult, Tournament, TournamentError
from net.cluster.tournaments import merged
from net.runtime.tournaments import TournamentRefused
from net.store import Store


def _started(n: int = 8) -> Tournament:
    t = Tournament("club", "shangrao", 2, host=1, seed=77, duplicate=True)
    for i in range(1, n + 1):
        t.join(Entry(i, f"p{i}"))
    t.start()
    return t


def _result(k: int) -> TableResult:
    return TableResult(((k, -k, 0, 0),), ((0,),), f"game{k:04d}")


def test_a_stale_whole_save_keeps_the_results_it_did_not_see(
        two_stores: tuple[Store, Store]) -> None:
    a, b = two_stores
    t = _started()
    assert a.save_tournament(t) and a.flush(10)
    mine, theirs = a.load_tournaments()[0], b.load_tournaments()[0]
    mine.record(1, 1, _result(1))
    theirs.record(1, 2, _result(2))  # its copy has table 1 playing still
    assert a.save_tournament(mine) and a.flush(10)
    assert b.save_tournament(theirs) and b.flush(10)
    back = a.load_tournament("club")
    assert back is not None and sorted(back.played[0].results) == [1, 2]
    assert back.played[0].results[1].game_id == "game0001"


def test_two_results_recorded_at_once_are_both_kept_and_the_next_round_seated_once(
        two_stores: tuple[Store, Store]) -> None:
    a, b = two_stores
    t = _started()
    assert a.save_tournament(t) and a.flush(10)
    inside = threading.Event()
    seated: list[int] = []

    def record(store: Store, table_no: int, slow: bool) -> None:
        def change(t: Tournament | None) -> Tournament | None:
            assert t is not None
            if slow:  # the other worker's change comes while this one holds the lock
                inside.set()
                time.sleep(0.5)
            if table_no in t.played[0].results:
                return None
            nxt = t.record(1, table_no, _result(table_no))
            if nxt is not None:
                seated.append(nxt.no)
            return t
        store.update_tournament("club", change)

    first = threading.Thread(target=record, args=(a, 1, True))
    first.start()
    assert inside.wait(10)
    record(b, 2, False)
    first.join(10)
    for store in (a, b):
        back = store.load_tournament("club")
        assert back is not None and back.state == RUNNING
        assert sorted(back.played[0].results) == [1, 2] and back.played[0].over
        assert len(back.played) == 2
    assert seated == [2], "the round's last result seats the next round, once"


def test_a_change_that_raises_saves_nothing_and_a_name_is_made_once(any_store: Store) -> None:
    t = _started(4)

    def make(current: Tournament | None) -> Tournament | None:
        if current is not None:
            raise TournamentError("tournament_exists")
        return t

    assert any_store.update_tournament("club", make) == t
    with pytest.raises(TournamentError):
        any_store.update_tournament("club", make)

    def finish(current: Tournament | None) -> Tournament | None:
        assert current is not None
        current.record(1, 1, _result(1))
        raise TournamentError("tournament_no_round")

    with pytest.raises(TournamentError):
        any_store.update_tournament("club", finish)
    back = any_store.load_tournament("club")
    assert back == t and not back.played[0].results
    assert any_store.load_tournament("none") is None


def test_a_finished_tournament_is_not_taken_back_by_a_stale_save(any_store: Store) -> None:
    t = _started(4)
    stale = Tournament.from_json(t.to_json())
    t.record(1, 1, _result(1))
    t.record(2, 1, _result(2))
    assert t.state == FINISHED
    assert any_store.save_tournament(t) and any_store.save_tournament(stale)
    assert any_store.flush(10)
    back = any_store.load_tournament("club")
    assert back is not None and back.state == FINISHED and back == t


def test_a_command_made_on_what_it_read_is_made_again_on_what_is_stored() -> None:
    base = Tournament("club", "shangrao", 2, host=1, seed=77)
    for i in range(1, 4):
        base.join(Entry(i, f"p{i}"))
    stored = Tournament.from_json(base.to_json())
    stored.join(Entry(9, "p9"))  # another worker's join meanwhile
    mine = Tournament.from_json(base.to_json())
    mine.join(Entry(4, "p4"))
    both = merged(base, mine, Tournament.from_json(stored.to_json()))
    assert [e.name for e in both.entries] == ["p1", "p2", "p3", "p9", "p4"]
    assert merged(base, mine, Tournament.from_json(base.to_json())) is mine  # nothing meanwhile
    # a start made on the entries as they are now; refused once another started it
    started = Tournament.from_json(stored.to_json())
    started.start()
    start = Tournament.from_json(base.to_json())
    start.join(Entry(4, "p4"))
    start.start()
    again = merged(base, start, Tournament.from_json(stored.to_json()))
    assert again.state == RUNNING and len(again.entries) == 5
    assert sum(s.pid is not None for rt in again.played[0].tables for s in rt.seats) == 5
    with pytest.raises(TournamentRefused) as refused:
        merged(base, mine, started)
    assert refused.value.key == "tournament_started"
    with pytest.raises(TournamentRefused):
        merged(None, mine, stored)  # a new one whose name was taken meanwhile
