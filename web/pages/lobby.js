// lobby.js -- the landing page (#/): create a room, quick play, the live
// list of public rooms (Join / Watch) and the running tournaments.
//
// Stable hooks (browser tests and the other game views rely on them):
//   form#create-room        select[name=game] (blokus, reef-builder),
//                           select[name=mode], select[name=scoring] (Blokus),
//                           input[name=max_turns] (Reef), input[name=clock_minutes],
//                           input[name=increment_seconds], select[name=timeout],
//                           input[name=seed], input[name=private] (checkbox),
//                           and the submit button "Create room". After creating,
//                           the player holds seat 0 and the page is #/room/CODE.
//   .rooms tr[data-room=CODE]  one public room, with buttons "Join" / "Watch"
//                           (or "Open" where the player holds a seat).
//   .quick-play             select[name=quick] ("blokus/4p", ...), "Quick play",
//                           "Cancel", and .queue-status while waiting.
import { createRoomForm } from "../lobby/create_form.js";
import { quickPlay } from "../lobby/quick_play.js";
import { roomList } from "../lobby/room_list.js";
import { runningTournaments } from "../lobby/tournaments.js";
import { el } from "../dom.js";

export function mount(root, _params, app) {
  const rooms = roomList(app);
  const quick = quickPlay(app);
  root.append(el("h1", { class: "visually-hidden" }, "Play Blokus or Reef Builder"), el("div", { class: "lobby" },
    el("div", { class: "lobby-side" }, createRoomForm(app), quick.panel),
    el("div", { class: "lobby-main" }, rooms.panel, runningTournaments(app))));
  return () => {
    rooms.stop();
    quick.stop();
  };
}
