// bench/peer.py's boardgame.io clients: K matches of 4 socket.io clients, each playing a card as
// soon as it is its turn. Prints {"ready": true} once every client is connected and synced, waits
// for a line on stdin, plays every match to its end, then prints what it measured (one JSON line):
// moves, seconds (the first move to the last game over), and every cycle in ms (a move sent to
// the next player seeing its turn; one process, one clock).
//   node driver.js SERVER_URL K
'use strict';

const readline = require('readline');
const { Client, LobbyClient } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { CardGame } = require('./game');

const [server, k] = [process.argv[2], Number(process.argv[3])];
const PLAYERS = 4;

async function table(lobby) {
  const { matchID } = await lobby.createMatch('cards', { numPlayers: PLAYERS });
  const seats = [];
  for (let p = 0; p < PLAYERS; p++) {
    const playerID = String(p);
    const { playerCredentials } = await lobby.joinMatch('cards', matchID, { playerID, playerName: `p${p}` });
    seats.push({ playerID, credentials: playerCredentials });
  }
  return { matchID, seats, sentAt: 0, handled: -1, over: false, moves: 0 };
}

async function main() {
  const lobby = new LobbyClient({ server });
  const tables = [];
  for (let i = 0; i < k; i++) tables.push(await table(lobby));
  const cycles = [];
  let going = false;
  let firstMove = 0;
  let lastOver = 0;
  let synced = 0;
  let done = 0;
  let finish = () => {};
  const finished = new Promise((resolve) => (finish = resolve));
  let allSynced = () => {};
  const ready = new Promise((resolve) => (allSynced = resolve));
  const clients = [];
  for (const t of tables) {
    for (const seat of t.seats) {
      const client = Client({
        game: CardGame,
        matchID: t.matchID,
        playerID: seat.playerID,
        credentials: seat.credentials,
        multiplayer: SocketIO({ server }),
        debug: false,
      });
      let seen = false;
      const act = (state) => {
        if (!state || !going || t.over) return;
        if (state.ctx.gameover) {
          t.over = true;
          lastOver = performance.now();
          if (++done === tables.length) finish();
          return;
        }
        if (state.ctx.currentPlayer !== seat.playerID || state._stateID <= t.handled) return;
        t.handled = state._stateID;
        const now = performance.now();
        if (t.sentAt) cycles.push(now - t.sentAt);
        if (!firstMove) firstMove = now;
        t.sentAt = now;
        t.moves += 1;
        client.moves.play(state.G.players[seat.playerID].hand[0]);
      };
      client.subscribe((state) => {
        if (state && !seen) {
          seen = true;
          if (++synced === tables.length * PLAYERS) allSynced();
        }
        act(state);
      });
      client.start();
      clients.push({ client, act });
    }
  }
  await ready;
  console.log(JSON.stringify({ ready: true }));
  const lines = readline.createInterface({ input: process.stdin });
  await new Promise((resolve) => lines.once('line', resolve));
  going = true;
  for (const { client, act } of clients) act(client.getState());
  await finished;
  const moves = tables.reduce((sum, t) => sum + t.moves, 0);
  for (const { client } of clients) client.stop();
  lines.close();
  const report = { moves, seconds: (lastOver - firstMove) / 1000, cycles: cycles.map((c) => Math.round(c * 1000) / 1000) };
  // Exit once the line is written: a pipe takes a long line in several writes.
  process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
