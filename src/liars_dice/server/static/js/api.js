// The HTTP API and the table websocket of docs/server-protocol.md.

/** An error reply: `code` is the server's stable code, `message` one sentence. */
export class ApiError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/**
 * The signed-in session as this page knows it (account.js keeps it): the CSRF
 * token every POST carries while signed in (docs/server-protocol.md, "Accounts").
 */
export const session = { name: null, csrf: null };

async function request(method, path, body) {
  let response;
  const headers = body === undefined ? {} : { "Content-Type": "application/json" };
  if (method !== "GET" && session.csrf) headers["X-CSRF-Token"] = session.csrf;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError("network", "The server cannot be reached; check your connection and try again.");
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const err = data && data.error;
    if (err && err.message) throw new ApiError(err.code || "error", err.message);
    if (data && Array.isArray(data.detail)) throw new ApiError("message/invalid", "The server could not read that request.");
    throw new ApiError("http", `The server answered ${response.status}; try again.`);
  }
  return data;
}

export const api = {
  config: () => request("GET", "/api/config"),
  tables: () => request("GET", "/api/tables"),
  table: (code) => request("GET", `/api/tables/${encodeURIComponent(code)}`),
  createTable: (body) => request("POST", "/api/tables", body),
  rulesSummary: (preset, options, rulesText = null) =>
    request("POST", "/api/rules/summary", rulesText === null ? { preset, options } : { preset, options, rules_text: rulesText }),
  join: (code, nickname) => request("POST", `/api/tables/${encodeURIComponent(code)}/join`, { nickname }),
  playerGames: (nickname) => request("GET", `/api/players/${encodeURIComponent(nickname)}/games`),
  myGames: (tokens) => request("POST", "/api/my-games", { tokens }),
  // ratings (issue 18): ruleSet null for the rule set with the most rated games
  leaderboard: (ruleSet) => request("GET", `/api/leaderboard${ruleSet ? `?rule_set=${encodeURIComponent(ruleSet)}` : ""}`),
  profile: (name) => request("GET", `/api/players/${encodeURIComponent(name)}/profile`),
  // game: the table's game number ("Play again"); none: its last game
  replay: (code, game) => request("GET", `/api/tables/${encodeURIComponent(code)}/replay${game ? `?game=${game}` : ""}`),
  account: () => request("GET", "/api/account"),
  signUp: (name, password) => request("POST", "/api/account/sign-up", { name, password }),
  signIn: (name, password) => request("POST", "/api/account/sign-in", { name, password }),
  signOut: () => request("POST", "/api/account/sign-out"),
  changePassword: (oldPassword, newPassword) =>
    request("POST", "/api/account/password", { old_password: oldPassword, new_password: newPassword }),
  resetPassword: (name, recoveryCode, newPassword) =>
    request("POST", "/api/account/reset", { name, recovery_code: recoveryCode, new_password: newPassword }),
  deleteAccount: (password) => request("POST", "/api/account/delete", { password }),
  recordUrl: (code, game) => `/api/tables/${encodeURIComponent(code)}/record${game ? `?game=${game}` : ""}`,
};

/**
 * Close codes the server ends a table's websocket with (docs/server-protocol.md,
 * "Close codes") after which reconnecting cannot help: the client broke the
 * protocol (1008), sent a frame too big (1009), or was refused for good (a bad
 * request, another origin, no such table).
 */
export const FINAL_CLOSE_CODES = new Set([1008, 1009, 4400, 4401, 4403, 4404]);
/** Too many connections (4429): try again, but not soon. */
const BUSY_CLOSE_CODE = 4429;

/**
 * Milliseconds to wait before reconnecting after a close with `code`, at the
 * `retry`-th attempt in a row (0 first), or null for no reconnect. The server
 * failed (1011), restarts (1012), is going away (1001), the network dropped
 * (1006), the client read too slowly (4408): back off, 0.5 s doubling up to
 * 5 s, with jitter (`random` in [0, 1), so that the clients of a restarted
 * server do not all come back at once); over a cap (4429): 10 s up to 60 s.
 */
export function reconnectDelay(code, retry, random = Math.random) {
  if (FINAL_CLOSE_CODES.has(code)) return null;
  const [base, cap] = code === BUSY_CLOSE_CODE ? [10000, 60000] : [500, 5000];
  const delay = Math.min(cap, base * 2 ** retry);
  return Math.round(delay * (0.5 + random() / 2));
}

/**
 * One table's websocket: sends `hello` on every (re)connect and reconnects
 * with back-off until closed, unless the server's close code says it cannot
 * help (`reconnectDelay`). Handlers: onMessage(msg),
 * onStatus("open"|"connecting"|"closed"|"stopped").
 */
export class TableSocket {
  constructor(code, token, { onMessage, onStatus }) {
    this.code = code;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.ws = null;
    this.closed = false;
    this.retry = 0;
    this.nextId = 1;
    this.pingTimer = null;
    // Several workers with routes (`liars-dice serve --route`): the route of the
    // worker that runs the table, from the welcome; sockets go there
    // (?owner=, read by the shipped nginx) so that moves are not forwarded.
    this.owner = null;
    this.connect();
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const query = this.owner ? `?owner=${encodeURIComponent(this.owner)}` : "";
    const ws = new WebSocket(`${proto}//${location.host}/ws/tables/${encodeURIComponent(this.code)}${query}`);
    this.ws = ws;
    this.onStatus("connecting");
    ws.onopen = () => {
      // Signed in and no seat token on this device: take the account's seat, if it holds one here.
      const hello = { type: "hello", token: this.token || null };
      if (!this.token && session.name) hello.account = true;
      ws.send(JSON.stringify(hello));
      this.onStatus("open");
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), 25000);
    };
    ws.onmessage = (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      // Back-off restarts only once the server has welcomed us: a socket that
      // opens and is closed at once (a failing server) keeps backing off.
      if (msg && msg.type === "welcome") this.retry = 0;
      this.onMessage(msg);
      if (msg && msg.type === "welcome" && msg.owner && msg.owner !== this.owner) {
        // Once per owner: this socket is on another worker; reconnect to the
        // owner's. A front that cannot reach it serves us elsewhere, and then
        // the owner is this.owner already: no loop.
        this.owner = msg.owner;
        if (msg.worker !== msg.owner) {
          this.ws = null;
          ws.close(1000);
          this.connect();
        }
      }
    };
    ws.onclose = (event) => {
      if (this.ws !== ws || this.closed) return; // replaced (its timer is the new socket's) or closed
      clearInterval(this.pingTimer);
      const delay = reconnectDelay(event.code, this.retry++);
      if (delay === null) {
        this.closed = true;
        this.onStatus("stopped");
        return;
      }
      this.onStatus("closed");
      setTimeout(() => this.connect(), delay);
    };
  }

  /** Send a message; returns its id (echoed in the ack or error), or null when offline. */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return null;
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ ...msg, id }));
    return id;
  }

  close() {
    this.closed = true;
    clearInterval(this.pingTimer);
    if (this.ws) this.ws.close();
  }
}
