// The console's page: login, then four views (agents, chat, tasks, status). Everything shown is
// built with DOM calls (no HTML from the server is ever parsed: agent text stays text).

import {
  A2aError,
  Client,
  type Credential,
  credentialHeader,
  credentialOf,
  headers,
  type Interface,
  isInterrupted,
  isSecured,
  isTerminal,
  type Json,
  partsText,
  stateName,
  usableInterfaces,
  userMessage,
} from './a2a';

// ---------------------------------------------------------------- DOM helpers

type Child = Node | string | null | undefined | false;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else node.setAttribute(k, v);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child);
  }
  return node;
}

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`no #${id}`);
  return node as T;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function badge(state: unknown): HTMLElement {
  const name = stateName(state);
  return el('span', { class: `state state-${name.toLowerCase()}`, 'data-state': name }, name);
}

function time(iso: unknown): string {
  if (typeof iso !== 'string' || !iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleTimeString();
}

// ---------------------------------------------------------------- session

interface Agent {
  tenant: string | null;
  cardPath: string;
  card: Json;
  validation: { valid: boolean; problems: string[]; notes: string[] };
}

const session = {
  credential: null as Credential | null,
  agents: [] as Agent[],
  agent: 0,
};

function agent(): Agent {
  return session.agents[session.agent];
}

/** A GET of the console's own API with the session's credential. */
async function api(path: string): Promise<Json> {
  const response = await fetch(`/console/api/${path}`, { headers: headers(session.credential) });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new A2aError(`HTTP ${response.status}: ${body?.error ?? response.statusText}`, response.status);
  return body;
}

/** The interfaces of the chosen agent the console can call. */
function interfaces(): Interface[] {
  return usableInterfaces(agent()?.card);
}

/** A client of the interface chosen in the chat's binding selector (else the first one). */
function client(): Client {
  const all = interfaces();
  if (all.length === 0) throw new Error('this agent lists no JSON-RPC or HTTP+JSON interface of A2A 1.x');
  const chosen = Number(byId<HTMLSelectElement>('chat-binding').value);
  return new Client(all[chosen] ?? all[0], session.credential);
}

// ---------------------------------------------------------------- login

let how: { header: string; prefix: string; kind: string } | null = null;

async function startLogin(): Promise<void> {
  const hint = byId('login-hint');
  try {
    const response = await fetch('/.well-known/agent-card.json', { headers: { Accept: 'application/json' } });
    const card = await response.json();
    how = credentialHeader(card);
    if (!isSecured(card)) {
      hint.textContent = 'This agent requires no credential.';
      await signIn(null);
      return;
    }
    hint.textContent = how
      ? `${card.name ?? 'The agent'} requires a credential: ${how.kind}.`
      : 'The agent requires a credential of a kind the console cannot send.';
  } catch (error) {
    hint.textContent = `The agent card could not be read: ${message(error)}`;
  }
}

async function signIn(credential: Credential | null): Promise<void> {
  const error = byId('login-error');
  error.hidden = true;
  session.credential = credential;
  try {
    const who = await api('session');
    const { agents } = await api('agents');
    session.agents = agents;
    session.agent = 0;
    byId('who').textContent = who.principal ? `signed in as ${who.principal}` : '';
  } catch (e) {
    session.credential = null;
    error.textContent =
      e instanceof A2aError && e.status === 401 ? `Refused: the server did not accept this credential (${e.message})` : message(e);
    error.hidden = false;
    return;
  }
  byId('login').hidden = true;
  byId('app').hidden = false;
  byId('nav').hidden = false;
  byId('sign-out').hidden = credential === null;
  const select = byId<HTMLSelectElement>('agent-select');
  select.replaceChildren(
    ...session.agents.map((a, i) => el('option', { value: String(i) }, a.tenant ? `${a.card?.name} (tenant ${a.tenant})` : `${a.card?.name}`)),
  );
  byId('agent-choice').hidden = session.agents.length < 2;
  chooseAgent(0);
  show('agents');
}

function signOut(): void {
  session.credential = null;
  session.agents = [];
  location.reload();
}

// ---------------------------------------------------------------- navigation

let current = 'agents';
let poller: number | undefined;

function show(view: string): void {
  current = view;
  for (const name of ['agents', 'chat', 'tasks', 'status']) {
    byId(`view-${name}`).hidden = name !== view;
  }
  for (const button of document.querySelectorAll<HTMLButtonElement>('#nav button')) {
    button.classList.toggle('active', button.dataset.view === view);
  }
  window.clearInterval(poller);
  poller = undefined;
  if (view === 'tasks') {
    void loadTasks();
    poller = window.setInterval(() => void loadTasks(true), 2000);
  }
  if (view === 'status') {
    void loadStatus();
    poller = window.setInterval(() => void loadStatus(), 2000);
  }
}

function chooseAgent(index: number): void {
  session.agent = index;
  renderAgents();
  const select = byId<HTMLSelectElement>('chat-binding');
  select.replaceChildren(
    ...interfaces().map((i, n) => el('option', { value: String(n) }, `${i.protocolBinding} ${i.protocolVersion} — ${i.url}`)),
  );
  byId<HTMLInputElement>('chat-stream').checked = agent()?.card?.capabilities?.streaming === true;
  newConversation();
  pages = [''];
  if (current === 'tasks') void loadTasks();
}

// ---------------------------------------------------------------- agents

function renderAgents(): void {
  const view = byId('view-agents');
  view.replaceChildren(
    ...session.agents.map((a, i) => {
      const card = a.card ?? {};
      const v = a.validation;
      const skills: Json[] = card.skills ?? [];
      return el(
        'article',
        { class: `card agent${i === session.agent ? ' chosen' : ''}`, 'data-tenant': a.tenant ?? '' },
        el('h2', {}, card.name ?? '(no name)', a.tenant ? el('span', { class: 'muted' }, ` tenant ${a.tenant}`) : null),
        el('p', {}, card.description ?? ''),
        el('p', { class: 'muted' }, 'Card: ', el('a', { href: a.cardPath, target: '_blank' }, a.cardPath), ` · version ${card.version ?? '?'}`),
        el(
          'div',
          { class: `validation ${v.valid ? 'valid' : 'invalid'}`, 'data-valid': String(v.valid) },
          el('strong', {}, v.valid ? 'Valid A2A 1.0 AgentCard' : `Invalid: ${v.problems.length} problem(s)`),
          v.problems.length ? el('ul', { class: 'problems' }, ...v.problems.map((p) => el('li', {}, p))) : null,
          v.notes.length ? el('ul', { class: 'notes' }, ...v.notes.map((n) => el('li', {}, n))) : null,
        ),
        el(
          'p',
          {},
          'Interfaces: ',
          ...(card.supportedInterfaces ?? []).map((iface: Interface) =>
            el('code', { class: 'iface' }, `${iface.protocolBinding} ${iface.protocolVersion} ${iface.url}${iface.tenant ? ` (tenant ${iface.tenant})` : ''}`),
          ),
        ),
        el('p', {}, 'Skills: ', ...skills.map((s) => el('span', { class: 'skill', title: s.description ?? '' }, s.name ?? s.id))),
        el('details', {}, el('summary', {}, 'Card document'), el('pre', {}, JSON.stringify(card, null, 2))),
      );
    }),
  );
}

// ---------------------------------------------------------------- chat

/** The conversation of the chat view: its context, once the agent gave one. */
let contextId: string | undefined;

function newConversation(): void {
  contextId = undefined;
  byId('chat-log').replaceChildren();
}

/** The panel of one task in the chat log, updated as its events arrive. */
class TaskPanel {
  readonly root: HTMLElement;
  private readonly header: HTMLElement;
  private readonly timeline: HTMLElement;
  private readonly artifacts: HTMLElement;
  private readonly prompt: HTMLElement;
  private readonly cancel: HTMLButtonElement;
  taskId?: string;
  state = '';

  constructor() {
    this.header = el('div', { class: 'task-head' });
    this.timeline = el('ol', { class: 'timeline' });
    this.artifacts = el('div', { class: 'artifacts' });
    this.prompt = el('div', { class: 'prompt' });
    this.cancel = el('button', { type: 'button', class: 'cancel', hidden: '' }, 'Cancel task');
    this.cancel.addEventListener('click', () => void this.cancelTask());
    this.root = el('div', { class: 'task-panel' }, this.header, this.timeline, this.artifacts, this.prompt, this.cancel);
  }

  /** Applies one `StreamResponse` (or a `SendMessage` result: a task or a message). */
  apply(event: Json): void {
    if (event?.task) this.task(event.task);
    else if (event?.statusUpdate) this.status(event.statusUpdate.taskId, event.statusUpdate.contextId, event.statusUpdate.status);
    else if (event?.artifactUpdate) this.artifact(event.artifactUpdate);
    else if (event?.message) this.agentMessage(event.message);
  }

  private task(task: Json): void {
    this.status(task.id, task.contextId, task.status);
    for (const artifact of task.artifacts ?? []) this.artifact({ artifact, append: false });
  }

  private status(taskId: string, context: string, status: Json): void {
    this.taskId = taskId ?? this.taskId;
    contextId = context ?? contextId;
    const state = stateName(status?.state);
    const text = partsText(status?.message?.parts);
    const last = this.timeline.lastElementChild as HTMLElement | null;
    // The same state again with nothing new to say is not a new step.
    if (!(state === this.state && !text && last)) {
      this.timeline.append(el('li', { 'data-state': state }, el('time', {}, time(status?.timestamp)), badge(status?.state), text ? ` ${text}` : ''));
    }
    this.state = state;
    this.header.replaceChildren(el('span', { class: 'muted' }, `task ${this.taskId ?? ''}`), ' ', badge(status?.state));
    this.root.dataset.state = state;
    this.root.dataset.taskId = this.taskId ?? '';
    this.cancel.hidden = isTerminal(state) || !this.taskId;
    this.renderPrompt(text);
  }

  private artifact(update: Json): void {
    const artifact = update.artifact ?? {};
    const id = String(artifact.artifactId ?? '');
    let box = this.artifacts.querySelector<HTMLElement>(`[data-artifact-id="${CSS.escape(id)}"]`);
    if (!box || !update.append) {
      const fresh = el('div', { class: 'artifact', 'data-artifact-id': id }, el('div', { class: 'muted' }, `artifact ${artifact.name || id}`), el('pre', {}));
      if (box) box.replaceWith(fresh);
      else this.artifacts.append(fresh);
      box = fresh;
    }
    const pre = box.querySelector('pre') as HTMLElement;
    pre.append(el('span', { class: 'chunk' }, partsText(artifact.parts)));
    box.dataset.complete = String(update.lastChunk === true || !update.append);
    if (update.lastChunk) box.classList.add('complete');
  }

  private agentMessage(msg: Json): void {
    contextId = msg.contextId ?? contextId;
    this.timeline.append(el('li', { class: 'agent-message' }, partsText(msg.parts)));
  }

  /** The input-required prompt, answered in place: the answer continues this task. */
  private renderPrompt(question: string): void {
    if (!isInterrupted(this.state)) {
      this.prompt.replaceChildren();
      return;
    }
    if (this.prompt.firstChild) return;
    const input = el('input', { class: 'answer', placeholder: 'Your answer', required: '' });
    const form = el('form', { class: 'row' }, el('span', {}, question || 'The agent needs input:'), input, el('button', { type: 'submit' }, 'Answer'));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const text = input.value;
      this.prompt.replaceChildren();
      // The answer stays with its question, in this task's timeline.
      this.timeline.append(el('li', { class: 'answer-given' }, el('strong', {}, 'you: '), text));
      void send(userMessage(text, this.taskId, contextId), this);
    });
    this.prompt.append(form);
    input.focus();
  }

  private async cancelTask(): Promise<void> {
    if (!this.taskId) return;
    this.cancel.disabled = true;
    try {
      const task = await client().call('CancelTask', { id: this.taskId });
      this.apply({ task });
    } catch (error) {
      this.error(error);
    } finally {
      this.cancel.disabled = false;
    }
  }

  error(error: unknown): void {
    this.timeline.append(el('li', { class: 'error' }, message(error)));
  }
}

