"""Google Cloud helpers (google-cloud-*, extra ``gcp``) for ``gs://`` and ``firestore://``:
clients that use anonymous credentials under an emulator, which errors are worth retrying
and a permanent error as one line. No SDK import at module level."""

from __future__ import annotations

import os
from typing import Any

from docfleet.core.errors import ConfigError, DocfleetError
from docfleet.core.retry import one_line


def gcp_transient(exc: BaseException) -> bool:
    """Throttling, 5xx, ABORTED/UNAVAILABLE and connection trouble are worth retrying."""
    import requests
    from google.api_core import exceptions as gexc
    from google.auth import exceptions as aexc

    if isinstance(exc, (gexc.TooManyRequests, gexc.ServerError, gexc.Aborted,
                        gexc.ServiceUnavailable, gexc.DeadlineExceeded, gexc.RetryError,
                        gexc.InternalServerError)):
        return True
    if isinstance(exc, aexc.TransportError):
        return True
    return isinstance(exc, (requests.ConnectionError, requests.Timeout,
                            requests.exceptions.ChunkedEncodingError, ConnectionError,
                            TimeoutError))


def gcp_error(exc: BaseException, what: str) -> DocfleetError:
    """A permanent Google Cloud error as one readable line."""
    from google.api_core import exceptions as gexc
    from google.auth import exceptions as aexc

    if isinstance(exc, aexc.DefaultCredentialsError):
        return ConfigError(f"{what}: no Google Cloud credentials found",
                           "run 'gcloud auth application-default login' or set "
                           "GOOGLE_APPLICATION_CREDENTIALS")
    if isinstance(exc, (gexc.Forbidden, gexc.Unauthorized, gexc.PermissionDenied,
                        gexc.Unauthenticated)):
        return ConfigError(f"{what}: permission denied: {one_line(exc)}",
                           "check the credentials and their IAM roles")
    return ConfigError(f"{what}: {one_line(exc)}")


def emulated_gcs() -> bool:
    """Whether Cloud Storage calls go to an emulator (``STORAGE_EMULATOR_HOST``)."""
    return bool(os.environ.get("STORAGE_EMULATOR_HOST"))


def emulated_firestore() -> bool:
    """Whether Firestore calls go to an emulator (``FIRESTORE_EMULATOR_HOST``)."""
    return bool(os.environ.get("FIRESTORE_EMULATOR_HOST"))


def anonymous_credentials() -> Any:
    """Credentials for an emulator: none are sent, no metadata server is asked."""
    from google.auth.credentials import AnonymousCredentials

    return AnonymousCredentials()


def storage_client(project: str | None, *, emulated: bool, emulator_project: str) -> Any:
    """A ``google.cloud.storage.Client``: anonymous in project ``project`` (or
    ``emulator_project``) when ``emulated``, else with the default credentials. The
    caller has imported ``google.cloud.storage`` (and reported a missing extra)."""
    from google.cloud import storage

    if emulated:
        return storage.Client(project=project or emulator_project,
                              credentials=anonymous_credentials())
    return storage.Client(project=project)


def firestore_client(project: str, database: str | None) -> Any:
    """A ``google.cloud.firestore.Client``: anonymous under the emulator, else with the
    default credentials. The caller has imported ``google.cloud.firestore``."""
    from google.cloud import firestore

    if emulated_firestore():
        return firestore.Client(project=project, database=database,
                                credentials=anonymous_credentials())
    return firestore.Client(project=project, database=database)
