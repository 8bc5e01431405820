-- A key's `secrets` setting: what a write carrying credentials (API keys, private keys,
-- passwords, card numbers, tokens) gets. 'redact' (the default): each credential is replaced
-- by [REDACTED:<kind>] before anything is stored or sent to a model. 'refuse': the write is
-- refused (422 sensitive_content) and nothing is stored. Keys that exist already redact.
--
-- A constant default: no rewrite of the table. The table's grants cover the new column.
ALTER TABLE key_settings
    ADD COLUMN secrets text NOT NULL DEFAULT 'redact' CHECK (secrets IN ('redact', 'refuse'));
