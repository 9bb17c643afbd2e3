-- Filters (schema version 12): the JSON of metadata and tags kept a second time as jsonb,
-- generated from the text columns (which stay the stored truth, as on SQLite), so a filter
-- reads jsonb instead of casting the text of every row it looks at (mnemo/filters/__init__.py,
-- "Cost"). Adding a stored generated column rewrites the table once.
ALTER TABLE memories
    ADD COLUMN metadata_jsonb jsonb GENERATED ALWAYS AS (CAST(metadata AS jsonb)) STORED,
    ADD COLUMN tags_jsonb jsonb GENERATED ALWAYS AS (CAST(tags AS jsonb)) STORED;
ALTER TABLE messages
    ADD COLUMN metadata_jsonb jsonb GENERATED ALWAYS AS (CAST(metadata AS jsonb)) STORED;
