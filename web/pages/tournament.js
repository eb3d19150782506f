// tournament.js -- the tournaments (#/tournaments, a paged list) and one
// tournament (#/tournament/ID): its standings and its schedule, each game
// linking to its live room while it plays and to its replay once stored.
//
// The page starts from GET /api/tournaments/ID. While the tournament runs
// it also watches it over the websocket (tournament.watch): every
// tournament.game / .standings / .finished event carries the new view, so
// the standings move live; as an event does not say which game ended, the
// schedule is read again from REST after each. After a reconnect (welcome)
// the page watches again.
import { formatDate, formatNumber, h, pagedList, playerLink, replayLink, table } from "../ui.js";

const EVENTS = ["tournament.game", "tournament.standings", "tournament.finished"];

function gameName(view) {
  return `${view.game === "blokus" ? "Blokus" : "Reef Builder"} ${view.mode}`;
}

function mountList(root, app) {
  const body = h("tbody");
  const render = (page, append) => {
    const rows = page.items.map((item) => h("tr", {},
      h("td", {}, h("a", { href: `#/tournament/${item.id}` }, item.name)),
      h("td", {}, gameName(item)),
      h("td", {}, item.format),
      h("td", {}, h("span", { class: `badge ${item.status}` }, item.status)),
      h("td", {}, formatDate(item.created_at_ms))));
    if (!append) body.replaceChildren();
    body.append(...rows);
    if (!body.children.length) body.append(h("tr", {}, h("td", { colspan: 5, class: "muted" }, "No tournaments yet.")));
  };
  const list = pagedList(app, () => "/api/tournaments", render);
  root.append(h("h1", {}, "Tournaments"),
    h("div", { class: "panel table-scroll" }, h("table", { class: "tournaments" },
      h("thead", {}, h("tr", {}, ["Name", "Game", "Format", "Status", "Created"].map((text) => h("th", { scope: "col" }, text)))),
      body), list.more));
  list.load();
}

function standingsTable(view) {
  const rows = view.standings.map((entry) => [String(entry.rank), playerLink(entry.player), formatNumber(entry.points, 1),
    String(entry.games), String(entry.wins), formatNumber(entry.average_score), String(entry.games_left)]);
  return table(["Rank", "Entry", "Points", "Games", "Wins", "Avg score", "Left"], rows, { className: "standings" });
}

function scheduleTable(schedule, standings) {
  const nameOf = new Map(standings.map((entry) => [entry.entry, entry.player]));
  const rows = schedule.map((game) => {
    let link = "";
    if (game.status === "playing" && game.room) link = h("a", { href: `#/room/${game.room}` }, "watch live");
    else if (game.status === "finished" && game.game_id) link = replayLink(game.game_id, "replay");
    const players = game.entries.flatMap((entry, i) => [i ? ", " : "", playerLink(nameOf.get(entry))]);
    return [String(game.number + 1), String(game.round + 1), h("span", {}, players), game.status, link];
  });
  return table(["Game", "Round", "Seats", "Status", ""], rows, { className: "schedule" });
}

async function mountOne(root, id, app) {
  const header = h("div");
  const standings = h("section", { class: "panel table-scroll" });
  const schedule = h("section", { class: "panel table-scroll" });
  let lastStandings = [];

  function showView(view) {
    lastStandings = view.standings;
    header.replaceChildren(
      h("h1", {}, view.name, " ", h("span", { class: `badge ${view.status}` }, view.status)),
      h("p", { class: "muted" }, `${gameName(view)} · ${view.format} · seed ${view.seed} · started ${formatDate(view.created_at_ms)}`,
        view.finished_at_ms ? ` · finished ${formatDate(view.finished_at_ms)}` : ""),
      h("p", { class: "tournament-progress" },
        `Games: ${view.games.finished} finished, ${view.games.playing} playing, ${view.games.planned} planned`));
    standings.replaceChildren(h("h2", {}, "Standings"), standingsTable(view));
  }
  function showSchedule(view) {
    schedule.replaceChildren(h("h2", {}, "Schedule"), scheduleTable(view.schedule, lastStandings));
  }
  async function refetchSchedule() {
    showSchedule(await app.getJson(`/api/tournaments/${id}`));
  }

  const first = await app.getJson(`/api/tournaments/${id}`);
  showView(first);
  showSchedule(first);
  root.append(header, h("div", { class: "two-columns" }, standings, schedule));
  if (first.status !== "running") return null;

  async function watch() {
    try {
      const reply = await app.connection.request({ type: "tournament.watch", tournament: Number(id) });
      showView(reply.tournament);
      showSchedule(reply.tournament);
    } catch (error) {
      if (error.code !== "no_such_tournament") throw error;
      const final = await app.getJson(`/api/tournaments/${id}`); /* it finished meanwhile */
      showView(final);
      showSchedule(final);
    }
  }
  const onEvent = (event) => {
    if (event.tournament.id !== Number(id)) return;
    showView(event.tournament);
    refetchSchedule().catch(app.showError);
  };
  const stops = EVENTS.map((type) => app.connection.on(type, onEvent));
  stops.push(app.connection.on("welcome", () => watch().catch(app.showError)));
  if (app.connection.player) watch().catch(app.showError); /* else the first welcome will */
  return () => stops.forEach((stop) => stop());
}

export function mount(root, [id], app) {
  if (id === undefined) return mountList(root, app);
  return mountOne(root, id, app);
}
