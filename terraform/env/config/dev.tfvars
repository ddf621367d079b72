environment         = "dev"
project_id          = "docfleet-dev"
region              = "europe-west1"
task_count          = 4
parallelism         = 4
task_timeout        = "1800s"
max_retries         = 2
cpu                 = "2"
memory              = "4Gi"
run_retention_days  = 14
deletion_protection = false
firestore_database  = "docfleet"
firestore_location  = "eur3"

settings = {
  DOCFLEET_PACK          = "invoice"
  DOCFLEET_LEASE_SECONDS = "60"
  DOCFLEET_MAX_ATTEMPTS  = "3"
  DOCFLEET_LOG_LEVEL     = "INFO"
}

llm_secrets = {
  OPENAI_API_KEY    = "docfleet-openai-api-key"
  ANTHROPIC_API_KEY = "docfleet-anthropic-api-key"
}

# Every principal must exist when applied: the operators' own accounts or groups, and
# the deploy service account made in deploy/README.md ("Let GitHub Actions deploy") before
# this environment's pipeline applies it.
deployer_members = []
ci_members       = ["serviceAccount:docfleet-deploy@docfleet-dev.iam.gserviceaccount.com"]
