-- Token usage per job, and a lease on running jobs: a worker renews lease_until while it runs
-- a job; a job whose lease expired (its worker was killed) is claimed again.
ALTER TABLE jobs ADD COLUMN usage TEXT;
ALTER TABLE jobs ADD COLUMN lease_owner TEXT;
ALTER TABLE jobs ADD COLUMN lease_until TEXT;
-- Jobs left running by a worker of an older mnemo have no lease: make them reclaimable now.
UPDATE jobs SET lease_until = updated_at WHERE status = 'running';
CREATE INDEX jobs_lease ON jobs (status, lease_until);
