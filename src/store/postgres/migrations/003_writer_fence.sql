-- The one writer's fence. A writer holds a session-level advisory lock while it runs and, once it has the lock,
-- bumps `epoch`; each of its journal appends updates this row WHERE epoch is still its own, in the append's
-- transaction. A writer whose epoch was superseded (its lock connection dropped and another writer started)
-- appends nothing more. One row, always.
CREATE TABLE writer_fence (
  id smallint PRIMARY KEY CHECK (id = 1),
  epoch bigint NOT NULL,
  holder text NOT NULL,
  since timestamptz NOT NULL,
  last_append_at timestamptz
);
INSERT INTO writer_fence (id, epoch, holder, since) VALUES (1, 0, '', now());
