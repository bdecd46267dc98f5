// A demo-skill A2A agent written with the official JS SDK (@a2a-js/sdk), serving every binding.
//
//     node tests/interop/js/agent.mjs [--host 127.0.0.1] [--port 0] [--grpc-port 0]
//
// Serves JSON-RPC at /a2a/jsonrpc and HTTP+JSON at /a2a/rest on one HTTP port (express), gRPC on a
// second port (@grpc/grpc-js), and the agent card at /.well-known/agent-card.json; port 0 picks free
// ports. When it is ready it prints `interop-agent listening on http://HOST:PORT` (the base URL of
// the card), then `grpc on HOST:PORT`.
//
// The skills follow the demo-skill convention of docs/interop.md (the same as the reference
// server's demo agent and tests/interop/python/agent.py): the first word of the message text picks
// the skill (echo / `stream N` / `ask` then answer / `wait N` cancellable / `reply X` / `fail` /
// `reject`). Push notifications are on (the SDK's in-memory store and its default sender).

import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { parseArgs } from 'node:util';

import express from 'express';
import { Server, ServerCredentials } from '@grpc/grpc-js';

import { AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
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

const textPart = (text) => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const textOf = (message) =>
  (message?.parts ?? [])
    .filter((p) => p.content?.$case === 'text')
    .map((p) => p.content.value)
    .join('');

function agentMessage(text, taskId, contextId) {
  return {
    messageId: randomUUID(),
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    taskId,
    contextId,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The demo-skill convention, written with the SDK's executor API. */
class DemoExecutor {
  /** taskId -> function that ends a running `wait` early (CancelTask). */
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
    const status = (state, text) =>
      eventBus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, timestamp: now(), message: text === undefined ? undefined : agentMessage(text, taskId, contextId) },
          metadata: undefined,
        })
      );
    const artifact = (artifactId, name, text, append, lastChunk) =>
      eventBus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: { artifactId, name, description: '', parts: [textPart(text)], metadata: undefined, extensions: [] },
          append,
          lastChunk,
          metadata: undefined,
        })
      );

    if (command === 'reply' && !task) {
      eventBus.publish(
        AgentEvent.message({ ...agentMessage(rest || 'Hello from the JS SDK agent', '', contextId) })
      );
      return;
    }

    // The SDK requires a Task (or Message) as the first event of every turn, also on follow-ups.
    eventBus.publish(
      AgentEvent.task(
        task ?? {
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: now(), message: undefined },
          artifacts: [],
          history: [message],
          metadata: undefined,
        }
      )
    );

    // A message continuing an input-required task answers the question.
    if (task && task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      status(TaskState.TASK_STATE_WORKING);
      const greeting = `Hello, ${text || 'stranger'}!`;
      artifact(randomUUID(), 'greeting', greeting, false, true);
      status(TaskState.TASK_STATE_COMPLETED, greeting);
      return;
    }

    switch (command) {
      case 'stream': {
        const n = Math.max(1, Math.min(/^\d+$/.test(rest) ? Number(rest) : 5, MAX_CHUNKS));
        status(TaskState.TASK_STATE_WORKING, `Streaming ${n} chunks`);
        const artifactId = randomUUID();
        for (let i = 0; i < n; i++) artifact(artifactId, 'stream', `chunk ${i}\n`, i > 0, i + 1 === n);
        status(TaskState.TASK_STATE_COMPLETED);
        return;
      }
      case 'ask':
        status(TaskState.TASK_STATE_INPUT_REQUIRED, 'What is your name?');
        return;
      case 'wait': {
        const seconds = Math.min(/^\d+$/.test(rest) ? Number(rest) : 300, MAX_WAIT_SECONDS);
        status(TaskState.TASK_STATE_WORKING, `Working for up to ${seconds} s`);
        const canceled = await new Promise((resolve) => {
          const timer = setTimeout(() => resolve(false), seconds * 1000);
          this.waiting.set(taskId, () => {
            clearTimeout(timer);
            resolve(true);
          });
        });
        this.waiting.delete(taskId);
        if (canceled) status(TaskState.TASK_STATE_CANCELED);
        else status(TaskState.TASK_STATE_COMPLETED, 'Done waiting');
        return;
      }
      case 'fail':
        status(TaskState.TASK_STATE_FAILED, 'This task failed on purpose (demo skill `fail`)');
        return;
      case 'reject':
        status(TaskState.TASK_STATE_REJECTED, 'I will not do that (demo skill `reject`)');
        return;
      default:
        status(TaskState.TASK_STATE_WORKING);
        artifact(randomUUID(), 'echo', text, false, true);
        status(TaskState.TASK_STATE_COMPLETED);
    }
  }
}

function skill(id, name, description, example) {
  return { id, name, description, tags: ['demo', id], examples: [example], inputModes: [], outputModes: [], securityRequirements: [] };
}

function agentCard(baseUrl, grpcAddress) {
  const iface = (url, protocolBinding) => ({ url, protocolBinding, tenant: '', protocolVersion: '1.0' });
  return {
    name: 'JS SDK interop agent',
    description: 'The demo-skill convention written with @a2a-js/sdk; the first word of a message picks the skill.',
    supportedInterfaces: [
      iface(`${baseUrl}${JSONRPC_PATH}`, 'JSONRPC'),
      iface(`${baseUrl}${REST_PATH}`, 'HTTP+JSON'),
      iface(grpcAddress, 'GRPC'),
    ],
    provider: { organization: 'a2a-rs interop tests', url: 'https://github.com/a2a-rs-project/a2a' },
    version: '1.0.0',
    documentationUrl: '',
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: true },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      skill('echo', 'Echo', 'Completes a task whose artifact is the message text.', 'hello there'),
      skill('stream', 'Stream', 'Streams one artifact in N chunks, then completes.', 'stream 5'),
      skill('ask', 'Multi-turn', 'Asks for your name; the next message completes the task.', 'ask'),
      skill('wait', 'Long-running', 'Works until canceled or N seconds pass.', 'wait 60'),
      skill('reply', 'Direct reply', 'Answers with a Message instead of a Task.', 'reply hi'),
      skill('fail', 'Failure', 'Ends the task FAILED.', 'fail'),
      skill('reject', 'Rejection', 'Ends the task REJECTED.', 'reject'),
    ],
    signatures: [],
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
    // A function: a plain card would be served to authenticated callers only.
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
