// The official JS SDK's client (@a2a-js/sdk) against an A2A agent that follows the demo-skill
// convention (docs/interop.md).
//
//     node sdk_client.mjs --url http://127.0.0.1:PORT --binding jsonrpc|rest|grpc [--webhook URL]
//
// Resolves the agent card from URL, creates the SDK client for the binding from the card, runs every
// operation of the matrix and asserts on what comes back. Prints one `interop` record per check
// (see lib.mjs); exits 1 if any check failed. With `--webhook http://HOST:PORT` (a running
// webhook.mjs) it also sends a task whose push notifications go to `/webhook/<binding label>` there,
// and prints a `push-task` record (`{"record":"push-task","binding":...,"task_id":...}`) for the
// runner to match with what the receiver got.

import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

import { Role, TaskState } from '@a2a-js/sdk';
import {
  AgentCardResolver,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import {
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';

import { DEMO_SKILLS, expect, record, runChecks, textOf, withTimeout } from './lib.mjs';

const BINDINGS = { jsonrpc: 'JSONRPC', rest: 'HTTP+JSON', grpc: 'GRPC' };
const LABELS = Object.fromEntries(Object.entries(BINDINGS).map(([label, binding]) => [binding, label]));
const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

const stateName = (state) => TaskState[state] ?? String(state);

function userMessage(text, { taskId = '', contextId = '' } = {}) {
  return {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    taskId,
    contextId,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function sendRequest(text, { taskId, contextId, returnImmediately = false } = {}) {
  return {
    tenant: '',
    message: userMessage(text, { taskId, contextId }),
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately,
    },
    metadata: undefined,
  };
}

const isTask = (result) => result !== undefined && 'status' in result && 'id' in result;
const isMessage = (result) => result !== undefined && 'messageId' in result && !('status' in result);

class Checks {
  constructor(client, card, binding, webhook) {
    this.client = client;
    this.card = card;
    this.binding = binding;
    this.webhook = webhook;
  }

  async sendTask(request) {
    const result = await this.client.sendMessage(typeof request === 'string' ? sendRequest(request) : request);
    expect(isTask(result), `expected a Task, got ${JSON.stringify(result)}`);
    return result;
  }

  async startWait(seconds = 30) {
    const task = await this.sendTask(sendRequest(`wait ${seconds}`, { returnImmediately: true }));
    expect(!TERMINAL.has(task.status.state), `wait task already ${stateName(task.status.state)}`);
    return task;
  }

  cancel(id) {
    return this.client.cancelTask({ tenant: '', id, metadata: undefined });
  }

  async card_() {
    const card = this.card;
    expect(card.name !== '', 'card has no name');
    const skills = new Set(card.skills.map((s) => s.id));
    const missing = [...DEMO_SKILLS].filter((s) => !skills.has(s));
    expect(missing.length === 0, `card skills lack ${missing}`);
    expect(card.capabilities?.streaming === true, 'card does not declare streaming');
    expect(card.capabilities?.pushNotifications === true, 'card does not declare pushNotifications');
    const interfaces = card.supportedInterfaces.filter((i) => i.protocolBinding === this.binding);
    expect(interfaces.length > 0, `no ${this.binding} interface`);
    expect(
      interfaces.some((i) => i.protocolVersion.startsWith('1.')),
      `no 1.x protocolVersion on the ${this.binding} interfaces`
    );
  }

  async extendedCard() {
    expect(this.card.capabilities?.extendedAgentCard === true, 'card does not declare extendedAgentCard');
    // Client.getAgentCard fetches the extended card when the card declares it.
    const extended = await this.client.getAgentCard();
    expect(extended.name === this.card.name, `extended card name ${extended.name}`);
    expect(extended.description.endsWith('(extended card)'), `extended card description ${extended.description}`);
  }

  async sendTaskCheck() {
    const text = `hello over ${this.binding}`;
    const task = await this.sendTask(text);
    expect(task.id !== '' && task.contextId !== '', 'task without id or contextId');
    expect(task.status.state === TaskState.TASK_STATE_COMPLETED, `state ${stateName(task.status.state)}`);
    expect(task.artifacts.length === 1, `${task.artifacts.length} artifacts, want 1`);
    expect(textOf(task.artifacts[0].parts) === text, `artifact text ${textOf(task.artifacts[0].parts)}`);
    expect(
      task.history.some((m) => m.role === Role.ROLE_USER && textOf(m.parts) === text),
      'the user message is not in the history'
    );
  }

  async sendMessageCheck() {
    const result = await this.client.sendMessage(sendRequest('reply pong'));
    expect(isMessage(result), `expected a Message, got ${JSON.stringify(result)}`);
    expect(result.role === Role.ROLE_AGENT, `role ${result.role}`);
    expect(textOf(result.parts) === 'pong', `text ${textOf(result.parts)}`);
  }

  async returnImmediately() {
    const task = await this.startWait(30);
    expect(
      task.status.state === TaskState.TASK_STATE_SUBMITTED || task.status.state === TaskState.TASK_STATE_WORKING,
      `state ${stateName(task.status.state)}, want SUBMITTED or WORKING`
    );
    await this.cancel(task.id);
  }

  async multiTurn() {
    const task = await this.sendTask('ask');
    expect(task.status.state === TaskState.TASK_STATE_INPUT_REQUIRED, `state ${stateName(task.status.state)}`);
    expect(textOf(task.status.message?.parts) === 'What is your name?', 'question text');
    const done = await this.sendTask(sendRequest('Ada', { taskId: task.id, contextId: task.contextId }));
    expect(done.id === task.id, 'the answer started another task');
    expect(done.status.state === TaskState.TASK_STATE_COMPLETED, `state ${stateName(done.status.state)}`);
    const texts = done.artifacts.map((a) => textOf(a.parts));
    expect(texts.includes('Hello, Ada!'), `artifacts ${JSON.stringify(texts)}`);
  }

  async sendFail() {
    const task = await this.sendTask('fail');
    expect(task.status.state === TaskState.TASK_STATE_FAILED, `state ${stateName(task.status.state)}`);
  }

  async sendReject() {
    const task = await this.sendTask('reject');
    expect(task.status.state === TaskState.TASK_STATE_REJECTED, `state ${stateName(task.status.state)}`);
  }

  async stream() {
    const events = [];
    for await (const event of this.client.sendMessageStream(sendRequest('stream 5'))) events.push(event);
    expect(events.length > 0, 'empty stream');
    expect(events[0].payload?.$case === 'task', `first event is ${events[0].payload?.$case}, not the Task (3.1.2)`);
    const chunks = events.filter((e) => e.payload?.$case === 'artifactUpdate').map((e) => e.payload.value);
    const texts = chunks.map((c) => textOf(c.artifact.parts));
    expect(
      JSON.stringify(texts) === JSON.stringify([0, 1, 2, 3, 4].map((i) => `chunk ${i}\n`)),
      `chunks ${JSON.stringify(texts)}`
    );
    expect(JSON.stringify(chunks.map((c) => c.append)) === '[false,true,true,true,true]', 'append flags');
    expect(JSON.stringify(chunks.map((c) => c.lastChunk)) === '[false,false,false,false,true]', 'lastChunk flags');
    expect(new Set(chunks.map((c) => c.artifact.artifactId)).size === 1, 'chunks of different artifacts');
    const last = events[events.length - 1].payload;
    expect(
      last?.$case === 'statusUpdate' && last.value.status.state === TaskState.TASK_STATE_COMPLETED,
      `last event is not the COMPLETED status: ${JSON.stringify(last)}`
    );
  }

  async getHistory() {
    const task = await this.sendTask('ask');
    await this.sendTask(sendRequest('Grace', { taskId: task.id, contextId: task.contextId }));
    const full = await this.client.getTask({ tenant: '', id: task.id });
    const users = full.history.filter((m) => m.role === Role.ROLE_USER).map((m) => textOf(m.parts));
    expect(JSON.stringify(users) === '["ask","Grace"]', `user messages in history ${JSON.stringify(users)}`);
    const one = await this.client.getTask({ tenant: '', id: task.id, historyLength: 1 });
    expect(one.history.length === 1, `historyLength=1 gave ${one.history.length} messages`);
    expect(
      one.history[0].messageId === full.history[full.history.length - 1].messageId,
      'historyLength=1 is not the most recent message'
    );
    const none = await this.client.getTask({ tenant: '', id: task.id, historyLength: 0 });
    expect(none.history.length === 0, `historyLength=0 gave ${none.history.length} messages`);
  }

  async list() {
    const contextId = randomUUID();
    const ids = [];
    for (const text of ['one', 'two', 'three', 'fail']) {
      const task = await this.sendTask(sendRequest(text, { contextId }));
      expect(task.contextId === contextId, 'the task did not keep the given contextId');
      ids.push(task.id);
    }
    const base = { tenant: '', contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined };
    const all = await this.client.listTasks(base);
    expect(all.totalSize === 4, `totalSize ${all.totalSize}, want 4`);
    expect(JSON.stringify(all.tasks.map((t) => t.id).sort()) === JSON.stringify([...ids].sort()), 'listed ids differ');
    expect(all.nextPageToken === '', 'one page but a nextPageToken');
    expect(all.tasks[0].id === ids[3], 'not sorted by last update, newest first (spec 3.1.4)');
    expect(all.tasks.every((t) => t.artifacts.length === 0), 'artifacts without includeArtifacts');
    const failed = await this.client.listTasks({ ...base, status: TaskState.TASK_STATE_FAILED });
    expect(JSON.stringify(failed.tasks.map((t) => t.id)) === JSON.stringify([ids[3]]), 'status filter');
    const first = await this.client.listTasks({ ...base, pageSize: 3, includeArtifacts: true });
    expect(first.tasks.length === 3, `page 1 has ${first.tasks.length} tasks, want 3`);
    expect(first.nextPageToken !== '', 'page 1 has no nextPageToken');
    expect(first.tasks.some((t) => t.artifacts.length === 1), 'includeArtifacts gave no artifacts');
    const second = await this.client.listTasks({ ...base, pageSize: 3, pageToken: first.nextPageToken });
    expect(second.tasks.length === 1, `page 2 has ${second.tasks.length} tasks, want 1`);
    expect(second.nextPageToken === '', 'the last page has a nextPageToken');
    const paged = [...first.tasks, ...second.tasks].map((t) => t.id).sort();
    expect(JSON.stringify(paged) === JSON.stringify([...ids].sort()), 'paging lost or repeated tasks');
  }

  async cancelCheck() {
    const task = await this.startWait(30);
    const canceled = await this.cancel(task.id);
    expect(canceled.status.state === TaskState.TASK_STATE_CANCELED, `CancelTask returned ${stateName(canceled.status.state)}`);
    const again = await this.client.getTask({ tenant: '', id: task.id });
    expect(again.status.state === TaskState.TASK_STATE_CANCELED, 'GetTask after cancel is not CANCELED');
  }

  async subscribe() {
    const task = await this.startWait(30);
    const stream = this.client.resubscribeTask({ tenant: '', id: task.id });
    const first = await stream.next();
    expect(
      !first.done && first.value.payload?.$case === 'task' && first.value.payload.value.id === task.id,
      `first event is not the Task: ${JSON.stringify(first.value)}`
    );
    await this.cancel(task.id);
    const states = [];
    for await (const event of stream) {
      if (event.payload?.$case === 'statusUpdate') states.push(event.payload.value.status.state);
    }
    expect(
      states.length > 0 && states[states.length - 1] === TaskState.TASK_STATE_CANCELED,
      `status updates after cancel: ${states.map(stateName)}`
    );
  }

  async pushConfig() {
    const task = await this.startWait(30);
    try {
      const url = 'http://127.0.0.1:9/interop-webhook';
      const created = await this.client.createTaskPushNotificationConfig({
        tenant: '',
        id: '',
        taskId: task.id,
        url,
        token: 'interop-token',
        authentication: { scheme: 'Bearer', credentials: 'interop-secret' },
      });
      expect(created.id !== '', 'the created config has no id');
      expect(created.taskId === task.id, `created taskId ${created.taskId}`);
      expect(created.url === url, `created url ${created.url}`);
      expect(created.token === 'interop-token', `created token ${created.token}`);
      const got = await this.client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id });
      expect(got.id === created.id && got.url === url, `get returned ${JSON.stringify(got)}`);
      expect(got.authentication?.scheme === 'Bearer', `get lost the authentication: ${JSON.stringify(got)}`);
      const listed = await this.client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
      expect(
        JSON.stringify(listed.configs.map((c) => c.id)) === JSON.stringify([created.id]),
        `list returned ${JSON.stringify(listed)}`
      );
      await this.client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id });
      const after = await this.client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
      expect(after.configs.length === 0, `list after delete returned ${JSON.stringify(after)}`);
    } finally {
      await this.cancel(task.id);
    }
  }

  async streamMessage() {
    const events = [];
    for await (const event of this.client.sendMessageStream(sendRequest('reply streamed'))) events.push(event);
    expect(events.length === 1, `${events.length} events, want exactly one Message (spec 3.1.2)`);
    expect(events[0].payload?.$case === 'message', `the event is ${events[0].payload?.$case}, not a Message`);
    expect(textOf(events[0].payload.value.parts) === 'streamed', 'message text');
  }

  async errorTerminalSend() {
    const task = await this.sendTask('hello');
    try {
      await this.client.sendMessage(sendRequest('again', { taskId: task.id, contextId: task.contextId }));
    } catch (err) {
      expect(err instanceof UnsupportedOperationError, `got ${err?.name}: ${err?.message}, want UnsupportedOperationError`);
      return;
    }
    throw new Error('SendMessage to a COMPLETED task succeeded (spec 3.1.1)');
  }

  async errorSubscribeTerminal() {
    const task = await this.sendTask('hello');
    let events = 0;
    try {
      for await (const _ of this.client.resubscribeTask({ tenant: '', id: task.id })) events += 1;
    } catch (err) {
      expect(err instanceof UnsupportedOperationError, `got ${err?.name}: ${err?.message}, want UnsupportedOperationError`);
      return;
    }
    throw new Error(`SubscribeToTask of a COMPLETED task gave ${events} events (spec 3.1.6)`);
  }

  // ListTasks with pageSize 150, the spec's own validation example (6.5).
  async errorInvalidParams() {
    try {
      await this.client.listTasks({ tenant: '', contextId: '', status: 0, pageSize: 150, pageToken: '', statusTimestampAfter: undefined });
    } catch (err) {
      // The SDK types REST and gRPC errors by their ErrorInfo only: our server sends the
      // BadRequest of spec 10.6 / 11.6 and, like the SDK servers, ErrorInfo INVALID_PARAMS, so
      // the typed error must come back on every binding.
      if (err instanceof RequestMalformedError) return;
      throw err;
    }
    throw new Error('ListTasks with pageSize 150 succeeded (spec 6.5: must be 1..100)');
  }

  // SendMessage with an inline push config (spec 3.2.2); the runner checks what the webhook
  // receiver got (push-delivery).
  async pushSend() {
    const request = sendRequest('stream 3');
    request.configuration.taskPushNotificationConfig = {
      tenant: '',
      id: '',
      taskId: '',
      url: `${this.webhook}/webhook/${LABELS[this.binding]}`,
      token: 'interop-token',
      authentication: { scheme: 'Bearer', credentials: 'interop-secret' },
    };
    const task = await this.sendTask(request);
    expect(task.status.state === TaskState.TASK_STATE_COMPLETED, `state ${stateName(task.status.state)}`);
    record('push-task', { binding: this.binding, task_id: task.id });
  }

  async errorTaskNotFound() {
    try {
      await this.client.getTask({ tenant: '', id: `no-such-task-${randomUUID()}` });
    } catch (err) {
      expect(err instanceof TaskNotFoundError, `got ${err?.name}: ${err?.message}, want TaskNotFoundError`);
      return;
    }
    throw new Error('GetTask of an unknown id succeeded');
  }

  async errorNotCancelable() {
    const task = await this.sendTask('hello');
    try {
      await this.cancel(task.id);
    } catch (err) {
      expect(err instanceof TaskNotCancelableError, `got ${err?.name}: ${err?.message}, want TaskNotCancelableError`);
      return;
    }
    throw new Error('CancelTask of a COMPLETED task succeeded');
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
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory(), new RestTransportFactory(), new GrpcTransportFactory()],
      preferredTransports: [binding],
    })
  );
  // The SDK's resolver fetches /.well-known/agent-card.json; the factory picks the interface.
  const card = await AgentCardResolver.default.resolve(values.url);
  const client = await factory.createFromAgentCard(card);
  expect(client.transport.protocolName.toUpperCase() === binding, `the factory chose ${client.transport.protocolName}`);
  const checks = new Checks(client, card, binding, values.webhook);
  const t = (fn) => () => withTimeout(fn.call(checks), 30_000);
  return runChecks(binding, [
    ['card', t(checks.card_)],
    ['extended-card', t(checks.extendedCard)],
    ['send-task', t(checks.sendTaskCheck)],
    ['send-message', t(checks.sendMessageCheck)],
    ['send-return-immediately', t(checks.returnImmediately)],
    ['multi-turn', t(checks.multiTurn)],
    ['send-fail', t(checks.sendFail)],
    ['send-reject', t(checks.sendReject)],
    ['stream', t(checks.stream)],
    ['stream-message', t(checks.streamMessage)],
    ['get-history', t(checks.getHistory)],
    ['list', t(checks.list)],
    ['cancel', t(checks.cancelCheck)],
    ['subscribe', t(checks.subscribe)],
    ['push-config', t(checks.pushConfig)],
    ['error-task-not-found', t(checks.errorTaskNotFound)],
    ['error-not-cancelable', t(checks.errorNotCancelable)],
    ['error-terminal-send', t(checks.errorTerminalSend)],
    ['error-subscribe-terminal', t(checks.errorSubscribeTerminal)],
    ['error-invalid-params', t(checks.errorInvalidParams)],
    ...(values.webhook ? [['push-send', t(checks.pushSend)]] : []),
  ]);
}

process.exitCode = await main();
