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
