"""Topic compaction (`topics`): old messages leave the active list for a compressed history.

The history format is the seed's: ``[{"role", "content", "timestamp"}, ...]`` as JSON, then gzip,
then base64 text. Compression and the split are pure; the tier decides when to apply them.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import zlib

from mnemo.errors import StorageError
from mnemo.storage.topic_records import TopicEntry


def time_order(entries: list[TopicEntry]) -> list[TopicEntry]:
    """Entries sorted by (timestamp, seq): the seed's chronological order, ties by turn order."""
    return sorted(entries, key=lambda e: (e.timestamp, e.seq))


def history_json(entries: list[TopicEntry]) -> bytes:
    """The uncompressed history: a JSON list of the seed's message dicts, UTF-8."""
    return json.dumps([e.as_dict() for e in entries], ensure_ascii=False).encode("utf-8")


def compress(entries: list[TopicEntry]) -> str:
    """``entries`` -> JSON -> gzip -> base64 text (gzip mtime 0, so equal input, equal output)."""
    packed = gzip.compress(history_json(entries), compresslevel=9, mtime=0)
    return base64.b64encode(packed).decode("ascii")


def decompress(text: str) -> list[TopicEntry]:
    """base64 -> gzip -> JSON -> entries (without row ids); StorageError if it is corrupt."""
    try:
        raw = gzip.decompress(base64.b64decode(text.encode("ascii"), validate=True))
        items = json.loads(raw.decode("utf-8"))
        return [TopicEntry(str(i["role"]), str(i["content"]), float(i["timestamp"])) for i in items]
    except (binascii.Error, OSError, EOFError, zlib.error, UnicodeError) as exc:
        raise StorageError(f"a topic's compressed history is corrupt: {exc}") from exc
    except (ValueError, TypeError, KeyError) as exc:
        raise StorageError(f"a topic's compressed history is not a message list: {exc}") from exc


def split_for_compaction(
    messages: list[TopicEntry], max_messages: int, keep: int
) -> tuple[list[TopicEntry], list[TopicEntry]] | None:
    """``(old, recent)`` when more than ``max_messages`` are active: every message but the
    last ``keep`` is old. None when the topic is within its limit."""
    if len(messages) <= max_messages:
        return None
    cut = max(len(messages) - keep, 0)
    return messages[:cut], messages[cut:]


def compression_ratio(raw_bytes: int, stored_chars: int) -> float:
    """Size reduction ``1 - stored / raw`` (0.86 means the stored text is 14% of the JSON)."""
    return 0.0 if raw_bytes <= 0 else 1.0 - stored_chars / raw_bytes


__all__ = [
    "TopicEntry",
    "compress",
    "compression_ratio",
    "decompress",
    "history_json",
    "split_for_compaction",
    "time_order",
]
