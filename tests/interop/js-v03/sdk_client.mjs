// The official JS SDK's 0.3 line (@a2a-js/sdk 0.3.x) as a client of an A2A agent that follows the
// demo-skill convention, speaking A2A 0.3 (docs/interop.md, "The 0.3 line").
//
//     node sdk_client.mjs --url http://127.0.0.1:PORT --binding jsonrpc|rest|grpc [--webhook URL]
//
// Resolves the agent card from URL with the SDK's resolver (the card must read as a 0.3 card), lets
// the SDK's ClientFactory pick the binding's interface from `url` / `preferredTransport` /
// `additionalInterfaces`, runs every 0.3 operation of the matrix and asserts on what comes back.
// Prints one `interop` record per check (../js/lib.mjs); exits 1 if any check failed. With
// `--webhook http://HOST:PORT` (a running webhook.mjs of this directory) it also sends a task whose
// push notifications go to `/webhook/<binding label>` there, and prints a `push-task` record for
// the runner.

import { createHash, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

import {
  AgentCardResolver,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  TaskNotCancelableError,
  TaskNotFoundError,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';

import { DEMO_SKILLS, expect, record, runChecks, withTimeout } from '../js/lib.mjs';

const BINDINGS = { jsonrpc: 'JSONRPC', rest: 'HTTP+JSON', grpc: 'GRPC' };
const LABELS = Object.fromEntries(Object.entries(BINDINGS).map(([label, binding]) => [binding, label]));
const RESUBSCRIBE_GRACE_MS = 1000;
const TERMINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);
// The file of the `file` check: binary (not UTF-8), a PNG signature and every byte value. The SDK
// sends it as the bytes themselves in the proto's bytes field over HTTP+JSON and gRPC, and as base64
// in JSON-RPC (docs/interop.md, "File parts").
const FILE = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from([...Array(256).keys()])]);
const FILE_TYPE = 'application/octet-stream';

/** The concatenated text of 0.3 text parts. */
const textOf = (parts) =>
  (parts ?? [])
    .filter((p) => p.kind === 'text')
    .map((p) => p.text)
    .join('');

function userMessage(text, { taskId, contextId } = {}) {
  return { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }], taskId, contextId };
}

const params = (text, ids = {}, configuration = undefined) => ({ message: userMessage(text, ids), configuration });
const isTask = (result) => result?.kind === 'task';

class Checks {
  constructor(client, polling, card, binding, webhook) {
    this.client = client;
    // The SDK's `polling` client config is how it sends `blocking: false`.
    this.polling = polling;
    this.card = card;
    this.binding = binding;
    this.webhook = webhook;
  }

  async sendTask(request, client = this.client) {
    const result = await client.sendMessage(typeof request === 'string' ? params(request) : request);
    expect(isTask(result), `expected a Task, got ${JSON.stringify(result)}`);
    return result;
  }

  async startWait(seconds = 30) {
    const task = await this.sendTask(`wait ${seconds}`, this.polling);
    expect(!TERMINAL.has(task.status.state), `wait task already ${task.status.state}`);
    return task;
  }

  cancel(id) {
    return this.client.cancelTask({ id });
  }

  async card_() {
    const card = this.card;
    expect(card.name !== '', 'card has no name');
    expect(card.protocolVersion?.startsWith('0.3'), `protocolVersion ${card.protocolVersion}`);
    const skills = new Set(card.skills.map((s) => s.id));
    const missing = [...DEMO_SKILLS].filter((s) => !skills.has(s));
    expect(missing.length === 0, `card skills lack ${missing}`);
    expect(card.capabilities?.streaming === true, 'card does not declare streaming');
    expect(card.capabilities?.pushNotifications === true, 'card does not declare pushNotifications');
    const offered = [card.preferredTransport ?? 'JSONRPC', ...(card.additionalInterfaces ?? []).map((i) => i.transport)];
    expect(offered.includes(this.binding), `no ${this.binding} interface among ${offered}`);
    expect(
      this.client.transport.constructor.name.replace(/^_/, '').toUpperCase().startsWith(
        { JSONRPC: 'JSONRPC', 'HTTP+JSON': 'REST', GRPC: 'GRPC' }[this.binding]
      ),
      `the factory picked ${this.client.transport.constructor.name}`
    );
  }

