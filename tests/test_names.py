"""Who a name is (issue 51, findings 2–5): invitations bound to what only the invited hold,
guests' names that never block real ones, look-alike names, and passphrases that cannot be
guessed fast (net/sanitize.py, net/front/accounts.py, the login in net/front/server.py)."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import asyncssh
import pytest
from asyncssh.packet import String

from net.front.accounts import Keyless, NameBackoff, hash_passphrase
from net.front.server import MahjongServer
from net.limits import Limits
from net.runtime.privacy import Privacy
from net.runtime.registry import Registry
from net.runtime.restore import restore_table
from net.runtime.shared_table import TableConfig
from net.sanitize import clean_name, guest_name, mixed_script, name_variant, skeleton
from net.store.model import Account
from net.store.sqlite import SqliteStore
from net.store.sqlite_file import open_sqlite
from testkit.ssh import LoginClient, MakeServer, PtyClient, new_key, run_command
from tests.support.waiting import until


def names(srv: MahjongServer) -> list[str]:
    store = srv.store
    assert isinstance(store, SqliteStore)
    return [str(n) for (n,) in store.db.execute("SELECT nickname FROM accounts ORDER BY id")]


async def key_login(srv: MahjongServer, username: str, key: asyncssh.SSHKey | None = None
                    ) -> str:
    """The nickname a key login asking for ``username`` gets."""
    r = await run_command(srv.port, username, "help", key=key or new_key())
    assert r.exit_status == 0
    return names(srv)[-1]


# --- finding 4: look-alike names -------------------------------------------------------------
def test_look_alikes_share_a_skeleton() -> None:
    assert skeleton("bоb") == skeleton("bob")  # a Cyrillic о
    assert skeleton("bob\u3164") == skeleton("bob\u1160") == skeleton("bob\u17b5") == "bob"
    assert skeleton("Iouis") == skeleton("louis")  # capital I, small l
    assert skeleton("rnary") == skeleton("mary")
    assert skeleton("bob") != skeleton("bob-2") and skeleton("周五") != skeleton("周六")


def test_a_name_mixes_no_scripts_and_carries_nothing_invisible() -> None:
    assert clean_name("bоb") == "player"  # Latin with Cyrillic: refused
    assert clean_name("周五д") == "player"  # Han with Cyrillic
    for hidden in ("\u3164", "\u1160", "\u17b5", "\u200b", "\ufe0f", "\u034f", "\U000e0041"):
        assert clean_name("bob" + hidden) == "bob"
    assert clean_name("ｂｏｂ") == "bob"  # full width: NFKC
    for fine in ("周五", "bob", "周五bob", "東京タワー", "Мария", "김철수", "bob-2"):
        assert clean_name(fine) == fine and not mixed_script(fine)
    assert clean_name("bob~") == "bob" and clean_name("bo∼b") == "bob"  # a guest's mark


async def test_no_two_accounts_look_alike(server: MahjongServer) -> None:
    assert await key_login(server, "bob") == "bob"
    assert await key_login(server, "bоb") != "bоb"  # Cyrillic о: not a name
    assert await key_login(server, "bob\u3164") == "bob-2"  # invisible: bob, taken
    assert await key_login(server, "bob\u17b5") == "bob-3"
    assert await key_login(server, "Iob") == "Iob"
    assert await key_login(server, "lob") == "lob-2"  # looks like Iob
    assert await key_login(server, "周五") == "周五"
    assert await key_login(server, "周五д") == "player-2"  # the first player was bоb
    every = names(server)
    assert len({skeleton(n) for n in every}) == len(every)
    # a keyless login asking for a name that looks like a taken one is offered a variant
    r = await run_command(server.port, "1ob", "help", passphrase="long-enough-1")
    assert r.exit_status == 0 and names(server)[-1] == "1ob-3"  # 1ob-2 looks like lob-2


def test_the_store_refuses_a_look_alike_of_an_account(tmp_path: Path) -> None:
    store = open_sqlite(tmp_path / "m.db")
    assert store.account_for_key("SHA256:a", "bob").nickname == "bob"
    assert store.account_for_key("SHA256:b", "bоb").nickname == "bоb-2"  # the store itself too
    assert store.free_nickname("ｂob") != "ｂob"
    assert store.guest_account(guest_name("bob")).nickname == "bob~"
    assert store.guest_account(guest_name("bob")).nickname == "bob~2"
    store.close()


def test_old_names_are_renamed_when_the_file_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    store = open_sqlite(path)
    store.close()
    db = sqlite3.connect(path)  # the file as version 5 left it: no skeletons
    db.executescript("DROP INDEX accounts_skeleton; ALTER TABLE accounts DROP COLUMN skeleton;"
                     "PRAGMA user_version = 5;")
    for i, name in enumerate(("bob", "carl", "bоb", "dee\u17b5", "周五")):
        db.execute("INSERT INTO accounts (key_fingerprint, nickname, created, last_seen) "
                   "VALUES (?, ?, 0, 0)", (None if name == "carl" else f"SHA256:{i}", name))
    db.execute("INSERT INTO account_secrets (account_id, kind, hash, created) "
               "SELECT id, 'guest', NULL, 0 FROM accounts WHERE nickname = 'carl'")
    db.commit()
    db.close()
    store = open_sqlite(path)
    got = [str(n) for (n,) in store.db.execute("SELECT nickname FROM accounts ORDER BY id")]
    assert got == ["bob", "carl~", "player", "dee", "周五"]
    assert store.account_for_key("SHA256:new", "carl").nickname == "carl"  # no guest holds it
    assert store.free_nickname("dee") == "dee-2"
    store.close()


# --- finding 3: guests' names -------------------------------------------------------------------
async def test_guest_names_never_block_real_ones_and_go_with_their_guests(
        make_server: MakeServer) -> None:
    srv = await make_server(limits=Limits(guests_per_address=3))
    guests = []
    for i in range(3):
        c = PtyClient(80, 24)
        await c.connect(srv.port, f"sam{i}", command="lobby")  # Enter: a guest
        await c.wait_for(f"sam{i}~")
        guests.append(c)
    assert names(srv) == ["sam0~", "sam1~", "sam2~"]
    with pytest.raises((asyncssh.Error, OSError)):  # a fourth guest from the address
        await run_command(srv.port, "sam3", "help")
    # a key and a passphrase get the exact names the guests asked for
    assert await key_login(srv, "sam0") == "sam0"
    r = await run_command(srv.port, "sam1", "help", passphrase="long-enough-1")
    assert r.exit_status == 0 and names(srv)[-1] == "sam1"
    await guests[0].close()
    await until(lambda: "sam0~" not in names(srv), what="the guest's name forgotten")
    assert srv.gate.guests["127.0.0.1"] == 2
    again = PtyClient(80, 24)
    await again.connect(srv.port, "sam0", command="lobby")
    await again.wait_for("sam0~")  # free again
    for c in (*guests[1:], again):
        await c.close()
    # all forgotten but the newest account, whose id the next account would otherwise reuse
    await until(lambda: not srv.gate.guests
                and [n for n in names(srv) if n.endswith("~")] == ["sam0~"],
                what="all forgotten but the newest")


def test_a_forgotten_guest_s_id_is_never_given_again(tmp_path: Path) -> None:
    """An id names its account in the tables' rows (creator, seats) and in every count by
    account: a guest who made three tables and left must not hand them to the next guest."""
    store = open_sqlite(tmp_path / "m.db")
    first = store.guest_account("ann~")
    assert not store.forget_guest(first.id)  # the newest: kept, so its id is not reused
    second = store.guest_account("bea~")
    assert second.id > first.id and store.forget_guest(first.id)
    assert not store.forget_guest(second.id)
    third = store.guest_account("cy~")
    assert third.id > second.id
    assert store.forget_guests(float("inf")) == 1  # bea; cy is the newest
    assert store.account_for_key("SHA256:" + "k" * 43, "dee").id > third.id
    store.close()


def test_name_variants_stay_within_the_name_length() -> None:
    assert name_variant("x" * 16, 12) == "x" * 13 + "-12"
    assert name_variant(guest_name("y" * 16), 3) == "y" * 14 + "~3"
    assert guest_name("周五") == "周五~"


# --- finding 2: invitations --------------------------------------------------------------------
def test_an_invitation_admits_only_who_kept_the_name_when_invited(tmp_path: Path) -> None:
    store = open_sqlite(tmp_path / "m.db")
    carol = store.keep_with_passphrase("carol", hash_passphrase("carol-secret"))
    assert carol is not None
    reg = Registry(TableConfig(bot_delay=0), store)
    ann = store.account_for_key("SHA256:" + "a" * 43, "ann")
    t = reg.get_or_create("fri", "yichun", creator=ann, privacy=Privacy(("carol", "dana")))
    # carol kept her name: bound to her account; nobody kept dana: bound to nobody
    assert t.invited == [f"carol {carol.id}", "dana 0"]
    assert t.admits(carol) and t.info().admits(carol.id, "carol", None)
    assert not t.admits(Account(carol.id, "carol", None, guest=True))  # a guest: never
    assert not t.admits(Account(-3, "carol", None))  # an account the store could not keep
    # whoever takes dana after the invitation, by key or passphrase, is not the invited dana
    dana = store.account_for_key("SHA256:" + "d" * 43, "dana")
    assert dana.nickname == "dana" and not t.admits(dana)
    assert not t.info().admits(dana.id, "dana", dana.key_fingerprint)
    # a restart restores the binding as it was made (dana is not looked up again) ...
    t = restore_table(t.row(), TableConfig(bot_delay=0), store)
    assert t.invited == [f"carol {carol.id}", "dana 0"] and not t.admits(dana)
    # ... and the host invites dana again once she keeps the name: then she is admitted
    assert t.talk.host_command(ann, "/invite", "dana") is None
    assert t.invited == [f"carol {carol.id}", f"dana {dana.id}"] and t.admits(dana)
    assert t.info().invited_names == ("carol", "dana")
    reg.close()


def test_an_invitation_by_key_binds_when_its_player_sits(tmp_path: Path) -> None:
    store = open_sqlite(tmp_path / "m.db")
    reg = Registry(TableConfig(bot_delay=0), store)
    ann = store.account_for_key("SHA256:" + "a" * 43, "ann")
    fp = "SHA256:" + "e" * 43
    t = reg.get_or_create("fri", "yichun", creator=ann, privacy=Privacy((fp,)))
    assert not t.admits(store.account_for_key("SHA256:" + "f" * 43, "frank"))
    erin = store.account_for_key(fp, "erin")
    t.join(erin)
    assert t.invited == [f"erin {erin.id}"] and t.admits(erin)
    reg.close()


async def test_a_stranger_cannot_sit_under_an_invited_name(server: MahjongServer) -> None:
    carol_key = new_key()
    await key_login(server, "carol", carol_key)  # carol's account exists: bound when invited
    ann = PtyClient(100, 30)
    await ann.connect(server.port, "ann", new_key(),
                      command="join fri --private --invite carol,dana --watchers yes")
    await ann.wait_for("invited, not here yet 受邀未到: carol, dana")
    table = server.registry.tables["fri"]
    assert table.invited[0].startswith("carol ") and table.invited[1] == "dana 0"
    # a guest asking for carol (or dana, who has no account yet) is refused a seat
    for name in ("carol", "dana"):
        thief = PtyClient(100, 30)
        await thief.connect(server.port, name, command="join fri")
        await until(thief.closed.is_set, 10.0, "the guest to be sent away")
        assert "fri is private" in thief.raw.decode("utf-8", "replace")
    # a spectator reads how many are invited, never whom; the host reads whom
    spy = PtyClient(100, 30)
    await spy.connect(server.port, "spy", command="watch fri")
    await spy.wait_for("invited 受邀: 2")
    screen = spy.text()
    assert "carol" not in screen and "dana" not in screen
    ann.send("/")
    await ann.wait_for("Enter: send")
    ann.send("/invite erin\r")
    await ann.wait_for("受邀未到: carol, dana, erin")
    await asyncio.sleep(0.3)
    assert "erin" not in spy.text()  # the host's line goes to the host only
    # the real carol sits
    carol = PtyClient(100, 30)
    await carol.connect(server.port, "carol", carol_key, command="join fri")
    await until(lambda: any(s.occupant is not None and s.occupant.name == "carol"
                            for s in table.seats), what="carol seated")
    # dana takes the name with a passphrase after she was invited: that is anyone, refused
    dana = PtyClient(100, 30)
    await dana.connect(server.port, "dana", command="join fri", passphrase="long-enough-1")
    await until(dana.closed.is_set, 10.0, "the late dana to be sent away")
    assert "fri is private" in dana.raw.decode("utf-8", "replace")
    # the host invites her again now that she keeps the name: she sits
    ann.send("/")
    await ann.wait_for("Enter: send")
    ann.send("/invite dana\r")
    await until(lambda: any(e.startswith("dana ") and e != "dana 0" for e in table.invited),
                what="dana bound")
    dana = PtyClient(100, 30)
    await dana.connect(server.port, "dana", command="join fri", passphrase="long-enough-1")
    await until(lambda: any(s.occupant is not None and s.occupant.name == "dana"
                            for s in table.seats), what="dana seated")
    for c in (ann, spy, carol, dana):
        await c.close()


# --- finding 5: guessing passphrases -------------------------------------------------------------
def test_wrong_passphrases_for_a_name_meet_a_growing_delay() -> None:
    now = [1000.0]
    limits = Limits(passphrase_free_failures=3, passphrase_backoff=2.0,
                    passphrase_backoff_max=8.0, login_grace=40.0, passphrase_names_followed=2)
    backoff = NameBackoff(limits, clock=lambda: now[0])
    for _ in range(3):
        assert backoff.turn(7) == 0.0
        backoff.failed(7)
    assert backoff.turn(7) == 2.0  # the fourth waits; the next one after it, 2 s more
    assert backoff.turn(7) == 4.0
    backoff.failed(7)
    assert backoff.delay(7) == 4.0
    backoff.failed(7)
    backoff.failed(7)
    assert backoff.delay(7) == 8.0  # capped
    now[0] += 100
    waits = [backoff.turn(7) for _ in range(5)]
    assert waits == [0.0, 8.0, 16.0, None, None]  # one by one; past half the grace: refused
    backoff.passed(7)
    assert backoff.turn(7) == 0.0
    backoff.failed(1)
    backoff.failed(2)
    backoff.failed(3)
    assert backoff.failures(1) == 0  # memory bounded: the oldest name forgotten


def test_a_guesser_does_not_lock_out_the_address_the_owner_logs_in_from() -> None:
    now = [1000.0]
    limits = Limits(passphrase_free_failures=3, passphrase_backoff=2.0,
                    passphrase_backoff_max=8.0, login_grace=40.0)
    backoff = NameBackoff(limits, clock=lambda: now[0])
    backoff.passed(7, "198.51.100.7")  # the owner logged in from home
    for _ in range(20):  # a guesser from elsewhere
        backoff.turn(7, "203.0.113.9")
        backoff.failed(7, "203.0.113.9")
    assert backoff.turn(7, "203.0.113.9") is None and backoff.turn(7, "192.0.2.1") is None
    # home does not wait behind the guesser, and its own typos are its own ...
    assert backoff.turn(7, "198.51.100.7") == 0.0
    backoff.failed(7, "198.51.100.7")
    backoff.failed(7, "198.51.100.7")
    assert backoff.turn(7, "198.51.100.7") == 0.0
    # ... until home fails past the free ones too: then it waits with everyone else
    backoff.failed(7, "198.51.100.7")
    assert backoff.turn(7, "198.51.100.7") is None
    # a day later without a failure, home is a stranger again
    backoff.passed(8, "198.51.100.7")
    now[0] += 2 * 86_400
    backoff.failed(8, "198.51.100.7")
    assert backoff.failures(8) == 1


class _Abandoning(LoginClient):
    """Answers each keyboard-interactive challenge (``answer``, or not at all) and at once
    starts a new exchange, as a client guessing fast does."""

    def __init__(self, answer: bool) -> None:
        super().__init__("wrong-passphrase")
        self.answer = answer
        self.challenges = 0


@pytest.fixture
def abandoning(monkeypatch: pytest.MonkeyPatch) -> list[_Abandoning]:
    clients: list[_Abandoning] = []
    real = asyncssh.auth._ClientKbdIntAuth._receive_challenge

    async def receive(self: Any, name: str, instruction: str, lang: str, prompts: Any) -> None:
        if not clients:  # an ordinary login
            await real(self, name, instruction, lang, prompts)
            return
        client = clients[-1]
        client.challenges += 1
        if client.answer:
            self.send_packet(asyncssh.auth.MSG_USERAUTH_INFO_RESPONSE,
                             asyncssh.packet.UInt32(len(prompts)),
                             b"".join(String("wrong-passphrase") for _ in prompts))
        await self.send_request(String(""), String(""))  # a new exchange, unanswered so far

    monkeypatch.setattr(asyncssh.auth._ClientKbdIntAuth, "_receive_challenge", receive)
    return clients


@pytest.mark.parametrize("answer", [False, True])
async def test_an_abandoned_exchange_counts_as_a_failure(
        server: MahjongServer, abandoning: list[_Abandoning], answer: bool) -> None:
    await run_command(server.port, "mei", "help", passphrase="plum-blossom")
    client = _Abandoning(answer)
    abandoning.append(client)
    with pytest.raises((asyncssh.Error, OSError)):
        await asyncio.wait_for(asyncssh.connect(
            "127.0.0.1", server.port, username="mei", known_hosts=None, client_keys=None,
            agent_path=None, client_factory=lambda: client,
            preferred_auth="keyboard-interactive"), 20)
    assert 1 <= client.challenges <= server.limits.max_auth_tries + 2
    assert server.gate.keyless.most_hashing <= server.limits.hash_concurrency


async def test_abandoned_checks_never_hash_past_the_concurrency(tmp_path: Path) -> None:
    store = open_sqlite(tmp_path / "m.db")
    keyless = Keyless(store, Limits(hash_concurrency=2))
    stored = hash_passphrase("right-one")
    tasks = [asyncio.ensure_future(keyless.verify(f"guess-{i}", stored)) for i in range(8)]
    await asyncio.sleep(0.05)
    for t in tasks:
        t.cancel()  # every check abandoned: the running ones run on holding their turn
    await asyncio.sleep(0)
    again = [asyncio.ensure_future(keyless.verify("right-one", stored)) for _ in range(3)]
    assert all(await asyncio.gather(*again))
    assert keyless.most_hashing <= 2 and keyless.hashing == 0
    store.close()


async def test_wrong_passphrases_from_several_connections_slow_the_name(
        make_server: MakeServer) -> None:
    srv = await make_server(limits=Limits(passphrase_free_failures=2, passphrase_backoff=0.2,
                                          max_auth_tries=1))
    await run_command(srv.port, "lin", "help", passphrase="jade-rabbit")
    account = srv.gate.keyless.lookup("lin").account_id
    assert account is not None
    for i in range(4):  # each a new connection, from elsewhere, a guess and no more
        with pytest.raises(asyncssh.PermissionDenied):
            await run_command(srv.port, "lin", "help", passphrase=f"guess-{i}",
                              address="127.0.0.9", give_up=1)
    backoff = srv.gate.keyless.backoff
    failed = backoff.failures(account)
    assert failed >= 4 and backoff.delay(account) == pytest.approx(0.2 * 2 ** (failed - 2))
    # lin, from where she chose her passphrase, does not wait behind the guesser
    assert backoff.turn(account, "127.0.0.1") == 0.0
    r = await run_command(srv.port, "lin", "help", passphrase="jade-rabbit",
                          address="127.0.0.8")  # from elsewhere: waits its turn
    assert r.exit_status == 0 and backoff.failures(account) == 0


async def test_a_short_new_passphrase_is_refused_an_old_one_still_opens(
        server: MahjongServer) -> None:
    assert server.limits.passphrase_min == 8
    short = LoginClient("abcd", give_up=4)
    with pytest.raises((asyncssh.Error, OSError)):  # "Too short", asked again and again
        await asyncio.wait_for(asyncssh.connect(
            "127.0.0.1", server.port, username="wen", known_hosts=None, client_keys=None,
            agent_path=None, client_factory=lambda: short,
            preferred_auth="keyboard-interactive"), 20)
    assert short.challenges > 4  # asked again after each short answer, never admitted
    assert server.gate.keyless.lookup("wen").state.value == "new"
    # a 4-character passphrase kept from before
    server.store.keep_with_passphrase("old", hash_passphrase("abcd"))
    r = await run_command(server.port, "old", "help", passphrase="abcd")
    assert r.exit_status == 0


async def test_a_guest_login_does_not_lift_the_new_connections_limit(
        make_server: MakeServer) -> None:
    limits = replace(Limits(), connects_per_address_minute=3)
    srv = await make_server(limits=limits)
    assert (await run_command(srv.port, "gus", "help")).exit_status == 0  # a guest
    for _ in range(3):
        with contextlib.suppress(asyncssh.Error, OSError):
            await run_command(srv.port, "gus", "help")
    with pytest.raises((asyncssh.Error, OSError)):  # the fifth connection in the minute
        await run_command(srv.port, "kim", "help", key=new_key())
    srv2 = await make_server(limits=limits)
    assert (await run_command(srv2.port, "kay", "help", key=new_key())).exit_status == 0
    for _ in range(4):  # a key's login exempts its address, as before
        assert (await run_command(srv2.port, "kay", "help", key=new_key())).exit_status == 0
