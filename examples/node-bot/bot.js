#!/usr/bin/env node
// A minimal Arena bot in Node.js. It loads proto/arena/v1/bot.proto at run time with
// @grpc/proto-loader (no code generation), opens one BotService.Play stream, and answers every
// DecisionRequest with index 0 (or a random legal action with --random). When the stream drops it
// reconnects, to the next referee when given several (--address a:50051,b:50051), and gets its
// seats back if it is within the arena's reconnect_grace.
//
//   node bot.js --token TOKEN [--address localhost:50051[,HOST:PORT...]] [--random] [--matches N]
//
// See docs/protocol.md for the protocol this follows.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { parseAddresses, channelOptions, Rotation } = require('./addresses');

// -- arguments ---------------------------------------------------------------------------------
function parseArgs(argv) {
  const args = {
    address: process.env.ARENA_ADDRESS || 'localhost:50051',
    token: process.env.ARENA_BOT_TOKEN || '',
    random: false,
    matches: 0, // 0 = play until stopped
    protoDir: path.resolve(__dirname, '..', '..', 'proto'),
  };
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--address') args.address = argv[++i];
    else if (a === '--token') args.token = argv[++i];
    else if (a === '--random') args.random = true;
    else if (a === '--matches') args.matches = Number(argv[++i]);
    else if (a === '--proto-dir') args.protoDir = path.resolve(argv[++i]);
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.token) throw new Error('pass --token TOKEN or set ARENA_BOT_TOKEN');
  args.addresses = parseAddresses(args.address); // throws on an empty element or a bad port
  return args;
}

// -- the proto contract, loaded at run time ----------------------------------------------------
function loadBotService(protoDir) {
  const definition = protoLoader.loadSync('arena/v1/bot.proto', {
    includeDirs: [protoDir], // google/protobuf/*.proto come bundled with proto-loader
    keepCase: true, // field names as in the .proto: match_id, legal_json, ...
    longs: String, // int64 (match_id, IntRange.min/max) arrive as decimal strings
    enums: String, // enums arrive as their names, e.g. "PROBLEM_KIND_TIMEOUT"
    defaults: true, // unset scalars arrive as 0 / "" / []
    oneofs: true, // message.kind / action.choice name the field that is set
  });
  return grpc.loadPackageDefinition(definition).arena.v1.BotService;
}

// -- choosing an action ------------------------------------------------------------------------
function randomInt(lo, hi) {
  return lo + Math.floor(Math.random() * (hi - lo + 1));
}

// Returns the Action message answering `req`.
function choose(req, useRandom) {
  const action = { match_id: req.match_id, decision: req.decision, seat: req.seat };
  if (req.legal_json.length > 0) {
    // The legal actions are listed: answer with an index into them.
    action.index = useRandom ? randomInt(0, req.legal_json.length - 1) : 0;
    return action;
  }
  // Too many to list: a described space of listed actions plus integer ranges.
  const space = req.space;
  const options = space.actions_json.length + space.ranges.length;
  const pick = useRandom ? randomInt(0, options - 1) : 0;
  if (pick < space.actions_json.length) {
    action.json = space.actions_json[pick];
  } else {
    // Copy the template and set its integer field to a value in [min, max].
    const range = space.ranges[pick - space.actions_json.length];
    const wire = JSON.parse(range.template_json);
    const lo = Number(range.min);
    const hi = Number(range.max);
    wire[range.field] = useRandom ? randomInt(lo, hi) : lo;
    action.json = JSON.stringify(wire);
  }
  return action;
}

// -- the session -------------------------------------------------------------------------------
// Answers to these end the bot for good: a wrong token, a malformed Hello, another process that
// took the token over. Anything else (UNAVAILABLE when a referee dies, ...) means reconnect.
const FINAL = ['UNAUTHENTICATED', 'INVALID_ARGUMENT', 'ABORTED'];

