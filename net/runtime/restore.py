"""A shared table rebuilt from the store after a restart: its saved state, then its game
replayed from the seed and the recorded actions."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from engine.actions import Action
from engine.bots import Player
from engine.game import Game
from net.runtime.config import NO_HOOKS, TableConfig, TableHooks, basic_player, parse_levels
from net.runtime.privacy import Privacy
from net.runtime.seat_client import Occupant
from net.runtime.shared_table import SharedTable
from net.runtime.stakes import spectators
from net.store.base import Store
from net.store.model import ActionRow, CorruptRow, SavedHandStakes, TableRow


def restore_table(row: TableRow, config: TableConfig, store: Store,
                  hooks: TableHooks[SharedTable] = NO_HOOKS,
                  player_factory: Callable[[str], Player] = basic_player,
                  actions: Iterable[ActionRow] | None = None) -> SharedTable:
    """Rebuild a table from its row and its recorded actions: the game is replayed from
    its seed, so it resumes at its last applied action with all scores. Anything that
    does not replay exactly (an action missing, out of order, illegal, a hand left
    unfinished before the last) raises: the caller quarantines the table. Nothing is
    written. ``actions``: the game's stored actions if the caller read them already (from a
    thread, where the store is a database server's); else they are read here."""
    state = row.state
    levels = state.bot_levels
    table = SharedTable(row.name, row.rules, row.options, config, store, player_factory,
                        parse_levels(",".join(levels)) if levels else None,
                        creator=state.creator, host_name=state.host,
                        privacy=Privacy(state.invited, state.watchers) if state.private
                        else None, hooks=hooks, rotate_dealer=state.rotate_dealer)
    for seat, allow in zip(table.seats, state.allow, strict=True):
        seat.allow_spectators = allow
    table.stakes.placed.update((st.account, st) for st in state.stakes)
    table.stakes.fixed.update(state.hand_stakes)
    now = table.clock.now()
    for i, s in enumerate(state.seats):
        if s is not None:
            table.seats[i].occupant = Occupant(s.account, s.name)
            table.seats[i].dropped_at = now  # the grace period starts at the restart
    table.game_no = state.game_no
    seed = state.game_seed
    started = state.hands_started
    if seed is not None and started > 0:
        game = Game(table.ruleset, int(seed), rotate_dealer=table.rotate_dealer)
        rows = iter(actions) if actions is not None else \
            store.iter_actions(row.name, table.game_no)  # one at a time: memory flat
        pending: ActionRow | None = next(rows, None)
        for hand_no in range(1, started + 1):
            hs = table.stakes.fixed.get(hand_no, SavedHandStakes((), table.allowed_seats()))
            game.spectators = spectators(hs)
            game.allow_spectators = hs.allow
            hand = game.new_hand()
            while pending is not None and pending.hand_no == hand_no:
                if pending.i != len(hand.actions):
                    raise CorruptRow(f"hand {hand_no}: action {pending.i} is stored "
                                     f"after {len(hand.actions)} actions")
                game.apply(pending.seat, Action.from_json(pending.action))
                pending = next(rows, None)
            if hand_no < started and not hand.is_over:
                raise CorruptRow(f"hand {hand_no} is not over in the record, though "
                                 f"hand {started} was started")
        if pending is not None:
            raise CorruptRow(f"an action is stored for hand {pending.hand_no}, not one "
                             f"of the {started} hands started")
        table.game = game
        table.game_seed = int(seed)
        table.hands_started = started
        if game.hand is not None and game.hand.is_over:
            table.runner.hand_over(game.hand, now)
    return table