/** Keeps the message box in view as the log grows. */
function scrollDown(): void {
  byId('chat-form').scrollIntoView({ block: 'end' });
}

function appendUser(text: string): void {
  byId('chat-log').append(el('div', { class: 'user' }, text));
  scrollDown();
}

/** Sends `msg` and renders the answer (the stream, or the one result) into `panel`. */
async function send(msg: Json, panel?: TaskPanel): Promise<void> {
  const log = byId('chat-log');
  const target = panel ?? new TaskPanel();
  if (!panel) log.append(target.root);
  try {
    const c = client();
    if (byId<HTMLInputElement>('chat-stream').checked) {
      for await (const event of c.stream('SendStreamingMessage', { message: msg })) {
        target.apply(event);
        scrollDown();
      }
    } else {
      const result = await c.call('SendMessage', { message: msg, configuration: { returnImmediately: false } });
      target.apply(result);
    }
  } catch (error) {
    target.error(error);
  }
}

// ---------------------------------------------------------------- tasks

/** The page tokens of the pages seen so far: `pages[n]` fetches page n. */
let pages: string[] = [''];
let page = 0;
let selected: string | undefined;

/** The latest list request: an answer to an older one (a poll overtaken by a filter) is dropped. */
let listing = 0;

async function loadTasks(quiet = false): Promise<void> {
  const seq = ++listing;
  const error = byId('tasks-error');
  const query: Json = {
    pageSize: Number(byId<HTMLInputElement>('filter-size').value) || 20,
    pageToken: pages[page] || undefined,
    status: byId<HTMLSelectElement>('filter-state').value || undefined,
    contextId: byId<HTMLInputElement>('filter-context').value.trim() || undefined,
  };
  try {
    const answer = await client().call('ListTasks', query);
    if (seq !== listing) return;
    error.hidden = true;
    const tasks: Json[] = answer?.tasks ?? [];
    byId('task-rows').replaceChildren(
      ...tasks.map((task) => {
        const row = el(
          'tr',
          { 'data-task-id': task.id, class: task.id === selected ? 'selected' : '' },
          el('td', {}, el('code', {}, task.id)),
          el('td', {}, el('code', {}, task.contextId ?? '')),
          el('td', {}, badge(task.status?.state)),
          el('td', {}, time(task.status?.timestamp)),
        );
        row.addEventListener('click', () => void openTask(task.id));
        return row;
      }),
    );
    const next = answer?.nextPageToken ?? '';
    pages.length = page + 1;
    if (next) pages.push(next);
    byId<HTMLButtonElement>('page-prev').disabled = page === 0;
    byId<HTMLButtonElement>('page-next').disabled = !next;
    byId('page-info').textContent = `page ${page + 1}${answer?.totalSize !== undefined ? ` · ${answer.totalSize} task(s)` : ''}`;
    if (selected && quiet) await openTask(selected, true);
  } catch (e) {
    error.textContent = message(e);
    error.hidden = false;
  }
}

