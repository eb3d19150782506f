// tournament.js -- the tournaments (#/tournaments, a paged list) and one
// tournament (#/tournament/ID): its standings and its schedule, each game
// linking to its live room while it plays and to its replay once stored.
//
// The page starts from GET /api/tournaments/ID. While the tournament runs
// it also watches it over the websocket (tournament.watch): every
// tournament.game / .standings / .finished / .cancelled event carries the new view, so
// the standings move live; as an event does not say which game ended, the
// schedule is read again from REST after each. After a reconnect (welcome)
// the page watches again.
import { el } from "../dom.js";
import { formatDate, formatNumber, pagedList, playerLink, replayLink, table } from "../ui.js";

/* How far the games scheduled so far are: "1 finished, 1 playing, 2 to
 * play" ("planned" counts every scheduled game, the finished ones too). */
function progressText({ planned, finished, playing }) {
  const toPlay = planned - finished - playing;
  return [`${finished} finished`, playing > 0 && `${playing} playing`, toPlay > 0 && `${toPlay} to play`].filter(Boolean).join(", ");
}

const EVENTS = ["tournament.game", "tournament.standings", "tournament.finished", "tournament.cancelled"];

function gameName(view) {
  return `${view.game === "blokus" ? "Blokus" : "Reef Builder"} ${view.mode}`;
}

function mountList(root, app) {
  const body = el("tbody");
  const render = (page, append) => {
    const rows = page.items.map((item) => el("tr", {},
      el("td", {}, el("a", { href: `#/tournament/${item.id}` }, item.name)),
      el("td", {}, gameName(item)),
      el("td", {}, item.format),
      el("td", {}, el("span", { class: `badge ${item.status}` }, item.status)),
      el("td", {}, formatDate(item.created_at_ms))));
    if (!append) body.replaceChildren();
    body.append(...rows);
    if (!body.children.length) body.append(el("tr", {}, el("td", { colspan: 5, class: "muted" }, "No tournaments yet.")));
  };
  const list = pagedList(app, () => "/api/tournaments", render);
  root.append(el("h1", {}, "Tournaments"),
    el("div", { class: "panel table-scroll" }, el("table", { class: "tournaments" },
      el("thead", {}, el("tr", {}, ["Name", "Game", "Format", "Status", "Created"].map((text) => el("th", { scope: "col" }, text)))),
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
    if (game.status === "playing" && game.room) link = el("a", { href: `#/room/${game.room}` }, "watch live");
    else if (game.status === "finished" && game.game_id) link = replayLink(game.game_id, "replay");
    const players = game.entries.flatMap((entry, i) => [i ? ", " : "", playerLink(nameOf.get(entry))]);
    return [String(game.number + 1), String(game.round + 1), el("span", {}, players), game.status, link];
  });
  return table(["Game", "Round", "Seats", "Status", ""], rows, { className: "schedule" });
}

async function mountOne(root, id, app) {
  const header = el("div");
  const standings = el("section", { class: "panel table-scroll" });
  const schedule = el("section", { class: "panel table-scroll" });
  let lastStandings = [];

  function showView(view) {
    lastStandings = view.standings;
    header.replaceChildren(
      el("h1", {}, view.name, " ", el("span", { class: `badge ${view.status}` }, view.status)),
      el("p", { class: "muted" }, `${gameName(view)} · ${view.format} · seed ${view.seed} · started ${formatDate(view.created_at_ms)}`,
        view.finished_at_ms ? ` · finished ${formatDate(view.finished_at_ms)}` : ""),
      el("p", { class: "tournament-progress" }, `Games: ${progressText(view.games)}`));
    standings.replaceChildren(el("h2", {}, "Standings"), standingsTable(view));
  }
  function showSchedule(view) {
    schedule.replaceChildren(el("h2", {}, "Schedule"), scheduleTable(view.schedule, lastStandings));
  }
  async function refetchSchedule() {
    showSchedule(await app.getJson(`/api/tournaments/${id}`));
  }

  const first = await app.getJson(`/api/tournaments/${id}`);
  showView(first);
  showSchedule(first);
  root.append(header, el("div", { class: "two-columns" }, standings, schedule));
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
