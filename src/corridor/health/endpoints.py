"""GET /v1/health (liveness), GET /v1/health/ready (readiness), GET /metrics (Prometheus).

None of them takes an API key. Liveness says the process answers and whether the
database does; readiness says whether this process should be sent traffic (API.md
section 9): the database answers, its schema is at the migrations' head, a worker wrote
its heartbeat lately; the replica, when configured, is reported (reads fall back to the
primary without it, so it never makes a process unready). /metrics is governed by its
own settings (config.py: metrics_enabled, metrics_token, metrics_port).
"""

from __future__ import annotations

import hmac
from datetime import timedelta

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import Field
from starlette.exceptions import HTTPException

from corridor import __version__
from corridor.config import Settings
from corridor.health import readiness
from corridor.health.readiness import Readiness
from corridor.kit import metrics
from corridor.kit.errors import CorridorError
from corridor.kit.schemas import ResponseModel

router = APIRouter(tags=["Health"])


class Health(ResponseModel):
    status: str = Field(
        examples=["ok"], description="ok, or degraded when the database does not answer"
    )
    database: str = Field(examples=["ok"], description="ok or unreachable")
    environment: str = Field(examples=["sandbox"])
    version: str = Field(examples=["0.1.0"])


@router.get(
    "/v1/health",
    response_model=Health,
    summary="Health check",
    responses={503: {"model": Health}},
)
async def health(request: Request) -> JSONResponse:
    """No credentials needed. 200 when the database answers, 503 (`status: degraded`) when it does
    not, for load balancers and uptime checks. Liveness: whether to restart the process is
    a question for this one; whether to send it traffic is `/v1/health/ready`'s."""
    state = request.app.state
    database_ok = await readiness.database_answers(state.database)
    answer = Health(
        status="ok" if database_ok else "degraded",
        database="ok" if database_ok else "unreachable",
        environment=state.settings.env.value,
        version=__version__,
    )
    return JSONResponse(answer.to_json_dict(), status_code=200 if database_ok else 503)


@router.get(
    "/v1/health/ready",
    response_model=Readiness,
    summary="Readiness check",
    responses={503: {"model": Readiness, "description": "Not ready: a check failed"}},
)
async def ready(request: Request) -> JSONResponse:
    """No credentials needed. 200 `ready` when every check passes, 503 `not_ready` when one
    fails: `database` (it answers), `migrations` (its schema is at the migrations' head:
    run `corridor migrate`), `workers` (a `corridor worker`, or the workers inside
    `corridor serve`, wrote a heartbeat within `CORRIDOR_WORKER_HEARTBEAT_STALE_S`).
    `replica` reports the read replica (`not_configured`, `ok`, `lagging`, `unreachable`)
    and its lag; reads fall back to the primary without it, so it never fails readiness."""
    state = request.app.state
    settings: Settings = state.settings
    answer = await readiness.check(
        state.database,
        now=state.clock.now(),
        heartbeat_stale=timedelta(seconds=settings.worker_heartbeat_stale_s),
    )
    return JSONResponse(answer.to_json_dict(), status_code=200 if answer.ready else 503)


class MetricsUnauthorized(CorridorError):
    def __init__(self) -> None:
        super().__init__(
            "GET /metrics needs Authorization: Bearer <CORRIDOR_METRICS_TOKEN>",
            status=401,
            code="unauthorized",
            headers={"WWW-Authenticate": 'Bearer realm="metrics"'},
        )


def metrics_refusal(settings: Settings, authorization: str | None) -> Exception | None:
    """Why this request may not read /metrics on the API's port, or None when it may. Off
    here, /metrics answers the 404 of any unknown path."""
    if not settings.metrics_enabled or settings.metrics_port is not None:
        return HTTPException(404)
    token = settings.metrics_token.get_secret_value() if settings.metrics_token else ""
    if not token:
        return None if settings.is_sandbox else HTTPException(404)
    scheme, _, sent = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(sent.strip().encode(), token.encode()):
        return MetricsUnauthorized()
    return None


@router.get("/metrics", include_in_schema=False)
async def prometheus_metrics(request: Request) -> Response:
    """Prometheus text format: every API process's and worker's values when they share
    PROMETHEUS_MULTIPROC_DIR (kit/metrics.py)."""
    refusal = metrics_refusal(request.app.state.settings, request.headers.get("authorization"))
    if refusal is not None:
        raise refusal
    return Response(metrics.render(), media_type=metrics.CONTENT_TYPE)
