"""Cloud SDK helpers shared by the blob stores and the state stores: client construction,
credentials under an emulator, endpoints, transient-error tests and one-line errors.
``aws`` serves ``s3://`` and ``dynamodb://``, ``gcp`` serves ``gs://`` and ``firestore://``.
Importing them imports no SDK: each function imports what it needs when called, so the
local path (SQLite + files) never loads boto3 or google-cloud-*."""
