"""Chat-model clients: the OpenAI-compatible HTTP API, a router with provider cooldowns, and
the offline responder used when no provider is configured."""

from familiars.llm._base import (
    CHARS_PER_TOKEN,
    OUTPUT_CUT,
    STRUCTURED_MODES,
    ChatMessage,
    ChatModel,
    ChatResult,
    ProviderState,
    ToolCall,
    ToolSpec,
    cut_output,
    extract_json,
    output_limit,
)
from familiars.llm._errors import (
    BadRequestError,
    BadResponseError,
    LLMError,
    NoProviderAvailableError,
    ProviderAuthError,
    ProviderConnectionError,
    ProviderError,
    ProviderServerError,
    ProviderTimeoutError,
    RateLimitedError,
    StreamCutError,
    UnsupportedFeatureError,
)
from familiars.llm._offline import (
    OFFLINE_NOTICE,
    OfflineResponder,
    is_question,
    recalled_lines,
    relevance,
    second_person,
)
from familiars.llm._openai import (
    OpenAIChatModel,
    parse_retry_after,
)
from familiars.llm._router import (
    ProviderRouter,
    build_chat_model,
)

__all__ = [
    "CHARS_PER_TOKEN",
    "OFFLINE_NOTICE",
    "OUTPUT_CUT",
    "STRUCTURED_MODES",
    "BadRequestError",
    "BadResponseError",
    "ChatMessage",
    "ChatModel",
    "ChatResult",
    "LLMError",
    "NoProviderAvailableError",
    "OfflineResponder",
    "OpenAIChatModel",
    "ProviderAuthError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderRouter",
    "ProviderServerError",
    "ProviderState",
    "ProviderTimeoutError",
    "RateLimitedError",
    "StreamCutError",
    "ToolCall",
    "ToolSpec",
    "UnsupportedFeatureError",
    "build_chat_model",
    "cut_output",
    "extract_json",
    "is_question",
    "output_limit",
    "parse_retry_after",
    "recalled_lines",
    "relevance",
    "second_person",
]
