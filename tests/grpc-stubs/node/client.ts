// A TypeScript gRPC client generated from proto/ (by generate.mjs: buf + protoc-gen-es; calls made
// with @connectrpc/connect-node's gRPC transport) driving an A2A 1.0 server through every
// operation of `lf.a2a.v1.A2AService`: the TypeScript twin of ../python/client.py.
//
//     npm run build && node build/client.js --url http://127.0.0.1:PORT
//
// `--url` is the server's base URL: the client reads the agent card there and calls the GRPC
// interface it advertises. The server must run the reference server's demo agent and allow push
// notifications to 127.0.0.1 (`a2a-server --push-allow 127.0.0.0/8`). An interceptor sends the
// `a2a-version: 1.0` metadata on every call. Errors are read from the `grpc-status-details-bin`
// trailer (a google.rpc.Status, which connect exposes as `ConnectError.details`): the
// google.rpc.ErrorInfo (domain `a2a-protocol.org`, the A2A reason, its metadata) and BadRequest.
//
// Prints one `PASS name` or `FAIL name: why` line per check and closes with `N passed, N failed`;
// exits non-zero if any check failed.

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";

import { create } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import {
  A2AService,
  MessageSchema,
  PartSchema,
  Role,
  type SendMessageRequest,
  SendMessageRequestSchema,
  type StreamResponse,
  type Task,
  TaskState,
} from "./generated/a2a_pb.js";

const DOMAIN = "a2a-protocol.org";
const TIMEOUT_MS = 20_000;
const options = { timeoutMs: TIMEOUT_MS };

type A2A = Client<typeof A2AService>;
type Check = { name: string; run: () => Promise<void> };
const checks: Check[] = [];
const check = (name: string, run: () => Promise<void>) => checks.push({ name, run });

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

// --- helpers ------------------------------------------------------------------------------------

/** Sends `a2a-version: 1.0` on every call that does not set the header itself. */
const a2aVersion: Interceptor = (next) => async (request) => {
  if (!request.header.has("a2a-version")) request.header.set("a2a-version", "1.0");
  return next(request);
};

function sendRequest(text: string, init: { taskId?: string; contextId?: string; returnImmediately?: boolean } = {}) {
  return create(SendMessageRequestSchema, {
    message: create(MessageSchema, {
      messageId: randomUUID(),
      role: Role.USER,
      parts: [{ content: { case: "text", value: text } }],
      taskId: init.taskId ?? "",
      contextId: init.contextId ?? "",
    }),
    configuration: { acceptedOutputModes: ["text/plain"], returnImmediately: init.returnImmediately ?? false },
  });
}

async function sendTask(client: A2A, request: SendMessageRequest): Promise<Task> {
  const response = await client.sendMessage(request, options);
  assert(response.payload.case === "task", `expected a task, got ${response.payload.case}`);
  return response.payload.value;
}

function textOf(parts: { content: { case: string | undefined; value?: unknown } }[]): string {
  return parts.map((p) => (p.content.case === "text" ? (p.content.value as string) : "")).join("");
}

function assertState(task: Task | undefined, state: TaskState) {
  assert(task, "no task");
  const actual = task.status?.state ?? TaskState.UNSPECIFIED;
  assert(actual === state, `task ${task.id} is ${TaskState[actual]}, expected ${TaskState[state]}`);
}

/** The length-delimited fields of a protobuf message, as [field number, bytes]. */
function fields(bytes: Uint8Array): [number, Uint8Array][] {
  const reader = new BinaryReader(bytes);
  const out: [number, Uint8Array][] = [];
  while (reader.pos < reader.len) {
    const [number, wireType] = reader.tag();
    if (wireType === WireType.LengthDelimited) out.push([number, reader.bytes()]);
    else reader.skip(wireType, number);
  }
  return out;
}

const utf8 = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** google.rpc.ErrorInfo: reason = 1, domain = 2, map<string, string> metadata = 3. */
function decodeErrorInfo(bytes: Uint8Array) {
  const info = { reason: "", domain: "", metadata: {} as Record<string, string> };
  for (const [number, value] of fields(bytes)) {
    if (number === 1) info.reason = utf8(value);
    if (number === 2) info.domain = utf8(value);
    if (number === 3) {
      const entry = Object.fromEntries(fields(value).map(([n, v]) => [n, utf8(v)]));
      info.metadata[entry[1] ?? ""] = entry[2] ?? "";
    }
  }
  return info;
}

