"""OpenAPI links between the routes: which later request can use a value of an earlier
response (a created memory's id, the user a write named).

They document the workflows (create a memory, then read, change, delete it or read its
history; store turns, then list them or erase their user) and let a stateful client, such as
schemathesis' state machine in ``tests/api/test_api_fuzz.py``, chain real ids instead of
guessing them. Each link names its target by ``operationId`` (FastAPI's generated ones; a
test checks that every target exists).
"""

from __future__ import annotations

from typing import Any

#: operationIds of the routes links point at.
GET_MEMORY = "get_memory_v1_memories__memory_id__get"
UPDATE_MEMORY = "update_memory_v1_memories__memory_id__patch"
DELETE_MEMORY = "delete_memory_v1_memories__memory_id__delete"
MEMORY_HISTORY = "memory_history_v1_memories__memory_id__history_get"
LIST_MEMORIES = "list_memories_v1_memories_get"
LIST_MESSAGES = "list_messages_v1_messages_get"
ERASE_USER = "erase_user_v1_users__user_id__delete"


def _link(operation: str, description: str, **parameters: str) -> dict[str, Any]:
    return {"operationId": operation, "parameters": parameters, "description": description}


def memory_links(source: str) -> dict[str, Any]:
    """Links from a response whose body is a memory (``source``: the response's name)."""
    ref = {"memory_id": "$response.body#/id"}
    return {
        "GetMemory": _link(GET_MEMORY, f"Read the memory {source}.", **ref),
        "UpdateMemory": _link(UPDATE_MEMORY, f"Change the memory {source}.", **ref),
        "DeleteMemory": _link(DELETE_MEMORY, f"Delete the memory {source}.", **ref),
        "MemoryHistory": _link(MEMORY_HISTORY, f"The history of the memory {source}.", **ref),
        "ListUserMemories": _link(
            LIST_MEMORIES, "The memories of its user.", user_id="$response.body#/user_id"
        ),
        "EraseUser": _link(ERASE_USER, "Erase its user.", user_id="$response.body#/user_id"),
    }


#: Responses of ``POST /v1/memories`` and ``PATCH /v1/memories/{memory_id}``.
CREATED_MEMORY: dict[int | str, dict[str, Any]] = {
    201: {"description": "The stored memory.", "links": memory_links("just created")}
}
UPDATED_MEMORY: dict[int | str, dict[str, Any]] = {
    200: {"description": "The changed memory.", "links": memory_links("just changed")}
}
#: Responses of ``POST /v1/messages``.
CREATED_MESSAGES: dict[int | str, dict[str, Any]] = {
    201: {
        "description": "The ids of the stored turns.",
        "links": {
            "ListSessionMessages": _link(
                LIST_MESSAGES,
                "The turns of the session just written to.",
                user_id="$request.body#/user_id",
                session_id="$request.body#/session_id",
            ),
            "EraseUser": _link(ERASE_USER, "Erase their user.", user_id="$request.body#/user_id"),
        },
    }
}

__all__ = ["CREATED_MEMORY", "CREATED_MESSAGES", "UPDATED_MEMORY", "memory_links"]
