"""mnemo: long-term memory for LLM chat applications.

>>> from mnemo import Memory
>>> mem = Memory("mnemo.db")  # doctest: +SKIP

``mnemo.AsyncMemory`` is the same API for asyncio code (every method awaitable).
"""

from mnemo.config.settings import PRESETS, Settings
from mnemo.errors import (
    ConfigError,
    EmbeddingError,
    EmbeddingTransientError,
    LLMError,
    LLMOutputError,
    LLMTransientError,
    MnemoError,
    NotFoundError,
    SchemaError,
    StorageError,
    TransientError,
    ValidationError,
)
from mnemo.ids import MEMORY_PREFIX
from mnemo.list_query import MemoryQuery, MessageQuery
from mnemo.memory.async_memory import AsyncMemory
from mnemo.memory.facade import Memory
from mnemo.memory.paging import Page
from mnemo.memory.threaded import ThreadedFacade, twin
from mnemo.memory.turns import TurnBatch
from mnemo.ops.audit.findings import AuditReport, Finding
from mnemo.schemas import (
    MEMORY_KINDS,
    ContextBundle,
    Document,
    HistoryEntry,
    Hit,
    Job,
    MemoryItem,
    MemoryKind,
    Message,
    MessageIn,
    ProfileFact,
    Stats,
    Topic,
    TopicHit,
    TopicStats,
)
from mnemo.search_query import SearchQuery
from mnemo.version import __version__ as __version__

__all__ = [
    "MEMORY_KINDS",
    "MEMORY_PREFIX",
    "PRESETS",
    "AsyncMemory",
    "AuditReport",
    "ConfigError",
    "ContextBundle",
    "Document",
    "EmbeddingError",
    "EmbeddingTransientError",
    "Finding",
    "HistoryEntry",
    "Hit",
    "Job",
    "LLMError",
    "LLMOutputError",
    "LLMTransientError",
    "Memory",
    "MemoryItem",
    "MemoryKind",
    "MemoryQuery",
    "Message",
    "MessageIn",
    "MessageQuery",
    "MnemoError",
    "NotFoundError",
    "Page",
    "ProfileFact",
    "SchemaError",
    "SearchQuery",
    "Settings",
    "Stats",
    "StorageError",
    "ThreadedFacade",
    "Topic",
    "TopicHit",
    "TopicStats",
    "TransientError",
    "TurnBatch",
    "ValidationError",
    "twin",
]
