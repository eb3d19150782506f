// room_list.js -- the lobby's live list of public rooms. The protocol has
// no push for the list (rooms.list is a request), so it is asked again
// every few seconds while the lobby is shown. Each row offers Join (the
// first empty seat of a waiting room) and Watch (spectate; the room page
// joins as a spectator), or Open for a room where the player has a seat;
// a finished room offers its Result. Live rooms come first: waiting, then
// playing, then finished (each in the server's order).
import { el } from "../dom.js";
import { gameLabel, seatName } from "../games/catalog.js";
import { firstEmptySeat, mySeat, takeSeat } from "../room/membership.js";

const REFRESH_MS = 3000;
const STATUS_ORDER = { waiting: 0, playing: 1, finished: 2 };

/* The panel and a stop function (ends the refreshing). */
export function roomList(app) {
  const body = el("tbody");
  const empty = el("p", { class: "muted", hidden: true }, "No public rooms yet: create one or use quick play.");
  const panel = el("section", { class: "panel rooms", "aria-busy": "true" },
    el("h2", {}, "Rooms"),
    el("table", {},
      el("thead", {}, el("tr", {}, ["Game", "Mode", "Seats", "Status", "Watching", ""].map((h) => el("th", {}, h)))),
      body),
    empty);
  let timer = null;
  let stopped = false;
  const refresh = async () => {
    try {
      const reply = await app.connection.request({ type: "rooms.list", limit: 50 });
      const rooms = [...reply.rooms].sort((a, b) => (STATUS_ORDER[a.status] ?? 3) - (STATUS_ORDER[b.status] ?? 3));
      body.replaceChildren(...rooms.map((room) => roomRow(room, app)));
      empty.hidden = reply.rooms.length > 0;
      panel.setAttribute("aria-busy", "false");
    } catch (error) {
      if (error.code !== "disconnected") app.showError(error);
    }
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
  };
  app.connection.ready.then(refresh);
  return { panel, stop: () => { stopped = true; clearTimeout(timer); } };
}

function roomRow(room, app) {
  const free = firstEmptySeat(room);
  const canJoin = room.status === "waiting" && free !== null;
  const isMine = mySeat(room, app.connection) !== null;
  const open = () => { location.hash = `#/room/${room.id}`; };
  const join = async () => {
    try {
      await takeSeat(app.connection, room.id, free);
      location.hash = `#/room/${room.id}`;
    } catch (error) {
      app.showError(error);
    }
  };
  return el("tr", { "data-room": room.id },
    el("td", { class: "room-game" }, gameLabel(room.game)),
    el("td", { class: "room-mode" }, room.mode),
    el("td", { class: "room-seats" }, room.seats.map(seatName).join(", ")),
    el("td", { class: "room-state" }, room.status),
    el("td", { class: "room-watching" }, String(room.spectators)),
    el("td", { class: "actions" },
      isMine && el("button", { type: "button", class: "primary", onclick: open }, "Open"),
      canJoin && !isMine && el("button", { type: "button", class: "primary", onclick: join }, "Join"),
      !isMine && el("button", { type: "button", onclick: open }, room.status === "finished" ? "Result" : "Watch")));
}
