/**
 * docfleet on AWS: the DynamoDB state table (exactly docfleet.state.dynamodb.schema.DYNAMODB_TABLE),
 * the S3 output bucket, a task role scoped to those two, and an AWS Batch job definition
 * for array jobs (one array child = one docfleet task).
 */

data "aws_caller_identity" "current" {}
data "aws_partition" "current" {}
data "aws_region" "current" {}

locals {
  bucket_name = coalesce(var.bucket_name, "${var.name}-${data.aws_caller_identity.current.account_id}-out")
  state_uri   = "dynamodb://${aws_dynamodb_table.state.name}?region=${data.aws_region.current.name}"
  out_uri     = "s3://${aws_s3_bucket.out.bucket}/${var.output_prefix}"

  # Every DOCFLEET_* name here must be a field of docfleet.settings.Settings
  # (tests/infra/test_coherence.py holds this against the code).
  settings_env = merge({
    DOCFLEET_STATE      = local.state_uri
    DOCFLEET_OUT        = local.out_uri
    DOCFLEET_LOG_FORMAT = "json"
  }, var.settings)
}

# -- state store ------------------------------------------------------------------------

resource "aws_dynamodb_table" "state" {
  # checkov:skip=CKV_AWS_119:Encrypted at rest with the AWS-owned key; the table holds run bookkeeping (unit states, leases), no document content or secrets.
  name                        = "${var.name}-state"
  billing_mode                = "PAY_PER_REQUEST"
  hash_key                    = "pk"
  range_key                   = "sk"
  deletion_protection_enabled = var.deletion_protection

  attribute {
    name = "pk"
    type = "S"
  }
  attribute {
    name = "sk"
    type = "S"
  }
  attribute {
    name = "pending_pk"
    type = "S"
  }
  attribute {
    name = "pending_sk"
    type = "N"
  }
  attribute {
    name = "lease_pk"
    type = "S"
  }
  attribute {
    name = "lease_sk"
    type = "N"
  }

  # Sparse: a unit is in "pending" only while PENDING (the claim query). The claim reads
  # the candidate's generation from the index to build its fencing token.
  global_secondary_index {
    name               = "pending"
    hash_key           = "pending_pk"
    range_key          = "pending_sk"
    projection_type    = "INCLUDE"
    non_key_attributes = ["generation"]
  }

  # Sparse: a unit is in "leases" only while RUNNING (the explicit reclaim).
  global_secondary_index {
    name            = "leases"
    hash_key        = "lease_pk"
    range_key       = "lease_sk"
    projection_type = "KEYS_ONLY"
  }

  point_in_time_recovery {
    enabled = true
  }

  server_side_encryption {
    enabled = true
  }

  tags = var.tags
}

# -- output bucket ----------------------------------------------------------------------

resource "aws_s3_bucket" "out" {
  # checkov:skip=CKV_AWS_18:Access logging needs a separate log bucket the operator owns; object access is by the task role only and is recorded by CloudTrail data events if enabled.
  # checkov:skip=CKV_AWS_144:Cross-region replication is not needed: every run can be regenerated bit-for-bit from its run id.
  # checkov:skip=CKV2_AWS_62:No consumer subscribes to object events; a run's completion is its root manifest.json.
  # checkov:skip=CKV_AWS_145:SSE-S3 (AES256) default encryption is on; a KMS key would add per-request cost for regenerable synthetic data.
  bucket        = local.bucket_name
  force_destroy = var.force_destroy
  tags          = var.tags
}

resource "aws_s3_bucket_public_access_block" "out" {
  bucket                  = aws_s3_bucket.out.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_ownership_controls" "out" {
  bucket = aws_s3_bucket.out.id
  rule {
    object_ownership = "BucketOwnerEnforced"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "out" {
  bucket = aws_s3_bucket.out.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_versioning" "out" {
  bucket = aws_s3_bucket.out.id
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_lifecycle_configuration" "out" {
  bucket = aws_s3_bucket.out.id

  rule {
    id     = "expire-old-runs"
    status = var.run_retention_days > 0 ? "Enabled" : "Disabled"
    filter {
      prefix = "${var.output_prefix}/"
    }
    expiration {
      days = var.run_retention_days > 0 ? var.run_retention_days : 36500
    }
    noncurrent_version_expiration {
      noncurrent_days = 7
    }
  }

  rule {
    id     = "abort-incomplete-uploads"
    status = "Enabled"
    filter {}
    abort_incomplete_multipart_upload {
      days_after_initiation = 1
    }
  }
}

# -- task role (least privilege: this table and this bucket only) ------------------------

data "aws_iam_policy_document" "assume" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["ecs-tasks.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "task" {
  name               = "${var.name}-task"
  description        = "docfleet worker tasks: read/write the state table and the output bucket"
  assume_role_policy = data.aws_iam_policy_document.assume.json
  tags               = var.tags
}

data "aws_iam_policy_document" "task" {
  statement {
    sid = "StateTable"
    actions = [
      "dynamodb:BatchGetItem",
      "dynamodb:BatchWriteItem",
      "dynamodb:ConditionCheckItem",
      "dynamodb:DeleteItem",
      "dynamodb:DescribeTable",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:Query",
      "dynamodb:TransactWriteItems",
      "dynamodb:UpdateItem",
    ]
    resources = [
      aws_dynamodb_table.state.arn,
      "${aws_dynamodb_table.state.arn}/index/pending",
      "${aws_dynamodb_table.state.arn}/index/leases",
    ]
  }

  statement {
    sid       = "OutputBucketList"
    actions   = ["s3:ListBucket", "s3:GetBucketLocation"]
    resources = [aws_s3_bucket.out.arn]
  }

  statement {
    sid       = "OutputObjects"
    actions   = ["s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload"]
    resources = ["${aws_s3_bucket.out.arn}/${var.output_prefix}/*"]
  }
}

resource "aws_iam_policy" "task" {
  name        = "${var.name}-task"
  description = "docfleet worker: the state table and the output bucket, nothing else"
  policy      = data.aws_iam_policy_document.task.json
  tags        = var.tags
}

resource "aws_iam_role_policy_attachment" "task" {
  role       = aws_iam_role.task.name
  policy_arn = aws_iam_policy.task.arn
}

# -- AWS Batch job definition (array jobs) ------------------------------------------------

resource "aws_batch_job_definition" "worker" {
  name                  = var.name
  type                  = "container"
  platform_capabilities = ["EC2"]
  propagate_tags        = true

  retry_strategy {
    attempts = var.task_attempts
  }

  timeout {
    attempt_duration_seconds = var.task_timeout_seconds
  }

  container_properties = jsonencode({
    image      = var.image
    command    = ["work"]
    jobRoleArn = aws_iam_role.task.arn
    resourceRequirements = [
      { type = "VCPU", value = tostring(var.vcpus) },
      { type = "MEMORY", value = tostring(var.memory_mib) },
    ]
    readonlyRootFilesystem = false
    privileged             = false
    user                   = "10001"
    environment = [
      for k in sort(keys(local.settings_env)) : { name = k, value = local.settings_env[k] }
    ]
  })

  tags = var.tags
}
