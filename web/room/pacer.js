// pacer.js -- hands a room's game events to the page one after another,
// with each move of another seat shown at least MOVE_SPACING_MS after the
// position before it (the page says when it drew one: boardChanged), so that three bots answering within milliseconds are
// three moves one can follow, not one blink. Only the view waits: the
// server is never slowed, and events are applied in their order (a move,
// the game.state after it, the game over) so the page never shows a state
// before the move that led to it.
//
// A page that fell behind (a spectator of a game of bots, a tab that was
// hidden) catches up: while more than MAX_BEHIND moves wait, they are shown
// without spacing. The clocks are not fooled by the wait: each event keeps
// the time it arrived (`receivedAt`, performance.now()).
export const MOVE_SPACING_MS = 300;
const MAX_BEHIND = 6;

export class Pacer {
  /* `apply(kind, event, receivedAt)` shows one event; `isPaced(kind)` says
   * which kinds are moves to space (the others follow without waiting). */
  constructor(apply, isPaced) {
    this.apply = apply;
    this.isPaced = isPaced;
    this.queue = [];
    this.lastMoveAt = -Infinity;
    this.timer = 0;
  }

  push(kind, event) {
    this.queue.push({ kind, event, receivedAt: performance.now() });
    if (!this.timer) this.run();
  }

  /* Whether nothing waits to be shown. */
  isIdle() {
    return this.queue.length === 0;
  }

  /* The page showed a new position now (after any seat's move, its own
   * too): the next move of another seat waits for it. */
  boardChanged() {
    this.lastMoveAt = performance.now();
  }

  run() {
    this.timer = 0;
    while (this.queue.length) {
      const next = this.queue[0];
      const paced = this.isPaced(next.kind);
      if (paced && !this.isBehind()) {
        const wait = this.lastMoveAt + MOVE_SPACING_MS - performance.now();
        if (wait > 0) {
          this.timer = setTimeout(() => this.run(), wait);
          return;
        }
      }
      this.queue.shift();
      if (paced) this.lastMoveAt = performance.now(); /* boardChanged moves it on once drawn */
      this.apply(next.kind, next.event, next.receivedAt);
    }
  }

  isBehind() {
    return this.queue.filter((item) => this.isPaced(item.kind)).length > MAX_BEHIND;
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = 0;
    this.queue = [];
  }
}
