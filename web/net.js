// net.js -- the client's two channels to the server: one websocket (the
// protocol of docs/PROTOCOL.md) and plain fetches of the REST API.
//
// The socket signs in with the token kept in localStorage, so a reload
// keeps the player's seats; it reconnects on a drop (1 s, 2 s, ... up to
// 10 s) and says so through onStatus. request() sends a message with a
// fresh id and resolves with the reply carrying that id (rejects with an
// Error holding the server's code and message); on() listens to events.
//
// Several instances (docs/PROTOCOL.md, `moved`): while the page shows a
// room (currentRoom(), given by the shell), the socket connects to
// /ws?room=CODE, which the proxy routes to the room's owner. A `moved`
// answer or event makes the connection follow: after retry_ms it opens a
// socket to the named url, says hello with the token, sends again the
// request that got `moved` (room.join, room.rematch, queue.join: quick
// play lives on one instance, and its `moved` names no room; tournament.watch
// and .cancel, whose `moved` names the tournament) and settles its
// promise with the new answer; the old socket is closed, and "welcome"
// lets every page enter again as after a reconnect. At most MAX_MOVES
// moves in a row without a room answer, the same place waited for longer
// each time it comes back; then the move is given up with a clear error.
//
// Accounts: register() makes the signed-in guest a named account (its seats
// and games stay its own); signInAccount() says hello with a name and a
// password on a fresh socket (a connection says hello once); signOut()
// forgets the token and comes back as a new guest.

const TOKEN_KEY = "tessera.token";
const NAME_KEY = "tessera.name";
const ACCOUNT_KEY = "tessera.account";
const MAX_MOVES = 8;
const REPEAT_DELAY_MS = 250; /* the least wait before a place we were already sent to, doubling */
const MAX_REPEAT_DELAY_MS = 8000;

export class ServerError extends Error {
  constructor(reply) {
    super(reply.message || reply.code);
    this.code = reply.code;
    this.reason = reply.reason;
  }
}

export class Connection {
  constructor({ onStatus = () => {}, currentRoom = () => null } = {}) {
    this.onStatus = onStatus;
    this.currentRoom = currentRoom;
    this.moves = new Map(); /* url -> times a `moved` sent us there since the last room answer */
    this.lastMove = null; /* {room, url}: where that room was last said to live */
    this.following = null; /* the request to send again once the move's socket signed in */
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = new Map();
    this.player = null;
    this.retry = 0;
    this.ready = new Promise((resolve) => { this.markReady = resolve; });
  }

  get name() { return localStorage.getItem(NAME_KEY) || ""; }

  /* Whether this browser is signed in to a named account (not a guest). */
  get isAccount() { return localStorage.getItem(ACCOUNT_KEY) === "1"; }

  /* Where to connect: the shown room's owner (where a `moved` said it
   * lives, else where the proxy routes its code), or any instance. */
  socketPath() {
    const room = this.currentRoom();
    if (!room) return "/ws";
    if (this.lastMove?.room === room) return this.lastMove.url;
    return `/ws?room=${encodeURIComponent(room)}`;
  }

