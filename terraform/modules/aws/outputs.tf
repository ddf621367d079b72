output "table_name" {
  description = "The DynamoDB state table."
  value       = aws_dynamodb_table.state.name
}

output "table_arn" {
  description = "ARN of the DynamoDB state table."
  value       = aws_dynamodb_table.state.arn
}

output "bucket" {
  description = "The S3 output bucket."
  value       = aws_s3_bucket.out.bucket
}

output "state_uri" {
  description = "DOCFLEET_STATE for workers."
  value       = local.state_uri
}

output "out_uri" {
  description = "DOCFLEET_OUT for workers."
  value       = local.out_uri
}

output "task_role_arn" {
  description = "IAM role the worker tasks assume."
  value       = aws_iam_role.task.arn
}

output "job_definition_arn" {
  description = "AWS Batch job definition for array jobs."
  value       = aws_batch_job_definition.worker.arn
}

output "job_name" {
  description = "Name of the AWS Batch job definition."
  value       = aws_batch_job_definition.worker.name
}
