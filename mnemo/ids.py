"""Identifiers: time-ordered, URL-safe, with a prefix that names the table."""

from __future__ import annotations

import hashlib
import os
import time

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, lower case
MESSAGE_PREFIX = "msg_"
#: Every memory id starts with it (a turn's id with ``msg_``).
MEMORY_PREFIX = "mem_"


def new_id(prefix: str) -> str:
    """``prefix`` + 26 base32 chars: 48-bit millisecond time then 80 random bits (ULID layout)."""
    value = (int(time.time() * 1000) << 80) | int.from_bytes(os.urandom(10), "big")
    chars = []
    for _ in range(26):
        chars.append(_ALPHABET[value & 31])
        value >>= 5
    return prefix + "".join(reversed(chars))


PROFILE_PREFIX = "pf_"


def stable_id(prefix: str, *parts: str) -> str:
    """``prefix`` + 26 base32 chars derived from ``parts``: the same parts give the same id, so
    a job that writes a row under it twice writes it once."""
    digest = hashlib.blake2b("\x1f".join(parts).encode("utf-8"), digest_size=17).digest()
    value = int.from_bytes(digest, "big") >> 6  # 130 bits
    chars = []
    for _ in range(26):
        chars.append(_ALPHABET[value & 31])
        value >>= 5
    return prefix + "".join(reversed(chars))
