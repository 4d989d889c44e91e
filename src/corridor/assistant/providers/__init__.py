"""Model providers of the assistant: the built-in sandbox model, Anthropic and OpenAI,
all behind pydantic-ai's Model interface so one run loop serves them all."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic_ai.models import Model

from corridor.assistant.errors import ProviderNotConfigured
from corridor.config import Settings

DEFAULT_MODELS = {"anthropic": "claude-sonnet-5-5", "openai": "gpt-6.1-sol"}


@dataclass(frozen=True, slots=True)
class ChosenModel:
    provider: str
    name: str
    model: Model
    # Text is streamed from the provider as it is written (real providers and the built-in
    # sandbox); scripted test models answer at once.
    streams: bool = False
    # How long streamed text is gathered before it is sent on as one `text.delta` event:
    # a real provider's answer becomes a few small writes; the sandbox's chunks are
    # already a few words each, so each is sent as it comes.
    text_flush_s: float = 0.25


def chosen_model(settings: Settings) -> ChosenModel:
    """The model the settings name (CORRIDOR_ASSISTANT_PROVIDER and the provider's key)."""
    provider = settings.assistant_provider
    if provider == "sandbox":
        from corridor.assistant.providers.sandbox import sandbox_model

        return ChosenModel(
            "sandbox", "corridor-sandbox", sandbox_model(), streams=True, text_flush_s=0.0
        )
    name = settings.assistant_model or DEFAULT_MODELS[provider]
    if provider == "anthropic":
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        if settings.anthropic_api_key is None:
            raise ProviderNotConfigured("Set CORRIDOR_ANTHROPIC_API_KEY to use Anthropic")
        return ChosenModel(
            provider,
            name,
            streams=True,
            model=AnthropicModel(
                name,
                provider=AnthropicProvider(
                    api_key=settings.anthropic_api_key.get_secret_value(),
                    base_url=settings.assistant_provider_base_url,
                ),
            ),
        )
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    if settings.openai_api_key is None:
        raise ProviderNotConfigured("Set CORRIDOR_OPENAI_API_KEY to use OpenAI")
    return ChosenModel(
        provider,
        name,
        streams=True,
        model=OpenAIChatModel(
            name,
            provider=OpenAIProvider(
                api_key=settings.openai_api_key.get_secret_value(),
                base_url=settings.assistant_provider_base_url,
            ),
        ),
    )
