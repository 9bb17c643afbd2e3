"""Topic memory on PostgreSQL: SQLite's topic statements run through the compat connection.

The loading and saving code of :class:`~mnemo.storage.sql.topics.SQLiteTopics` is portable
SQL (``ON CONFLICT ... DO UPDATE`` included); here it runs on a :class:`CompatDB`. The one
addition is the user's advisory lock around a writing ``apply_topics``: SQLite serialises
writers by itself, PostgreSQL does not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from mnemo.storage.postgres.compat import CompatDB
from mnemo.storage.postgres.memories import lock_user
from mnemo.storage.sql.topics import SQLiteTopics
from mnemo.storage.topic_records import Conversation, TopicRow

T = TypeVar("T")


class PgTopics:
    """The TopicStore methods of the PostgreSQL store."""

    compat: CompatDB

    def _topics(self) -> SQLiteTopics:
        topics = SQLiteTopics()
        topics.db = cast(Any, self.compat)
        return topics

    def apply_topics(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        fn: Callable[[Conversation], T],
        write: bool = True,
        also: str | None = None,
    ) -> T:
        """Load a conversation (plus topic ``also``), run ``fn`` on it and (``write``) persist
        its changes, atomically, under the user's write lock."""
        topics = self._topics()
        scope = (tenant, user_id, session_id)
        if not write:
            with self.compat.read() as c:
                return fn(topics._conversation(cast(Any, c), scope, False, also))
        with self.compat.write() as c:
            lock_user(c.conn, tenant, user_id, None)
            conv = topics._conversation(cast(Any, c), scope, True, also)
            result = fn(conv)
            topics._save(cast(Any, c), conv)
        return result

    def list_topics(
        self, tenant: str, user_id: str, session_id: str | None, include_inactive: bool
    ) -> list[TopicRow]:
        """Topics of a user (or one conversation), latest activity first, without messages."""
        return self._topics().list_topics(tenant, user_id, session_id, include_inactive)

    def get_topic(self, tenant: str, topic_id: str) -> TopicRow | None:
        """One topic by id (without messages), or None."""
        return self._topics().get_topic(tenant, topic_id)
