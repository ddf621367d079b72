# Where a new environment's Terraform state lives: the bucket you made in deploy/README.md
# ("First deploy", step 3), one prefix per environment. Step 5 makes
# config/<env>.backend.hcl from this file.
bucket = "PROJECT_ID-tfstate"
prefix = "docfleet/ENVIRONMENT"
