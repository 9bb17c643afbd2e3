"""The entity index tier: the people, pets, places, organisations and things each user talks
about, kept up to date by the background fact job (:mod:`mnemo.tiers.entities.tier`)."""
