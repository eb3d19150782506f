// quick_play.js -- the lobby's quick play: queue.join for a game and mode,
// "waiting" while the server looks for opponents, Cancel (queue.leave),
// and the room page as soon as the server seats the player (its `room`
// event of a started room). Leaving the lobby leaves the queue.
import { el } from "../dom.js";
import { GAMES } from "../games/catalog.js";

/* The panel and a stop function (leaves the queue if still in it). */
export function quickPlay(app) {
  const choices = Object.entries(GAMES).flatMap(([game, info]) =>
    info.quickModes.map((mode) => el("option", { value: `${game}/${mode}` }, `${info.label} ${mode}`)));
  const choice = el("select", { name: "quick", "aria-label": "Game and mode for quick play" }, choices);
  const play = el("button", { type: "button", class: "primary" }, "Quick play");
  const cancel = el("button", { type: "button", hidden: true }, "Cancel");
  const waiting = el("span", { class: "queue-status muted", role: "status" });
  const panel = el("section", { class: "panel quick-play" },
    el("h2", {}, "Quick play"),
    el("p", { class: "muted" }, "Get matched with players near your rating; bots fill the seats after 30 s."),
    el("div", { class: "row" }, choice, play, cancel, waiting));
  let queued = false;
  const show = (text) => {
    waiting.textContent = text;
    play.hidden = queued;
    cancel.hidden = !queued;
    choice.disabled = queued;
  };
  play.addEventListener("click", async () => {
    const [game, mode] = choice.value.split("/");
    try {
      const joined = await app.connection.request({ type: "queue.join", game, mode });
      queued = true;
      show(`Waiting for opponents… (${joined.waiting} in the queue)`);
    } catch (error) {
      app.showError(error);
    }
  });
  const leave = async () => {
    queued = false;
    show("");
    try {
      await app.connection.request({ type: "queue.leave" });
    } catch (error) {
      if (error.code !== "not_queued") app.showError(error);
    }
  };
  cancel.addEventListener("click", leave);
  const unsubscribe = app.connection.on("room", (event) => {
    if (!queued || event.room.status !== "playing") return;
    queued = false;
    location.hash = `#/room/${event.room.id}`;
  });
  return {
    panel,
    stop: () => {
      unsubscribe();
      if (queued) leave();
    },
  };
}
