/**
 * docfleet on Google Cloud: a Cloud Run v2 job (one execution = one fleet of identical
 * tasks), the Firestore database and the composite indexes the claim and reclaim queries
 * need (exactly docfleet.state.schemas.FIRESTORE_INDEXES), the GCS output bucket, the
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

  # The claim query (state == PENDING order by idx) and the reclaim query (state ==
  # RUNNING and lease_expires_at < now) over the "units" collection group.
  firestore_indexes = {
    claim = {
      collection  = "units"
      query_scope = "COLLECTION"
      fields      = [["state", "ASCENDING"], ["idx", "ASCENDING"]]
    }
    reclaim = {
      collection  = "units"
      query_scope = "COLLECTION"
      fields      = [["state", "ASCENDING"], ["lease_expires_at", "ASCENDING"]]
    }
  }
}

# -- service account -----------------------------------------------------------------------

resource "google_service_account" "worker" {
  project      = var.project_id
  account_id   = "${var.name}-worker"
  display_name = "docfleet worker (${var.name})"
  description  = "Identity of the docfleet Cloud Run job's tasks"
}

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

# -- Firestore (state store) ------------------------------------------------------------------

resource "google_firestore_database" "state" {
  project                           = var.project_id
  name                              = var.firestore_database
  location_id                       = var.firestore_location
  type                              = "FIRESTORE_NATIVE"
  concurrency_mode                  = "PESSIMISTIC"
  point_in_time_recovery_enablement = "POINT_IN_TIME_RECOVERY_ENABLED"
  delete_protection_state           = var.deletion_protection ? "DELETE_PROTECTION_ENABLED" : "DELETE_PROTECTION_DISABLED"
  deletion_policy                   = var.deletion_protection ? "ABANDON" : "DELETE"
}

resource "google_firestore_index" "units" {
  for_each = local.firestore_indexes

  project     = var.project_id
  database    = google_firestore_database.state.name
  collection  = each.value.collection
  query_scope = each.value.query_scope

  dynamic "fields" {
    for_each = each.value.fields
    content {
      field_path = fields.value[0]
      order      = fields.value[1]
    }
  }
}

# -- GCS (outputs) -------------------------------------------------------------------------

resource "google_storage_bucket" "out" {
  # checkov:skip=CKV_GCP_62:Access logs would need a second bucket; Cloud Audit Logs (data access) cover this bucket's reads and writes.
  project                     = var.project_id
  name                        = local.bucket_name
  location                    = var.region
  storage_class               = "STANDARD"
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  force_destroy               = !var.deletion_protection
  labels                      = var.labels

  versioning {
    enabled = true
  }

  soft_delete_policy {
    retention_duration_seconds = 604800
  }

  dynamic "lifecycle_rule" {
    for_each = var.run_retention_days > 0 ? [var.run_retention_days] : []
    content {
      condition {
        age            = lifecycle_rule.value
        matches_prefix = ["${var.output_prefix}/"]
      }
      action {
        type = "Delete"
      }
    }
  }

  lifecycle_rule {
    condition {
      days_since_noncurrent_time = 7
    }
    action {
      type = "Delete"
    }
  }
}

# -- Artifact Registry (images) ------------------------------------------------------------

resource "google_artifact_registry_repository" "images" {
  # checkov:skip=CKV_GCP_84:Images hold only this open-source worker and Debian packages, no data or secrets; Google-managed encryption at rest is sufficient.
  project       = var.project_id
  location      = var.region
  repository_id = var.name
  format        = "DOCKER"
  description   = "docfleet worker images (tagged with the commit SHA)"
  labels        = var.labels

  docker_config {
    immutable_tags = true
  }

  cleanup_policies {
    id     = "keep-recent"
    action = "KEEP"
    most_recent_versions {
      keep_count = 20
    }
  }

  cleanup_policies {
    id     = "delete-old"
    action = "DELETE"
    condition {
      tag_state  = "ANY"
      older_than = "7776000s" # 90 days; the 20 most recent are kept regardless
    }
  }
}

resource "google_artifact_registry_repository_iam_member" "ci_writer" {
  for_each = toset(var.ci_members)

  project    = var.project_id
  location   = var.region
  repository = google_artifact_registry_repository.images.name
  role       = "roles/artifactregistry.writer"
  member     = each.value
}

# -- Secret Manager (LLM keys) -------------------------------------------------------------

resource "google_secret_manager_secret" "llm" {
  for_each = var.llm_secrets

  project   = var.project_id
  secret_id = each.value
  labels    = var.labels

  replication {
    auto {}
  }
}

# -- the Cloud Run job -----------------------------------------------------------------------

resource "google_cloud_run_v2_job" "docfleet" {
  project             = var.project_id
  name                = var.name
  location            = var.region
  deletion_protection = var.deletion_protection
  labels              = var.labels

  template {
    task_count  = var.task_count
    parallelism = var.parallelism
    labels      = var.labels

    template {
      service_account       = google_service_account.worker.email
      timeout               = var.task_timeout
      max_retries           = var.max_retries
      execution_environment = "EXECUTION_ENVIRONMENT_GEN2"

      # Chromium keeps its shared memory in /dev/shm: give it room (in-memory volume).
      volumes {
        name = "dshm"
        empty_dir {
          medium     = "MEMORY"
          size_limit = "512Mi"
        }
      }

      containers {
        image = local.image
        args  = ["work"]

        resources {
          limits = {
            cpu    = var.cpu
            memory = var.memory
          }
        }

        volume_mounts {
          name       = "dshm"
          mount_path = "/dev/shm"
        }

        dynamic "env" {
          for_each = local.settings_env
          content {
            name  = env.key
            value = env.value
          }
        }

        dynamic "env" {
          for_each = google_secret_manager_secret.llm
          content {
            name = env.key
            value_source {
              secret_key_ref {
                secret  = env.value.secret_id
                version = "latest"
              }
            }
          }
        }
      }
    }
  }

  lifecycle {
    # Cloud Build deploys new images (gcloud run jobs update --image); Terraform owns the rest.
    ignore_changes = [template[0].template[0].containers[0].image, client, client_version]
  }

  depends_on = [
    google_project_iam_member.worker_datastore,
    google_storage_bucket_iam_member.worker_objects,
    google_secret_manager_secret_iam_member.worker_llm,
  ]
}

# Operators run executions with overrides (task count, DOCFLEET_RUN_ID, DOCFLEET_TOTAL).
resource "google_cloud_run_v2_job_iam_member" "executors" {
  for_each = toset(var.deployer_members)

  project  = var.project_id
  location = var.region
  name     = google_cloud_run_v2_job.docfleet.name
  role     = "roles/run.jobsExecutorWithOverrides"
  member   = each.value
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
