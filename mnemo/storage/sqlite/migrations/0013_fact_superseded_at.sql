-- When a profile fact stopped being current ("as of" reads, docs/memory-model.md): the time the
-- fact that replaced it was observed (else written). Facts replaced before this column existed
-- get the observed time of the next fact of the same (category, key), else their updated_at
-- (the time they were marked inactive).
ALTER TABLE profile_facts ADD COLUMN superseded_at TEXT;
UPDATE profile_facts SET superseded_at = coalesce(
    (SELECT min(coalesce(n.observed_at, n.created_at)) FROM profile_facts n
     WHERE n.tenant = profile_facts.tenant AND n.user_id = profile_facts.user_id
       AND n.category = profile_facts.category AND n.key = profile_facts.key
       AND n.rowid > profile_facts.rowid),
    updated_at)
WHERE active = 0;
