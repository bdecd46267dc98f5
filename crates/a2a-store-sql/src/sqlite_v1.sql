-- Schema 1 of the A2A SQLite store (see logic.rs for what each table holds).
CREATE TABLE a2a_tasks (
    id TEXT NOT NULL PRIMARY KEY,
    tenant TEXT NOT NULL,
    owner TEXT NOT NULL,
    context_id TEXT NOT NULL,
    state INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    status BLOB,
    metadata BLOB,
    history_len INTEGER NOT NULL,
    artifacts_len INTEGER NOT NULL
) WITHOUT ROWID;
-- ListTasks: one keyset seek per filter shape (updated_ms, id) within (tenant, owner).
CREATE INDEX a2a_tasks_by_time ON a2a_tasks (tenant, owner, updated_ms, id);
CREATE INDEX a2a_tasks_by_context ON a2a_tasks (tenant, owner, context_id, updated_ms, id);
CREATE INDEX a2a_tasks_by_state ON a2a_tasks (tenant, owner, state, updated_ms, id);
-- Recovery at startup: only the running tasks (SUBMITTED = 1, WORKING = 2).
CREATE INDEX a2a_tasks_running ON a2a_tasks (state) WHERE state IN (1, 2);

CREATE TABLE a2a_history (
    task_id TEXT NOT NULL,
    n INTEGER NOT NULL,
    message BLOB NOT NULL,
    PRIMARY KEY (task_id, n)
) WITHOUT ROWID;

CREATE TABLE a2a_artifacts (
    task_id TEXT NOT NULL,
    n INTEGER NOT NULL,
    artifact_id TEXT NOT NULL,
    head BLOB NOT NULL,
    parts_len INTEGER NOT NULL,
    PRIMARY KEY (task_id, n)
) WITHOUT ROWID;
CREATE UNIQUE INDEX a2a_artifacts_by_id ON a2a_artifacts (task_id, artifact_id);

CREATE TABLE a2a_parts (
    task_id TEXT NOT NULL,
    artifact_n INTEGER NOT NULL,
    n INTEGER NOT NULL,
    part BLOB NOT NULL,
    PRIMARY KEY (task_id, artifact_n, n)
) WITHOUT ROWID;

CREATE TABLE a2a_task_counts (
    tenant TEXT NOT NULL,
    owner TEXT NOT NULL,
    state INTEGER NOT NULL,
    shard INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (tenant, owner, state, shard)
) WITHOUT ROWID;

CREATE TABLE a2a_push_configs (
    task_id TEXT NOT NULL,
    config_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    version TEXT NOT NULL,
    config BLOB NOT NULL,
    PRIMARY KEY (task_id, config_id)
) WITHOUT ROWID;
