"""The LLM client: OpenAI-compatible chat with JSON output and retries, and prompt files.

>>> from mnemo.llm import Usage
>>> Usage(1, 2, 3) + Usage()
Usage(prompt_tokens=1, completion_tokens=2, total_tokens=3)
"""

from mnemo.llm.base import ChatModel, ChatResult, JsonSchema, Usage
from mnemo.llm.client import LLMClient, create_chat_model
from mnemo.llm.prompts import load_prompt, render_prompt

__all__ = [
    "ChatModel",
    "ChatResult",
    "JsonSchema",
    "LLMClient",
    "Usage",
    "create_chat_model",
    "load_prompt",
    "render_prompt",
]