/** google.rpc.BadRequest: repeated FieldViolation field_violations = 1 (field = 1, description = 2). */
function decodeBadRequestFields(bytes: Uint8Array): string[] {
  return fields(bytes)
    .filter(([n]) => n === 1)
    .map(([, violation]) => utf8(fields(violation).find(([n]) => n === 1)?.[1] ?? new Uint8Array()));
}

/** Runs `call`, which must fail with `code` and an ErrorInfo of `reason` holding `metadata`;
 * returns the error's details. */
async function expectError(call: () => Promise<unknown>, code: Code, reason: string, metadata: Record<string, string> = {}) {
  let result: unknown;
  try {
    result = await call();
  } catch (thrown) {
    const error = ConnectError.from(thrown);
    assert(error.code === code, `status ${Code[error.code]} (${error.rawMessage}), expected ${Code[code]}`);
    const details = error.details.filter((d): d is { type: string; value: Uint8Array } => "type" in d && "value" in d);
    const infoDetail = details.find((d) => d.type === "google.rpc.ErrorInfo");
    assert(infoDetail, `no google.rpc.ErrorInfo in grpc-status-details-bin (details: ${details.map((d) => d.type)})`);
    const info = decodeErrorInfo(infoDetail.value);
    assert(info.domain === DOMAIN, `ErrorInfo domain ${info.domain}, expected ${DOMAIN}`);
    assert(info.reason === reason, `ErrorInfo reason ${info.reason}, expected ${reason}`);
    for (const [key, value] of Object.entries(metadata)) {
      assert(info.metadata[key] === value, `ErrorInfo metadata ${JSON.stringify(info.metadata)}, expected ${key}=${value}`);
    }
    return details;
  }
  throw new Error(`expected ${Code[code]} ${reason}, the call succeeded: ${JSON.stringify(result)}`);
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function waitUntilWorking(client: A2A, id: string): Promise<Task> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const task = await client.getTask({ id }, options);
    if (task.status?.state === TaskState.WORKING || Date.now() > deadline) return task;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A push-notification receiver on 127.0.0.1 (port 0). */
async function webhook() {
  const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  const waitFor = async (match: (body: string) => boolean) => {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const hit = received.find((r) => match(r.body));
      if (hit) return hit;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no matching push within 15 s; received ${JSON.stringify(received.map((r) => r.body))}`);
  };
  return { url, waitFor, close: () => server.close() };
}

// --- the checks ---------------------------------------------------------------------------------

function register(client: A2A, bare: A2A) {
  let echo: Task | undefined;
  const echoTask = () => {
    assert(echo, "the echo check did not run");
    return echo;
  };

  check("SendMessage: echo completes with its artifact", async () => {
    const task = await sendTask(client, sendRequest("hello from a generated TypeScript stub"));
    assertState(task, TaskState.COMPLETED);
    assert(task.artifacts.length === 1, `${task.artifacts.length} artifacts`);
    assert(textOf(task.artifacts[0].parts) === "hello from a generated TypeScript stub", "wrong artifact text");
    echo = task;
  });

  check("SendMessage: reply is a direct Message", async () => {
    const response = await client.sendMessage(sendRequest("reply hi there"), options);
    assert(response.payload.case === "message", `expected a message, got ${response.payload.case}`);
    assert(response.payload.value.role === Role.AGENT, "the reply is not the agent's");
    assert(textOf(response.payload.value.parts) === "hi there", "wrong reply text");
  });

  check("SendMessage: ask is INPUT_REQUIRED, the next message on the task completes it", async () => {
    const task = await sendTask(client, sendRequest("ask"));
    assertState(task, TaskState.INPUT_REQUIRED);
    const done = await sendTask(client, sendRequest("Ada", { taskId: task.id, contextId: task.contextId }));
    assert(done.id === task.id, `the follow-up made task ${done.id}`);
    assertState(done, TaskState.COMPLETED);
    assert(textOf(done.artifacts[done.artifacts.length - 1].parts) === "Hello, Ada!", "wrong greeting");
  });

  check("SendMessage: fail is FAILED, reject is REJECTED", async () => {
    assertState(await sendTask(client, sendRequest("fail")), TaskState.FAILED);
    assertState(await sendTask(client, sendRequest("reject")), TaskState.REJECTED);
  });

  check("SendStreamingMessage: stream 3 is WORKING, three chunks of one artifact, COMPLETED", async () => {
    const events = await collect(client.sendStreamingMessage(sendRequest("stream 3"), options));
    const kinds = events.map((e) => e.payload.case);
    assert(events[0]?.payload.case === "task", `the stream starts with ${kinds[0]} (${kinds})`);
    const taskId = events[0].payload.value.id;
    const chunks = events.flatMap((e) => (e.payload.case === "artifactUpdate" ? [e.payload.value] : []));
    const statuses = events.flatMap((e) => (e.payload.case === "statusUpdate" ? [e.payload.value] : []));
    assert([...chunks, ...statuses].every((e) => e.taskId === taskId), "events of another task");
    assert(chunks.length === 3, `${chunks.length} artifact chunks (${kinds})`);
    assert(new Set(chunks.map((c) => c.artifact?.artifactId)).size === 1, "the chunks are not of one artifact");
    const text = chunks.map((c) => textOf(c.artifact?.parts ?? [])).join("");
    assert(text === "chunk 0\nchunk 1\nchunk 2\n", `chunks ${JSON.stringify(text)}`);
    assert(JSON.stringify(chunks.map((c) => c.append)) === "[false,true,true]", "append flags");
    assert(JSON.stringify(chunks.map((c) => c.lastChunk)) === "[false,false,true]", "lastChunk flags");
    assert(statuses.some((s) => s.status?.state === TaskState.WORKING), "no WORKING status");
    assert(kinds[kinds.length - 1] === "statusUpdate", `the stream ends with ${kinds[kinds.length - 1]}`);
    assert(statuses[statuses.length - 1].status?.state === TaskState.COMPLETED, "the last status is not COMPLETED");
  });

  check("GetTask: the echo task with its artifact and history", async () => {
    const task = await client.getTask({ id: echoTask().id, historyLength: 10 }, options);
    assert(task.id === echoTask().id && task.contextId === echoTask().contextId, "another task");
    assertState(task, TaskState.COMPLETED);
    assert(task.artifacts[0]?.artifactId === echoTask().artifacts[0].artifactId, "another artifact");
    const texts = task.history.filter((m) => m.role === Role.USER).map((m) => textOf(m.parts));
    assert(texts.includes("hello from a generated TypeScript stub"), `history ${JSON.stringify(texts)}`);
  });

  check("ListTasks: a context's tasks, paged, filtered by state", async () => {
    const first = await sendTask(client, sendRequest("list one"));
    const ids = new Set([first.id]);
    for (const text of ["list two", "list three"]) {
      ids.add((await sendTask(client, sendRequest(text, { contextId: first.contextId }))).id);
    }
    const page = await client.listTasks({ contextId: first.contextId, pageSize: 2 }, options);
    assert(page.tasks.length === 2 && page.nextPageToken, `first page: ${page.tasks.length} tasks`);
    assert(page.totalSize === 3, `totalSize ${page.totalSize}`);
    const rest = await client.listTasks({ contextId: first.contextId, pageSize: 2, pageToken: page.nextPageToken }, options);
    assert(rest.tasks.length === 1 && !rest.nextPageToken, `last page: ${rest.tasks.length} tasks`);
    const listed = new Set([...page.tasks, ...rest.tasks].map((t) => t.id));
    assert(listed.size === 3 && [...ids].every((id) => listed.has(id)), "the pages are not the three tasks");
    const none = await client.listTasks({ contextId: first.contextId, status: TaskState.WORKING }, options);
    assert(none.tasks.length === 0, `the WORKING filter returned ${none.tasks.length} tasks`);
  });

  check("CancelTask: a WORKING task becomes CANCELED", async () => {
    const task = await sendTask(client, sendRequest("wait 60", { returnImmediately: true }));
    assertState(await waitUntilWorking(client, task.id), TaskState.WORKING);
    const canceled = await client.cancelTask({ id: task.id }, options);
    assert(canceled.id === task.id, "another task");
    assertState(canceled, TaskState.CANCELED);
    assertState(await client.getTask({ id: task.id }, options), TaskState.CANCELED);
  });

  check("SubscribeToTask: the task, then its events until CANCELED", async () => {
    const task = await sendTask(client, sendRequest("wait 60", { returnImmediately: true }));
    await waitUntilWorking(client, task.id);
    const stream = client.subscribeToTask({ id: task.id }, options)[Symbol.asyncIterator]();
    const first = await stream.next();
    assert(!first.done && first.value.payload.case === "task", "the subscription does not start with the task");
    assertState(first.value.payload.value, TaskState.WORKING);
    await client.cancelTask({ id: task.id }, options);
    const rest: StreamResponse[] = [];
    for (let next = await stream.next(); !next.done; next = await stream.next()) rest.push(next.value);
    const last = rest[rest.length - 1];
    assert(last?.payload.case === "statusUpdate", `last event: ${last?.payload.case}`);
    assert(last.payload.value.taskId === task.id, "another task");
    assert(last.payload.value.status?.state === TaskState.CANCELED, "the last status is not CANCELED");
  });

  check("Create/Get/List/DeleteTaskPushNotificationConfig, and the push arrives", async () => {
    const hook = await webhook();
    try {
      const task = await sendTask(client, sendRequest("wait 60", { returnImmediately: true }));
      const created = await client.createTaskPushNotificationConfig(
        { taskId: task.id, url: hook.url, token: "stubs-token", authentication: { scheme: "Bearer", credentials: "stubs-secret" } },
        options,
      );
      assert(created.id && created.taskId === task.id && created.url === hook.url, "the created config");
      const got = await client.getTaskPushNotificationConfig({ taskId: task.id, id: created.id }, options);
      assert(got.id === created.id && got.url === hook.url && got.token === "stubs-token", "the config read back");
      const listed = await client.listTaskPushNotificationConfigs({ taskId: task.id }, options);
      assert(JSON.stringify(listed.configs.map((c) => c.id)) === JSON.stringify([created.id]), "the listed configs");
      await client.cancelTask({ id: task.id }, options);
      const push = await hook.waitFor((body) => body.includes(task.id) && body.includes("TASK_STATE_CANCELED"));
      assert(push.headers["x-a2a-notification-token"] === "stubs-token", `push headers ${JSON.stringify(push.headers)}`);
      assert(push.headers["authorization"] === "Bearer stubs-secret", `push headers ${JSON.stringify(push.headers)}`);
      JSON.parse(push.body);
      await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: created.id }, options);
      const after = await client.listTaskPushNotificationConfigs({ taskId: task.id }, options);
      assert(after.configs.length === 0, "still listed after delete");
      await expectError(
        () => client.getTaskPushNotificationConfig({ taskId: task.id, id: created.id }, options),
        Code.NotFound,
        "TASK_NOT_FOUND",
        { taskId: task.id },
      );
    } finally {
      hook.close();
    }
  });

  check("GetExtendedAgentCard: the extended card, with its gRPC interface", async () => {
    const card = await client.getExtendedAgentCard({}, options);
    assert(card.name && card.description.endsWith("(extended card)"), `card ${card.name}: ${card.description}`);
    assert(card.supportedInterfaces.some((i) => i.protocolBinding === "GRPC"), "no GRPC interface");
    assert(card.skills.length > 0, "no skills");
  });

  check("error: GetTask of an unknown task is NOT_FOUND / TASK_NOT_FOUND with its taskId", async () => {
    const unknown = `no-such-task-${randomUUID()}`;
    await expectError(() => client.getTask({ id: unknown }, options), Code.NotFound, "TASK_NOT_FOUND", { taskId: unknown });
  });

  check("error: CancelTask of a COMPLETED task is FAILED_PRECONDITION / TASK_NOT_CANCELABLE", async () => {
    await expectError(() => client.cancelTask({ id: echoTask().id }, options), Code.FailedPrecondition, "TASK_NOT_CANCELABLE", {
      taskId: echoTask().id,
      state: "TASK_STATE_COMPLETED",
    });
  });

  check("error: SubscribeToTask of a finished task is FAILED_PRECONDITION / UNSUPPORTED_OPERATION", async () => {
    await expectError(
      () => collect(client.subscribeToTask({ id: echoTask().id }, options)),
      Code.FailedPrecondition,
      "UNSUPPORTED_OPERATION",
    );
  });

  check("error: a push config of an unknown task is NOT_FOUND / TASK_NOT_FOUND", async () => {
    const unknown = `no-such-task-${randomUUID()}`;
    await expectError(() => client.listTaskPushNotificationConfigs({ taskId: unknown }, options), Code.NotFound, "TASK_NOT_FOUND", {
      taskId: unknown,
    });
  });

  check("error: a push config to a private address is INVALID_ARGUMENT / INVALID_PARAMS (SSRF policy)", async () => {
    const details = await expectError(
      () => client.createTaskPushNotificationConfig({ taskId: echoTask().id, url: "http://10.1.2.3/webhook" }, options),
      Code.InvalidArgument,
      "INVALID_PARAMS",
    );
    const badRequest = details.find((d) => d.type === "google.rpc.BadRequest");
    assert(badRequest, "no google.rpc.BadRequest in the details");
    const violated = decodeBadRequestFields(badRequest.value);
    assert(JSON.stringify(violated) === '["url"]', `violations ${JSON.stringify(violated)}`);
  });

  check("error: an unsupported output mode is INVALID_ARGUMENT / CONTENT_TYPE_NOT_SUPPORTED", async () => {
    const request = sendRequest("hello");
    request.message!.parts = [create(PartSchema, { content: { case: "raw", value: new Uint8Array([120]) }, mediaType: "image/png" })];
    request.configuration!.acceptedOutputModes = ["image/png"];
    await expectError(() => client.sendMessage(request, options), Code.InvalidArgument, "CONTENT_TYPE_NOT_SUPPORTED", {
      mediaType: "image/png",
    });
  });

  check("error: a message without parts is INVALID_ARGUMENT / INVALID_PARAMS with a BadRequest", async () => {
    const request = create(SendMessageRequestSchema, { message: { messageId: randomUUID(), role: Role.USER } });
    const details = await expectError(() => client.sendMessage(request, options), Code.InvalidArgument, "INVALID_PARAMS");
    const badRequest = details.find((d) => d.type === "google.rpc.BadRequest");
    assert(badRequest, "no google.rpc.BadRequest in the details");
    const violated = decodeBadRequestFields(badRequest.value);
    assert(violated.some((f) => f.includes("parts")), `the violations do not name the parts: ${violated}`);
  });

  check("error: a call without a2a-version (A2A 0.3) is FAILED_PRECONDITION / VERSION_NOT_SUPPORTED", async () => {
    await expectError(() => bare.getTask({ id: echoTask().id }, options), Code.FailedPrecondition, "VERSION_NOT_SUPPORTED", {
      supportedVersions: "1.0",
    });
  });

  check("error: a2a-version 9.9 is FAILED_PRECONDITION / VERSION_NOT_SUPPORTED", async () => {
    await expectError(
      () => client.getTask({ id: "any" }, { ...options, headers: { "a2a-version": "9.9" } }),
      Code.FailedPrecondition,
      "VERSION_NOT_SUPPORTED",
      { version: "9.9" },
    );
  });

  check("a2a-extensions metadata: an extension the agent does not know is ignored", async () => {
    const headers = { "a2a-extensions": "https://example.com/ext/unknown/v1" };
    assertState(await client.getTask({ id: echoTask().id }, { ...options, headers }), TaskState.COMPLETED);
  });
}

// --- running ------------------------------------------------------------------------------------

/** The http://host:port of the GRPC interface (protocol version 1.x) the agent card advertises. */
async function grpcBaseUrl(baseUrl: string): Promise<string> {
  const cardUrl = `${baseUrl.replace(/\/$/, "")}/.well-known/agent-card.json`;
  const card = (await (await fetch(cardUrl)).json()) as {
    supportedInterfaces?: { url: string; protocolBinding: string; protocolVersion?: string }[];
  };
  const grpc = card.supportedInterfaces?.find((i) => i.protocolBinding === "GRPC" && i.protocolVersion?.startsWith("1."));
  assert(grpc, `the agent card at ${cardUrl} advertises no GRPC 1.x interface`);
  return grpc.url.includes("://") ? grpc.url : `http://${grpc.url}`;
}

async function main(): Promise<number> {
  const urlArg = process.argv.indexOf("--url");
  assert(urlArg > 0 && process.argv[urlArg + 1], "usage: node build/client.js --url http://HOST:PORT");
  let passed = 0;
  let failed = 0;
  let target: string;
  try {
    target = await grpcBaseUrl(process.argv[urlArg + 1]);
    console.log(`PASS agent card advertises a GRPC 1.0 interface (${target})`);
    passed++;
  } catch (error) {
    console.log(`FAIL agent card advertises a GRPC 1.0 interface: ${(error as Error).message}`);
    console.log(`${passed} passed, ${failed + 1} failed`);
    return 1;
  }
  const client = createClient(A2AService, createGrpcTransport({ baseUrl: target, interceptors: [a2aVersion] }));
  const bare = createClient(A2AService, createGrpcTransport({ baseUrl: target }));
  register(client, bare);
  for (const { name, run } of checks) {
    try {
      await run();
      passed++;
      console.log(`PASS ${name}`);
    } catch (error) {
      failed++;
      console.log(`FAIL ${name}: ${String((error as Error).message ?? error).replace(/\s+/g, " ")}`);
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

process.exitCode = await main();
