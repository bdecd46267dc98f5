-- Schema 4 of the A2A SQLite store (see logic.rs): the scope keys are never empty. The tenant is
-- stored as '/' || tenant, a task without an owner as '-' (was ''): an empty key made every index
-- comparison hand memcmp a dangling pointer (logic.rs, docs/benchmarks.md fourteenth pass).
UPDATE a2a_tasks SET tenant = '/' || tenant, owner = CASE owner WHEN '' THEN '-' ELSE owner END;
-- The counters' key is their primary key: copied into a new table rather than updated in place,
-- so that no intermediate row can collide with one not yet rewritten.
CREATE TABLE a2a_task_counts_4 (
    tenant TEXT NOT NULL,
    owner TEXT NOT NULL,
    state INTEGER NOT NULL,
    shard INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (tenant, owner, state, shard)
) WITHOUT ROWID;
INSERT INTO a2a_task_counts_4 (tenant, owner, state, shard, n)
    SELECT '/' || tenant, CASE owner WHEN '' THEN '-' ELSE owner END, state, shard, n FROM a2a_task_counts;
DROP TABLE a2a_task_counts;
ALTER TABLE a2a_task_counts_4 RENAME TO a2a_task_counts;