async function openTask(id: string, quiet = false): Promise<void> {
  selected = id;
  const detail = byId('task-detail');
  detail.hidden = false;
  for (const row of document.querySelectorAll<HTMLElement>('#task-rows tr')) {
    row.classList.toggle('selected', row.dataset.taskId === id);
  }
  try {
    const c = client();
    const task = await c.call('GetTask', { id });
    let configs: Json[] | string = 'this agent does not support push notifications';
    if (agent()?.card?.capabilities?.pushNotifications) {
      try {
        configs = (await c.call('ListTaskPushNotificationConfigs', { taskId: id }))?.configs ?? [];
      } catch (e) {
        configs = message(e);
      }
    }
    const cancel = el('button', { type: 'button', id: 'task-cancel' }, 'Cancel task');
    cancel.hidden = isTerminal(task.status?.state);
    cancel.addEventListener('click', async () => {
      cancel.disabled = true;
      try {
        await c.call('CancelTask', { id });
      } catch (e) {
        detail.append(el('p', { class: 'error' }, message(e)));
      }
      await openTask(id);
    });
    detail.replaceChildren(
      el('h3', {}, 'Task ', el('code', {}, task.id), ' ', badge(task.status?.state), ' ', cancel),
      el('p', { class: 'muted' }, `context ${task.contextId ?? ''}`),
      el('h4', {}, 'History'),
      el(
        'ol',
        { class: 'history' },
        ...(task.history ?? []).map((m: Json) =>
          el('li', { class: m.role === 'ROLE_AGENT' ? 'agent' : 'user' }, el('strong', {}, m.role === 'ROLE_AGENT' ? 'agent: ' : 'user: '), partsText(m.parts)),
        ),
      ),
      el('h4', {}, 'Artifacts'),
      ...(task.artifacts ?? []).map((a: Json) => el('div', { class: 'artifact' }, el('div', { class: 'muted' }, `artifact ${a.name || a.artifactId}`), el('pre', {}, partsText(a.parts)))),
      el('h4', {}, 'Push notification configs'),
      typeof configs === 'string'
        ? el('p', { class: 'muted' }, configs)
        : configs.length === 0
          ? el('p', { class: 'muted' }, 'none')
          : el('ul', {}, ...configs.map((p: Json) => el('li', {}, el('code', {}, p.id ?? ''), ` ${p.url}`))),
    );
  } catch (e) {
    if (!quiet) detail.replaceChildren(el('p', { class: 'error' }, message(e)));
  }
}

