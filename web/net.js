// net.js -- the client's two channels to the server: one websocket (the
// protocol of docs/PROTOCOL.md) and plain fetches of the REST API.
//
// The socket signs in with the token kept in localStorage, so a reload
// keeps the player's seats; it reconnects on a drop (1 s, 2 s, ... up to
// 10 s) and says so through onStatus. request() sends a message with a
// fresh id and resolves with the reply carrying that id (rejects with an
// Error holding the server's code and message); on() listens to events.

const TOKEN_KEY = "tessera.token";
const NAME_KEY = "tessera.name";

export class ServerError extends Error {
  constructor(reply) {
    super(reply.message || reply.code);
    this.code = reply.code;
    this.reason = reply.reason;
  }
}

export class Connection {
  constructor({ onStatus = () => {} } = {}) {
    this.onStatus = onStatus;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = new Map();
    this.player = null;
    this.retry = 0;
    this.ready = new Promise((resolve) => { this.markReady = resolve; });
  }

  get name() { return localStorage.getItem(NAME_KEY) || ""; }

  /* Opens the socket and signs in (as the stored token, else a new guest). */
  open() {
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.onopen = () => this.signIn();
    socket.onmessage = (event) => this.receive(JSON.parse(event.data));
    socket.onclose = () => this.dropped(socket);
  }

  async signIn() {
    const token = localStorage.getItem(TOKEN_KEY);
    const name = this.name || `guest-${Math.floor(Math.random() * 9000 + 1000)}`;
    let welcome;
    try {
      welcome = await this.request(token ? { type: "hello", name, token } : { type: "hello", name });
    } catch (error) {
      if (error.code !== "unauthorized" || !token) throw error;
      localStorage.removeItem(TOKEN_KEY); /* a token of another database: start afresh */
      welcome = await this.request({ type: "hello", name });
    }
    this.adopt(welcome);
  }

  /* A welcome: who we are now, remembered for the next visit. */
  adopt(welcome) {
    this.player = welcome.player;
    if (welcome.token) localStorage.setItem(TOKEN_KEY, welcome.token);
    localStorage.setItem(NAME_KEY, welcome.player.name);
    this.retry = 0;
    this.onStatus("");
    this.emit("welcome", welcome);
    this.markReady();
  }

  dropped(socket) {
    if (socket !== this.socket) return;
    for (const { reject } of this.pending.values()) reject(new ServerError({ code: "disconnected", message: "the connection to the server was lost" }));
    this.pending.clear();
    const delay = Math.min(10, 2 ** this.retry++);
    this.onStatus(`Connection lost. Reconnecting in ${delay} s…`);
    setTimeout(() => this.open(), delay * 1000);
  }

  receive(message) {
    const waiting = message.id !== undefined && this.pending.get(message.id);
    if (waiting) {
      this.pending.delete(message.id);
      if (message.type === "error") waiting.reject(new ServerError(message));
      else waiting.resolve(message);
      return;
    }
    if (message.type === "error") this.emit("error", message);
    this.emit(message.type, message);
  }

  request(message) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
        reject(new ServerError({ code: "disconnected", message: "not connected to the server" }));
        return;
      }
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ ...message, id }));
    });
  }

  /* Calls fn(message) for every event of `type`; returns the way to stop. */
  on(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(fn);
    return () => this.listeners.get(type).delete(fn);
  }

  emit(type, message) {
    for (const fn of this.listeners.get(type) || []) fn(message);
  }
}

/* GET of the REST API: the JSON answer, or throws a ServerError. */
export async function getJson(path) {
  const answer = await fetch(path, { headers: { Accept: "application/json" } });
  const body = await answer.json().catch(() => ({ code: "bad_answer", message: `${path}: ${answer.status}` }));
  if (!answer.ok) throw new ServerError(body.error || body);
  return body;
}
