-- Schema 4 of the A2A PostgreSQL store (see logic.rs): fewer B-trees per task.
-- History messages and artifact parts in one table: list -1 is the history, list k >= 0 the
-- parts of the task's artifact k.
CREATE TABLE a2a_entries (
    task_id TEXT COLLATE "C" NOT NULL,
    list BIGINT NOT NULL,
    n BIGINT NOT NULL,
    body BYTEA NOT NULL,
    PRIMARY KEY (task_id, list, n)
);
INSERT INTO a2a_entries (task_id, list, n, body) SELECT task_id, -1, n, message FROM a2a_history;
INSERT INTO a2a_entries (task_id, list, n, body) SELECT task_id, artifact_n, n, part FROM a2a_parts;
DROP TABLE a2a_history;
DROP TABLE a2a_parts;
-- Artifacts keyed by their id (the key an append looks them up by), their position a column:
-- no second index.
CREATE TABLE a2a_artifacts_4 (
    task_id TEXT COLLATE "C" NOT NULL,
    artifact_id TEXT COLLATE "C" NOT NULL,
    n BIGINT NOT NULL,
    head BYTEA NOT NULL,
    parts_len BIGINT NOT NULL,
    PRIMARY KEY (task_id, artifact_id)
);
INSERT INTO a2a_artifacts_4 (task_id, artifact_id, n, head, parts_len)
    SELECT task_id, artifact_id, n, head, parts_len FROM a2a_artifacts;
DROP TABLE a2a_artifacts;
ALTER TABLE a2a_artifacts_4 RENAME TO a2a_artifacts;
ALTER INDEX a2a_artifacts_4_pkey RENAME TO a2a_artifacts_pkey;
