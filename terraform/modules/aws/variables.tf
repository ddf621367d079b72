variable "name" {
  description = "Name prefix for every resource (table, bucket, role, job definition)."
  type        = string
  default     = "docfleet"

  validation {
    condition     = can(regex("^[a-z0-9][a-z0-9-]{1,40}$", var.name))
    error_message = "name must be 2-41 lowercase letters, digits or '-'."
  }
}

variable "bucket_name" {
  description = "Name of the S3 output bucket. Defaults to \"<name>-<account id>-out\"."
  type        = string
  default     = null
}

variable "output_prefix" {
  description = "Key prefix under the bucket where runs are written (DOCFLEET_OUT = s3://bucket/prefix)."
  type        = string
  default     = "runs"
}

variable "force_destroy" {
  description = "Allow destroying the bucket while it still holds objects (dev/test only)."
  type        = bool
  default     = false
}

variable "deletion_protection" {
  description = "Protect the DynamoDB table from deletion."
  type        = bool
  default     = true
}

variable "run_retention_days" {
  description = "Days after which run outputs expire from the bucket; 0 keeps them forever."
  type        = number
  default     = 90
}

variable "image" {
  description = "Container image of the worker (entrypoint docfleet, command work)."
  type        = string
  default     = "docfleet:latest"
}

variable "vcpus" {
  description = "vCPUs per task of the AWS Batch job definition."
  type        = number
  default     = 2
}

variable "memory_mib" {
  description = "Memory (MiB) per task of the AWS Batch job definition."
  type        = number
  default     = 4096
}

variable "task_timeout_seconds" {
  description = "Batch attempt timeout per task."
  type        = number
  default     = 3600
}

variable "task_attempts" {
  description = "Batch retry attempts per task (the state store's leases make retries safe)."
  type        = number
  default     = 3
}

variable "settings" {
  description = "Extra DOCFLEET_* settings for the job (names as in docfleet.settings.Settings)."
  type        = map(string)
  default     = {}

  validation {
    condition     = alltrue([for k in keys(var.settings) : can(regex("^DOCFLEET_[A-Z_]+$", k))])
    error_message = "settings keys must be DOCFLEET_* environment variable names."
  }
}

variable "tags" {
  description = "Tags applied to every resource."
  type        = map(string)
  default     = {}
}
