// room.js -- one room (#/room/CODE): its seats, bots, start, clocks, whose
// turn, resign / leave, the game itself and the game-over summary.
//
// Entering sends room.join as a spectator: for a player who holds a seat
// that changes nothing and returns the full view (room + game.state), so
// the same request serves a first visit, a reload and a reconnect (it is
// sent again on every later "welcome"). A visitor of a waiting room gets
// "Sit here" on each empty seat.
//
// The game is drawn by a view module chosen by the game (games/blokus_view.js
// or games/reef_view.js, see createView there; the view calls the context's
// onDrawn once its first drawing is whole); this page hands it every
// game.state, game.moved event and game.over of the room, in order, through
// a pacer (room/pacer.js) that shows each Blokus move of another seat at
// least 300 ms after the move before it. The tab's title says "Your turn"
// while it is, and a sound (off by default, room/turn_sound.js) tells it
// as it begins. The
// view's container holds a placeholder until then (the empty Blokus board):
// createView replaces the container's children.
//
// Stable hooks: .room-status (its text contains "waiting", "playing" or
// "finished"), select[name=bot] with the button "Add bot" (fills the next
// empty seat) and "Start" (owner, waiting), "Resign" (a second click,
// "Really resign?", confirms), "Leave room", .seats
// li[data-seat=N], .turn, .game-over (the summary), and in it .again: the
// buttons "Rematch" (or "Join the rematch" once one is offered), "New game,
// same settings" and the link "Replay this game" (room/again.js); .guide,
// the game's rules and first-game guide (room/guide.js): "Got it" hides it
// for good, "How to play" shows it again.
//
// A keyboard keeps its place: when a render disables or hides the control
// holding the focus, the focus moves on (keepFocus) instead of to <body>.
import { el, options } from "../dom.js";
import { drawEmptyBlokus } from "../games/boards.js";
import { botChoices, gameLabel, seatColors } from "../games/catalog.js";
import { Clocks } from "../room/clocks.js";
import { newGameLike, rematch } from "../room/again.js";
import { gameGuide } from "../room/guide.js";
import { firstEmptySeat, mySeat, takeSeat } from "../room/membership.js";
import { seatList } from "../room/seats.js";
import { Pacer } from "../room/pacer.js";
import { playTurnSound, turnSoundToggle } from "../room/turn_sound.js";
import { skippedColors, turnLine } from "../room/turn.js";

const RESIGN_CONFIRM_MS = 4000;
const STATUS_TEXT = { waiting: "waiting for players", playing: "playing", finished: "finished" };

export async function mount(root, [code], app) {
  const { connection } = app;
  const room = new RoomPage(root, code, app);
  const stops = [
    connection.on("room", (event) => event.room.id === code && room.setRoom(event.room)),
    ...["game.state", "game.moved", "game.resigned", "game.over"].map((kind) =>
      connection.on(kind, (event) => event.room === code && room.pacer.push(kind, event))),
  ];
  await connection.ready;
  room.enter();
  stops.push(connection.on("welcome", () => room.enter()));
  return () => {
    stops.forEach((stop) => stop());
    room.destroy();
  };
}

class RoomPage {
  constructor(root, code, app) {
    this.code = code;
    this.app = app;
    this.connection = app.connection;
    this.room = null;
    this.state = null;
    this.result = null;
    this.summaryPanel = null;
    this.isLoadingResult = false;
    this.resignedSeats = new Set();
    this.outColors = new Set();
    this.viewChain = null;
    this.hasLeft = false;
    this.isGone = false; /* the page was left (destroy) */
    this.isGoingOn = false;
    this.wasMyTurn = false;
    this.build(root);
    this.clocks = new Clocks(this.side);
    this.pacer = new Pacer((kind, event, receivedAt) => this.apply(kind, event, receivedAt),
      (kind) => kind === "game.moved" && this.room?.game === "blokus");
  }

  /* One game event, when the pacer shows it. */
  apply(kind, event, receivedAt) {
    if (kind === "game.state") this.setState(event, receivedAt);
    else if (kind === "game.moved") this.moved(event);
    else if (kind === "game.resigned") this.resigned(event.seat, event.cause);
    else if (kind === "game.over") this.over(event.result);
  }

