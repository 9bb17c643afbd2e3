"""Child processes that Ctrl-C reaches, however the suite itself was started."""

from __future__ import annotations

import signal


def sigint_default() -> None:
    """SIGINT back to its default in a child before it runs (``Popen(preexec_fn=...)``).

    A suite started in the background (``nohup``, ``cmd &`` in a script) ignores SIGINT; a
    child inherits that, and Python then installs no KeyboardInterrupt handler, so a test
    that sends Ctrl-C would see the command run to its end.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


__all__ = ["sigint_default"]
