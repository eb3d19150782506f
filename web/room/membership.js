// membership.js -- who the signed-in player is in a room. A guest has no
// player id until it first takes a seat (PROTOCOL.md, hello), so taking a
// seat always names the seat and reads the id back from the reply; from
// then on the player's seats are found by id in any room object.

/* The seat number the signed-in player holds (and has not left), or null. */
export function mySeat(room, connection) {
  const id = connection.player?.id;
  if (id === null || id === undefined) return null;
  const seat = room.seats.find((s) => s.kind === "player" && s.player_id === id && !s.left);
  return seat ? seat.seat : null;
}

/* The first empty seat of a room object, or null. */
export function firstEmptySeat(room) {
  const seat = room.seats.find((s) => s.kind === "empty");
  return seat ? seat.seat : null;
}

/* Takes `seat` in room `code`; resolves with the room object of the reply
 * and remembers the player id the server gave the guest. */
export async function takeSeat(connection, code, seat) {
  const reply = await connection.request({ type: "room.join", room: code, seat });
  const taken = reply.room.seats[seat];
  if (taken?.player_id !== undefined) connection.player = { ...connection.player, id: taken.player_id };
  return reply.room;
}
