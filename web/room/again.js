// again.js -- the ways on from a finished game: a new room with the same
// settings, the rematch with the same seats, and accepting a rematch that
// another player offered (docs/PROTOCOL.md, room.rematch).
//
// A rematch is built with the ordinary requests -- room.create with the
// finished room's options, room.join of our old seat, room.add_bot of each
// old bot seat -- and then named with room.rematch, which shows it to the
// finished room's other members; each of them accepts by taking its old
// seat. A finished room has one rematch, so once one is offered, asking
// for it again is accepting it. Every function resolves with the new
// room's code; the caller opens it.
import { takeSeat } from "./membership.js";

/* The room.create message that makes a room like `room` (a new seed). */
export function createMessage(room) {
  const { options } = room;
  const message = { type: "room.create", game: room.game, mode: room.mode, timeout: options.timeout };
  if (options.scoring) message.scoring = options.scoring;
  if (options.max_turns) message.max_turns = options.max_turns;
  if (options.clock) message.clock = options.clock;
  if (room.private) message.private = true;
  return message;
}

/* A new room with `room`'s settings, us in `seat` (0 for a spectator). */
export async function newGameLike(connection, room, seat) {
  const created = await connection.request(createMessage(room));
  await takeSeat(connection, created.room.id, seat ?? 0);
  return created.room.id;
}

/* The rematch of the finished `room` where we held `seat`: the offered one
 * if there is one, else a new room with every bot back in its seat,
 * offered to the others. `onCreated(code)` hears the room as soon as it
 * exists, so a later failure still leaves the way to it. */
export async function rematch(connection, room, seat, onCreated = () => {}) {
  if (room.rematch) return acceptRematch(connection, room, seat);
  const code = await newGameLike(connection, room, seat);
  onCreated(code);
  for (const old of room.seats.filter((s) => s.kind === "bot")) {
    await connection.request({ type: "room.add_bot", room: code, seat: old.seat, bot: old.bot });
  }
  await connection.request({ type: "room.rematch", room: room.id, rematch: code });
  return code;
}

/* Takes our old `seat` in the rematch offered in `room`. */
export async function acceptRematch(connection, room, seat) {
  await takeSeat(connection, room.rematch, seat);
  return room.rematch;
}
