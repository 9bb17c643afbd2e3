-- Extra index keys of long user turns (see mnemo.retrieval.keys): float32 vectors of runs of
-- sentences, packed into one blob. NULL = not computed yet; an empty blob = none needed.
ALTER TABLE messages ADD COLUMN key_vectors BLOB;
