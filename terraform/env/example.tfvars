# The inputs of a new environment. deploy/README.md ("First deploy", step 5) makes
# config/<env>.tfvars from this file, replacing the four upper-case placeholders with
# your environment name, project, region and Google account.
environment = "ENVIRONMENT"
project_id  = "PROJECT_ID"
region      = "REGION"

# One execution asks for task_count (or --tasks) x cpu vCPUs; parallelism caps how many
# tasks run at once (0 = all). Check the project's Cloud Run quota before a large run.
task_count   = 4
parallelism  = 0
task_timeout = "1800s"
max_retries  = 2
cpu          = "2"
memory       = "4Gi"

run_retention_days  = 14
deletion_protection = false

settings = {
  DOCFLEET_PACK      = "invoice"
  DOCFLEET_LOG_LEVEL = "INFO"
}

# Only the catalogue build reads LLM keys: name a secret per key variable to create it
# here, then add its value with `gcloud secrets versions add`.
llm_secrets = {}

# Principals must exist when this is applied. You do; add groups ("group:...") as you
# like. The deploy pipeline's service accounts go in ci_members once they exist
# (deploy/README.md, "Let GitHub Actions deploy").
deployer_members = ["user:OPERATOR_EMAIL"]
ci_members       = []
