// A push-notification receiver that parses every payload with the official JS SDK's types.
//
//     node webhook.mjs
//
// Listens on 127.0.0.1 (a free port) and prints `webhook listening on http://127.0.0.1:PORT` when
// ready. Every `POST /webhook/LABEL` body is parsed with the SDK's `StreamResponse.fromJSON` (spec
// 4.3.3: the push payload is a StreamResponse) and must serialize back (`toJSON`) to the same JSON,
// so a field the SDK does not know, or a value it reads differently, is an error. Each notification
// is recorded as one `push` record on stdout (lib.mjs), with the fields of webhook.py's:
//
//     {"record":"push","label":"rest","task_id":"...","kind":"artifactUpdate","state":null,
//      "text":"chunk 1\n","append":true,"last_chunk":false,"authorization":"Bearer ...","token":"..."}
//
// A body that does not parse is answered 400 and recorded as a `push-error` record.

import { createServer } from 'node:http';
import { once } from 'node:events';
import { isDeepStrictEqual } from 'node:util';

import { StreamResponse, TaskState } from '@a2a-js/sdk';

import { record } from './lib.mjs';

const textOf = (parts) =>
  (parts ?? [])
    .filter((p) => p.content?.$case === 'text')
    .map((p) => p.content.value)
    .join('');

/** The `push` record's fields of a parsed payload (task_id, kind, state, text, flags). */
function describe(event) {
  const payload = event.payload;
  switch (payload?.$case) {
    case 'task':
      return { task_id: payload.value.id, kind: 'task', state: TaskState[payload.value.status?.state] };
    case 'statusUpdate':
      return {
        task_id: payload.value.taskId,
        kind: 'statusUpdate',
        state: TaskState[payload.value.status?.state],
      };
    case 'artifactUpdate': {
      const update = payload.value;
      return {
        task_id: update.taskId,
        kind: 'artifactUpdate',
        text: textOf(update.artifact?.parts),
        append: Boolean(update.append),
        last_chunk: Boolean(update.lastChunk),
      };
    }
    case 'message':
      return { task_id: payload.value.taskId, kind: 'message', text: textOf(payload.value.parts) };
    default:
      throw new Error('the StreamResponse has no payload');
  }
}

const server = createServer(async (req, res) => {
  const match = /^\/webhook\/([^/]+)$/.exec(req.url ?? '');
  const label = match?.[1] ?? null;
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  try {
    if (req.method !== 'POST' || !match) throw new Error(`unexpected ${req.method} ${req.url}`);
    const json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const event = StreamResponse.fromJSON(json);
    const back = StreamResponse.toJSON(event);
    if (!isDeepStrictEqual(back, json)) {
      throw new Error(`does not round-trip through the SDK's StreamResponse: ${JSON.stringify(json)} -> ${JSON.stringify(back)}`);
    }
    const authorization = req.headers['authorization'] ?? null;
    const token = req.headers['x-a2a-notification-token'] ?? null;
    record('push', { label, ...describe(event), authorization, token });
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