  async extendedCard() {
    expect(this.card.supportsAuthenticatedExtendedCard === true, 'card does not declare supportsAuthenticatedExtendedCard');
    // Client.getAgentCard fetches agent/getAuthenticatedExtendedCard when the card declares it.
    const extended = await this.client.getAgentCard();
    expect(extended.name === this.card.name, `extended card name ${extended.name}`);
    expect(extended.description.endsWith('(extended card)'), `extended card description ${extended.description}`);
  }

  async sendTaskCheck() {
    const text = `hello over ${this.binding}`;
    const task = await this.sendTask(text);
    expect(task.id && task.contextId, 'task without id or contextId');
    expect(task.status.state === 'completed', `state ${task.status.state}, want completed`);
    expect(task.artifacts?.length === 1, `${task.artifacts?.length} artifacts, want 1`);
    expect(textOf(task.artifacts[0].parts) === text, `artifact text ${textOf(task.artifacts[0].parts)}`);
    expect(
      (task.history ?? []).some((m) => m.role === 'user' && textOf(m.parts) === text),
      'the user message is not in the history'
    );
  }

  async sendMessageCheck() {
    const result = await this.client.sendMessage(params('reply pong'));
    expect(result?.kind === 'message', `expected a Message, got ${JSON.stringify(result)}`);
    expect(result.role === 'agent', `role ${result.role}`);
    expect(textOf(result.parts) === 'pong', `text ${textOf(result.parts)}`);
  }

  async nonBlocking() {
    const task = await this.startWait(30);
    expect(['submitted', 'working'].includes(task.status.state), `state ${task.status.state}, want submitted or working`);
    await this.cancel(task.id);
  }

  async multiTurn() {
    const task = await this.sendTask('ask');
    expect(task.status.state === 'input-required', `state ${task.status.state}, want input-required`);
    expect(textOf(task.status.message?.parts) === 'What is your name?', 'question text');
    const done = await this.sendTask(params('Ada', { taskId: task.id, contextId: task.contextId }));
    expect(done.id === task.id, 'the answer started another task');
    expect(done.status.state === 'completed', `state ${done.status.state}`);
    const texts = (done.artifacts ?? []).map((a) => textOf(a.parts));
    expect(texts.includes('Hello, Ada!'), `artifacts ${JSON.stringify(texts)}`);
  }

  async endsIn(text, state) {
    const task = await this.sendTask(text);
    expect(task.status.state === state, `state ${task.status.state}, want ${state}`);
  }

  async stream() {
    const events = [];
    for await (const event of this.client.sendMessageStream(params('stream 3'))) events.push(event);
    expect(events.length > 0, 'empty stream');
    expect(events[0].kind === 'task', `first event is ${events[0].kind}, not the Task`);
    const chunks = events.filter((e) => e.kind === 'artifact-update');
    const texts = chunks.map((c) => textOf(c.artifact.parts));
    expect(JSON.stringify(texts) === JSON.stringify(['chunk 0\n', 'chunk 1\n', 'chunk 2\n']), `chunks ${JSON.stringify(texts)}`);
    expect(JSON.stringify(chunks.map((c) => Boolean(c.append))) === '[false,true,true]', 'append flags');
    expect(JSON.stringify(chunks.map((c) => Boolean(c.lastChunk))) === '[false,false,true]', 'lastChunk flags');
    expect(new Set(chunks.map((c) => c.artifact.artifactId)).size === 1, 'chunks of different artifacts');
    const last = events[events.length - 1];
    expect(
      last.kind === 'status-update' && last.status.state === 'completed' && last.final === true,
      `last event is not the final completed status: ${JSON.stringify(last)}`
    );
    const finals = events.filter((e) => e.kind === 'status-update' && e.final);
    expect(finals.length === 1, `${finals.length} status updates marked final`);
  }

  async streamMessage() {
    const events = [];
    for await (const event of this.client.sendMessageStream(params('reply streamed'))) events.push(event);
    expect(events.length === 1, `${events.length} events, want exactly one Message`);
    expect(events[0].kind === 'message', `the event is ${events[0].kind}, not a Message`);
    expect(textOf(events[0].parts) === 'streamed', 'message text');
  }