// ---------------------------------------------------------------- status

async function loadStatus(): Promise<void> {
  const view = byId('view-status');
  try {
    const s = await api('status');
    const uptime = Number(s.uptimeSeconds);
    view.replaceChildren(
      el(
        'div',
        { class: 'tiles' },
        el('div', { class: 'tile' }, el('strong', {}, 'Live'), el('span', { id: 'status-live' }, s.live ? 'yes' : 'no')),
        el('div', { class: `tile ${s.ready ? '' : 'bad'}` }, el('strong', {}, 'Ready'), el('span', { id: 'status-ready' }, s.ready ? 'yes' : `no (${s.reason})`)),
        el('div', { class: 'tile' }, el('strong', {}, 'Uptime'), `${Math.floor(uptime / 60)} min ${uptime % 60} s`),
        el('div', { class: 'tile' }, el('strong', {}, 'Live tasks'), String(s.liveTasks ?? 'n/a')),
        el('div', { class: 'tile' }, el('strong', {}, 'Executions'), `${s.executions?.execute ?? 0} running, ${s.executions?.cancel ?? 0} cancelling`),
      ),
      el(
        'table',
        { class: 'requests' },
        el('thead', {}, el('tr', {}, el('th', {}, 'Binding'), el('th', {}, 'Operation'), el('th', {}, 'Requests'), el('th', {}, 'OK'), el('th', {}, 'Errors'), el('th', {}, 'Open streams'))),
        el(
          'tbody',
          {},
          ...(s.requests ?? []).map((r: Json) =>
            el('tr', {}, el('td', {}, r.binding), el('td', {}, r.operation), el('td', {}, String(r.total)), el('td', {}, String(r.ok)), el('td', {}, String(r.total - r.ok)), el('td', {}, String(r.openStreams))),
          ),
        ),
      ),
    );
  } catch (e) {
    view.replaceChildren(el('p', { class: 'error' }, message(e)));
  }
}

