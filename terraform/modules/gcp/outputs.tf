output "job_name" {
  description = "The Cloud Run job (gcloud run jobs execute JOB --tasks N)."
  value       = google_cloud_run_v2_job.docfleet.name
}

output "job_id" {
  description = "Full resource name of the Cloud Run job."
  value       = google_cloud_run_v2_job.docfleet.id
}

output "bucket" {
  description = "The GCS output bucket."
  value       = google_storage_bucket.out.name
}

output "state_uri" {
  description = "DOCFLEET_STATE of the tasks (for docfleet status / resume / launch)."
  value       = local.state_uri
}

output "out_uri" {
  description = "DOCFLEET_OUT of the tasks."
  value       = local.out_uri
}

output "repository" {
  description = "Artifact Registry path images are pushed to."
  value       = local.repository
}

output "service_account_email" {
  description = "The worker tasks' service account."
  value       = google_service_account.worker.email
}

output "llm_secret_ids" {
  description = "Secret Manager secrets to fill with LLM keys."
  value       = { for env, s in google_secret_manager_secret.llm : env => s.secret_id }
}
