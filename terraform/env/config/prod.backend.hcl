bucket = "docfleet-tfstate"
prefix = "docfleet/prod"