// ---------------------------------------------------------------- wiring

function main(): void {
  byId('login-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const secret = byId<HTMLInputElement>('login-key').value;
    const credential = how ? credentialOf(how, secret) : { header: 'Authorization', value: `Bearer ${secret}` };
    void signIn(credential);
  });
  byId('sign-out').addEventListener('click', signOut);
  for (const button of document.querySelectorAll<HTMLButtonElement>('#nav button')) {
    button.addEventListener('click', () => show(button.dataset.view ?? 'agents'));
  }
  byId<HTMLSelectElement>('agent-select').addEventListener('change', (e) => chooseAgent(Number((e.target as HTMLSelectElement).value)));
  byId('chat-new').addEventListener('click', newConversation);
  byId('chat-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = byId<HTMLInputElement>('chat-input');
    const text = input.value;
    if (!text.trim()) return;
    input.value = '';
    appendUser(text);
    void send(userMessage(text, undefined, contextId));
  });
  byId('task-filters').addEventListener('submit', (e) => {
    e.preventDefault();
    pages = [''];
    page = 0;
    void loadTasks();
  });
  byId('page-next').addEventListener('click', () => {
    if (pages[page + 1] !== undefined) {
      page += 1;
      void loadTasks();
    }
  });
  byId('page-prev').addEventListener('click', () => {
    if (page > 0) {
      page -= 1;
      void loadTasks();
    }
  });
  void startLogin();
}

main();
