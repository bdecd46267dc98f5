// A small A2A 1.0 client for the console: the operations it needs over JSON-RPC or HTTP+JSON
// (REST), unary calls with fetch and streams (SendStreamingMessage, SubscribeToTask) as
// server-sent events read from a fetch body. Wire objects are ProtoJSON, kept as plain JSON.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** One entry of a card's `supportedInterfaces`. */
export interface Interface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant?: string;
}

/** The header a credential travels in, as the card's security scheme names it. */
export interface Credential {
  header: string;
  value: string;
}

/** An error answered by the agent (JSON-RPC error or REST error body) or by HTTP. */
export class A2aError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The HTTP bindings the console speaks (gRPC needs HTTP/2 trailers a page cannot read). */
export const HTTP_BINDINGS = ['JSONRPC', 'HTTP+JSON'];

/** The interfaces of `card` the console can use: an HTTP binding, protocol version 1.x. */
export function usableInterfaces(card: Json): Interface[] {
  const all: Interface[] = Array.isArray(card?.supportedInterfaces) ? card.supportedInterfaces : [];
  return all.filter(
    (i) => HTTP_BINDINGS.includes(i.protocolBinding) && String(i.protocolVersion ?? '').startsWith('1.'),
  );
}

/** How a caller authenticates to `card`: the header of its first scheme the console can fill. */
export function credentialHeader(card: Json): { header: string; prefix: string; kind: string } | null {
  const schemes: Record<string, Json> = card?.securitySchemes ?? {};
  for (const scheme of Object.values(schemes)) {
    const apiKey = scheme?.apiKeySecurityScheme;
    if (apiKey && String(apiKey.location).toLowerCase() === 'header' && apiKey.name) {
      return { header: apiKey.name, prefix: '', kind: `API key (header ${apiKey.name})` };
    }
    const http = scheme?.httpAuthSecurityScheme;
    if (http && String(http.scheme).toLowerCase() === 'bearer') {
      return { header: 'Authorization', prefix: 'Bearer ', kind: 'Bearer token' };
    }
    if (http && String(http.scheme).toLowerCase() === 'basic') {
      return { header: 'Authorization', prefix: 'Basic ', kind: 'user:password (HTTP Basic)' };
    }
    if (scheme?.oauth2SecurityScheme || scheme?.openIdConnectSecurityScheme) {
      return { header: 'Authorization', prefix: 'Bearer ', kind: 'OAuth 2.0 access token' };
    }
  }
  return null;
}

/** Whether the card requires a credential at all. */
export function isSecured(card: Json): boolean {
  const requirements: Json[] = card?.securityRequirements ?? [];
  return requirements.length > 0 && requirements.every((r) => Object.keys(r?.schemes ?? {}).length > 0);
}

/** The credential of `secret` for the header `how` describes. */
export function credentialOf(how: { header: string; prefix: string }, secret: string): Credential {
  const value = how.prefix === 'Basic ' ? btoa(secret) : secret;
  return { header: how.header, value: how.prefix + value };
}

/** The headers of every call: the protocol version, JSON, and the credential if any. */
export function headers(credential: Credential | null, accept = 'application/json'): Record<string, string> {
  const h: Record<string, string> = { 'A2A-Version': '1.0', Accept: accept };
  if (credential) h[credential.header] = credential.value;
  return h;
}

async function errorOf(response: Response): Promise<A2aError> {
  const text = await response.text().catch(() => '');
  let message = text || response.statusText;
  try {
    const body = JSON.parse(text);
    message = body?.error?.message ?? body?.message ?? body?.error ?? message;
  } catch {
    // Not JSON: the text as it is.
  }
  return new A2aError(`HTTP ${response.status}: ${message}`, response.status);
}

/** The operations the console calls, with their request (ProtoJSON, without `tenant`). */
type Unary = 'SendMessage' | 'GetTask' | 'ListTasks' | 'CancelTask' | 'ListTaskPushNotificationConfigs';
type Streaming = 'SendStreamingMessage' | 'SubscribeToTask';

let nextId = 1;

/** A client of one interface. */
export class Client {
  constructor(
    readonly iface: Interface,
    readonly credential: Credential | null,
  ) {}

  get binding(): string {
    return this.iface.protocolBinding;
  }

  private get tenant(): string {
    return this.iface.tenant ?? '';
  }

  private restBase(): string {
    const base = this.iface.url.replace(/\/+$/, '');
    return this.tenant ? `${base}/${encodeURIComponent(this.tenant)}` : base;
  }