  async getHistory() {
    const task = await this.sendTask('ask');
    await this.sendTask(params('Grace', { taskId: task.id, contextId: task.contextId }));
    const full = await this.client.getTask({ id: task.id });
    const users = (full.history ?? []).filter((m) => m.role === 'user').map((m) => textOf(m.parts));
    expect(JSON.stringify(users) === '["ask","Grace"]', `user messages in history ${JSON.stringify(users)}`);
    const one = await this.client.getTask({ id: task.id, historyLength: 1 });
    expect(one.history?.length === 1, `historyLength=1 gave ${one.history?.length} messages`);
    expect(
      one.history[0].messageId === full.history[full.history.length - 1].messageId,
      'historyLength=1 is not the most recent message'
    );
  }

  async cancelCheck() {
    const task = await this.startWait(30);
    const canceled = await this.cancel(task.id);
    expect(canceled.status.state === 'canceled', `tasks/cancel returned ${canceled.status.state}`);
    const again = await this.client.getTask({ id: task.id });
    expect(again.status.state === 'canceled', `tasks/get after cancel is ${again.status.state}`);
  }

  async resubscribe() {
    const task = await this.startWait(30);
    const events = [];
    let gotFirst;
    const first = new Promise((resolve) => (gotFirst = resolve));
    const consumer = (async () => {
      for await (const event of this.client.resubscribeTask({ id: task.id })) {
        events.push(event);
        gotFirst();
      }
    })();
    // 0.3 does not say what a resubscription starts with: our server sends the Task (as 1.0 does),
    // the SDK servers nothing until the next event. Cancel once the first event is there, or after
    // a grace period in which the SDK has sent its request.
    let timer;
    await Promise.race([first, consumer, new Promise((resolve) => (timer = setTimeout(resolve, RESUBSCRIBE_GRACE_MS)))]);
    clearTimeout(timer);
    await this.cancel(task.id);
    await consumer;
    expect(events.length > 0, 'no event after tasks/cancel');
    expect(events.every((e) => (e.id ?? e.taskId) === task.id), 'events of another task');
    const statuses = events.filter((e) => e.kind === 'status-update');
    const last = statuses[statuses.length - 1];
    expect(
      last?.status.state === 'canceled' && last.final === true,
      `status updates: ${JSON.stringify(statuses.map((s) => [s.status.state, s.final]))}, want canceled (final) last`
    );
  }

  async withWaitTask(body) {
    const task = await this.startWait(30);
    try {
      await body(task);
    } finally {
      await this.cancel(task.id);
    }
  }

  async createConfig(task) {
    const url = 'http://127.0.0.1:9/interop-webhook';
    // 0.3: the client sets the config id ("set by the client to support multiple callbacks").
    const id = `interop-${randomUUID()}`;
    const created = await this.client.setTaskPushNotificationConfig({
      taskId: task.id,
      pushNotificationConfig: {
        id,
        url,
        token: 'interop-token',
        authentication: { schemes: ['Bearer'], credentials: 'interop-secret' },
      },
    });
    const config = created.pushNotificationConfig;
    expect(created.taskId === task.id, `created taskId ${created.taskId}`);
    expect(config.id === id, `created id ${config.id}, want ${id}`);
    expect(config.url === url, `created url ${config.url}`);
    expect(config.token === 'interop-token', `created token ${config.token}`);
    return config;
  }

