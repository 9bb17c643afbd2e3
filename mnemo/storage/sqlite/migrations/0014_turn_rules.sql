-- What the rules say about a turn, computed when it is written (see mnemo.text.turn_rules):
-- its kind, its name cues (text.turn_rules.dump_cues: a JSON line, then the word counts) and
-- the version of the rules that made them. NULL = not computed yet: the store computes them
-- when it opens (mnemo.storage.sql.turn_rules), and a search computes a turn's own until
-- then. The index finds turns of another version at once.
ALTER TABLE messages ADD COLUMN turn_rules INTEGER;
ALTER TABLE messages ADD COLUMN turn_kind TEXT;
ALTER TABLE messages ADD COLUMN name_cues TEXT;
CREATE INDEX messages_turn_rules ON messages (turn_rules);
