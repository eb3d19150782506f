// tournaments.js -- the lobby's list of running tournaments (GET
// /api/tournaments, newest first), each a link to its page.
import { el } from "../dom.js";
import { gameLabel } from "../games/catalog.js";

export function runningTournaments(app) {
  const list = el("ul", { class: "tournaments" });
  const panel = el("section", { class: "panel" }, el("h2", {}, "Running tournaments"), list);
  app.getJson("/api/tournaments?limit=20").then((page) => {
    const running = page.items.filter((t) => t.status === "running");
    list.replaceChildren(...running.map((t) => el("li", {},
      el("a", { href: `#/tournament/${t.id}` }, t.name), ` — ${gameLabel(t.game)} ${t.mode}, ${t.format}`)));
    if (running.length === 0) list.replaceChildren(el("li", { class: "muted" }, "None right now."));
  }, app.showError);
  return panel;
}
