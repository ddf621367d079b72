# Remote state in a GCS bucket created once by hand (see deploy/README.md, "Provision"),
# one prefix per environment (config/<env>.backend.hcl):
#   terraform init -reconfigure -backend-config=config/<env>.backend.hcl
terraform {
  backend "gcs" {}
}
