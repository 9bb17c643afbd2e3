"""Memory tiers: what the write path distils from raw turns (facts, profile, episodes, topics).

Each tier is a module of pure decisions plus the job handlers that apply them to a store.
"""
