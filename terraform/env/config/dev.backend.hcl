bucket = "docfleet-tfstate"
prefix = "docfleet/dev"
