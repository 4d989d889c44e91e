"""Structured logging: one configure() call, JSON or console lines, request id on every line
(and, while traces are on and a span is current, its trace_id and span_id)."""

from __future__ import annotations

import logging
import sys

import structlog

from corridor.kit import tracing
from corridor.kit.request_context import current_request_id


def _add_request_id(_, __, event_dict):
    request_id = current_request_id()
    if request_id and "requestId" not in event_dict:
        event_dict["requestId"] = request_id
    return event_dict


def configure_logging(*, log_format: str = "console", level: str = "INFO") -> None:
    renderer = (
        structlog.processors.JSONRenderer()
        if log_format == "json"
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            _add_request_id,
            tracing.add_trace_ids,
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )


def get_logger(name: str):
    return structlog.get_logger(name)
