-- Schema 2 of the A2A PostgreSQL store: what several replicas share (see cluster.rs).
-- The event log: every stored stream event of a task, by the task's seq, for the subscribers
-- on other replicas. Pruned by age.
CREATE TABLE a2a_events (
    task_id TEXT COLLATE "C" NOT NULL,
    seq BIGINT NOT NULL,
    event BYTEA NOT NULL,
    created TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (task_id, seq)
);
CREATE INDEX a2a_events_by_age ON a2a_events (created);

-- Each replica's last heartbeat (the database's clock).
CREATE TABLE a2a_replicas (
    id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    heartbeat TIMESTAMPTZ NOT NULL
);

-- The runner of each running task: the replica that last published a running state of it.
CREATE TABLE a2a_runners (
    task_id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    replica TEXT COLLATE "C" NOT NULL
);