  /* Opens the socket at `path` and signs in (as the stored token, else a new guest). */
  open(path = this.socketPath()) {
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`;
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.onopen = () => this.signIn();
    socket.onmessage = (event) => socket === this.socket && this.receive(JSON.parse(event.data));
    socket.onclose = () => this.dropped(socket);
  }

  /* The socket is open: sign in with the credentials reopen() was given,
   * else as before; settles the promise reopen() returned. A hello failed
   * because its socket was replaced meanwhile (a `moved` came first, or a
   * reopen) is no error: the new socket signs in, and sends the request
   * to send again. */
  async signIn() {
    const socket = this.socket;
    const { credentials, settle } = this.reopening || {};
    this.reopening = null;
    if (credentials) {
      try {
        const welcome = await this.request(credentials);
        localStorage.setItem(ACCOUNT_KEY, "1");
        this.adopt(welcome);
        settle.resolve(welcome);
        return;
      } catch (error) {
        settle.reject(error); /* refused: sign in as we were, below */
        if (this.socket !== socket) return;
      }
    }
    const following = this.following;
    this.following = null;
    try {
      const welcome = await this.signInAsBefore();
      this.adopt(welcome);
      if (!credentials) settle?.resolve(welcome);
    } catch (error) {
      if (this.socket !== socket) {
        if (following && !this.following) this.following = following;
        else following?.reject(error);
        return;
      }
      following?.reject(error);
      if (!settle) throw error;
      settle.reject(error);
      return;
    }
    if (following) this.request(following.message).then(following.resolve, following.reject);
  }

  /* hello with the stored token, else as a new guest. */
  async signInAsBefore() {
    const token = localStorage.getItem(TOKEN_KEY);
    if (!token) return this.helloAsGuest();
    try {
      return await this.request({ type: "hello", name: this.name || "guest", token });
    } catch (error) {
      if (error.code !== "unauthorized") throw error;
      /* a token of another database, or of an account signed in elsewhere since: start afresh */
      localStorage.removeItem(TOKEN_KEY);
      localStorage.removeItem(ACCOUNT_KEY);
      return this.helloAsGuest();
    }
  }

  /* A new guest under the name we had, unless the server refuses it (guests
   * follow the account name rules, and an account's or a bot's name is
   * theirs alone): then under a fresh guest-NNNN. */
  async helloAsGuest() {
    const fresh = () => `guest-${Math.floor(Math.random() * 9000 + 1000)}`;
    const name = this.name;
    try {
      return await this.request({ type: "hello", name: name || fresh() });
    } catch (error) {
      if (!name || (error.code !== "name_taken" && error.code !== "bad_message")) throw error;
      return this.request({ type: "hello", name: fresh() });
    }
  }

  /* Makes the signed-in guest the named account `name`; resolves with the welcome. */
  async register(name, password) {
    const welcome = await this.request({ type: "account.register", name, password });
    localStorage.setItem(ACCOUNT_KEY, "1");
    this.adopt(welcome);
    return welcome;
  }

  /* Signs in to the named account on a new socket; resolves with the
   * welcome, or rejects (wrong password...) staying who we were. */
  signInAccount(name, password) {
    return this.reopen({ type: "hello", name, password });
  }

  /* Forgets who we were and signs in as a new guest. */
  signOut() {
    for (const key of [TOKEN_KEY, NAME_KEY, ACCOUNT_KEY]) localStorage.removeItem(key);
    return this.reopen(null);
  }

  /* Replaces the socket by a new one that signs in with `credentials` (a
   * hello message) or as before; the promise settles with that sign-in. */
  reopen(credentials) {
    const old = this.socket;
    this.socket = null; /* so dropped() ignores the old socket's close */
    this.failPending("signed in again on a new connection");
    if (old) old.close();
    const signedIn = new Promise((resolve, reject) => {
      this.reopening = { credentials, settle: { resolve, reject } };
    });
    this.open();
    return signedIn;
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
    this.failPending("the connection to the server was lost");
    const delay = Math.min(10, 2 ** this.retry++);
    this.onStatus(`Connection lost. Reconnecting in ${delay} s…`);
    setTimeout(() => this.open(), delay * 1000);
  }

  /* `moved`: the room lives on another instance (see the module comment).
   * `waiting` is the pending request it answered, or null for an event. */
  follow(moved, waiting) {
    const times = (this.moves.get(moved.url) || 0) + 1;
    const moves = [...this.moves.values()].reduce((sum, count) => sum + count, 1);
    const retry = moved.retry_ms ?? 0;
    const isQueue = moved.room === undefined; /* quick play's or a tournament's instance, not a room's */
    const what = !isQueue ? `room ${moved.room}` : moved.tournament !== undefined ? `tournament ${moved.tournament}` : "quick play";
    const problem = typeof moved.url !== "string" || !moved.url.startsWith("/") || !(isQueue || typeof moved.room === "string") || !(retry >= 0)
      ? `the server sent a moved that names no place to go (${JSON.stringify(moved)})`
      : moves > MAX_MOVES
        ? `${what} was moved ${MAX_MOVES} times in a row without opening; reload the page to try again`
        : null;
    if (problem) { /* given up until a room answer (or a reload) */
      const error = new ServerError({ code: "moved", message: `Cannot open ${isQueue ? what : "the room"}: ${problem}.` });
      if (waiting) waiting.reject(error);
      else this.emit("error", error);
      return;
    }
    this.moves.set(moved.url, times);
    this.lastMove = { room: moved.room ?? null, url: moved.url };
    this.following = waiting;
    const old = this.socket;
    this.socket = null; /* so dropped() ignores the old socket's close */
    this.failPending("the connection moved to the room's server");
    old?.close();
    const least = times > 1 ? Math.min(MAX_REPEAT_DELAY_MS, REPEAT_DELAY_MS * 2 ** (times - 2)) : 0;
    this.onStatus("Reconnecting…");
    setTimeout(() => this.open(moved.url), Math.max(retry, least));
  }

  failPending(message) {
    for (const { reject } of this.pending.values()) reject(new ServerError({ code: "disconnected", message }));
    this.pending.clear();
  }

  receive(message) {
    const waiting = message.id !== undefined && this.pending.get(message.id);
    if (waiting) this.pending.delete(message.id);
    if (message.type === "moved") {
      this.follow(message, waiting || null);
      return;
    }
    if (waiting) {
      if (["room", "queue.joined", "tournament"].includes(message.type)) this.moves.clear(); /* the move, if any, is over */
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
      this.pending.set(id, { resolve, reject, message });
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
