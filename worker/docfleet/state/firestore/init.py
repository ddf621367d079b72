"""``docfleet store init firestore://…``: check, never create, what the store needs (the
database, its composite index, the unit fields exempted from indexing: Terraform's, which
also grants their IAM); on an emulator, that it answers."""

from __future__ import annotations

import os

from docfleet.cloud.gcp import gcp_error
from docfleet.core.errors import MissingExtraError
from docfleet.core.findings import Finding
from docfleet.core.uris import ParsedURI
from docfleet.state.firestore.schema import FIRESTORE_INDEXES, FIRESTORE_UNINDEXED_FIELDS
from docfleet.state.firestore.store import open_firestore_store


def init_store(parsed: ParsedURI) -> list[Finding]:
    """Check the database, its composite index and the unindexed unit fields (on an
    emulator: that it answers). Creates nothing: Terraform owns them."""
    project = parsed.netloc
    database = parsed.path.strip("/") or "(default)"
    where = f"firestore://{project}/{database}"
    emulator = parsed.query.get("emulator") or os.environ.get("FIRESTORE_EMULATOR_HOST")
    if emulator:
        store = open_firestore_store(parsed)  # a read proves the emulator answers
        store.list_runs()
        store.close()
        return [Finding(True, f"{where}: the emulator at {emulator} answers; it needs no "
                              "database or composite index")]
    try:
        from google.api_core import exceptions as gexc
        from google.cloud import firestore_admin_v1
    except ImportError:
        raise MissingExtraError("firestore:// state stores", "gcp") from None
    admin = firestore_admin_v1.FirestoreAdminClient()
    db_name = f"projects/{project}/databases/{database}"
    try:
        admin.get_database(name=db_name)
    except gexc.NotFound:
        hint = ("Terraform creates the database 'docfleet': use firestore://"
                f"{project}/docfleet" if database == "(default)" else "apply terraform/")
        return [Finding(False, f"{where}: database does not exist", hint)]
    except gexc.GoogleAPICallError as exc:
        raise gcp_error(exc, f"{where} init") from None
    findings = [Finding(True, f"{where}: database exists")]
    have = set()
    for index in admin.list_indexes(
            parent=f"{db_name}/collectionGroups/{FIRESTORE_INDEXES[0]['collection_group']}"):
        fields = tuple((f.field_path, f.order.name) for f in index.fields
                       if f.field_path != "__name__")
        have.add((fields, index.state.name))
    for wanted in FIRESTORE_INDEXES:
        fields = tuple(wanted["fields"])
        names = ", ".join(f for f, _ in fields)
        if (fields, "READY") in have:
            findings.append(Finding(True, f"{where}: index on units({names}) ready"))
        elif any(f == fields for f, _ in have):
            findings.append(Finding(False, f"{where}: index on units({names}) still building",
                                    "wait a few minutes and check again"))
        else:
            findings.append(Finding(False, f"{where}: index on units({names}) is missing",
                                    "apply terraform/ (module gcp creates it)"))
    group = f"{db_name}/collectionGroups/{FIRESTORE_INDEXES[0]['collection_group']}"
    for name in FIRESTORE_UNINDEXED_FIELDS:
        # an exempted field has its own config with no index (not its ancestor's)
        try:
            config = admin.get_field(name=f"{group}/fields/{name}").index_config
            exempt = not config.uses_ancestor_config and not list(config.indexes)
        except gexc.NotFound:
            exempt = False
        except gexc.GoogleAPICallError as exc:
            raise gcp_error(exc, f"{where} init") from None
        findings.append(Finding(True, f"{where}: units.{name} is not indexed") if exempt else
                        Finding(False, f"{where}: units.{name} is still indexed (a "
                                       "collection writing it is held to 500 writes/s)",
                                "apply terraform/ (module gcp exempts it)"))
    return findings
