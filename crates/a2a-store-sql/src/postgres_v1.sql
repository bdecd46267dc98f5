-- Schema 1 of the A2A PostgreSQL store (see logic.rs for what each table holds).
CREATE TABLE a2a_tasks (
    id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    tenant TEXT COLLATE "C" NOT NULL,
    owner TEXT COLLATE "C" NOT NULL,
    context_id TEXT COLLATE "C" NOT NULL,
    state BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    status BYTEA,
    metadata BYTEA,
    history_len BIGINT NOT NULL,
    artifacts_len BIGINT NOT NULL
);
-- ListTasks: one keyset seek per filter shape (updated_ms, id) within (tenant, owner).
CREATE INDEX a2a_tasks_by_time ON a2a_tasks (tenant, owner, updated_ms, id);
CREATE INDEX a2a_tasks_by_context ON a2a_tasks (tenant, owner, context_id, updated_ms, id);
CREATE INDEX a2a_tasks_by_state ON a2a_tasks (tenant, owner, state, updated_ms, id);
-- Recovery at startup: only the running tasks (SUBMITTED = 1, WORKING = 2).
CREATE INDEX a2a_tasks_running ON a2a_tasks (state) WHERE state IN (1, 2);

CREATE TABLE a2a_history (
    task_id TEXT COLLATE "C" NOT NULL,
    n BIGINT NOT NULL,
    message BYTEA NOT NULL,
    PRIMARY KEY (task_id, n)
);

CREATE TABLE a2a_artifacts (
    task_id TEXT COLLATE "C" NOT NULL,
    n BIGINT NOT NULL,
    artifact_id TEXT COLLATE "C" NOT NULL,
    head BYTEA NOT NULL,
    parts_len BIGINT NOT NULL,
    PRIMARY KEY (task_id, n)
);
CREATE UNIQUE INDEX a2a_artifacts_by_id ON a2a_artifacts (task_id, artifact_id);

CREATE TABLE a2a_parts (
    task_id TEXT COLLATE "C" NOT NULL,
    artifact_n BIGINT NOT NULL,
    n BIGINT NOT NULL,
    part BYTEA NOT NULL,
    PRIMARY KEY (task_id, artifact_n, n)
);

CREATE TABLE a2a_task_counts (
    tenant TEXT COLLATE "C" NOT NULL,
    owner TEXT COLLATE "C" NOT NULL,
    state BIGINT NOT NULL,
    shard BIGINT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (tenant, owner, state, shard)
);

CREATE TABLE a2a_push_configs (
    task_id TEXT COLLATE "C" NOT NULL,
    config_id TEXT COLLATE "C" NOT NULL,
    position BIGINT NOT NULL,
    version TEXT COLLATE "C" NOT NULL,
    config BYTEA NOT NULL,
    PRIMARY KEY (task_id, config_id)
);
