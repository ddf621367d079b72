"""A run's dataset on the blob store: manifests, golden shards, splits."""
