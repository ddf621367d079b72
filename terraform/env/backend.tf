# Remote state in a GCS bucket you create once (deploy/README.md, "First deploy", step 3),
# one prefix per environment (config/<env>.backend.hcl):
#   terraform init -reconfigure -backend-config=config/<env>.backend.hcl
terraform {
  backend "gcs" {}
}
