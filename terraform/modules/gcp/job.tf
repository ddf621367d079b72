# -- the Cloud Run job -----------------------------------------------------------------------

resource "google_cloud_run_v2_job" "docfleet" {
  project             = var.project_id
  name                = var.name
  location            = var.region
  deletion_protection = var.deletion_protection
  labels              = var.labels

  template {
    task_count  = var.task_count
    parallelism = var.parallelism
    labels      = var.labels

    template {
      service_account       = google_service_account.worker.email
      timeout               = var.task_timeout
      max_retries           = var.max_retries
      execution_environment = "EXECUTION_ENVIRONMENT_GEN2"

      # Chromium keeps its shared memory in /dev/shm: give it room (in-memory volume).
      volumes {
        name = "dshm"
        empty_dir {
          medium     = "MEMORY"
          size_limit = "512Mi"
        }
      }

      containers {
        image = local.image
        args  = ["work"]

        resources {
          limits = {
            cpu    = var.cpu
            memory = var.memory
          }
        }

        volume_mounts {
          name       = "dshm"
          mount_path = "/dev/shm"
        }

        dynamic "env" {
          for_each = local.settings_env
          content {
            name  = env.key
            value = env.value
          }
        }

        dynamic "env" {
          for_each = google_secret_manager_secret.llm
          content {
            name = env.key
            value_source {
              secret_key_ref {
                secret  = env.value.secret_id
                version = "latest"
              }
            }
          }
        }
      }
    }
  }

  lifecycle {
    # Cloud Build deploys new images (gcloud run jobs update --image); Terraform owns the rest.
    ignore_changes = [template[0].template[0].containers[0].image, client, client_version]
  }

  depends_on = [
    google_project_iam_member.worker_datastore,
    google_storage_bucket_iam_member.worker_objects,
    google_secret_manager_secret_iam_member.worker_llm,
  ]
}
