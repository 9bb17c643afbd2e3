-- What the rules say about a turn (schema version 14), as SQLite's 0014: its kind, its name
-- cues (text.turn_rules.dump_cues: a JSON line, then the word counts) and the version of the
-- rules that made them; NULL = not computed yet.
ALTER TABLE messages ADD COLUMN turn_rules integer;
ALTER TABLE messages ADD COLUMN turn_kind text;
ALTER TABLE messages ADD COLUMN name_cues text;
CREATE INDEX messages_turn_rules ON messages (turn_rules);
