# Remote state in a GCS bucket created once by hand (see deploy/README.md, "Provision"):
#   terraform init -backend-config=backend.hcl
terraform {
  backend "gcs" {}
}
