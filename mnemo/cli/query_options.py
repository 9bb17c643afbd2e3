"""The arguments and options of ``mnemo search`` and ``mnemo context``: the fields of
:class:`~mnemo.search_query.SearchQuery` (:mod:`mnemo.cli.options`), with the command line's
flag names; a new search argument is an option of both with no edit here."""

from __future__ import annotations

from mnemo.cli.common import AGENT_HELP
from mnemo.cli.options import ModelOptions
from mnemo.search_query import SearchQuery

#: The search arguments no command takes as they are: the filter is ``--filter`` JSON text
#: (:mod:`mnemo.cli.filter_option`); the chat proxy's own texts and the per-call setting
#: overrides are the library's.
NOT_ON_CLI = frozenset({"filters", "exclude", "recency_weight", "score_threshold"})
#: The flags that are not the field's name.
FLAGS = {
    "user_id": ("--user", "-u"),
    "agent_id": ("--agent",),
    "session_id": ("--session",),
    "kinds": ("--kind",),
}
#: The help that is not the field's description.
HELPS = {"user_id": "User id (may be left out with --agent).", "agent_id": AGENT_HELP}

#: ``mnemo search QUERY``'s.
SEARCH = ModelOptions(
    SearchQuery,
    hidden=NOT_ON_CLI,
    flags=FLAGS,
    helps={**HELPS, "query": "What to recall.", "explain": "Show every stage's score."},
)
#: ``mnemo context QUERY``'s: no number, kinds or scores of hits (the preset's layout sets
#: those for each of its searches); its ``--session`` is already the conversation answered.
CONTEXT = ModelOptions(
    SearchQuery,
    hidden=NOT_ON_CLI | {"limit", "kinds", "explain", "current_session"},
    flags=FLAGS,
    helps={**HELPS, "query": "The message the prompt answers."},
)

__all__ = ["CONTEXT", "FLAGS", "HELPS", "NOT_ON_CLI", "SEARCH"]
