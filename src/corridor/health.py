"""GET /v1/health: no authentication; says whether the database answers."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import Field
from sqlalchemy import text

from corridor import __version__
from corridor.kit.schemas import ResponseModel

router = APIRouter(prefix="/v1", tags=["Health"])


class Health(ResponseModel):
    status: str = Field(
        examples=["ok"], description="ok, or degraded when the database does not answer"
    )
    database: str = Field(examples=["ok"], description="ok or unreachable")
    environment: str = Field(examples=["sandbox"])
    version: str = Field(examples=["0.1.0"])


@router.get(
    "/health", response_model=Health, summary="Health check", responses={503: {"model": Health}}
)
async def health(request: Request) -> JSONResponse:
    """No credentials needed. 200 when the database answers, 503 (`status: degraded`) when it does
    not, for load balancers and uptime checks."""
    state = request.app.state
    database_ok = True
    try:
        async with state.database.session(write=False) as session:
            await session.execute(text("SELECT 1"))
    except Exception:
        database_ok = False
    answer = Health(
        status="ok" if database_ok else "degraded",
        database="ok" if database_ok else "unreachable",
        environment=state.settings.env.value,
        version=__version__,
    )
    return JSONResponse(answer.to_json_dict(), status_code=200 if database_ok else 503)
