variable "project_id" {
  description = "Google Cloud project that hosts the fleet."
  type        = string
}

variable "region" {
  description = "Region of the Cloud Run job, the bucket and the Artifact Registry repository."
  type        = string
  default     = "europe-west1"
}

variable "name" {
  description = "Name of the Cloud Run job and prefix of the other resources."
  type        = string
  default     = "docfleet"

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{1,40}$", var.name))
    error_message = "name must start with a letter: 2-41 lowercase letters, digits or '-'."
  }
}

variable "image" {
  description = "Initial worker image (entrypoint docfleet, command work). Cloud Build replaces it on every deploy; null starts the job on Google's sample job image until the first build."
  type        = string
  default     = null
}

variable "task_count" {
  description = "Default number of tasks per execution (override per execution with --tasks)."
  type        = number
  default     = 10
}

variable "parallelism" {
  description = "Tasks running at once; 0 lets Cloud Run run as many as it can."
  type        = number
  default     = 0
}

variable "task_timeout" {
  description = "Maximum duration of one task attempt, e.g. \"3600s\"."
  type        = string
  default     = "3600s"
}

variable "max_retries" {
  description = "Retries of a failed task. Safe: leases and fencing make a retried task resume, never duplicate."
  type        = number
  default     = 3
}

variable "cpu" {
  description = "CPU limit of one task (Chromium renders on it)."
  type        = string
  default     = "2"
}

variable "memory" {
  description = "Memory limit of one task."
  type        = string
  default     = "4Gi"
}

variable "settings" {
  description = "DOCFLEET_* settings of every task (names as in docfleet.settings.Settings). DOCFLEET_STATE and DOCFLEET_OUT default to this module's Firestore database and bucket."
  type        = map(string)
  default     = {}

  validation {
    condition     = alltrue([for k in keys(var.settings) : can(regex("^DOCFLEET_[A-Z_]+$", k))])
    error_message = "settings keys must be DOCFLEET_* environment variable names."
  }
}

variable "llm_secrets" {
  description = "LLM provider keys: environment variable name => Secret Manager secret id. The module creates the secrets; add their values with `gcloud secrets versions add`."
  type        = map(string)
  default     = {}
}

variable "firestore_database" {
  description = "Firestore database id (Native mode) holding the run state."
  type        = string
  default     = "docfleet"
}

variable "firestore_location" {
  description = "Firestore location (a region or multi-region such as eur3 / nam5)."
  type        = string
  default     = "eur3"
}

variable "state_prefix" {
  description = "Collection prefix inside the Firestore database (lets several environments share one database)."
  type        = string
  default     = ""
}

variable "bucket_name" {
  description = "Name of the GCS output bucket. Defaults to \"<project>-<name>-out\"."
  type        = string
  default     = null
}

variable "output_prefix" {
  description = "Object prefix of run outputs inside the bucket (DOCFLEET_OUT = gs://bucket/prefix)."
  type        = string
  default     = "runs"
}

variable "run_retention_days" {
  description = "Days after which run outputs are deleted from the bucket; 0 keeps them forever."
  type        = number
  default     = 90
}

variable "deletion_protection" {
  description = "Protect the job, the Firestore database and the bucket from `terraform destroy`."
  type        = bool
  default     = true
}

variable "deployer_members" {
  description = "Principals (\"user:you@your-domain\", \"group:...\") who run and follow the job from their own machine: execute it with overrides (--tasks, --update-env-vars), read it and its executions, read and write the run state in this database (status, resume, pause), read the outputs (export, verify). Each must exist when applied."
  type        = list(string)
  default     = []
}

variable "ci_members" {
  description = "Principals of the deploy pipeline (the GitHub Actions deploy service account, Cloud Build's service account): push images, update the job. Each must exist when applied."
  type        = list(string)
  default     = []
}

variable "labels" {
  description = "Labels applied to every resource that takes them."
  type        = map(string)
  default     = {}
}