function play(args) {
  const BotService = loadBotService(args.protoDir);
  const rotation = new Rotation(args.addresses);
  const games = new Map(); // match_id -> MatchStart; kept across reconnects
  let ended = 0;
  let stopping = false;

  // One Play stream to rotation.current; when it ends, the next attempt (another referee).
  function connect() {
    const address = rotation.current;
    const client = new BotService(address, grpc.credentials.createInsecure(), channelOptions(address));
    const stream = client.Play();
    let heartbeat = null;
    let over = false;

    const close = () => {
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
      client.close();
    };
    const retry = (why) => {
      if (over) return; // once per stream
      over = true;
      close();
      if (stopping) return;
      const pause = rotation.failed();
      console.error(`stream to ${address} ended (${why}); trying ${rotation.current} in ${Math.round(pause)} ms`);
      setTimeout(connect, pause);
    };

    stream.write({ hello: { token: args.token, client: 'arena-node-bot/0.2' } });
    // A referee that says nothing (a host that drops packets) is left for the next one; with
    // several to try, sooner, so the seats are back within the reconnect grace.
    const noWelcome = setTimeout(() => stream.cancel(), args.addresses.length > 1 ? 3000 : 10000);

    let heardAt = Date.now();
    stream.on('data', (msg) => {
      heardAt = Date.now();
      switch (msg.kind) {
        case 'welcome': {
          const w = msg.welcome;
          clearTimeout(noWelcome);
          rotation.connected();
          let every = Number(w.heartbeat_interval.seconds) * 1000 || 10000;
          // With other referees to go to, beat every 2 s: a referee that then says nothing for
          // 3 s (frozen, or its host cut off, while the connection stays open) is left for the
          // next one, well within the reconnect grace. Keepalive pings alone did not notice.
          if (args.addresses.length > 1) every = Math.min(every, 2000);
          heartbeat = setInterval(() => {
            const now = Date.now();
            stream.write({
              heartbeat: { sent_at: { seconds: Math.floor(now / 1000), nanos: (now % 1000) * 1e6 } },
            });
            setTimeout(() => {
              if (heardAt < now) stream.cancel();
            }, 3000);
          }, every);
          console.log(`welcome from ${address}: bot ${w.bot_name} (id ${w.bot_id}), ` +
            `${w.active_matches} active matches`);
          break;
        }
        case 'match_start': {
          // Sent again after a reconnect for every match still running: not a new match.
          const s = msg.match_start;
          if (!games.has(s.match_id)) {
            console.log(`match ${s.match_id}: ${s.game} seat ${s.seat} of ${s.seats}: ${s.players.join(', ')}`);
          }
          games.set(s.match_id, s);
          break;
        }
        case 'decision': {
          stream.write({ action: choose(msg.decision, args.random) });
          break;
        }
        case 'problem': {
          const p = msg.problem;
          console.log(`problem in match ${p.match_id} decision ${p.decision}: ${p.kind} ${p.message}` +
            (p.strike ? ` (strike ${p.strikes}/${p.max_strikes})` : ''));
          break;
        }
        case 'match_end': {
          const e = msg.match_end;
          games.delete(e.match_id);
          const me = e.results.find((r) => r.seat === e.seat);
          console.log(`match ${e.match_id} ended (${e.termination}): rank ${me.rank}, score ${me.score}, ` +
            `strikes ${me.strikes}`);
          ended += 1;
          if (args.matches && ended >= args.matches) {
            stopping = true;
            stream.end();
            close();
          }
          break;
        }
        case 'heartbeat':
          break;
        default:
          console.log('unknown message', msg);
      }
    });

    // 'status' comes exactly once per call, whatever ended it; 'error' repeats it for non-OK.
    stream.on('error', () => {});
    stream.on('status', (status) => {
      clearTimeout(noWelcome);
      const code = grpc.status[status.code];
      if (FINAL.includes(code) && !stopping) {
        console.error(`stopped: ${code} ${status.details}`);
        stopping = true;
        process.exitCode = 1;
      }
      retry(status.code === grpc.status.OK ? 'the referee closed it' : `${code} ${status.details}`);
    });
  }

  connect();
}

if (require.main === module) {
  let args;
  try {
    args = parseArgs(process.argv);
  } catch (err) {
    console.error(`bot.js: ${err.message}`); // one line, no stack trace: a usage mistake
    process.exit(2);
  }
  play(args);
}

module.exports = { choose, loadBotService, play };
