// A push-notification receiver for A2A 0.3, checking every payload against the JS SDK's 0.3 types.
//
//     node webhook.mjs
//
// Listens on 127.0.0.1 (a free port) and prints `webhook listening on http://127.0.0.1:PORT` when
// ready. In A2A 0.3 a push notification is the Task itself in the 0.3 JSON form (0.3 spec 9.5; what
// @a2a-js/sdk 0.3's DefaultPushNotificationSender posts). The SDK's 0.3 types are TypeScript only
// (no runtime parser), so the receiver checks the members its `Task` type requires: `kind: "task"`,
// `id`, `contextId`, `status.state` one of the 0.3 states (lower-kebab), and `kind` on every part.
// Each notification is recorded as one `push` record on stdout (../js/lib.mjs), with the fields of
// ../python/webhook_v03.py's:
//
//     {"record":"push","label":"rest","task_id":"...","kind":"task","state":"completed",
//      "text":"chunk 0\nchunk 1\nchunk 2\n","authorization":null,"token":"..."}
//
// A body that is not such a Task is answered 400 and recorded as a `push-error` record.

import { createServer } from 'node:http';
import { once } from 'node:events';

import { record } from '../js/lib.mjs';

const STATES = new Set(['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed', 'rejected', 'auth-required', 'unknown']);
const PART_KINDS = new Set(['text', 'file', 'data']);

/** [task id, state, artifact text] of a 0.3 push body; throws if it is not a 0.3 Task. */
function describe(body) {
  if (body?.kind !== 'task') {
    throw new Error(`not a 0.3 Task (kind ${JSON.stringify(body?.kind)}, members ${Object.keys(body ?? {}).sort()})`);
  }
  if (typeof body.id !== 'string' || typeof body.contextId !== 'string') throw new Error('a Task without id or contextId');
  if (!STATES.has(body.status?.state)) throw new Error(`status.state ${JSON.stringify(body.status?.state)} is not a 0.3 TaskState`);
  const parts = [...(body.artifacts ?? []).flatMap((a) => a.parts ?? []), ...(body.history ?? []).flatMap((m) => m.parts ?? [])];
  const bad = parts.find((p) => !PART_KINDS.has(p?.kind));
  if (bad) throw new Error(`a part without a 0.3 kind: ${JSON.stringify(bad)}`);
  const text = (body.artifacts ?? [])
    .flatMap((a) => a.parts)
    .filter((p) => p.kind === 'text')
    .map((p) => p.text)
    .join('');
  return [body.id, body.status.state, text];
}

const server = createServer(async (req, res) => {
  const match = /^\/webhook\/([^/]+)$/.exec(req.url ?? '');
  const label = match?.[1] ?? null;
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  try {
    if (req.method !== 'POST' || !match) throw new Error(`unexpected ${req.method} ${req.url}`);
    const [taskId, state, text] = describe(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    const authorization = req.headers['authorization'] ?? null;
    const token = req.headers['x-a2a-notification-token'] ?? null;
    record('push', { label, task_id: taskId, kind: 'task', state, text, authorization, token });
    res.writeHead(200).end();
  } catch (err) {
    record('push-error', { label, error: `${err?.name}: ${err?.message}` });
    res.writeHead(400).end();
  }
});

server.listen(0, '127.0.0.1');
await once(server, 'listening');
console.log(`webhook listening on http://127.0.0.1:${server.address().port}`);
process.on('SIGTERM', () => server.close());
