-- Budgets in dollars. A key's `daily_model_cost_limit_usd` caps what its model calls cost per
-- UTC day (null: no cap), counted beside its calls in model_call_counts: `cost_usd` is the
-- day's spend, each call's price from its receipt (metering/pricing.py), plus the hold of every
-- call still in flight (the most that call can cost, taken with the call in one conditional
-- statement and replaced by the receipt's price once it answers: metering/budget.py), so
-- concurrent writers can never spend past the limit.
--
-- Cheap on any table: a nullable column without a default, and one with a constant default
-- (PostgreSQL 11 and later store it in the catalog: no rewrite). Keys that exist already have
-- no dollar limit. The service keeps its table grants and row-level security; it may now move
-- the day's spend as it moves the day's calls.
ALTER TABLE key_settings ADD COLUMN daily_model_cost_limit_usd numeric(14, 6)
    CHECK (daily_model_cost_limit_usd IS NULL OR daily_model_cost_limit_usd >= 0);
ALTER TABLE model_call_counts ADD COLUMN cost_usd numeric(20, 8) NOT NULL DEFAULT 0
    CHECK (cost_usd >= 0);
GRANT UPDATE (cost_usd) ON model_call_counts TO aurra_app;
