-- The rules version each log entry was resolved under (bot/core/version.py). Verify compares a
-- replayed Outcome bit for bit only for entries of today's version; for older ones it checks the
-- dice and the state after the entry. Entries logged before this column existed read as 1, and
-- their hashes are unchanged: an entry of version 1 hashes without the field (bot/store/chain.py).
ALTER TABLE log_entries ADD COLUMN rules_version INTEGER NOT NULL DEFAULT 1 CHECK (rules_version >= 1);
