# Corridor's image, built from the repository (docs/deployment.md "Container"):
#   docker build -t corridor .
#   docker run --env-file corridor.env corridor migrate | serve --host 0.0.0.0 | worker
FROM python:3.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml constraints.txt README.md ./
COPY src ./src
RUN python -m venv /opt/corridor \
    && /opt/corridor/bin/pip install --upgrade pip \
    && /opt/corridor/bin/pip install -c constraints.txt .

FROM python:3.11-slim-bookworm
RUN useradd --system --uid 10001 --home-dir /var/lib/corridor --create-home corridor
COPY --from=build /opt/corridor /opt/corridor
ENV PATH=/opt/corridor/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    CORRIDOR_LOG_FORMAT=json \
    CORRIDOR_HOST=0.0.0.0
USER corridor
WORKDIR /var/lib/corridor
EXPOSE 8000
# SIGTERM drains (CORRIDOR_SHUTDOWN_GRACE_S, 30 s): give the container a longer stop
# timeout. Probes: readiness GET /v1/health/ready, liveness GET /v1/health (API only).
STOPSIGNAL SIGTERM
ENTRYPOINT ["corridor"]
CMD ["serve", "--no-workers"]
