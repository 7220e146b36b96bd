// A Node bot on the arena-bot package's source that thinks THINK_MS synchronously over its first
// decision, run by tests/sdk/test_node_slow_decide.py. Usage: node node_slow_decide_bot.js
// ADDRESS TOKEN. Prints "asked MATCH DECISION" for every decision it is asked.
//
// The long think starts the way a real bot's does when its decide() awaits something (a file, an
// engine) and then computes: in a later turn of the event loop, here the one right after a
// heartbeat is written, so the referee's answer to it lands unread while the loop is blocked.
// The heartbeat and silence limits are shortened (the Bot's private _heartbeatMs and
// _silentAfterMs) so that the think outlasts the silence limit.
'use strict';

const { Bot } = require('../../sdk/node/src');

const THINK_MS = 4000;

/** Block the event loop for `ms` milliseconds, as a synchronous search does. */
function block(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

class SlowThinker extends Bot {
  constructor() {
    super();
    this._heartbeatMs = 500;
    this._silentAfterMs = 2000;
    this.asked = 0;
  }

  decide(turn) {
    console.log(`asked ${turn.matchId} ${turn.decision}`);
    const choice = turn.choices()[0];
    if (this.asked++ > 0) return choice;
    const call = this._call;
    const write = call.write.bind(call);
    let sent = 0;
    let answered = 0;
    call.on('data', (message) => {
      if (message.kind === 'heartbeat') answered += 1;
    });
    return new Promise((resolve) => {
      call.write = (message) => {
        const written = write(message);
        // At a heartbeat sent with every earlier one answered: only its own answer is awaited.
        if (message.heartbeat && sent++ === answered) {
          call.write = write;
          setImmediate(() => {
            block(THINK_MS);
            resolve(choice);
          });
        }
        return written;
      };
    });
  }
}

const [address, token] = process.argv.slice(2);
new SlowThinker().run(address, token).catch((err) => {
  console.error(err.message);
  process.exit(1);
});
