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
