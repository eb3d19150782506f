// my_games.js -- the signed-in player's own games (#/me), reached from the
// header's "My games": for a guest too, who has no player page. The games
// are GET /api/games?player_id=ID (docs/API.md), each linking to its replay;
// an account also gets a link to its player page. A guest who has never
// taken a seat has no player id yet, so no games. Signing in or out (a new
// welcome) redraws the page for whoever is signed in then.
import { el } from "../dom.js";
import { gamesPanel } from "../ui.js";

function draw(root, app) {
  const player = app.connection.player;
  const hasId = player?.id !== null && player?.id !== undefined;
  root.replaceChildren(
    el("h1", {}, "My games"),
    el("p", { class: "muted" }, `Signed in as ${player.name}`,
      app.connection.isAccount ? [" · ", el("a", { href: `#/player/${encodeURIComponent(player.name)}` }, "your player page")] : " (a guest: sign in to keep these games under a name)"),
    hasId ? gamesPanel(app, player.id, `player_id=${player.id}`) : el("p", {}, "No games yet: create a room or use quick play in the lobby."));
}

export async function mount(root, params, app) {
  await app.connection.ready;
  draw(root, app);
  return app.connection.on("welcome", () => draw(root, app));
}