  async pushConfig() {
    await this.withWaitTask(async (task) => {
      const config = await this.createConfig(task);
      const got = await this.client.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: config.id });
      expect(got.taskId === task.id, `get returned taskId ${got.taskId}`);
      expect(got.pushNotificationConfig.id === config.id && got.pushNotificationConfig.url === config.url, `get returned ${JSON.stringify(got)}`);
      const schemes = got.pushNotificationConfig.authentication?.schemes;
      expect(JSON.stringify(schemes) === '["Bearer"]', `get lost the authentication: ${JSON.stringify(got)}`);
    });
  }

  async pushConfigListDelete() {
    await this.withWaitTask(async (task) => {
      const config = await this.createConfig(task);
      const listed = await this.client.listTaskPushNotificationConfig({ id: task.id });
      expect(
        JSON.stringify(listed.map((c) => c.pushNotificationConfig.id)) === JSON.stringify([config.id]),
        `list returned ${JSON.stringify(listed)}`
      );
      await this.client.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: config.id });
      const after = await this.client.listTaskPushNotificationConfig({ id: task.id });
      expect(after.length === 0, `list after delete returned ${JSON.stringify(after)}`);
    });
  }

  async errorTaskNotFound() {
    try {
      await this.client.getTask({ id: `no-such-task-${randomUUID()}` });
    } catch (err) {
      expect(err instanceof TaskNotFoundError, `got ${err?.name}: ${err?.message}, want TaskNotFoundError (-32001)`);
      return;
    }
    throw new Error('tasks/get of an unknown id succeeded');
  }

  async errorNotCancelable() {
    const task = await this.sendTask('hello');
    try {
      await this.cancel(task.id);
    } catch (err) {
      expect(err instanceof TaskNotCancelableError, `got ${err?.name}: ${err?.message}, want TaskNotCancelableError (-32002)`);
      return;
    }
    throw new Error('tasks/cancel of a completed task succeeded');
  }

  async fileCheck() {
    const message = userMessage('file');
    message.parts.push({ kind: 'file', file: { bytes: FILE.toString('base64'), mimeType: FILE_TYPE } });
    const task = await this.sendTask({ message });
    expect(task.status.state === 'completed', `state ${task.status.state}, want completed`);
    const want = `${FILE.length} bytes, sha256 ${createHash('sha256').update(FILE).digest('hex')}, ${FILE_TYPE}`;
    const texts = (task.artifacts ?? []).map((a) => textOf(a.parts));
    expect(texts.includes(want), `artifact texts ${JSON.stringify(texts)}, want ${want}: the agent read other bytes`);
  }

  // message/send with an inline push config (0.3 spec 7.1.1); the runner checks what the webhook
  // receiver got (push-delivery).
  async pushSend() {
    const configuration = {
      pushNotificationConfig: {
        url: `${this.webhook}/webhook/${LABELS[this.binding]}`,
        token: 'interop-token',
        authentication: { schemes: ['Bearer'], credentials: 'interop-secret' },
      },
    };
    const task = await this.sendTask(params('stream 3', {}, configuration));
    expect(task.status.state === 'completed', `state ${task.status.state}`);
    record('push-task', { binding: this.binding, task_id: task.id });
  }
}

async function main() {
  const { values } = parseArgs({
    options: { url: { type: 'string' }, binding: { type: 'string' }, webhook: { type: 'string' } },
  });
  const binding = BINDINGS[values.binding];
  if (!values.url || !binding) {
    console.error('usage: node sdk_client.mjs --url URL --binding jsonrpc|rest|grpc [--webhook URL]');
    return 2;
  }
  const factory = (polling) =>
    new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory(), new RestTransportFactory(), new GrpcTransportFactory()],
        preferredTransports: [binding],
        clientConfig: { polling },
      })
    );
  // The SDK's resolver fetches /.well-known/agent-card.json; the factory picks the interface.
  const card = await AgentCardResolver.default.resolve(values.url);
  const client = await factory(false).createFromAgentCard(card);
  const polling = await factory(true).createFromAgentCard(card);
  const checks = new Checks(client, polling, card, binding, values.webhook);
  const t = (fn, ...args) => () => withTimeout(fn.call(checks, ...args), 30_000);
  return runChecks(binding, [
    ['card', t(checks.card_)],
    ['extended-card', t(checks.extendedCard)],
    ['send-task', t(checks.sendTaskCheck)],
    ['send-message', t(checks.sendMessageCheck)],
    ['send-non-blocking', t(checks.nonBlocking)],
    ['multi-turn', t(checks.multiTurn)],
    ['send-fail', t(checks.endsIn, 'fail', 'failed')],
    ['send-reject', t(checks.endsIn, 'reject', 'rejected')],
    ['stream', t(checks.stream)],
    ['stream-message', t(checks.streamMessage)],
    ['get-history', t(checks.getHistory)],
    ['cancel', t(checks.cancelCheck)],
    ['resubscribe', t(checks.resubscribe)],
    ['push-config', t(checks.pushConfig)],
    ['push-config-list-delete', t(checks.pushConfigListDelete)],
    ['error-task-not-found', t(checks.errorTaskNotFound)],
    ['error-not-cancelable', t(checks.errorNotCancelable)],
    ['file', t(checks.fileCheck)],
    ...(values.webhook ? [['push-send', t(checks.pushSend)]] : []),
  ]);
}

process.exitCode = await main();
