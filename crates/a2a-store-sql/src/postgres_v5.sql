-- Schema 5 of the A2A PostgreSQL store (see logic.rs): the scope keys are never empty. The tenant
-- is stored as '/' || tenant, a task without an owner as '-' (was ''), as on SQLite (schema 4),
-- where an empty key cost every index comparison a fault-suppressed load (docs/benchmarks.md,
-- fourteenth pass). The SQL is shared by both engines, so the keys are too.
UPDATE a2a_tasks SET tenant = '/' || tenant, owner = CASE owner WHEN '' THEN '-' ELSE owner END;
-- The counters' key is their primary key: copied into a new table rather than updated in place,
-- so that no intermediate row can collide with one not yet rewritten.
CREATE TABLE a2a_task_counts_5 (
    tenant TEXT COLLATE "C" NOT NULL,
    owner TEXT COLLATE "C" NOT NULL,
    state BIGINT NOT NULL,
    shard BIGINT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (tenant, owner, state, shard)
);
INSERT INTO a2a_task_counts_5 (tenant, owner, state, shard, n)
    SELECT '/' || tenant, CASE owner WHEN '' THEN '-' ELSE owner END, state, shard, n FROM a2a_task_counts;
DROP TABLE a2a_task_counts;
ALTER TABLE a2a_task_counts_5 RENAME TO a2a_task_counts;
ALTER INDEX a2a_task_counts_5_pkey RENAME TO a2a_task_counts_pkey;
