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
