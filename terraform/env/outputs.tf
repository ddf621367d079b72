output "job_name" {
  description = "The Cloud Run job: gcloud run jobs execute <job_name> --tasks N."
  value       = module.docfleet.job_name
}

output "bucket" {
  description = "The GCS output bucket."
  value       = module.docfleet.bucket
}

output "state_uri" {
  description = "DOCFLEET_STATE for docfleet status / resume / launch."
  value       = module.docfleet.state_uri
}

output "out_uri" {
  description = "DOCFLEET_OUT where runs are written."
  value       = module.docfleet.out_uri
}

output "repository" {
  description = "Artifact Registry path for images."
  value       = module.docfleet.repository
}

output "service_account_email" {
  description = "The worker service account."
  value       = module.docfleet.service_account_email
}
