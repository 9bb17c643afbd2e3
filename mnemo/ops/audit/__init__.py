"""The memory audit: what a user's stored facts and profile get wrong (near-duplicates,
contradictions, stale values, junk), each finding with a fix that goes through history."""
