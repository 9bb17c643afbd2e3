"""The :class:`~mnemo.context.source.ContextSource` of a Memory: its search, listings, profile
and topic tier, as context assembly reads them."""

from __future__ import annotations

from mnemo.config.settings import Settings
from mnemo.context.tokens import TokenCounter, token_counter
from mnemo.embedders import Embedder
from mnemo.memory.documents import Documents
from mnemo.memory.forward import forward
from mnemo.memory.records import Records
from mnemo.retrieval.searcher import Searcher
from mnemo.schemas import MemoryItem, Message, ProfileFact
from mnemo.storage.topic_records import TopicRow
from mnemo.tiers.conversation.tiers import ConversationTiers
from mnemo.tiers.topics.memory import TopicMemory


class MemoryContextSource:
    """Context assembly's view of one tenant's memory (see ContextSource)."""

    def __init__(
        self,
        settings: Settings,
        searcher: Searcher,
        records: Records,
        documents: Documents,
        topic_memory: TopicMemory,
        embedder: Embedder,
        conversation: ConversationTiers,
    ) -> None:
        self._settings = settings
        self.searcher, self.records, self.documents = searcher, records, documents
        self.topic_memory, self.embedder = topic_memory, embedder
        self.conversation = conversation

    @property
    def settings(self) -> Settings:
        """The Memory's settings."""
        return self._settings

    @property
    def embedding_dim(self) -> int:
        """The embedder's vector size."""
        return self.embedder.dim

    #: ``Memory.search`` with per-call overrides of the recency weight and threshold, the
    #: request's own texts left out (``exclude``) and its reference time (``now``).
    search = forward("searcher", Searcher.search)

    def memories(
        self, user_id: str, *, session_id: str | None = None, kind: str | None, limit: int
    ) -> list[MemoryItem]:
        """``Memory.list``: the newest live memories of a kind (any kind when None)."""
        return self.records.list(user_id, session_id=session_id, kind=kind, limit=limit)

    def recent_turns(self, user_id: str, session_id: str | None, limit: int) -> list[Message]:
        """The last ``limit`` turns of a session (or of the user), newest first."""
        flt = self.records.filter(user_id, session_id, None, None, limit, 0)
        return self.records.store.recent_messages(flt)

    def window(self, user_id: str, session_id: str) -> list[Message]:
        """The session's short-term window (the conversation tiers' ``window``)."""
        return self.conversation.window(user_id, session_id)

    def profile(self, user_id: str, *, min_importance: float) -> list[ProfileFact]:
        """``Memory.profile``: the active facts with importance >= ``min_importance``."""
        return self.documents.profile(user_id, min_importance=min_importance)

    def topic(self, query: str, user_id: str, session_id: str) -> TopicRow | None:
        """The topic ``query`` would join (read-only), else the conversation's active one."""
        return self.topic_memory.context_topic(query, user_id, session_id)

    def token_counter(self) -> TokenCounter:
        """The embedder's token counter (a word estimate without a tokenizer)."""
        return token_counter(self.embedder)