  build(root) {
    this.title = el("h1", { tabindex: -1 }, `Room ${this.code}`);
    this.status = el("span", { class: "room-status" }, "joining…");
    this.invite = el("div", { class: "invite", hidden: true },
      el("label", {}, "Invite link ", el("input", { readonly: true, value: `${location.origin}/#/room/${this.code}`, size: 34 })),
      el("button", { type: "button", onclick: () => this.copyInvite() }, "Copy link"));
    this.botKind = el("select", { name: "bot", "aria-label": "Bot kind" });
    this.addBotButton = el("button", { type: "button", onclick: () => this.addBot() }, "Add bot");
    this.startButton = el("button", { type: "button", class: "primary", onclick: () => this.act({ type: "room.start", room: this.code }) }, "Start");
    this.ownerControls = el("div", { class: "row owner-controls" }, this.botKind, this.addBotButton, this.startButton);
    this.resignButton = el("button", { type: "button", onclick: () => this.resign() }, "Resign");
    this.leaveButton = el("button", { type: "button", onclick: () => this.leave() }, "Leave room");
    this.turn = el("div", { class: "turn-slot", "aria-live": "polite" });
    this.seats = el("div", { class: "seat-slot" });
    this.lastEvent = el("p", { class: "last-event muted", "aria-live": "polite" });
    this.guide = el("div", { class: "guide-host" });
    this.summary = el("div", { class: "summary-slot" });
    this.again = el("div", { class: "again" });
    this.boardHost = el("div", { class: "game-host" });
    this.side = el("aside", { class: "room-side" },
      this.seats, this.ownerControls,
      el("div", { class: "row" }, this.resignButton, this.leaveButton),
      turnSoundToggle(), this.lastEvent, this.guide);
    /* Unseen until the first picture is whole (the empty board of a waiting
     * room, or the view's first drawing of a started game with its tray):
     * nothing then jumps as the parts arrive one by one. */
    this.body = el("div", { class: "room-body drawing" }, el("div", { class: "room-main" }, this.turn, this.boardHost), this.side);
    this.section = el("section", { class: "room" },
      el("div", { class: "room-head" }, this.title, this.status, this.invite),
      this.summary,
      this.body);
    root.append(this.section);
  }

  /* (Re-)enters the room: a spectator's place, or the refresh of our seat. */
  async enter() {
    try {
      const reply = await this.connection.request({ type: "room.join", room: this.code, as: "spectator" });
      this.setRoom(reply.room);
    } catch (error) {
      this.app.showError(error);
      this.reveal();
      if (error.code === "no_such_room") this.status.textContent = "no such room (it may have expired)";
    }
  }

  mySeat() {
    return this.state ? this.state.seat : mySeat(this.room, this.connection);
  }

  isOwner() {
    const id = this.connection.player?.id;
    return id !== null && id !== undefined && this.room.owner === id;
  }

  setRoom(room) {
    const firstTime = !this.room;
    this.room = room;
    if (firstTime) {
      this.title.textContent = `${gameLabel(room.game)} ${room.mode} · room ${room.id}`;
      this.pageTitle = this.title.textContent;
      this.botKind.replaceChildren(...options(botChoices(room.game, room.mode), "greedy"));
      this.guide.replaceChildren(gameGuide(room.game, room.mode));
      if (room.status === "waiting") this.showEmptyBoard();
      else this.withView(room.game, () => {}); /* its module loads while the state is on its way */
    }
    /* finished, with no game.over on its way: the stored game has the result */
    if (room.status === "finished" && !this.result && !this.isLoadingResult && this.pacer.isIdle()) this.loadStoredResult();
    if (this.viewChain) this.withView(room.game, (view) => view.setRoom?.(room));
    this.render();
  }

  setState(state, receivedAt) {
    /* a resigned seat's colors are skipped too, but they are not out of moves */
    const resignedColors = [...this.resignedSeats].flatMap((seat) => seatColors(state.mode, seat));
    skippedColors(this.state, state).filter((color) => !resignedColors.includes(color)).forEach((color) => this.outColors.add(color));
    const isNewPosition = state.ply !== this.state?.ply;
    this.state = state;
    this.withView(state.game, (view) => {
      view.update(state);
      if (isNewPosition) this.pacer.boardChanged(); /* drawn: the next move waits from now */
    });
    this.render();
    this.clocks.update(state.clocks, receivedAt);
    if (state.status === "finished") this.clocks.stop();
  }

  moved(event) {
    this.withView(this.state?.game || this.room.game, (view) => view.moved(event));
    if (event.action.pass) this.note(`${this.seatLabel(event.seat)} passed${event.cause ? ` (${event.cause.replace("_", "-")})` : ""}.`);
    else if (event.cause) this.note(`${this.seatLabel(event.seat)}'s move was played by a bot (${event.cause.replace("_", "-")}).`);
  }

