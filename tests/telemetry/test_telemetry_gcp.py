"""``--trace gcp`` end to end, offline: a real ``docfleet work`` process loads a
service-account key (Application Default Credentials), fetches an OAuth2 token from the
key's ``token_uri`` and exports OTLP/HTTP with ``Authorization`` and
``x-goog-user-project``, the resource carrying ``gcp.project_id``; the JSON logs name the
trace as ``projects/PROJECT/traces/TRACE_ID``. Both endpoints are the local receiver
(on Google Cloud they are oauth2.googleapis.com and telemetry.googleapis.com)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from docfleet.telemetry import GCP_TRACES_ENDPOINT
from support.fleet import events, named, start_worker, wait_all, worker_env
from support.otlp_receiver import TOKEN, OTLPReceiver

pytestmark = pytest.mark.fleet
PROJECT = "demo-gcp-project"


def _service_account_key(path: Path, token_uri: str) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    path.write_text(json.dumps({
        "type": "service_account", "project_id": PROJECT, "private_key_id": "k1",
        "private_key": pem, "client_email": f"docfleet@{PROJECT}.iam.gserviceaccount.com",
        "client_id": "1", "token_uri": token_uri,
    }))


def test_gcp_mode_authenticates_and_sets_the_project(tmp_path: Path, run_id: str) -> None:
    assert GCP_TRACES_ENDPOINT == "https://telemetry.googleapis.com/v1/traces"
    with OTLPReceiver() as rx:
        key = tmp_path / "sa.json"
        _service_account_key(key, f"{rx.endpoint}/token")
        env = worker_env(f"sqlite:///{tmp_path / 'state.db'}", f"file://{tmp_path / 'out'}",
                         run_id, 20, unit_size=5, TRACE="gcp")
        for name in [k for k in env if k.startswith(("OTEL_", "GOOGLE_", "GCP_"))]:
            del env[name]
        env.update(GOOGLE_APPLICATION_CREDENTIALS=str(key), NO_GCE_CHECK="true",
                   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=f"{rx.endpoint}/v1/traces")
        log = tmp_path / "task.log"
        assert wait_all([start_worker(env, log)], 60) == [0], log.read_text()
        assert rx.token_requests >= 1
        assert rx.headers and all(h.get("authorization") == f"Bearer {TOKEN}"
                                  and h.get("x-goog-user-project") == PROJECT
                                  for h in rx.headers)
        (root,) = rx.named("docfleet.task")
        assert root.resource["gcp.project_id"] == PROJECT
        assert len(rx.named("docfleet.manifest.part")) == 4
        done = named(events(log), "unit.done")
        assert len(done) == 4
        assert {e["logging.googleapis.com/trace"] for e in done} == {
            f"projects/{PROJECT}/traces/{root.trace_id}"}
    assert os.environ.get("GOOGLE_APPLICATION_CREDENTIALS") != str(key)
