-- Jobs: token usage reported by a handler (JSON text) and a lease. A worker claims a job with
-- FOR UPDATE SKIP LOCKED and holds it until `lease_until`; a running job whose lease has
-- passed (its worker died) is claimed again by another worker. Mirrors SQLite's 0003.
ALTER TABLE jobs ADD COLUMN usage TEXT;
ALTER TABLE jobs ADD COLUMN lease_until TEXT;
CREATE INDEX jobs_lease ON jobs (status, lease_until);
