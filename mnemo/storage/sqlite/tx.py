"""The SQLite store's :class:`~mnemo.storage.sql.tx.Tx`: a sqlite3 connection and its dialect."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from typing import Any

from mnemo.storage.sql.dialect import SQLITE, Dialect
from mnemo.storage.sql.tx import ConnTransactions
from mnemo.storage.sqlite.conn import Connections


class SQLiteTx:
    """Shared statements on one sqlite3 connection (rows are ``sqlite3.Row``)."""

    dialect: Dialect = SQLITE

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Run one statement."""
        return self.conn.execute(sql, args)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement for each parameter row."""
        self.conn.executemany(sql, rows)

    def insert(self, sql: str, args: Sequence[Any]) -> int:
        """Run a single-row ``INSERT``; returns the new rowid."""
        rowid = self.conn.execute(sql, args).lastrowid
        assert rowid is not None
        return rowid

    def lock_user(self, tenant: str, user_id: str) -> None:
        """Nothing: a SQLite write transaction (``BEGIN IMMEDIATE``) already excludes writers."""


class SQLiteTransactions(ConnTransactions[sqlite3.Connection, SQLiteTx]):
    """:class:`SQLiteTx` transactions over the store's per-thread connections: ``read`` is a
    consistent snapshot, ``write`` a ``BEGIN IMMEDIATE`` transaction and ``auto`` this thread's
    connection outside a transaction."""

    def __init__(self, db: Connections) -> None:
        super().__init__(db.read, db.write, lambda: nullcontext(db.get()), SQLiteTx)
        self.db = db


__all__ = ["SQLiteTransactions", "SQLiteTx"]
