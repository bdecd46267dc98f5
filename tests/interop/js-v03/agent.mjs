// A demo-skill A2A 0.3 agent written with the official JS SDK's 0.3 line (@a2a-js/sdk 0.3.x),
// serving every binding that SDK serves.
//
//     node tests/interop/js-v03/agent.mjs [--host 127.0.0.1] [--port 0] [--grpc-port 0]
//
// Serves JSON-RPC at /a2a/jsonrpc and HTTP+JSON under /a2a/rest (`/a2a/rest/v1/...`) on one HTTP
// port (express), gRPC on a second port (@grpc/grpc-js), and the 0.3 agent card at
// /.well-known/agent-card.json (`url` and `preferredTransport` JSON-RPC, all three in
// `additionalInterfaces`); port 0 picks free ports. When it is ready it prints
// `interop-agent listening on http://HOST:PORT` (the base URL of the card), then `grpc on HOST:PORT`.
//
// The skills follow the demo-skill convention of docs/interop.md, as ../js/agent.mjs does for the
// 1.x SDK: the first word of the message text picks the skill (echo / `stream N` / `ask` then
// answer / `wait N` cancelable / `reply TEXT` / `fail` / `reject` / `file` with file parts: one line
// `N bytes, sha256 HEX, TYPE` per file with bytes, and the files echoed back). Push notifications are on (the
// SDK's in-memory store and DefaultPushNotificationSender, which posts the Task in 0.3 JSON);
// streaming and the authenticated extended card too.

import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { parseArgs } from 'node:util';

import express from 'express';
import { Server, ServerCredentials } from '@grpc/grpc-js';

import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import {
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';

const JSONRPC_PATH = '/a2a/jsonrpc';
const REST_PATH = '/a2a/rest';
const MAX_WAIT_SECONDS = 3600;
const MAX_CHUNKS = 100_000;

const textOf = (message) =>
  (message?.parts ?? [])
    .filter((p) => p.kind === 'text')
    .map((p) => p.text)
    .join('');

const agentMessage = (text, taskId, contextId) => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'agent',
  parts: [{ kind: 'text', text }],
  taskId,
  contextId,
});

/** The demo-skill convention, written with the 0.3 SDK's executor API. */
class DemoExecutor {
  /** taskId -> function that ends a running `wait` early (tasks/cancel). */
  waiting = new Map();

  cancelTask = async (taskId) => {
    this.waiting.get(taskId)?.();
  };

  async execute(requestContext, eventBus) {
    const { taskId, contextId, task } = requestContext;
    const message = requestContext.userMessage;
    const text = textOf(message);
    const words = text.trim().split(/\s+/).filter(Boolean);
    const command = (words[0] ?? '').toLowerCase();
    const rest = words.slice(1).join(' ');
    const now = () => new Date().toISOString();
    const status = (state, final, text) =>
      eventBus.publish({
        kind: 'status-update',
        taskId,
        contextId,
        status: { state, timestamp: now(), message: text === undefined ? undefined : agentMessage(text, taskId, contextId) },
        final,
      });
    const artifact = (artifactId, name, text, append, lastChunk) =>
      eventBus.publish({
        kind: 'artifact-update',
        taskId,
        contextId,
        artifact: { artifactId, name, parts: [{ kind: 'text', text }] },
        append,
        lastChunk,
      });

    if (command === 'reply' && !task) {
      eventBus.publish(agentMessage(rest || 'Hello from the JS SDK 0.3 agent', undefined, contextId));
      eventBus.finished();
      return;
    }

    // The Task first on a new task, so that a stream starts with it.
    if (!task) {
      eventBus.publish({
        kind: 'task',
        id: taskId,
        contextId,
        status: { state: 'submitted', timestamp: now() },
        artifacts: [],
        history: [message],
      });
    }

    // A message continuing an input-required task answers the question.
    if (task && task.status?.state === 'input-required') {
      status('working', false);
      const greeting = `Hello, ${text || 'stranger'}!`;
      artifact(randomUUID(), 'greeting', greeting, false, true);
      status('completed', true, greeting);
      eventBus.finished();
      return;
    }

    switch (command) {
      case 'stream': {
        const n = Math.max(1, Math.min(/^\d+$/.test(rest) ? Number(rest) : 5, MAX_CHUNKS));
        status('working', false, `Streaming ${n} chunks`);
        const artifactId = randomUUID();
        for (let i = 0; i < n; i++) artifact(artifactId, 'stream', `chunk ${i}\n`, i > 0, i + 1 === n);
        status('completed', true);
        break;
      }
      case 'ask':
        status('input-required', true, 'What is your name?');
        break;
      case 'wait': {
        const seconds = Math.min(/^\d+$/.test(rest) ? Number(rest) : 300, MAX_WAIT_SECONDS);
        status('working', false, `Working for up to ${seconds} s`);
        const canceled = await new Promise((resolve) => {
          const timer = setTimeout(() => resolve(false), seconds * 1000);
          this.waiting.set(taskId, () => {
            clearTimeout(timer);
            resolve(true);
          });
        });
        this.waiting.delete(taskId);
        if (canceled) status('canceled', true);
        else status('completed', true, 'Done waiting');
        break;
      }
      case 'fail':
        status('failed', true, 'This task failed on purpose (demo skill `fail`)');
        break;
      case 'reject':
        status('rejected', true, 'I will not do that (demo skill `reject`)');
        break;
      case 'file': {
        // The SDK hands every binding's file bytes over as base64 text (`file.bytes`); over gRPC
        // and HTTP+JSON it read the proto's bytes field as the bytes themselves.
        const files = (message?.parts ?? []).filter((p) => p.kind === 'file' && typeof p.file?.bytes === 'string');
        if (files.length === 0) {
          status('failed', true, 'The file skill reads file parts with bytes; this message has none');
          break;
        }
        const lines = files.map(({ file }) => {
          const data = Buffer.from(file.bytes, 'base64');
          const sha256 = createHash('sha256').update(data).digest('hex');
          return `${data.length} bytes, sha256 ${sha256}, ${file.mimeType ?? ''}`;
        });
        status('working', false);
        eventBus.publish({
          kind: 'artifact-update',
          taskId,
          contextId,
          artifact: {
            artifactId: randomUUID(),
            name: 'file',
            parts: [
              { kind: 'text', text: lines.join('\n') },
              ...files.map(({ file }) => ({ kind: 'file', file: { bytes: file.bytes, mimeType: file.mimeType } })),
            ],
          },
          lastChunk: true,
        });
        status('completed', true);
        break;
      }
      default:
        status('working', false);
        artifact(randomUUID(), 'echo', text, false, true);
        status('completed', true);
    }
    eventBus.finished();
  }
}

