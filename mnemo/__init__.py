"""mnemo: long-term memory for LLM chat applications.

>>> from mnemo import Memory
>>> mem = Memory("mnemo.db")  # doctest: +SKIP
"""

from mnemo.version import read_version

#: The installed ``mnemo-ltm`` version (see :mod:`mnemo.version`); the CLI, ``/health``, the
#: OpenAPI document and the MCP server all report it.
__version__ = read_version()


from mnemo.config.settings import PRESETS, Settings
from mnemo.errors import (
    ConfigError,
    EmbeddingError,
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
from mnemo.memory.facade import Memory
from mnemo.memory.turns import TurnBatch
from mnemo.schemas import (
    ContextBundle,
    Document,
    HistoryEntry,
    Hit,
    Job,
    MemoryItem,
    Message,
    MessageIn,
    ProfileFact,
    Stats,
    Topic,
    TopicHit,
    TopicStats,
)

__all__ = [
    "PRESETS",
    "ConfigError",
    "ContextBundle",
    "Document",
    "EmbeddingError",
    "HistoryEntry",
    "Hit",
    "Job",
    "LLMError",
    "LLMOutputError",
    "LLMTransientError",
    "Memory",
    "MemoryItem",
    "Message",
    "MessageIn",
    "MnemoError",
    "NotFoundError",
    "ProfileFact",
    "SchemaError",
    "Settings",
    "Stats",
    "StorageError",
    "Topic",
    "TopicHit",
    "TopicStats",
    "TransientError",
    "TurnBatch",
    "ValidationError",
]
