# Firestore has no per-database IAM binding: datastore.user is granted on the project,
# narrowed by an IAM condition to this module's database.
resource "google_project_iam_member" "worker_datastore" {
  project = var.project_id
  role    = "roles/datastore.user"
  member  = google_service_account.worker.member

  condition {
    title      = "docfleet-state-database"
    expression = "resource.name == \"projects/${var.project_id}/databases/${google_firestore_database.state.name}\""
  }
}

# Spans go by OTLP to telemetry.googleapis.com (tracesWriter) or the Cloud Trace API
# (cloudtrace.agent); logs to Cloud Logging. All three are write-only.
resource "google_project_iam_member" "worker_telemetry" {
  for_each = toset(["roles/cloudtrace.agent", "roles/telemetry.tracesWriter", "roles/logging.logWriter"])

  project = var.project_id
  role    = each.value
  member  = google_service_account.worker.member
}

resource "google_storage_bucket_iam_member" "worker_objects" {
  bucket = google_storage_bucket.out.name
  role   = "roles/storage.objectAdmin"
  member = google_service_account.worker.member
}

resource "google_secret_manager_secret_iam_member" "worker_llm" {
  for_each = google_secret_manager_secret.llm

  project   = var.project_id
  secret_id = each.value.secret_id
  role      = "roles/secretmanager.secretAccessor"
  member    = google_service_account.worker.member
}


# Operators run executions with overrides (task count, DOCFLEET_RUN_ID, DOCFLEET_TOTAL) and
# follow them from a laptop: `docfleet launch --wait` reads the job and its executions,
# `status`/`resume`/`pause` read and write the run's state in this database, `export` and
# `verify` read the outputs. Nothing else: no other database, no bucket admin, no secrets.
resource "google_cloud_run_v2_job_iam_member" "executors" {
  for_each = toset(var.deployer_members)

  project  = var.project_id
  location = var.region
  name     = google_cloud_run_v2_job.docfleet.name
  role     = "roles/run.jobsExecutorWithOverrides"
  member   = each.value
}

resource "google_cloud_run_v2_job_iam_member" "operators_view" {
  for_each = toset(var.deployer_members)

  project  = var.project_id
  location = var.region
  name     = google_cloud_run_v2_job.docfleet.name
  role     = "roles/run.viewer"
  member   = each.value
}

resource "google_project_iam_member" "operators_datastore" {
  for_each = toset(var.deployer_members)

  project = var.project_id
  role    = "roles/datastore.user"
  member  = each.value

  condition {
    title      = "docfleet-state-database-operators"
    expression = "resource.name == \"projects/${var.project_id}/databases/${google_firestore_database.state.name}\""
  }
}

resource "google_storage_bucket_iam_member" "operators_objects" {
  for_each = toset(var.deployer_members)

  bucket = google_storage_bucket.out.name
  role   = "roles/storage.objectViewer"
  member = each.value
}

# The pipeline updates the job's image (run.developer on this job only) and must act as
# the worker service account to do so.
resource "google_cloud_run_v2_job_iam_member" "ci_developer" {
  for_each = toset(var.ci_members)

  project  = var.project_id
  location = var.region
  name     = google_cloud_run_v2_job.docfleet.name
  role     = "roles/run.developer"
  member   = each.value
}

resource "google_service_account_iam_member" "ci_act_as_worker" {
  for_each = toset(var.ci_members)

  service_account_id = google_service_account.worker.name
  role               = "roles/iam.serviceAccountUser"
  member             = each.value
}