function skill(id, name, description, example) {
  return { id, name, description, tags: ['demo', id], examples: [example] };
}

function agentCard(baseUrl, grpcAddress) {
  const jsonrpcUrl = `${baseUrl}${JSONRPC_PATH}`;
  return {
    name: 'JS SDK 0.3 interop agent',
    description: 'The demo-skill convention written with @a2a-js/sdk 0.3; the first word of a message picks the skill.',
    protocolVersion: '0.3.0',
    version: '1.0.0',
    url: jsonrpcUrl,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { transport: 'JSONRPC', url: jsonrpcUrl },
      { transport: 'HTTP+JSON', url: `${baseUrl}${REST_PATH}` },
      { transport: 'GRPC', url: grpcAddress },
    ],
    provider: { organization: 'a2a-rs interop tests', url: 'https://github.com/a2a-rs-project/a2a' },
    capabilities: { streaming: true, pushNotifications: true },
    supportsAuthenticatedExtendedCard: true,
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      skill('echo', 'Echo', 'Completes a task whose artifact is the message text.', 'hello there'),
      skill('stream', 'Stream', 'Streams one artifact in N chunks, then completes.', 'stream 5'),
      skill('ask', 'Multi-turn', 'Asks for your name; the next message completes the task.', 'ask'),
      skill('wait', 'Long-running', 'Works until canceled or N seconds pass.', 'wait 60'),
      skill('reply', 'Direct reply', 'Answers with a Message instead of a Task.', 'reply hi'),
      skill('fail', 'Failure', 'Ends the task failed.', 'fail'),
      skill('reject', 'Rejection', 'Ends the task rejected.', 'reject'),
      {
        ...skill('file', 'File digest', 'Answers `N bytes, sha256 HEX, TYPE` per file part with bytes, and echoes the files.', 'file'),
        inputModes: ['*/*'],
      },
    ],
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '0' },
      'grpc-port': { type: 'string', default: '0' },
    },
  });
  const host = values.host;

  // Bind both ports first: the card carries the addresses.
  const app = express();
  const http = app.listen(Number(values.port), host);
  await once(http, 'listening');
  const baseUrl = `http://${host}:${http.address().port}`;
  const grpcServer = new Server();
  const grpcPort = await new Promise((resolve, reject) =>
    grpcServer.bindAsync(`${host}:${values['grpc-port']}`, ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port)
    )
  );

  const card = agentCard(baseUrl, `${host}:${grpcPort}`);
  const extended = { ...card, description: `${card.description} (extended card)` };
  const pushStore = new InMemoryPushNotificationStore();
  const requestHandler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    new DemoExecutor(),
    undefined,
    pushStore,
    new DefaultPushNotificationSender(pushStore, { timeout: 10_000 }),
    // A function: a plain card would be served to authenticated callers only (as in 1.x).
    async () => extended
  );
  const userBuilder = UserBuilder.noAuthentication;
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use(JSONRPC_PATH, jsonRpcHandler({ requestHandler, userBuilder }));
  app.use(REST_PATH, restHandler({ requestHandler, userBuilder }));
  grpcServer.addService(A2AService, grpcService({ requestHandler, userBuilder }));

  console.log(`interop-agent listening on ${baseUrl}`);
  console.log(`grpc on ${host}:${grpcPort}`);
  const stop = () => {
    http.close();
    grpcServer.forceShutdown();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

await main();
