// A push-notification receiver that parses every payload with the official JS SDK's types.
//
//     node webhook.mjs
//
// Listens on 127.0.0.1 (a free port) and prints `webhook listening on http://127.0.0.1:PORT` when
// ready. Every `POST /webhook/LABEL` body is parsed with the SDK's `StreamResponse.fromJSON` (spec
// 4.3.3: the push payload is a StreamResponse) and must serialize back (`toJSON`) to the same JSON,
// so a field the SDK does not know, or a value it reads differently, is an error. Each notification
// is recorded as one tab-separated line on stdout, in the format of webhook.py:
//
//     PUSH<TAB>label<TAB>task id<TAB>kind<TAB>summary<TAB>Authorization<TAB>X-A2A-Notification-Token
//
// A body that does not parse is answered 400 and recorded as `PUSH-ERROR<TAB>label<TAB>error`.

import { createServer } from 'node:http';
import { once } from 'node:events';
import { isDeepStrictEqual } from 'node:util';

import { StreamResponse, TaskState } from '@a2a-js/sdk';

const clean = (text) => text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n').replaceAll('\t', '\\t');
const textOf = (parts) =>
  (parts ?? [])
    .filter((p) => p.content?.$case === 'text')
    .map((p) => p.content.value)
    .join('');

/** [task id, kind, summary] of a parsed payload. */
function describe(event) {
  const payload = event.payload;
  switch (payload?.$case) {
    case 'task':
      return [payload.value.id, 'task', TaskState[payload.value.status?.state]];
    case 'statusUpdate':
      return [payload.value.taskId, 'statusUpdate', TaskState[payload.value.status?.state]];
    case 'artifactUpdate': {
      const update = payload.value;
      const flags = `${update.append ? 'append' : ''}|${update.lastChunk ? 'lastChunk' : ''}`;
      return [update.taskId, 'artifactUpdate', `${clean(textOf(update.artifact?.parts))}|${flags}`];
    }
    case 'message':
      return [payload.value.taskId, 'message', clean(textOf(payload.value.parts))];
    default:
      throw new Error('the StreamResponse has no payload');
  }
}

const server = createServer(async (req, res) => {
  const match = /^\/webhook\/([^/]+)$/.exec(req.url ?? '');
  const label = match?.[1] ?? '-';
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
    const [taskId, kind, summary] = describe(event);
    const authorization = req.headers['authorization'] ?? '';
    const token = req.headers['x-a2a-notification-token'] ?? '';
    console.log(['PUSH', label, taskId, kind, summary, authorization, token].join('\t'));
    res.writeHead(200).end();
  } catch (err) {
    console.log(['PUSH-ERROR', label, clean(`${err?.name}: ${err?.message}`)].join('\t'));
    res.writeHead(400).end();
  }
});

server.listen(0, '127.0.0.1');
await once(server, 'listening');
console.log(`webhook listening on http://127.0.0.1:${server.address().port}`);
process.on('SIGTERM', () => server.close());
