"use strict";
(() => {
  // src/a2a.ts
  var A2aError = class extends Error {
    constructor(message2, status) {
      super(message2);
      this.status = status;
    }
    status;
  };
  var HTTP_BINDINGS = ["JSONRPC", "HTTP+JSON"];
  function usableInterfaces(card) {
    const all = Array.isArray(card?.supportedInterfaces) ? card.supportedInterfaces : [];
    return all.filter(
      (i) => HTTP_BINDINGS.includes(i.protocolBinding) && String(i.protocolVersion ?? "").startsWith("1.")
    );
  }
  function credentialHeader(card) {
    const schemes = card?.securitySchemes ?? {};
    for (const scheme of Object.values(schemes)) {
      const apiKey = scheme?.apiKeySecurityScheme;
      if (apiKey && String(apiKey.location).toLowerCase() === "header" && apiKey.name) {
        return { header: apiKey.name, prefix: "", kind: `API key (header ${apiKey.name})` };
      }
      const http = scheme?.httpAuthSecurityScheme;
      if (http && String(http.scheme).toLowerCase() === "bearer") {
        return { header: "Authorization", prefix: "Bearer ", kind: "Bearer token" };
      }
      if (http && String(http.scheme).toLowerCase() === "basic") {
        return { header: "Authorization", prefix: "Basic ", kind: "user:password (HTTP Basic)" };
      }
      if (scheme?.oauth2SecurityScheme || scheme?.openIdConnectSecurityScheme) {
        return { header: "Authorization", prefix: "Bearer ", kind: "OAuth 2.0 access token" };
      }
    }
    return null;
  }
  function isSecured(card) {
    const requirements = card?.securityRequirements ?? [];
    return requirements.length > 0 && requirements.every((r) => Object.keys(r?.schemes ?? {}).length > 0);
  }
  function credentialOf(how2, secret) {
    const value = how2.prefix === "Basic " ? btoa(secret) : secret;
    return { header: how2.header, value: how2.prefix + value };
  }
  function headers(credential, accept = "application/json") {
    const h = { "A2A-Version": "1.0", Accept: accept };
    if (credential) h[credential.header] = credential.value;
    return h;
  }
  async function errorOf(response) {
    const text = await response.text().catch(() => "");
    let message2 = text || response.statusText;
    try {
      const body = JSON.parse(text);
      message2 = body?.error?.message ?? body?.message ?? body?.error ?? message2;
    } catch {
    }
    return new A2aError(`HTTP ${response.status}: ${message2}`, response.status);
  }
  var nextId = 1;
  var Client = class _Client {
    constructor(iface, credential) {
      this.iface = iface;
      this.credential = credential;
    }
    iface;
    credential;
    get binding() {
      return this.iface.protocolBinding;
    }
    get tenant() {
      return this.iface.tenant ?? "";
    }
    restBase() {
      const base = this.iface.url.replace(/\/+$/, "");
      return this.tenant ? `${base}/${encodeURIComponent(this.tenant)}` : base;
    }
    /** The REST request of `operation`: method, path and body. */
    rest(operation, params) {
      const id = encodeURIComponent(params.id ?? params.taskId ?? "");
      const query = (entries) => {
        const q = new URLSearchParams();
        for (const [k, v] of entries) if (v !== void 0 && v !== null && v !== "") q.set(k, String(v));
        const s = q.toString();
        return s ? `?${s}` : "";
      };
      switch (operation) {
        case "SendMessage":
          return { method: "POST", path: "/message:send", body: params };
        case "SendStreamingMessage":
          return { method: "POST", path: "/message:stream", body: params };
        case "GetTask":
          return { method: "GET", path: `/tasks/${id}${query([["historyLength", params.historyLength]])}` };
        case "ListTasks":
          return {
            method: "GET",
            path: `/tasks${query([
              ["contextId", params.contextId],
              ["status", params.status],
              ["pageSize", params.pageSize],
              ["pageToken", params.pageToken],
              ["includeArtifacts", params.includeArtifacts]
            ])}`
          };
        case "CancelTask":
          return { method: "POST", path: `/tasks/${id}:cancel`, body: {} };
        case "SubscribeToTask":
          return { method: "GET", path: `/tasks/${id}:subscribe` };
        case "ListTaskPushNotificationConfigs":
          return { method: "GET", path: `/tasks/${id}/pushNotificationConfigs` };
      }
    }
    request(operation, params, accept) {
      const h = headers(this.credential, accept);
      if (this.binding === "JSONRPC") {
        h["Content-Type"] = "application/json";
        const withTenant = this.tenant ? { ...params, tenant: this.tenant } : params;
        const body2 = { jsonrpc: "2.0", id: nextId++, method: operation, params: withTenant };
        return [this.iface.url, { method: "POST", headers: h, body: JSON.stringify(body2) }];
      }
      const { method, path, body } = this.rest(operation, params);
      if (body !== void 0) h["Content-Type"] = "application/a2a+json";
      const init = { method, headers: h };
      if (body !== void 0) init.body = JSON.stringify(body);
      return [this.restBase() + path, init];
    }
    /** One JSON-RPC answer or REST body: the result, or the error thrown. */
    static result(binding, body) {
      if (binding === "JSONRPC") {
        if (body?.error) throw new A2aError(`${body.error.message} (JSON-RPC ${body.error.code})`, 200);
        return body?.result;
      }
      if (body?.error) throw new A2aError(body.error.message ?? JSON.stringify(body.error), 200);
      return body;
    }
    /** A unary call. */
    async call(operation, params) {
      const [url, init] = this.request(operation, params, "application/json");
      const response = await fetch(url, init);
      if (!response.ok) throw await errorOf(response);
      return _Client.result(this.binding, await response.json());
    }
    /** A streaming call: each `StreamResponse` as it arrives. `signal` ends it early. */
    async *stream(operation, params, signal) {
      const [url, init] = this.request(operation, params, "text/event-stream");
      const response = await fetch(url, { ...init, signal });
      if (!response.ok) throw await errorOf(response);
      if (!response.body) throw new A2aError("the stream has no body", response.status);
      const type = response.headers.get("content-type") ?? "";
      if (!type.startsWith("text/event-stream")) {
        yield _Client.result(this.binding, await response.json());
        return;
      }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (; ; ) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n?/g, "\n");
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = event.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).replace(/^ /, "")).join("\n");
          if (data) yield _Client.result(this.binding, JSON.parse(data));
        }
      }
    }
  };
  function stateName(state) {
    return String(state ?? "TASK_STATE_UNSPECIFIED").replace(/^TASK_STATE_/, "");
  }
  function isTerminal(state) {
    return ["COMPLETED", "CANCELED", "FAILED", "REJECTED"].includes(stateName(state));
  }
  function isInterrupted(state) {
    return ["INPUT_REQUIRED", "AUTH_REQUIRED"].includes(stateName(state));
  }
  function partsText(parts) {
    return (parts ?? []).map((p) => {
      if (typeof p?.text === "string") return p.text;
      if (p?.data !== void 0) return JSON.stringify(p.data);
      if (p?.url) return `[file ${p.filename ?? p.url}]`;
      if (p?.raw !== void 0) return `[file ${p.filename ?? "bytes"}]`;
      return "";
    }).join("");
  }
  function userMessage(text, taskId, contextId2) {
    const message2 = {
      messageId: uuid(),
      role: "ROLE_USER",
      parts: [{ text }]
    };
    if (taskId) message2.taskId = taskId;
    if (contextId2) message2.contextId = contextId2;
    return message2;
  }
  function uuid() {
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = b[6] & 15 | 64;
    b[8] = b[8] & 63 | 128;
    const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  // src/main.ts
  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") node.className = v;
      else node.setAttribute(k, v);
    }
    for (const child of children) {
      if (child === null || child === void 0 || child === false) continue;
      node.append(child);
    }
    return node;
  }
  function byId(id) {
    const node = document.getElementById(id);
    if (!node) throw new Error(`no #${id}`);
    return node;
  }
  function message(error) {
    return error instanceof Error ? error.message : String(error);
  }
  function badge(state) {
    const name = stateName(state);
    return el("span", { class: `state state-${name.toLowerCase()}`, "data-state": name }, name);
  }
  function time(iso) {
    if (typeof iso !== "string" || !iso) return "";
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? iso : date.toLocaleTimeString();
  }
  var session = {
    credential: null,
    agents: [],
    agent: 0
  };
  function agent() {
    return session.agents[session.agent];
  }
  async function api(path) {
    const response = await fetch(`/console/api/${path}`, { headers: headers(session.credential) });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new A2aError(`HTTP ${response.status}: ${body?.error ?? response.statusText}`, response.status);
    return body;
  }
  function interfaces() {
    return usableInterfaces(agent()?.card);
  }
  function client() {
    const all = interfaces();
    if (all.length === 0) throw new Error("this agent lists no JSON-RPC or HTTP+JSON interface of A2A 1.x");
    const chosen = Number(byId("chat-binding").value);
    return new Client(all[chosen] ?? all[0], session.credential);
  }
  var how = null;
  async function startLogin() {
    const hint = byId("login-hint");
    try {
      const response = await fetch("/.well-known/agent-card.json", { headers: { Accept: "application/json" } });
      const card = await response.json();
      how = credentialHeader(card);
      if (!isSecured(card)) {
        hint.textContent = "This agent requires no credential.";
        await signIn(null);
        return;
      }
      hint.textContent = how ? `${card.name ?? "The agent"} requires a credential: ${how.kind}.` : "The agent requires a credential of a kind the console cannot send.";
    } catch (error) {
      hint.textContent = `The agent card could not be read: ${message(error)}`;
    }
  }
  async function signIn(credential) {
    const error = byId("login-error");
    error.hidden = true;
    session.credential = credential;
    try {
      const who = await api("session");
      const { agents } = await api("agents");
      session.agents = agents;
      session.agent = 0;
      byId("who").textContent = who.principal ? `signed in as ${who.principal}` : "";
    } catch (e) {
      session.credential = null;
      error.textContent = e instanceof A2aError && e.status === 401 ? `Refused: the server did not accept this credential (${e.message})` : message(e);
      error.hidden = false;
      return;
    }
    byId("login").hidden = true;
    byId("app").hidden = false;
    byId("nav").hidden = false;
    byId("sign-out").hidden = credential === null;
    const select = byId("agent-select");
    select.replaceChildren(
      ...session.agents.map((a, i) => el("option", { value: String(i) }, a.tenant ? `${a.card?.name} (tenant ${a.tenant})` : `${a.card?.name}`))
    );
    byId("agent-choice").hidden = session.agents.length < 2;
    chooseAgent(0);
    show("agents");
  }
  function signOut() {
    session.credential = null;
    session.agents = [];
    location.reload();
  }
  var current = "agents";
  var poller;
  function show(view) {
    current = view;
    for (const name of ["agents", "chat", "tasks", "status"]) {
      byId(`view-${name}`).hidden = name !== view;
    }
    for (const button of document.querySelectorAll("#nav button")) {
      button.classList.toggle("active", button.dataset.view === view);
    }
    window.clearInterval(poller);
    poller = void 0;
    if (view === "tasks") {
      void loadTasks();
      poller = window.setInterval(() => void loadTasks(true), 2e3);
    }
    if (view === "status") {
      void loadStatus();
      poller = window.setInterval(() => void loadStatus(), 2e3);
    }
  }
  function chooseAgent(index) {
    session.agent = index;
    renderAgents();
    const select = byId("chat-binding");
    select.replaceChildren(
      ...interfaces().map((i, n) => el("option", { value: String(n) }, `${i.protocolBinding} ${i.protocolVersion} — ${i.url}`))
    );
    byId("chat-stream").checked = agent()?.card?.capabilities?.streaming === true;
    newConversation();
    pages = [""];
    if (current === "tasks") void loadTasks();
  }
  function renderAgents() {
    const view = byId("view-agents");
    view.replaceChildren(
      ...session.agents.map((a, i) => {
        const card = a.card ?? {};
        const v = a.validation;
        const skills = card.skills ?? [];
        return el(
          "article",
          { class: `card agent${i === session.agent ? " chosen" : ""}`, "data-tenant": a.tenant ?? "" },
          el("h2", {}, card.name ?? "(no name)", a.tenant ? el("span", { class: "muted" }, ` tenant ${a.tenant}`) : null),
          el("p", {}, card.description ?? ""),
          el("p", { class: "muted" }, "Card: ", el("a", { href: a.cardPath, target: "_blank" }, a.cardPath), ` · version ${card.version ?? "?"}`),
          el(
            "div",
            { class: `validation ${v.valid ? "valid" : "invalid"}`, "data-valid": String(v.valid) },
            el("strong", {}, v.valid ? "Valid A2A 1.0 AgentCard" : `Invalid: ${v.problems.length} problem(s)`),
            v.problems.length ? el("ul", { class: "problems" }, ...v.problems.map((p) => el("li", {}, p))) : null,
            v.notes.length ? el("ul", { class: "notes" }, ...v.notes.map((n) => el("li", {}, n))) : null
          ),
          el(
            "p",
            {},
            "Interfaces: ",
            ...(card.supportedInterfaces ?? []).map(
              (iface) => el("code", { class: "iface" }, `${iface.protocolBinding} ${iface.protocolVersion} ${iface.url}${iface.tenant ? ` (tenant ${iface.tenant})` : ""}`)
            )
          ),
          el("p", {}, "Skills: ", ...skills.map((s) => el("span", { class: "skill", title: s.description ?? "" }, s.name ?? s.id))),
          el("details", {}, el("summary", {}, "Card document"), el("pre", {}, JSON.stringify(card, null, 2)))
        );
      })
    );
  }
  var contextId;
  function newConversation() {
    contextId = void 0;
    byId("chat-log").replaceChildren();
  }
  var TaskPanel = class {
    root;
    header;
    timeline;
    artifacts;
    prompt;
    cancel;
    taskId;
    state = "";
    constructor() {
      this.header = el("div", { class: "task-head" });
      this.timeline = el("ol", { class: "timeline" });
      this.artifacts = el("div", { class: "artifacts" });
      this.prompt = el("div", { class: "prompt" });
      this.cancel = el("button", { type: "button", class: "cancel", hidden: "" }, "Cancel task");
      this.cancel.addEventListener("click", () => void this.cancelTask());
      this.root = el("div", { class: "task-panel" }, this.header, this.timeline, this.artifacts, this.prompt, this.cancel);
    }
    /** Applies one `StreamResponse` (or a `SendMessage` result: a task or a message). */
    apply(event) {
      if (event?.task) this.task(event.task);
      else if (event?.statusUpdate) this.status(event.statusUpdate.taskId, event.statusUpdate.contextId, event.statusUpdate.status);
      else if (event?.artifactUpdate) this.artifact(event.artifactUpdate);
      else if (event?.message) this.agentMessage(event.message);
    }
    task(task) {
      this.status(task.id, task.contextId, task.status);
      for (const artifact of task.artifacts ?? []) this.artifact({ artifact, append: false });
    }
    status(taskId, context, status) {
      this.taskId = taskId ?? this.taskId;
      contextId = context ?? contextId;
      const state = stateName(status?.state);
      const text = partsText(status?.message?.parts);
      const last = this.timeline.lastElementChild;
      if (!(state === this.state && !text && last)) {
        this.timeline.append(el("li", { "data-state": state }, el("time", {}, time(status?.timestamp)), badge(status?.state), text ? ` ${text}` : ""));
      }
      this.state = state;
      this.header.replaceChildren(el("span", { class: "muted" }, `task ${this.taskId ?? ""}`), " ", badge(status?.state));
      this.root.dataset.state = state;
      this.root.dataset.taskId = this.taskId ?? "";
      this.cancel.hidden = isTerminal(state) || !this.taskId;
      this.renderPrompt(text);
    }
    artifact(update) {
      const artifact = update.artifact ?? {};
      const id = String(artifact.artifactId ?? "");
      let box = this.artifacts.querySelector(`[data-artifact-id="${CSS.escape(id)}"]`);
      if (!box || !update.append) {
        const fresh = el("div", { class: "artifact", "data-artifact-id": id }, el("div", { class: "muted" }, `artifact ${artifact.name || id}`), el("pre", {}));
        if (box) box.replaceWith(fresh);
        else this.artifacts.append(fresh);
        box = fresh;
      }
      const pre = box.querySelector("pre");
      pre.append(el("span", { class: "chunk" }, partsText(artifact.parts)));
      box.dataset.complete = String(update.lastChunk === true || !update.append);
      if (update.lastChunk) box.classList.add("complete");
    }
    agentMessage(msg) {
      contextId = msg.contextId ?? contextId;
      this.timeline.append(el("li", { class: "agent-message" }, partsText(msg.parts)));
    }
    /** The input-required prompt, answered in place: the answer continues this task. */
    renderPrompt(question) {
      if (!isInterrupted(this.state)) {
        this.prompt.replaceChildren();
        return;
      }
      if (this.prompt.firstChild) return;
      const input = el("input", { class: "answer", placeholder: "Your answer", required: "" });
      const form = el("form", { class: "row" }, el("span", {}, question || "The agent needs input:"), input, el("button", { type: "submit" }, "Answer"));
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        const text = input.value;
        this.prompt.replaceChildren();
        this.timeline.append(el("li", { class: "answer-given" }, el("strong", {}, "you: "), text));
        void send(userMessage(text, this.taskId, contextId), this);
      });
      this.prompt.append(form);
      input.focus();
    }
    async cancelTask() {
      if (!this.taskId) return;
      this.cancel.disabled = true;
      try {
        const task = await client().call("CancelTask", { id: this.taskId });
        this.apply({ task });
      } catch (error) {
        this.error(error);
      } finally {
        this.cancel.disabled = false;
      }
    }
    error(error) {
      this.timeline.append(el("li", { class: "error" }, message(error)));
    }
  };
  function scrollDown() {
    byId("chat-form").scrollIntoView({ block: "end" });
  }
  function appendUser(text) {
    byId("chat-log").append(el("div", { class: "user" }, text));
    scrollDown();
  }
  async function send(msg, panel) {
    const log = byId("chat-log");
    const target = panel ?? new TaskPanel();
    if (!panel) log.append(target.root);
    try {
      const c = client();
      if (byId("chat-stream").checked) {
        for await (const event of c.stream("SendStreamingMessage", { message: msg })) {
          target.apply(event);
          scrollDown();
        }
      } else {
        const result = await c.call("SendMessage", { message: msg, configuration: { returnImmediately: false } });
        target.apply(result);
      }
    } catch (error) {
      target.error(error);
    }
  }
  var pages = [""];
  var page = 0;
  var selected;
  var listing = 0;
  async function loadTasks(quiet = false) {
    const seq = ++listing;
    const error = byId("tasks-error");
    const query = {
      pageSize: Number(byId("filter-size").value) || 20,
      pageToken: pages[page] || void 0,
      status: byId("filter-state").value || void 0,
      contextId: byId("filter-context").value.trim() || void 0
    };
    try {
      const answer = await client().call("ListTasks", query);
      if (seq !== listing) return;
      error.hidden = true;
      const tasks = answer?.tasks ?? [];
      byId("task-rows").replaceChildren(
        ...tasks.map((task) => {
          const row = el(
            "tr",
            { "data-task-id": task.id, class: task.id === selected ? "selected" : "" },
            el("td", {}, el("code", {}, task.id)),
            el("td", {}, el("code", {}, task.contextId ?? "")),
            el("td", {}, badge(task.status?.state)),
            el("td", {}, time(task.status?.timestamp))
          );
          row.addEventListener("click", () => void openTask(task.id));
          return row;
        })
      );
      const next = answer?.nextPageToken ?? "";
      pages.length = page + 1;
      if (next) pages.push(next);
      byId("page-prev").disabled = page === 0;
      byId("page-next").disabled = !next;
      byId("page-info").textContent = `page ${page + 1}${answer?.totalSize !== void 0 ? ` · ${answer.totalSize} task(s)` : ""}`;
      if (selected && quiet) await openTask(selected, true);
    } catch (e) {
      error.textContent = message(e);
      error.hidden = false;
    }
  }
  async function openTask(id, quiet = false) {
    selected = id;
    const detail = byId("task-detail");
    detail.hidden = false;
    for (const row of document.querySelectorAll("#task-rows tr")) {
      row.classList.toggle("selected", row.dataset.taskId === id);
    }
    try {
      const c = client();
      const task = await c.call("GetTask", { id });
      let configs = "this agent does not support push notifications";
      if (agent()?.card?.capabilities?.pushNotifications) {
        try {
          configs = (await c.call("ListTaskPushNotificationConfigs", { taskId: id }))?.configs ?? [];
        } catch (e) {
          configs = message(e);
        }
      }
      const cancel = el("button", { type: "button", id: "task-cancel" }, "Cancel task");
      cancel.hidden = isTerminal(task.status?.state);
      cancel.addEventListener("click", async () => {
        cancel.disabled = true;
        try {
          await c.call("CancelTask", { id });
        } catch (e) {
          detail.append(el("p", { class: "error" }, message(e)));
        }
        await openTask(id);
      });
      detail.replaceChildren(
        el("h3", {}, "Task ", el("code", {}, task.id), " ", badge(task.status?.state), " ", cancel),
        el("p", { class: "muted" }, `context ${task.contextId ?? ""}`),
        el("h4", {}, "History"),
        el(
          "ol",
          { class: "history" },
          ...(task.history ?? []).map(
            (m) => el("li", { class: m.role === "ROLE_AGENT" ? "agent" : "user" }, el("strong", {}, m.role === "ROLE_AGENT" ? "agent: " : "user: "), partsText(m.parts))
          )
        ),
        el("h4", {}, "Artifacts"),
        ...(task.artifacts ?? []).map((a) => el("div", { class: "artifact" }, el("div", { class: "muted" }, `artifact ${a.name || a.artifactId}`), el("pre", {}, partsText(a.parts)))),
        el("h4", {}, "Push notification configs"),
        typeof configs === "string" ? el("p", { class: "muted" }, configs) : configs.length === 0 ? el("p", { class: "muted" }, "none") : el("ul", {}, ...configs.map((p) => el("li", {}, el("code", {}, p.id ?? ""), ` ${p.url}`)))
      );
    } catch (e) {
      if (!quiet) detail.replaceChildren(el("p", { class: "error" }, message(e)));
    }
  }
  async function loadStatus() {
    const view = byId("view-status");
    try {
      const s = await api("status");
      const uptime = Number(s.uptimeSeconds);
      view.replaceChildren(
        el(
          "div",
          { class: "tiles" },
          el("div", { class: "tile" }, el("strong", {}, "Live"), el("span", { id: "status-live" }, s.live ? "yes" : "no")),
          el("div", { class: `tile ${s.ready ? "" : "bad"}` }, el("strong", {}, "Ready"), el("span", { id: "status-ready" }, s.ready ? "yes" : `no (${s.reason})`)),
          el("div", { class: "tile" }, el("strong", {}, "Uptime"), `${Math.floor(uptime / 60)} min ${uptime % 60} s`),
          el("div", { class: "tile" }, el("strong", {}, "Live tasks"), String(s.liveTasks ?? "n/a")),
          el("div", { class: "tile" }, el("strong", {}, "Executions"), `${s.executions?.execute ?? 0} running, ${s.executions?.cancel ?? 0} cancelling`)
        ),
        el(
          "table",
          { class: "requests" },
          el("thead", {}, el("tr", {}, el("th", {}, "Binding"), el("th", {}, "Operation"), el("th", {}, "Requests"), el("th", {}, "OK"), el("th", {}, "Errors"), el("th", {}, "Open streams"))),
          el(
            "tbody",
            {},
            ...(s.requests ?? []).map(
              (r) => el("tr", {}, el("td", {}, r.binding), el("td", {}, r.operation), el("td", {}, String(r.total)), el("td", {}, String(r.ok)), el("td", {}, String(r.total - r.ok)), el("td", {}, String(r.openStreams)))
            )
          )
        )
      );
    } catch (e) {
      view.replaceChildren(el("p", { class: "error" }, message(e)));
    }
  }
  function main() {
    byId("login-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const secret = byId("login-key").value;
      const credential = how ? credentialOf(how, secret) : { header: "Authorization", value: `Bearer ${secret}` };
      void signIn(credential);
    });
    byId("sign-out").addEventListener("click", signOut);
    for (const button of document.querySelectorAll("#nav button")) {
      button.addEventListener("click", () => show(button.dataset.view ?? "agents"));
    }
    byId("agent-select").addEventListener("change", (e) => chooseAgent(Number(e.target.value)));
    byId("chat-new").addEventListener("click", newConversation);
    byId("chat-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const input = byId("chat-input");
      const text = input.value;
      if (!text.trim()) return;
      input.value = "";
      appendUser(text);
      void send(userMessage(text, void 0, contextId));
    });
    byId("task-filters").addEventListener("submit", (e) => {
      e.preventDefault();
      pages = [""];
      page = 0;
      void loadTasks();
    });
    byId("page-next").addEventListener("click", () => {
      if (pages[page + 1] !== void 0) {
        page += 1;
        void loadTasks();
      }
    });
    byId("page-prev").addEventListener("click", () => {
      if (page > 0) {
        page -= 1;
        void loadTasks();
      }
    });
    void startLogin();
  }
  main();
})();