  /* cause "timeout": the clock resigned the seat (its third timeout in a row). */
  resigned(seat, cause) {
    this.resignedSeats.add(seat);
    const how = cause === "timeout" ? "ran out of time three turns in a row and resigned" : "resigned";
    this.note(`${this.seatLabel(seat)} ${how}.`);
    this.render();
  }

  over(result) {
    this.result = result;
    this.clocks.stop();
    this.withView(this.state?.game || this.room.game, (view) => view.over(result));
    this.render();
    this.showSummary(result);
  }

  /* The game-over summary. Its modules (summary.js, its chart and tables)
   * load only now: a room's first picture does without them. */
  async showSummary(result) {
    const seat = this.mySeat();
    const hasResigned = seat !== null && this.resignedSeats.has(seat);
    try {
      const { gameOverSummary } = await import("../room/summary.js");
      if (this.isGone) return;
      this.summaryPanel = gameOverSummary(result, this.room, this.app, this.again, hasResigned);
      this.render();
    } catch (error) {
      this.app.showError(error);
    }
  }

  /* Before the start: the empty board (Blokus) or a word (Reef boards are
   * the view's own); the game view replaces it with the first state. */
  showEmptyBoard() {
    this.reveal();
    if (this.room.game !== "blokus") {
      this.boardHost.replaceChildren(el("p", { class: "muted" }, "The boards appear when the game starts."));
      return;
    }
    drawEmptyBlokus(this.boardHost, this.room.mode);
  }

  /* Shows the room's body (see build); more calls change nothing. */
  reveal() {
    this.body.classList.remove("drawing");
  }

  /* A finished room seen without its game.over (opened or reloaded after
   * the end): the stored game has the result. */
  async loadStoredResult() {
    this.isLoadingResult = true;
    try {
      const game = await this.app.getJson(`/api/games/${this.room.game_id}`);
      if (game.result && !this.result) this.over(game.result);
    } catch (error) {
      this.app.showError(error);
    }
  }

  seatLabel(seat) {
    if (seat === this.mySeat()) return "You";
    const holder = this.room.seats[seat];
    return holder?.name || `Seat ${seat + 1}`;
  }

  note(text) {
    this.lastEvent.textContent = text;
  }

  /* Runs fn(view) once the game's view module is loaded, in call order. */
  withView(game, fn) {
    if (!this.viewChain) {
      const context = { connection: this.connection, showError: this.app.showError, roomCode: this.code, onDrawn: () => this.reveal() };
      this.viewChain = import(`../games/${game === "blokus" ? "blokus" : "reef"}_view.js`)
        .then((module) => {
          const view = module.createView(this.boardHost, context);
          view.setRoom?.(this.room); /* optional: a view that shows seat names or room options */
          return view;
        })
        .catch((error) => { this.app.showError(error); this.reveal(); return null; });
    }
    this.viewChain = this.viewChain.then((view) => {
      if (!view) return null;
      try {
        fn(view);
      } catch (error) {
        this.app.showError(error);
      }
      return view;
    });
  }

  render() {
    if (!this.room) return;
    const focused = this.section.contains(document.activeElement) ? document.activeElement : null;
    this.draw();
    if (focused) this.keepFocus(focused);
  }

  /* The focus stays in the room when the control holding it goes (the last
   * Add bot disabled, Start or Resign hidden): to Start while it waits to
   * be pressed, else to the room's heading. */
  keepFocus(focused) {
    if (focused.isConnected && !focused.disabled && focused.getClientRects().length) return;
    const next = [this.startButton, this.title].find((node) => !node.disabled && node.getClientRects().length);
    next.focus();
  }

  draw() {
    const room = this.room;
    const seat = this.mySeat();
    const waiting = room.status === "waiting";
    const playing = room.status === "playing" && this.state?.status !== "finished";
    this.status.textContent = STATUS_TEXT[room.status] || room.status;
    this.status.dataset.status = room.status;
    this.section.dataset.status = room.status;
    this.invite.hidden = !waiting;
    this.ownerControls.hidden = !(waiting && this.isOwner());
    this.addBotButton.disabled = firstEmptySeat(room) === null;
    this.startButton.disabled = room.game === "blokus" && firstEmptySeat(room) !== null;
    this.resignButton.hidden = !(playing && seat !== null && !this.resignedSeats.has(seat));
    const state = this.state;
    const toMoveSeat = playing && state?.to_move ? state.to_move.seat : null;
    this.turn.replaceChildren(playing && state?.to_move ? turnLine(state, room, seat) : "");
    const isMyTurn = toMoveSeat !== null && toMoveSeat === seat; /* Blokus: Reef seats all move at once */
    this.app.setTitle(`${isMyTurn ? "Your turn · " : ""}${this.pageTitle}`);
    if (isMyTurn && !this.wasMyTurn) playTurnSound();
    this.wasMyTurn = isMyTurn;
    this.seats.replaceChildren(seatList({
      room,
      mySeat: seat,
      toMoveSeat,
      toMoveColor: playing && state?.to_move ? state.to_move.color : null,
      scores: state ? state.scores || state.boards?.map((board) => board.score) : null,
      hasClocks: Boolean(state?.clocks.length),
      resigned: this.resignedSeats,
      outColors: this.outColors,
      onSit: waiting && seat === null ? (number) => this.sit(number) : null,
    }));
    this.clocks.draw();
    if (room.status === "finished") this.renderAgain(seat);
    this.summary.replaceChildren(this.summaryPanel || "");
  }

