// The HTTP API and the table websocket of docs/server-protocol.md.

/** An error reply: `code` is the server's stable code, `message` one sentence. */
export class ApiError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

async function request(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
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
  rulesSummary: (preset, options) => request("POST", "/api/rules/summary", { preset, options }),
  join: (code, nickname) => request("POST", `/api/tables/${encodeURIComponent(code)}/join`, { nickname }),
  playerGames: (nickname) => request("GET", `/api/players/${encodeURIComponent(nickname)}/games`),
  myGames: (tokens) => request("POST", "/api/my-games", { tokens }),
  // game: the table's game number ("Play again"); none: its last game
  replay: (code, game) => request("GET", `/api/tables/${encodeURIComponent(code)}/replay${game ? `?game=${game}` : ""}`),
  recordUrl: (code, game) => `/api/tables/${encodeURIComponent(code)}/record${game ? `?game=${game}` : ""}`,
};

/**
 * One table's websocket: sends `hello` on every (re)connect and reconnects
 * with back-off until closed. Handlers: onMessage(msg), onStatus("open"|"connecting"|"closed").
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
    this.connect();
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/tables/${encodeURIComponent(this.code)}`);
    this.ws = ws;
    this.onStatus("connecting");
    ws.onopen = () => {
      this.retry = 0;
      ws.send(JSON.stringify({ type: "hello", token: this.token || null }));
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
      this.onMessage(msg);
    };
    ws.onclose = () => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws || this.closed) return;
      this.onStatus("closed");
      const delay = Math.min(5000, 500 * 2 ** this.retry++);
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
