# docfleet worker image: one image for every task of a fleet (Cloud Run job, Kubernetes
# Indexed Job, AWS Batch array job). ENTRYPOINT ["docfleet"], CMD ["work"]; settings come
# from DOCFLEET_* env vars, the task index/count from the engine.
#
# Two targets: `generation` (what a document task needs) and `full` (the same plus litellm
# for `docfleet catalogue build` and duckdb for `export --to duckdb://`; one layer on top).
# scripts/build-image builds them with docker, buildah or podman (a plain `docker build .`
# builds the last target, full: pass --target generation). Python packages are
# exactly lock/image.txt (lock/image-full.txt), hash-checked, and /opt/docfleet/LOCK.sha256
# records which; pip's index and CA settings come in as the build secrets `pip.conf` and
# `ca.crt` (mounted for the RUN steps only, never in a layer). No frontend image is fetched
# (no `# syntax=` line): the built-in Dockerfile frontend builds this offline too.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# -- build: a virtualenv with the package and the extras a generation task needs ----------
# (gcp, aws, render, postgres). setuptools and wheel build the package, then go; so does
# pip: the images carry no installer.
FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
COPY lock/image.txt ./lock/
COPY pyproject.toml README.md ./
COPY worker ./worker
# Left out of the venv (about 45 MB; the image's budget is 1.2 GB): pyarrow's Arrow Flight
# RPC (32 MB: nothing imports pyarrow.flight, and no other library of pyarrow's links it),
# its test suite, C++ headers and sources (for building against pyarrow, not running it).
# pip compiles the bytecode; every installed pack's templates are compiled once here too, into a cache
# every task reads (docfleet.packs.template_cache: about 0.25 s of CPU less per task). The pip
# cache mount holds only downloads pip checks against the lock's hashes.
ENV DOCFLEET_TEMPLATE_CACHE=/opt/docfleet/template-cache
RUN --mount=type=secret,id=pip.conf,target=/etc/pip.conf \
    --mount=type=secret,id=ca.crt,target=/run/secrets/ca.crt \
    --mount=type=cache,target=/root/.cache/pip \
    python -m venv /opt/docfleet \
    && /opt/docfleet/bin/pip install -q --require-hashes --no-deps -r lock/image.txt \
    && /opt/docfleet/bin/pip install -q --no-deps --no-build-isolation --no-index . \
    && /opt/docfleet/bin/pip uninstall -q -y setuptools wheel \
    && /opt/docfleet/bin/pip check \
    && /opt/docfleet/bin/pip uninstall -q -y pip \
    && site=/opt/docfleet/lib/python3.11/site-packages \
    && rm -rf "${site}"/pyarrow/libarrow_flight.so* "${site}"/pyarrow/libarrow_python_flight.so* \
        "${site}"/pyarrow/_flight.*.so "${site}"/pyarrow/flight.py \
        "${site}"/pyarrow/__pycache__/flight.*.pyc "${site}"/pyarrow/tests \
        "${site}"/pyarrow/include "${site}"/pyarrow/src \
    && /opt/docfleet/bin/docfleet --version \
    && /opt/docfleet/bin/python -m docfleet.packs.template_cache \
    && sha256sum lock/image.txt > /opt/docfleet/LOCK.sha256

# -- generation: Debian's chromium-headless-shell and fonts, tini, a non-root user ---------
# (headless-shell prints the same layout as full chromium at about a third of its CPU per
# document: bench/documents.py; full chromium still works via DOCFLEET_CHROMIUM_PATH)
FROM ${PYTHON_IMAGE} AS generation
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# Debian stable's packages are taken as the distribution ships them (security updates
# included), so their versions are not pinned here; the image itself is pinned by its digest
# at deploy time (Cloud Build tags it with the commit SHA). libatomic1: Playwright's
# bundled Node links libatomic.so.1, which neither the base nor Chromium brings.
# The headless shell renders on the CPU: Mesa's drivers, LLVM and Z3 (about 160 MB, pulled
# in through x11-utils -> libgl1) and Vulkan's validation layer are never loaded, so dpkg
# leaves their files out (the packages stay installed, apt stays consistent); of
# fonts-noto-core's 42 MB only Noto Naskh/Sans Arabic (the ar-SA templates) and Noto
# Sans/Serif/Sans Mono (what fontconfig resolves sans-serif, serif and monospace to) stay;
# of BIZ UD (Japanese in TrueType, which the PDF embeds: packs/sdk/style.py) the
# proportional UDPGothic and UDPMincho.
# The handwriting fonts are the form pack's writers (worker/docfleet/packs/form/writers.py).
# The smoke step below proves the shell still prints; tests/infra/test_image_container.py
# that every locale prints with the same fonts as a machine with the whole package.
# hadolint ignore=DL3008
RUN --mount=type=cache,target=/var/cache/apt,sharing=locked \
    rm -f /etc/apt/apt.conf.d/docker-clean \
    && printf '%s\n' '# docfleet: files the headless shell never loads' \
        'path-exclude=/usr/lib/*/libLLVM*' 'path-exclude=/usr/lib/*/libz3.so*' \
        'path-exclude=/usr/lib/*/dri/*' \
        'path-exclude=/usr/lib/chromium/libVkLayer_khronos_validation.so' \
        '# fonts-noto-core: the families the templates name, and fontconfig'"'"'s generic ones' \
        'path-exclude=/usr/share/fonts/truetype/noto/*' \
        'path-include=/usr/share/fonts/truetype/noto/NotoNaskhArabic*' \
        'path-include=/usr/share/fonts/truetype/noto/NotoSansArabic*' \
        'path-include=/usr/share/fonts/truetype/noto/NotoSans-*' \
        'path-include=/usr/share/fonts/truetype/noto/NotoSerif-*' \
        'path-include=/usr/share/fonts/truetype/noto/NotoSansMono-*' \
        '# BIZ UD: the proportional faces the templates name, not the fixed-width ones' \
        'path-exclude=/usr/share/fonts/truetype/bizud-gothic/BIZUDGothic-*' \
        'path-exclude=/usr/share/fonts/truetype/bizud-mincho/BIZUDMincho-*' \
        > /etc/dpkg/dpkg.cfg.d/docfleet-headless \
    && apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        ca-certificates \
        chromium-headless-shell \
        fonts-breip \
        fonts-dancingscript \
        fonts-dejavu-core \
        fonts-kacst \
        fonts-kristi \
        fonts-liberation2 \
        fonts-morisawa-bizud-gothic \
        fonts-morisawa-bizud-mincho \
        fonts-noto-cjk \
        fonts-noto-core \
        fonts-seto \
        libatomic1 \
        tini \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 docfleet \
    && useradd --system --uid 10001 --gid docfleet --create-home --home-dir /home/docfleet docfleet

