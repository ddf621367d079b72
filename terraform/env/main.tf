# The one root of every Google Cloud environment. Each environment is a pair of files in
# config/: <env>.tfvars (its inputs) and <env>.backend.hcl (where its state lives):
#   terraform init -reconfigure -backend-config=config/dev.backend.hcl
#   terraform plan -var-file=config/dev.tfvars
provider "google" {
  project = var.project_id
  region  = var.region
}

module "docfleet" {
  source = "../modules/gcp"

  project_id          = var.project_id
  region              = var.region
  name                = var.name
  image               = var.image
  task_count          = var.task_count
  parallelism         = var.parallelism
  task_timeout        = var.task_timeout
  max_retries         = var.max_retries
  cpu                 = var.cpu
  memory              = var.memory
  settings            = var.settings
  llm_secrets         = var.llm_secrets
  firestore_database  = var.firestore_database
  firestore_location  = var.firestore_location
  run_retention_days  = var.run_retention_days
  deletion_protection = var.deletion_protection
  deployer_members    = var.deployer_members
  ci_members          = var.ci_members
  labels              = merge({ app = "docfleet", env = var.environment }, var.labels)
}
