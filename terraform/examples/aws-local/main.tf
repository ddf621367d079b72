# Example root: the AWS module applied against a local moto server (tests/infra/test_aws_apply.py
# applies it for real). Never points at AWS: every endpoint is var.endpoint (127.0.0.1).
terraform {
  required_version = ">= 1.5"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.40, < 7.0"
    }
  }
}

variable "endpoint" {
  description = "The moto server, e.g. http://127.0.0.1:5000."
  type        = string
}

variable "name" {
  description = "Name prefix, unique per test."
  type        = string
}

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "testing"
  secret_key                  = "testing"
  skip_credentials_validation = true
  skip_metadata_api_check     = true
  skip_requesting_account_id  = false
  skip_region_validation      = true
  s3_use_path_style           = true

  endpoints {
    batch    = var.endpoint
    dynamodb = var.endpoint
    iam      = var.endpoint
    s3       = var.endpoint
    sts      = var.endpoint
  }
}

module "docfleet" {
  source = "../../modules/aws"

  name                = var.name
  force_destroy       = true
  deletion_protection = false
  image               = "docfleet:test"
  settings = {
    DOCFLEET_LEASE_SECONDS = "10"
  }
}

output "table_name" {
  description = "The DynamoDB state table."
  value       = module.docfleet.table_name
}

output "bucket" {
  description = "The S3 output bucket."
  value       = module.docfleet.bucket
}

output "state_uri" {
  description = "DOCFLEET_STATE for workers."
  value       = module.docfleet.state_uri
}

output "out_uri" {
  description = "DOCFLEET_OUT for workers."
  value       = module.docfleet.out_uri
}

output "job_definition_arn" {
  description = "The AWS Batch job definition."
  value       = module.docfleet.job_definition_arn
}
