"""Operations: liveness, readiness and the Prometheus metrics (GET /metrics), and what
the workers write for them (heartbeats, queue depths)."""

from corridor.health.endpoints import router

__all__ = ["router"]
