"""How a SQL store erases for good: a user, an agent's rows, the rows expired at a time.

Each is one write transaction of the shared statements (:mod:`mnemo.storage.sql.stats`'s
``delete_user``, :mod:`mnemo.storage.sql.agent_erasure`, :mod:`mnemo.storage.sql.sweep`). A
backend may erase more thoroughly: SQLite's
:class:`~mnemo.storage.sqlite.erasure.SecureErasure` leaves none of the text in the file.
"""

from __future__ import annotations

from mnemo.storage.sql import agent_erasure
from mnemo.storage.sql import stats as stats_sql
from mnemo.storage.sql import sweep as sweep_sql
from mnemo.storage.sql.role import SQLRole
from mnemo.storage.sql.transactional import writes
from mnemo.storage.sql.tx import Tx


class Erasure(SQLRole):
    """The erasing writes the memory rows role runs (its observers are told by the role)."""

    @writes
    def user(self, c: Tx, tenant: str, user_id: str) -> dict[str, int]:
        """Erase every row of a user; counts per table."""
        return stats_sql.delete_user(c, tenant, user_id)

    @writes
    def agent(self, c: Tx, tenant: str, agent_id: str) -> tuple[dict[str, int], list[str]]:
        """Erase every row tagged with an agent; counts per table and the user keys that
        held them."""
        return agent_erasure.delete_agent(c, tenant, agent_id)

    @writes
    def expired(self, c: Tx, tenant: str | None, now: str) -> sweep_sql.Swept:
        """Erase the turns and memories of ``tenant`` (None: every tenant) expired at
        ``now``, with what hangs off them."""
        return sweep_sql.sweep(c, tenant, now)


__all__ = ["Erasure"]
