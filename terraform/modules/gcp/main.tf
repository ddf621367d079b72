/**
 * docfleet on Google Cloud: a Cloud Run v2 job (one execution = one fleet of identical
 * tasks), the Firestore database, the composite index the claim query needs (exactly
 * docfleet.state.firestore.schema.FIRESTORE_INDEXES) and the single-field index exemptions of
 * FIRESTORE_UNINDEXED_FIELDS, the GCS output bucket, the
 * Artifact Registry repository, Secret Manager secrets for LLM keys, and a dedicated
 * service account with least-privilege IAM.
 */

locals {
  bucket_name = coalesce(var.bucket_name, "${var.project_id}-${var.name}-out")
  repository  = "${var.region}-docker.pkg.dev/${var.project_id}/${google_artifact_registry_repository.images.repository_id}"
  # Before the first Cloud Build there is no docfleet image: the job starts on Google's
  # sample job image and every deploy replaces it (lifecycle.ignore_changes below).
  image = coalesce(var.image, "us-docker.pkg.dev/cloudrun/container/job:latest")
  state_uri = join("", [
    "firestore://${var.project_id}/${google_firestore_database.state.name}",
    var.state_prefix == "" ? "" : "?prefix=${var.state_prefix}",
  ])
  out_uri = "gs://${google_storage_bucket.out.name}/${var.output_prefix}"

  # Every DOCFLEET_* name here must be a field of docfleet.settings.Settings
  # (tests/infra/test_coherence.py holds this against the code).
  settings_env = merge({
    DOCFLEET_STATE      = local.state_uri
    DOCFLEET_OUT        = local.out_uri
    DOCFLEET_LOG_FORMAT = "json"
    # Lets log lines link to traces; add DOCFLEET_TRACE = "gcp" to var.settings to export them.
    GOOGLE_CLOUD_PROJECT = var.project_id
  }, var.settings)

  # The claim query (state == PENDING order by idx) over the "units" collection group.
  firestore_indexes = {
    claim = {
      collection  = "units"
      query_scope = "COLLECTION"
      fields      = [["state", "ASCENDING"], ["idx", "ASCENDING"]]
    }
  }
  # Unit fields whose values only grow (timestamps, the plan's start offsets) and that no
  # query uses: not indexed, so the units collection is not held to Firestore's
  # 500 writes/s for sequential indexed values.
  firestore_unindexed_fields = ["lease_expires_at", "claimed_at", "finished_at", "start"]
}

# -- service account -----------------------------------------------------------------------

resource "google_service_account" "worker" {
  project      = var.project_id
  account_id   = "${var.name}-worker"
  display_name = "docfleet worker (${var.name})"
  description  = "Identity of the docfleet Cloud Run job's tasks"
}
