"""HTTP endpoints of the accounts domain."""

from __future__ import annotations

from fastapi import APIRouter

from corridor.kit.openapi import ERROR_RESPONSES

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
