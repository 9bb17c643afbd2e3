-- Token usage per job (JSON text), and a lease on running jobs, as SQLite's 0003: a worker claims
-- a job with FOR UPDATE SKIP LOCKED, renews lease_until while it runs it, and a job whose lease
-- expired (its worker was killed) is claimed again by another worker.
ALTER TABLE jobs ADD COLUMN usage TEXT;
ALTER TABLE jobs ADD COLUMN lease_owner TEXT;
ALTER TABLE jobs ADD COLUMN lease_until TEXT;
UPDATE jobs SET lease_until = updated_at WHERE status = 'running';
CREATE INDEX jobs_lease ON jobs (status, lease_until);
