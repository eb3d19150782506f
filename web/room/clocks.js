// clocks.js -- the seats' chess clocks, counting down between states.
// game.state gives each seat's bank (`ms`, already net of the running
// turn) at the moment it was sent; the running clock is drawn as that bank
// minus the time since the state arrived, refreshed every animation frame
// (the text only changes once a second; the browser skips hidden tabs).

export function formatClock(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${String(seconds % 60).padStart(2, "0")}`;
}

/* Keeps `[data-clock-seat=N]` elements under `root` ticking. */
export class Clocks {
  constructor(root) {
    this.root = root;
    this.clocks = [];
    this.receivedAt = 0;
    this.frame = 0;
    this.tick = this.tick.bind(this);
  }

  /* The clocks of a game.state (`[]` in a room without clocks), received
   * at `receivedAt` (performance.now(); the page may show it later). */
  update(clocks, receivedAt = performance.now()) {
    this.clocks = clocks;
    this.receivedAt = receivedAt;
    this.draw();
    cancelAnimationFrame(this.frame);
    if (clocks.some((clock) => clock.running)) this.frame = requestAnimationFrame(this.tick);
  }

  /* The game ended: the clocks stand still. */
  stop() {
    cancelAnimationFrame(this.frame);
    this.clocks = this.clocks.map((clock) => ({ ...clock, running: false }));
    this.draw();
  }

  tick() {
    this.draw();
    this.frame = requestAnimationFrame(this.tick);
  }

  draw() {
    const elapsed = performance.now() - this.receivedAt;
    for (const clock of this.clocks) {
      const node = this.root.querySelector(`[data-clock-seat="${clock.seat}"]`);
      if (!node) continue;
      const left = clock.running ? clock.ms - elapsed : clock.ms;
      const text = formatClock(left);
      if (node.textContent !== text) node.textContent = text;
      node.classList.toggle("running", clock.running);
      node.classList.toggle("low", left < 20000);
    }
  }
}
