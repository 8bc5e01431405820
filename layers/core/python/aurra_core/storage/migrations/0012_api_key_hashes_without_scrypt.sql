-- Keys issued from now on store a salted SHA-256 of their secret (keys.py says why a slow hash
-- buys nothing for 192 random bits). A key issued before keeps its scrypt hash until its first
-- successful check, which replaces it through this function: the service role has no UPDATE
-- on api_keys, and this changes nothing but a scrypt hash into a SHA-256 one, and only the
-- exact hash the caller read (a rotation or revocation in between is left alone).
CREATE FUNCTION aurra_upgrade_api_key_hash(key_id uuid, old_hash text, new_hash text)
    RETURNS boolean
    LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
    WITH upgraded AS (
        UPDATE api_keys SET secret_hash = new_hash
        WHERE id = key_id
          AND secret_hash = old_hash
          AND revoked_at IS NULL
          AND old_hash LIKE 'scrypt$%'
          AND new_hash LIKE 'sha256$%'
        RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM upgraded)
$$;
REVOKE ALL ON FUNCTION aurra_upgrade_api_key_hash(uuid, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aurra_upgrade_api_key_hash(uuid, text, text) TO aurra_app;
