"""mnemo: long-term memory for LLM chat applications.

>>> from mnemo import Memory
>>> mem = Memory("mnemo.db")  # doctest: +SKIP
"""

from mnemo.config.settings import PRESETS, Settings
from mnemo.errors import (
    ConfigError,
    EmbeddingError,
    MnemoError,
    NotFoundError,
    SchemaError,
    StorageError,
    TransientError,
    ValidationError,
)
from mnemo.memory.facade import Memory
from mnemo.schemas import (
    Document,
    HistoryEntry,
    Hit,
    Job,
    MemoryItem,
    Message,
    MessageIn,
    Stats,
    Topic,
    TopicHit,
    TopicStats,
)

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "ConfigError",
    "Document",
    "EmbeddingError",
    "HistoryEntry",
    "Hit",
    "Job",
    "Memory",
    "MemoryItem",
    "Message",
    "MessageIn",
    "MnemoError",
    "NotFoundError",
    "SchemaError",
    "Settings",
    "Stats",
    "StorageError",
    "Topic",
    "TopicHit",
    "TopicStats",
    "TransientError",
    "ValidationError",
]
