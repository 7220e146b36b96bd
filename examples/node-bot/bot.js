#!/usr/bin/env node
// A minimal Arena bot in Node.js, on the arena-bot package (sdk/node/): it answers every decision
// with the first legal action, or a random one with --random. The package keeps the stream,
// heartbeats and reconnects (to the next referee when given several: --address a:50051,b:50051).
//
//   node bot.js --token TOKEN [--address localhost:50051[,HOST:PORT...]] [--random] [--matches N]
//               [--tls] [--tls-ca FILE] [--tls-client-cert FILE --tls-client-key FILE]
//
// Over TLS: --tls checks the referee's certificate against the system's roots, --tls-ca against a
// private CA; the same settings come from ARENA_TLS=1, ARENA_TLS_CA, ... when the flags are unset.
'use strict';

const { Bot, BotRejected, tlsSettings } = require('arena-bot');

function parseArgs(argv) {
  const args = {
    address: process.env.ARENA_ADDRESS || 'localhost:50051',
    token: process.env.ARENA_BOT_TOKEN || '',
    random: false,
    matches: 0, // 0 = play until stopped
    tlsFlags: {},
  };
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--address') args.address = argv[++i];
    else if (a === '--token') args.token = argv[++i];
    else if (a === '--random') args.random = true;
    else if (a === '--matches') args.matches = Number(argv[++i]);
    else if (a === '--tls') args.tlsFlags.tls = true;
    else if (a === '--tls-ca') args.tlsFlags.tlsCa = argv[++i];
    else if (a === '--tls-client-cert') args.tlsFlags.tlsClientCert = argv[++i];
    else if (a === '--tls-client-key') args.tlsFlags.tlsClientKey = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.token) throw new Error('pass --token TOKEN or set ARENA_BOT_TOKEN');
  args.tls = tlsSettings(args.tlsFlags, process.env); // throws on a certificate without its key
  return args;
}

class ExampleBot extends Bot {
  constructor(random, matches) {
    super();
    this.random = random;
    this.stopAfter = matches;
    this.client = 'arena-node-example/0.3';
  }

  decide(turn) {
    const choices = turn.legal !== null ? turn.legal : turn.choices();
    return this.random ? choices[Math.floor(Math.random() * choices.length)] : choices[0];
  }

  onMatchStart(start) {
    console.log(`match ${start.match_id}: ${start.game} seat ${start.seat} of ${start.seats}: ${start.players.join(', ')}`);
  }

  onMatchEnd(end) {
    const me = end.results.find((r) => r.seat === end.seat);
    console.log(`match ${end.match_id} ended (${end.termination}): rank ${me.rank}, score ${me.score}, strikes ${me.strikes}`);
    if (this.stopAfter && this.finished.length >= this.stopAfter) this.stop();
  }
}

if (require.main === module) {
  let args;
  try {
    args = parseArgs(process.argv);
  } catch (err) {
    console.error(`bot.js: ${err.message}`); // one line, no stack trace: a usage mistake
    process.exit(2);
  }
  new ExampleBot(args.random, args.matches).run(args.address, args.token, args.tls).catch((err) => {
    console.error(err instanceof BotRejected ? `stopped: ${err.message}` : `bot.js: ${err.message}`);
    process.exit(1);
  });
}

module.exports = { ExampleBot };