COPY --from=build /opt/docfleet /opt/docfleet

# `docfleet` on PATH is a two-line launcher that execs tini as PID 1 (-s: also when it is
# not PID 1), so Chromium's children are reaped and SIGTERM reaches the worker, which then
# releases its unit for a peer. The real console script is /opt/docfleet/bin/docfleet.
# /opt/docfleet/driver-cache: the browser driver's compiled code (Node's compile cache,
# docfleet.render.driver_cache: about 0.1 s of CPU less per task), warmed by the smoke step.
RUN printf '#!/bin/sh\nexec /usr/bin/tini -s -- /opt/docfleet/bin/docfleet "$@"\n' \
        > /usr/local/bin/docfleet \
    && chmod 0755 /usr/local/bin/docfleet \
    && install -d -o 10001 -g 10001 /opt/docfleet/driver-cache

ENV PATH="/usr/local/bin:/opt/docfleet/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    DOCFLEET_CHROMIUM_PATH=/usr/lib/chromium/chromium-headless-shell \
    DOCFLEET_TEMPLATE_CACHE=/opt/docfleet/template-cache \
    DOCFLEET_DRIVER_CACHE=/opt/docfleet/driver-cache \
    DOCFLEET_LOG_FORMAT=json

USER 10001:10001
WORKDIR /home/docfleet

# Smoke test at build time: render one real PDF through Chromium with the real command,
# exactly as a task would; the build fails if it cannot. Its driver leaves its compiled
# code in the driver cache every task then reads.
RUN set -eux; \
    smoke="$(mktemp -d)"; \
    DOCFLEET_RUN_ID=smoke DOCFLEET_TOTAL=1 DOCFLEET_PACK=invoice \
    DOCFLEET_STATE="sqlite:///${smoke}/state.db" DOCFLEET_OUT="file://${smoke}/out" \
        docfleet work; \
    pdf="$(find "${smoke}/out/smoke/documents" -name '*.pdf' -size +1k | head -n 1)"; \
    test -n "${pdf}"; \
    test "$(head -c 5 "${pdf}")" = "%PDF-"; \
    test -f "${smoke}/out/smoke/manifest.json"; \
    test -n "$(ls -A "${DOCFLEET_DRIVER_CACHE}")"; \
    rm -rf "${smoke}"

ENTRYPOINT ["docfleet"]
CMD ["work"]
# last, so that no layer above depends on them (scripts/build-image passes both)
ARG REVISION=unknown
ARG VERSION=unknown
LABEL org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.version="${VERSION}" \
      io.docfleet.lock="lock/image.txt"

# -- full: the generation image plus litellm (catalogue builds) and duckdb (duckdb:// export)
FROM generation AS full
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
USER 0:0
# pip comes from the base's ensurepip for this step only and goes with it.
RUN --mount=type=secret,id=pip.conf,target=/etc/pip.conf \
    --mount=type=secret,id=ca.crt,target=/run/secrets/ca.crt \
    --mount=type=cache,target=/root/.cache/pip \
    --mount=type=bind,source=lock/image-full.txt,target=/run/lock/image-full.txt \
    /opt/docfleet/bin/python -m ensurepip \
    && /opt/docfleet/bin/python -m pip install -q --require-hashes --no-deps \
        -r /run/lock/image-full.txt \
    && /opt/docfleet/bin/python -m pip check \
    && /opt/docfleet/bin/python -m pip uninstall -q -y setuptools wheel pip \
    && printf '%s  lock/image-full.txt\n' "$(sha256sum < /run/lock/image-full.txt | cut -c1-64)" \
        >> /opt/docfleet/LOCK.sha256 \
    && /opt/docfleet/bin/python -c 'from docfleet.catalogue.llm import litellm_module; litellm_module()'
USER 10001:10001
LABEL io.docfleet.lock="lock/image-full.txt"
