"""docfleet: synthetic document datasets with exact ground truth, built by a leaderless fleet."""

__version__ = "0.1.0"