  /** The REST request of `operation`: method, path and body. */
  private rest(operation: Unary | Streaming, params: Json): { method: string; path: string; body?: Json } {
    const id = encodeURIComponent(params.id ?? params.taskId ?? '');
    const query = (entries: [string, unknown][]) => {
      const q = new URLSearchParams();
      for (const [k, v] of entries) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
      const s = q.toString();
      return s ? `?${s}` : '';
    };
    switch (operation) {
      case 'SendMessage':
        return { method: 'POST', path: '/message:send', body: params };
      case 'SendStreamingMessage':
        return { method: 'POST', path: '/message:stream', body: params };
      case 'GetTask':
        return { method: 'GET', path: `/tasks/${id}${query([['historyLength', params.historyLength]])}` };
      case 'ListTasks':
        return {
          method: 'GET',
          path: `/tasks${query([
            ['contextId', params.contextId],
            ['status', params.status],
            ['pageSize', params.pageSize],
            ['pageToken', params.pageToken],
            ['includeArtifacts', params.includeArtifacts],
          ])}`,
        };
      case 'CancelTask':
        return { method: 'POST', path: `/tasks/${id}:cancel`, body: {} };
      case 'SubscribeToTask':
        return { method: 'GET', path: `/tasks/${id}:subscribe` };
      case 'ListTaskPushNotificationConfigs':
        return { method: 'GET', path: `/tasks/${id}/pushNotificationConfigs` };
    }
  }

  private request(operation: Unary | Streaming, params: Json, accept: string): [string, RequestInit] {
    const h = headers(this.credential, accept);
    if (this.binding === 'JSONRPC') {
      h['Content-Type'] = 'application/json';
      const withTenant = this.tenant ? { ...params, tenant: this.tenant } : params;
      const body = { jsonrpc: '2.0', id: nextId++, method: operation, params: withTenant };
      return [this.iface.url, { method: 'POST', headers: h, body: JSON.stringify(body) }];
    }
    const { method, path, body } = this.rest(operation, params);
    if (body !== undefined) h['Content-Type'] = 'application/a2a+json';
    const init: RequestInit = { method, headers: h };
    if (body !== undefined) init.body = JSON.stringify(body);
    return [this.restBase() + path, init];
  }

  /** One JSON-RPC answer or REST body: the result, or the error thrown. */
  private static result(binding: string, body: Json): Json {
    if (binding === 'JSONRPC') {
      if (body?.error) throw new A2aError(`${body.error.message} (JSON-RPC ${body.error.code})`, 200);
      return body?.result;
    }
    if (body?.error) throw new A2aError(body.error.message ?? JSON.stringify(body.error), 200);
    return body;
  }

  /** A unary call. */
  async call(operation: Unary, params: Json): Promise<Json> {
    const [url, init] = this.request(operation, params, 'application/json');
    const response = await fetch(url, init);
    if (!response.ok) throw await errorOf(response);
    return Client.result(this.binding, await response.json());
  }

  /** A streaming call: each `StreamResponse` as it arrives. `signal` ends it early. */
  async *stream(operation: Streaming, params: Json, signal?: AbortSignal): AsyncGenerator<Json> {
    const [url, init] = this.request(operation, params, 'text/event-stream');
    const response = await fetch(url, { ...init, signal });
    if (!response.ok) throw await errorOf(response);
    if (!response.body) throw new A2aError('the stream has no body', response.status);
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream')) {
      // An error answered as one JSON document instead of a stream.
      yield Client.result(this.binding, await response.json());
      return;
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value.replace(/\r\n?/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data) yield Client.result(this.binding, JSON.parse(data));
      }
    }
  }
}

/** The state of a task without its `TASK_STATE_` prefix: `COMPLETED`, `INPUT_REQUIRED`, ... */
export function stateName(state: unknown): string {
  return String(state ?? 'TASK_STATE_UNSPECIFIED').replace(/^TASK_STATE_/, '');
}

/** Whether a task in `state` will not change any more. */
export function isTerminal(state: unknown): boolean {
  return ['COMPLETED', 'CANCELED', 'FAILED', 'REJECTED'].includes(stateName(state));
}

/** Whether the agent waits for the client (another message, or an authorization). */
export function isInterrupted(state: unknown): boolean {
  return ['INPUT_REQUIRED', 'AUTH_REQUIRED'].includes(stateName(state));
}

/** The text of a message or artifact's parts (data parts as JSON, files by name). */
export function partsText(parts: Json[] | undefined): string {
  return (parts ?? [])
    .map((p) => {
      if (typeof p?.text === 'string') return p.text;
      if (p?.data !== undefined) return JSON.stringify(p.data);
      if (p?.url) return `[file ${p.filename ?? p.url}]`;
      if (p?.raw !== undefined) return `[file ${p.filename ?? 'bytes'}]`;
      return '';
    })
    .join('');
}

/** A new user message. */
export function userMessage(text: string, taskId?: string, contextId?: string): Json {
  const message: Json = {
    messageId: uuid(),
    role: 'ROLE_USER',
    parts: [{ text }],
  };
  if (taskId) message.taskId = taskId;
  if (contextId) message.contextId = contextId;
  return message;
}

/** A random (version 4) UUID; `crypto.randomUUID` exists only in secure contexts (HTTPS). */
export function uuid(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
