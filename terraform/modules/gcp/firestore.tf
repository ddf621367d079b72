# -- Firestore (state store) ------------------------------------------------------------------

resource "google_firestore_database" "state" {
  project                           = var.project_id
  name                              = var.firestore_database
  location_id                       = var.firestore_location
  type                              = "FIRESTORE_NATIVE"
  concurrency_mode                  = "PESSIMISTIC"
  point_in_time_recovery_enablement = "POINT_IN_TIME_RECOVERY_ENABLED"
  delete_protection_state           = var.deletion_protection ? "DELETE_PROTECTION_ENABLED" : "DELETE_PROTECTION_DISABLED"
  deletion_policy                   = var.deletion_protection ? "ABANDON" : "DELETE"
}

resource "google_firestore_index" "units" {
  for_each = local.firestore_indexes

  project     = var.project_id
  database    = google_firestore_database.state.name
  collection  = each.value.collection
  query_scope = each.value.query_scope

  dynamic "fields" {
    for_each = each.value.fields
    content {
      field_path = fields.value[0]
      order      = fields.value[1]
    }
  }
}

# Single-field index exemptions: an empty index_config disables the automatic ascending,
# descending and array indexes of the field (docfleet.state.firestore.schema.FIRESTORE_UNINDEXED_FIELDS).
resource "google_firestore_field" "unindexed" {
  for_each = toset(local.firestore_unindexed_fields)

  project    = var.project_id
  database   = google_firestore_database.state.name
  collection = "units"
  field      = each.value

  index_config {}
}
