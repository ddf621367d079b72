# syntax=docker/dockerfile:1.7
# docfleet worker image: one image for every task of a fleet (Cloud Run job, Kubernetes
# Indexed Job, AWS Batch array job). ENTRYPOINT ["docfleet"], CMD ["work"]; settings come
# from DOCFLEET_* env vars, the task index/count from the engine.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# -- build: a virtualenv with the package and the extras a cloud task needs ----------------
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY worker ./worker
# pip compiles the bytecode; every installed pack's templates are compiled once here too,
# into a cache every task reads (docfleet.packs.template_cache: about 0.25 s of CPU less
# per task)
ENV DOCFLEET_TEMPLATE_CACHE=/opt/docfleet/template-cache
RUN python -m venv /opt/docfleet \
    && /opt/docfleet/bin/pip install --no-cache-dir ".[gcp,aws,render,llm,export,postgres]" \
    && /opt/docfleet/bin/docfleet --version \
    && /opt/docfleet/bin/python -m docfleet.packs.template_cache

# -- runtime: Debian's chromium-headless-shell and fonts, tini, a non-root user ------------
# (headless-shell prints the same layout as full chromium at about a third of its CPU per
# document: bench/documents.py; full chromium still works via DOCFLEET_CHROMIUM_PATH)
FROM ${PYTHON_IMAGE} AS runtime
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# Debian stable's packages are taken as the distribution ships them (security updates
# included), so their versions are not pinned here; the image itself is pinned by its digest
# at deploy time (Cloud Build tags it with the commit SHA).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        ca-certificates \
        chromium-headless-shell \
        fonts-dejavu-core \
        fonts-liberation2 \
        fonts-noto-cjk \
        fonts-noto-core \
        tini \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 docfleet \
    && useradd --system --uid 10001 --gid docfleet --create-home --home-dir /home/docfleet docfleet

COPY --from=build /opt/docfleet /opt/docfleet

# `docfleet` on PATH is a two-line launcher that execs tini as PID 1 (-s: also when it is
# not PID 1), so Chromium's children are reaped and SIGTERM reaches the worker, which then
# releases its unit for a peer. The real console script is /opt/docfleet/bin/docfleet.
RUN printf '#!/bin/sh\nexec /usr/bin/tini -s -- /opt/docfleet/bin/docfleet "$@"\n' \
        > /usr/local/bin/docfleet \
    && chmod 0755 /usr/local/bin/docfleet

ENV PATH="/usr/local/bin:/opt/docfleet/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    DOCFLEET_CHROMIUM_PATH=/usr/lib/chromium/chromium-headless-shell \
    DOCFLEET_TEMPLATE_CACHE=/opt/docfleet/template-cache \
    DOCFLEET_LOG_FORMAT=json

USER 10001:10001
WORKDIR /home/docfleet

# Smoke test at build time: render one real PDF through Chromium with the real command,
# exactly as a task would; the build fails if it cannot.
RUN set -eux; \
    smoke="$(mktemp -d)"; \
    DOCFLEET_RUN_ID=smoke DOCFLEET_TOTAL=1 DOCFLEET_PACK=invoice \
    DOCFLEET_STATE="sqlite:///${smoke}/state.db" DOCFLEET_OUT="file://${smoke}/out" \
        docfleet work; \
    pdf="$(find "${smoke}/out/smoke/documents" -name '*.pdf' -size +1k | head -n 1)"; \
    test -n "${pdf}"; \
    test "$(head -c 5 "${pdf}")" = "%PDF-"; \
    test -f "${smoke}/out/smoke/manifest.json"; \
    rm -rf "${smoke}"

ENTRYPOINT ["docfleet"]
CMD ["work"]
