"""The operators' records (net/front/operators.py) on either database: bans and mutes, which
every worker reads (they share the store) and which hold across restarts, and the audit of
every operator action; and the players' own (net/front/players.py): whose chat an account
ignores, and the reports made for the operators. Written once with ``?`` parameters, as
:mod:`net.store.core`."""

from __future__ import annotations

import time
from typing import Any

from net.store.core import SqlStore
from net.store.model import MAX_NAME, AuditRow, Ban, Mute, Report

MAX_LISTED = 10_000  # bans or mutes read at once (net.limits.MAX_BANS keeps fewer)
SAVE_BAN = ("INSERT INTO bans (kind, target, account_id, reason, operator, created, expires) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (kind, target) DO UPDATE SET "
            "account_id = excluded.account_id, reason = excluded.reason, "
            "operator = excluded.operator, created = excluded.created, "
            "expires = excluded.expires")
SAVE_MUTE = ("INSERT INTO mutes (account_id, nickname, until, operator, created) "
             "VALUES (?, ?, ?, ?, ?) ON CONFLICT (account_id) DO UPDATE SET "
             "nickname = excluded.nickname, until = excluded.until, "
             "operator = excluded.operator, created = excluded.created")
TEXT_MAX = 1000  # a stored reason or operator read at most this long


def _when(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


class ModeratedStore(SqlStore):
    """:class:`SqlStore` with the operators' records."""

    def add_ban(self, ban: Ban) -> bool:
        """``ban`` stored (replacing one of the same kind and target): False where the
        write failed now."""
        return self._write("write a ban", [(SAVE_BAN, (
            ban.kind, ban.target, ban.account_id, ban.reason, ban.operator, ban.created,
            ban.expires), False)])

    def remove_ban(self, kind: str, target: str) -> bool:
        return self._write("remove a ban", [(
            "DELETE FROM bans WHERE kind = ? AND target = ?", (kind, target), False)])

    def load_bans(self) -> list[Ban]:
        """The bans in force now; StorageError where they cannot be read (the caller keeps
        the ones it read before)."""
        with self._reading("read the bans"):
            rows = self._rows(
                "SELECT kind, substr(target, 1, ?), account_id, substr(reason, 1, ?), "
                "substr(operator, 1, ?), created, expires FROM bans "
                "WHERE expires IS NULL OR expires > ? ORDER BY created LIMIT ?",
                (MAX_NAME, TEXT_MAX, TEXT_MAX, time.time(), MAX_LISTED))
        return [Ban(str(k), str(t), int(a) if isinstance(a, int) else None, str(r), str(o),
                    float(c), _when(e)) for k, t, a, r, o, c, e in rows]

    def set_mute(self, mute: Mute) -> bool:
        return self._write("write a mute", [(SAVE_MUTE, (
            mute.account_id, mute.nickname, mute.until, mute.operator, mute.created), False)])

    def remove_mute(self, account_id: int) -> bool:
        return self._write("remove a mute", [(
            "DELETE FROM mutes WHERE account_id = ?", (account_id,), False)])

    def load_mutes(self) -> list[Mute]:
        """The mutes in force now; StorageError where they cannot be read."""
        with self._reading("read the mutes"):
            rows = self._rows(
                "SELECT account_id, substr(nickname, 1, ?), until, substr(operator, 1, ?), "
                "created FROM mutes WHERE until IS NULL OR until > ? LIMIT ?",
                (MAX_NAME, TEXT_MAX, time.time(), MAX_LISTED))
        return [Mute(int(a), str(n), _when(u), str(o), float(c)) for a, n, u, o, c in rows]

    def add_audit(self, row: AuditRow) -> bool:
        return self._write("write the audit", [(
            "INSERT INTO audit (at, operator, action, target, reason) VALUES (?, ?, ?, ?, ?)",
            (row.at, row.operator, row.action, row.target, row.reason), False)])

    def audit_rows(self, limit: int) -> list[AuditRow]:
        """The last ``limit`` operator actions, oldest first (none where they cannot be
        read)."""
        rows = self._rows_shown(
            "read the audit",
            "SELECT at, substr(operator, 1, ?), substr(action, 1, ?), substr(target, 1, ?), "
            "substr(reason, 1, ?) FROM audit ORDER BY at DESC LIMIT ?",
            (TEXT_MAX, MAX_NAME, TEXT_MAX, TEXT_MAX, limit))
        return [AuditRow(float(a), str(o), str(x), str(t), str(r))
                for a, o, x, t, r in reversed(rows)]

    # --- the players' own ---------------------------------------------------------------------
    def ignored_by(self, account_id: int) -> list[tuple[int, str]]:
        """The accounts ``account_id`` ignores, with their names now, oldest first;
        StorageError where they cannot be read."""
        with self._reading("read the ignored names"):
            rows = self._rows(
                "SELECT i.ignored_id, substr(a.nickname, 1, ?) FROM ignores i "
                "JOIN accounts a ON a.id = i.ignored_id WHERE i.account_id = ? "
                "ORDER BY i.created LIMIT ?", (MAX_NAME, account_id, MAX_LISTED))
        return [(int(i), str(n)) for i, n in rows]

    def add_ignore(self, account_id: int, ignored_id: int) -> bool:
        return self._write("write an ignore", [(
            "INSERT INTO ignores (account_id, ignored_id, created) VALUES (?, ?, ?) "
            "ON CONFLICT (account_id, ignored_id) DO NOTHING",
            (account_id, ignored_id, time.time()), False)])

    def remove_ignore(self, account_id: int, ignored_id: int) -> bool:
        return self._write("remove an ignore", [(
            "DELETE FROM ignores WHERE account_id = ? AND ignored_id = ?",
            (account_id, ignored_id), False)])

    def add_report(self, report: Report) -> bool:
        return self._write("write a report", [(
            "INSERT INTO reports (at, reporter_id, reporter, reported_id, reported, "
            "table_name, reason) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (report.at, report.reporter_id, report.reporter, report.reported_id,
             report.reported, report.table, report.reason), False)])

    def reports_by(self, reporter_id: int, since: float) -> list[tuple[int, float]]:
        """``(reported account, when)`` of each report ``reporter_id`` made since ``since``
        (a time.time()); StorageError where they cannot be read (no report is then kept:
        its rate cannot be checked)."""
        with self._reading("read the reports"):
            rows = self._rows(
                "SELECT reported_id, at FROM reports WHERE reporter_id = ? AND at >= ? "
                "LIMIT ?", (reporter_id, since, MAX_LISTED))
        return [(int(r), float(a)) for r, a in rows]

    def reports(self, limit: int) -> list[Report]:
        """The last ``limit`` reports, oldest first (none where they cannot be read)."""
        rows = self._rows_shown(
            "read the reports",
            "SELECT at, reporter_id, substr(reporter, 1, ?), reported_id, "
            "substr(reported, 1, ?), substr(table_name, 1, ?), substr(reason, 1, ?) "
            "FROM reports "
            "ORDER BY at DESC LIMIT ?", (MAX_NAME, MAX_NAME, MAX_NAME, TEXT_MAX, limit))
        return [Report(float(a), int(ri), str(r), int(di), str(d), str(t), str(x))
                for a, ri, r, di, d, t, x in reversed(rows)]
