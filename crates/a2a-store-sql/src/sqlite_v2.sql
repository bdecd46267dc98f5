-- Schema 2 of the A2A SQLite store: the push outbox (see outbox.rs).
-- One row per notification waiting for delivery, written with the task change that caused it.
CREATE TABLE a2a_push_outbox (
    -- AUTOINCREMENT: ids are never reused, so they order the notifications of a config.
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT NOT NULL,
    config_id TEXT NOT NULL,
    version TEXT NOT NULL,
    config BLOB NOT NULL,
    kind INTEGER NOT NULL,
    body BLOB NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    first_attempt_ms INTEGER NOT NULL DEFAULT 0,
    next_ms INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT NOT NULL DEFAULT '',
    lease_ms INTEGER NOT NULL DEFAULT 0,
    -- The W3C trace context of the event (traceparent, a space, tracestate), or ''.
    trace TEXT NOT NULL DEFAULT ''
);
CREATE INDEX a2a_push_outbox_by_config ON a2a_push_outbox (task_id, config_id, id);
-- Claims: only the head of each (task, config) is ever due (the rows behind it wait at the
-- largest next_ms until it is gone), so a claim reads the heads, however long a backlog is.
CREATE INDEX a2a_push_outbox_by_due ON a2a_push_outbox (next_ms, id);
