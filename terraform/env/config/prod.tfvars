environment         = "prod"
project_id          = "docfleet-prod"
region              = "europe-west1"
task_count          = 50
parallelism         = 50
task_timeout        = "3600s"
max_retries         = 3
cpu                 = "2"
memory              = "4Gi"
run_retention_days  = 180
deletion_protection = true
firestore_database  = "docfleet"
firestore_location  = "eur3"

settings = {
  DOCFLEET_PACK          = "invoice"
  DOCFLEET_LEASE_SECONDS = "120"
  DOCFLEET_MAX_ATTEMPTS  = "3"
  DOCFLEET_LOG_LEVEL     = "INFO"
}

llm_secrets = {
  OPENAI_API_KEY    = "docfleet-openai-api-key"
  ANTHROPIC_API_KEY = "docfleet-anthropic-api-key"
}

# Every principal must exist when applied: the operators' own accounts or groups, and
# the deploy service account made in deploy/README.md ("Let GitHub Actions deploy").
deployer_members = []
ci_members       = ["serviceAccount:docfleet-deploy@docfleet-prod.iam.gserviceaccount.com"]
