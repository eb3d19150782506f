// driver.mjs -- plays real games over the websocket protocol for the
// history tests, from inside Chromium (Node 20 has no WebSocket client and
// the tests add no dependency): a blank tab that runs no client opens its
// own socket to the server and speaks docs/PROTOCOL.md.
//
// playGame(browser, server, options) signs in, creates a room, takes seat
// 0, fills the other seats with built-in bots, starts, then either resigns
// at once or plays the first legal move of every turn until the game ends.
// It answers {room, player, token, finalState, over}: the last game.state
// it saw (status "finished") and the game.over event.

/* Runs in the page: one game, as described above. */
async function playInPage({ url, signIn, room: settings, bots, finish }) {
  const socket = new WebSocket(url);
  const messages = [];
  const waiters = [];
  let nextId = 1;
  socket.onmessage = (event) => {
    messages.push(JSON.parse(event.data));
    for (const wake of waiters.splice(0)) wake();
  };
  await new Promise((resolve, reject) => { socket.onopen = resolve; socket.onerror = reject; });

  /* The first message at index >= from that matches; resolves with [message, index]. */
  async function waitFor(matches, from = 0) {
    for (;;) {
      const index = messages.findIndex((message, i) => i >= from && matches(message));
      if (index >= 0) return [messages[index], index];
      await new Promise((wake) => waiters.push(wake));
    }
  }
  /* The reply; an error throws unless its code is one of `expected`. */
  async function request(message, expected = []) {
    const id = nextId++;
    socket.send(JSON.stringify({ ...message, id }));
    const [reply] = await waitFor((m) => m.id === id);
    if (reply.type === "error" && !expected.includes(reply.code)) throw new Error(`${message.type}: ${reply.code}: ${reply.message}`);
    return reply;
  }

  const welcome = await request(signIn);
  const created = await request({ type: "room.create", ...settings });
  const code = created.room.id;
  await request({ type: "room.join", room: code, seat: 0 });
  for (const [seat, bot] of bots.entries()) await request({ type: "room.add_bot", room: code, seat: seat + 1, bot });
  await request({ type: "room.start", room: code });
  if (finish === "resign") await request({ type: "game.resign", room: code });

  let cursor = 0;
  let state;
  for (;;) {
    [state, cursor] = await waitFor((m) => m.type === "game.state" && m.room === code, cursor);
    cursor++;
    if (state.status === "finished") break;
    const myTurn = state.game === "blokus" ? state.to_move?.seat === 0 : state.boards[0].phase === "playing";
    if (finish !== "first-legal" || !myTurn) continue;
    /* The game may have ended since this state (a Reef race's last bot move). */
    const legal = await request({ type: "game.moves", room: code }, ["game_over"]);
    if (legal.moves?.length) await request({ type: "game.move", room: code, ply: legal.ply, action: legal.moves[0] });
  }
  const [over] = await waitFor((m) => m.type === "game.over" && m.room === code);
  socket.close();
  return { room: code, player: welcome.player, token: welcome.token, finalState: state, over };
}

/* Plays one game in a fresh tab of `browser` (an openBrowser() result).
 * options: signIn (the hello or account.register message), room (the
 * room.create fields), bots (kinds for seats 1, 2, ...), finish ("resign" or
 * "first-legal"). */
export async function playGame(browser, server, options) {
  const page = await browser.context.newPage();
  try {
    return await page.evaluate(playInPage, { url: `ws://127.0.0.1:${server.port}/ws`, ...options });
  } finally {
    await page.close();
  }
}

/* The newest finished game's id (the tests' servers are fresh, so this is
 * the game just played). */
export async function latestGameId(server, query = "") {
  const answer = await fetch(`${server.url}/api/games?status=finished&limit=1${query}`);
  const { items } = await answer.json();
  return items[0].id;
}
