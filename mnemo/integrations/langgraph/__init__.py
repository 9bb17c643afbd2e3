"""A LangGraph long-term memory store on mnemo: :class:`MnemoStore` and :class:`AsyncMnemoStore`.

Needs the ``langgraph`` extra (``pip install "mnemo-ltm[langgraph]"``). Each is a faithful
``langgraph.store.base.BaseStore`` over a :class:`mnemo.Memory` on any mnemo store, searching
with mnemo's hybrid search; see docs/langgraph.md. The modules: ``store`` and ``async_store``
(the two stores), ``sweeping`` (their TTL sweepers), ``items`` (how an item lives in mnemo),
``scope`` (finding and listing a store's rows),
``matching`` (LangGraph's namespace and filter rules), ``embeddings`` (the embedder behind
``IndexConfig["embed"]``).
"""

from mnemo.integrations.langgraph.async_store import AsyncMnemoStore
from mnemo.integrations.langgraph.embeddings import LangChainEmbedder
from mnemo.integrations.langgraph.store import MnemoStore

__all__ = ["AsyncMnemoStore", "LangChainEmbedder", "MnemoStore"]
