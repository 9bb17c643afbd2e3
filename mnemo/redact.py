"""Credentials out of everything mnemo logs, stores or prints: :func:`mask_credentials`.

A base URL may carry a password (``http://user:secret@host/v1``,
``postgresql://app:secret@db/mnemo``) or a secret query parameter (``?password=...``,
``?api_key=...``). Such a URL reaches log lines, exception messages, job errors, the fallback
notes in memories' metadata (which tenants read) and CLI output; each of those passes its text
through :func:`mask_credentials` first. The lowest layer of the package, so every other module
may use it.
"""

from __future__ import annotations

import re

MASK = "***"
#: ``scheme://user:password@``: the password runs to the last ``@`` before the path.
_USERINFO = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]*):[^/\s]*@")
#: Query or keyword parameters whose value is a secret.
_SECRET_PARAM = re.compile(
    r"(?P<head>(?:^|[?&;\s])(?:password|passwd|pwd|pass|sslpassword|api_key|apikey|api-key|key|token|"
    r"access_token|secret|client_secret)=)[^&;#\s]+",
    re.IGNORECASE,
)


def mask_credentials(text: str) -> str:
    """``text`` with the password of every URL in it, and every secret query parameter,
    replaced by ``***``; everything else unchanged.

    >>> mask_credentials("postgresql://app:s3cr@t@db:5432/mnemo?sslmode=require")
    'postgresql://app:***@db:5432/mnemo?sslmode=require'
    >>> mask_credentials("POST http://h/v1?api_key=abc&x=1 failed")
    'POST http://h/v1?api_key=***&x=1 failed'
    >>> mask_credentials("http://user@host/v1")
    'http://user@host/v1'
    """
    text = _USERINFO.sub(lambda m: f"{m['head']}:{MASK}@", text)
    return _SECRET_PARAM.sub(lambda m: f"{m['head']}{MASK}", text)


__all__ = ["MASK", "mask_credentials"]
