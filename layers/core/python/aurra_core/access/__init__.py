"""Who may call: tenants, API keys and their per-key settings, the key check every request
makes, and key administration (the admin function and the local CLI).

Imports run one way: access uses `storage` and `runtime`, never the write path."""