  /* The ways on from a finished game: rematch (or join the one offered),
   * a new game like this one, and this game's replay. */
  renderAgain(seat) {
    const room = this.room;
    const offered = room.rematch;
    this.again.replaceChildren(...[
      offered && el("p", { class: "rematch-offer" }, seat === null
        ? "The players are playing a rematch."
        : "A rematch is waiting for you: your seat is kept."),
      el("div", { class: "row" },
        seat !== null && el("button", { type: "button", class: "primary", disabled: this.isGoingOn,
          onclick: () => this.goOn((created) => rematch(this.connection, room, seat, created)) }, offered ? "Join the rematch" : "Rematch"),
        offered && seat === null && el("a", { class: "button", href: `#/room/${offered}` }, "Watch the rematch"),
        el("button", { type: "button", disabled: this.isGoingOn,
          onclick: () => this.goOn(() => newGameLike(this.connection, room, seat)) }, "New game, same settings"),
        el("a", { class: "button", href: `#/replay/${room.game_id}` }, "Replay this game")),
    ].filter(Boolean));
  }

  /* Runs `how(created)`, which resolves with a room's code (and may name
   * it through created(code) before it is done), and opens that room. */
  async goOn(how) {
    let code = null;
    this.isGoingOn = true;
    this.render();
    try {
      code = await how((created) => { code = created; });
    } catch (error) {
      this.app.showError(error);
    }
    this.isGoingOn = false;
    if (code) location.hash = `#/room/${code}`;
    else this.render();
  }

  /* Sends a request whose effects arrive as events; shows its refusal. */
  async act(message) {
    try {
      const reply = await this.connection.request(message);
      if (reply.type === "room") this.setRoom(reply.room);
      if (reply.type === "game.resigned") this.resigned(reply.seat);
    } catch (error) {
      this.app.showError(error);
    }
  }

  /* Resigning is final, so it takes a second click within a few seconds. */
  resign() {
    if (this.resignButton.textContent === "Resign") {
      this.resignButton.textContent = "Really resign?";
      this.resignButton.classList.add("danger");
      setTimeout(() => {
        this.resignButton.textContent = "Resign";
        this.resignButton.classList.remove("danger");
      }, RESIGN_CONFIRM_MS);
      return;
    }
    this.act({ type: "game.resign", room: this.code });
  }

  addBot() {
    this.act({ type: "room.add_bot", room: this.code, seat: firstEmptySeat(this.room), bot: this.botKind.value });
  }

  async sit(seat) {
    try {
      this.setRoom(await takeSeat(this.connection, this.code, seat));
    } catch (error) {
      this.app.showError(error);
    }
  }

  async copyInvite() {
    const link = this.invite.querySelector("input");
    link.select();
    try {
      await navigator.clipboard.writeText(link.value);
      this.note("Invite link copied.");
    } catch (error) {
      this.app.showError(error);
    }
  }

  async leave() {
    try {
      await this.connection.request({ type: "room.leave", room: this.code });
      this.hasLeft = true;
      location.hash = "#/";
    } catch (error) {
      this.app.showError(error);
    }
  }

  /* Leaving the page: a spectator stops watching (a seat is kept). */
  destroy() {
    this.isGone = true;
    this.clocks.stop();
    this.pacer.stop();
    this.app.setTitle("");
    this.viewChain?.then((view) => view?.destroy());
    if (this.hasLeft || !this.room || this.mySeat() !== null) return;
    this.connection.request({ type: "room.leave", room: this.code }).catch((error) => {
      /* the room may have expired or the connection dropped meanwhile: nothing to undo */
      if (!["no_such_room", "not_in_room", "disconnected"].includes(error.code)) this.app.showError(error);
    });
  }
}
