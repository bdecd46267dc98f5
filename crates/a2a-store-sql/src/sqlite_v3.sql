-- Schema 3 of the A2A SQLite store (see logic.rs): fewer B-trees per task, since each one a
-- write touches costs the commit a WAL frame or more.
-- History messages and artifact parts in one table: list -1 is the history, list k >= 0 the
-- parts of the task's artifact k.
CREATE TABLE a2a_entries (
    task_id TEXT NOT NULL,
    list INTEGER NOT NULL,
    n INTEGER NOT NULL,
    body BLOB NOT NULL,
    PRIMARY KEY (task_id, list, n)
) WITHOUT ROWID;
INSERT INTO a2a_entries (task_id, list, n, body) SELECT task_id, -1, n, message FROM a2a_history;
INSERT INTO a2a_entries (task_id, list, n, body) SELECT task_id, artifact_n, n, part FROM a2a_parts;
DROP TABLE a2a_history;
DROP TABLE a2a_parts;
-- Artifacts keyed by their id (the key an append looks them up by), their position a column:
-- no second index.
CREATE TABLE a2a_artifacts_3 (
    task_id TEXT NOT NULL,
    artifact_id TEXT NOT NULL,
    n INTEGER NOT NULL,
    head BLOB NOT NULL,
    parts_len INTEGER NOT NULL,
    PRIMARY KEY (task_id, artifact_id)
) WITHOUT ROWID;
INSERT INTO a2a_artifacts_3 (task_id, artifact_id, n, head, parts_len)
    SELECT task_id, artifact_id, n, head, parts_len FROM a2a_artifacts;
DROP TABLE a2a_artifacts;
ALTER TABLE a2a_artifacts_3 RENAME TO a2a_artifacts;
