"""The foundations every layer uses: errors, clocks, records, settings, URIs, seeding, retries."""
