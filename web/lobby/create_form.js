// create_form.js -- the lobby's "New room" form: every room.create option
// (game, mode, scoring, clock and timeout policy, seed, private, Reef's
// turn cap). Options of the other game are disabled, so they are neither
// shown nor sent. On submit it creates the room, takes seat 0 and opens
// the room page (#/room/CODE).
import { el, options } from "../dom.js";
import { GAMES } from "../games/catalog.js";
import { takeSeat } from "../room/membership.js";

export function createRoomForm(app) {
  const mode = el("select", { name: "mode" });
  const game = el("select", { name: "game" }, options(Object.entries(GAMES).map(([key, info]) => [key, info.label]), "blokus"));
  const blokusOnly = el("fieldset", { class: "plain blokus-only" },
    label("Scoring", el("select", { name: "scoring" }, options([["squares", "squares placed"], ["official", "official (−1 per square left)"]], "squares"))));
  const reefOnly = el("fieldset", { class: "plain reef-only" },
    label("Turn cap", el("input", { name: "max_turns", type: "number", min: 1, max: 1000000, placeholder: "1000" })));
  const form = el("form", { id: "create-room", class: "panel form-grid" },
    el("h2", {}, "New room"),
    label("Game", game),
    label("Mode", mode),
    blokusOnly,
    reefOnly,
    label("Clock (minutes)", el("input", { name: "clock_minutes", type: "number", min: 0, step: "any", placeholder: "no clock" })),
    label("Increment (seconds)", el("input", { name: "increment_seconds", type: "number", min: 0, step: "any", placeholder: "0" })),
    label("When a clock runs out", el("select", { name: "timeout" }, options([["bot", "a bot moves"], ["pass", "the turn is passed"]], "bot"))),
    label("Seed", el("input", { name: "seed", inputmode: "numeric", pattern: "[0-9]*", placeholder: "random" })),
    el("label", { class: "check" }, el("input", { name: "private", type: "checkbox" }), " Private (invite by link)"),
    el("button", { type: "submit", class: "primary" }, "Create room"));

  const showGame = () => {
    mode.replaceChildren(...options(GAMES[game.value].modes, GAMES[game.value].modes[0][0]));
    blokusOnly.disabled = blokusOnly.hidden = game.value !== "blokus";
    reefOnly.disabled = reefOnly.hidden = game.value === "blokus";
  };
  game.addEventListener("change", showGame);
  showGame();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const submit = form.querySelector("button[type=submit]");
    submit.disabled = true;
    try {
      const created = await app.connection.request(createRequest(new FormData(form)));
      await takeSeat(app.connection, created.room.id, 0);
      location.hash = `#/room/${created.room.id}`;
    } catch (error) {
      app.showError(error);
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

function label(text, control) {
  return el("label", {}, el("span", {}, text), control);
}

/* The room.create message of the form's fields (docs/PROTOCOL.md). */
function createRequest(data) {
  const request = { type: "room.create", game: data.get("game"), mode: data.get("mode") };
  if (data.has("scoring")) request.scoring = data.get("scoring");
  if (data.get("max_turns")) request.max_turns = Number(data.get("max_turns"));
  const minutes = Number(data.get("clock_minutes") || 0);
  if (minutes > 0) {
    const increment = Number(data.get("increment_seconds") || 0);
    request.clock = { initial_ms: Math.round(minutes * 60000), increment_ms: Math.round(increment * 1000) };
    request.timeout = data.get("timeout");
  }
  const seed = data.get("seed").trim();
  if (seed) request.seed = seed;
  if (data.get("private")) request.private = true;
  return request;
}
