variable "environment" {
  description = "Environment name (dev, prod, …): the env label and the config/<environment>.* files."
  type        = string

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{0,19}$", var.environment))
    error_message = "environment: lower-case letters, digits and dashes, at most 20 characters."
  }
}

variable "project_id" {
  description = "Google Cloud project of this environment."
  type        = string
}

variable "region" {
  description = "Region of the job, bucket and image repository."
  type        = string
  default     = "europe-west1"
}

variable "name" {
  description = "Cloud Run job name (the operator runs gcloud run jobs execute <name>)."
  type        = string
  default     = "docfleet"
}

variable "image" {
  description = "Initial worker image; later deploys replace it through Cloud Build. null = a placeholder until the first build."
  type        = string
  default     = null
}

variable "task_count" {
  description = "Default tasks per execution."
  type        = number
  default     = 10
}

variable "parallelism" {
  description = "Tasks running at once (0 = as many as possible)."
  type        = number
  default     = 0
}

variable "task_timeout" {
  description = "Maximum duration of one task attempt."
  type        = string
  default     = "3600s"
}

variable "max_retries" {
  description = "Retries per failed task."
  type        = number
  default     = 3
}

variable "cpu" {
  description = "CPU per task."
  type        = string
  default     = "2"
}

variable "memory" {
  description = "Memory per task."
  type        = string
  default     = "4Gi"
}

variable "settings" {
  description = "DOCFLEET_* settings of every task."
  type        = map(string)
  default     = {}
}

variable "llm_secrets" {
  description = "LLM key env var => Secret Manager secret id."
  type        = map(string)
  default     = {}
}

variable "firestore_database" {
  description = "Firestore database id."
  type        = string
  default     = "docfleet"
}

variable "firestore_location" {
  description = "Firestore location."
  type        = string
  default     = "eur3"
}

variable "run_retention_days" {
  description = "Days to keep run outputs (0 = forever)."
  type        = number
  default     = 90
}

variable "deletion_protection" {
  description = "Protect the job, database and bucket from destroy."
  type        = bool
  default     = true
}

variable "deployer_members" {
  description = "Operators who run and follow the job from their machine (execute with overrides; read the job, executions, state database and outputs). Each must exist when applied."
  type        = list(string)
  default     = []
}

variable "ci_members" {
  description = "Principals of the deploy pipeline (push images, update the job). Each must exist when applied."
  type        = list(string)
  default     = []
}

variable "labels" {
  description = "Extra labels."
  type        = map(string)
  default     = {}
}
