"""Identifiers: time-ordered, URL-safe, with a prefix that names the table."""

from __future__ import annotations

import os
import time

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, lower case
MESSAGE_PREFIX = "msg_"
MEMORY_PREFIX = "mem_"


def new_id(prefix: str) -> str:
    """``prefix`` + 26 base32 chars: 48-bit millisecond time then 80 random bits (ULID layout)."""
    value = (int(time.time() * 1000) << 80) | int.from_bytes(os.urandom(10), "big")
    chars = []
    for _ in range(26):
        chars.append(_ALPHABET[value & 31])
        value >>= 5
    return prefix + "".join(reversed(chars))
