#!/usr/bin/env node
// A minimal Arena bot in Node.js. It loads proto/arena/v1/bot.proto at run time with
// @grpc/proto-loader (no code generation), opens one BotService.Play stream, and answers every
// DecisionRequest with index 0 (or a random legal action with --random).
//
//   node bot.js --token TOKEN [--address localhost:50051] [--random] [--matches N]
//
// See docs/protocol.md for the protocol this follows.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

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
function play(args) {
  const BotService = loadBotService(args.protoDir);
  const client = new BotService(args.address, grpc.credentials.createInsecure());
  const stream = client.Play();
  const games = new Map(); // match_id -> MatchStart
  let ended = 0;
  let heartbeat = null;

  const finish = () => {
    if (heartbeat) clearInterval(heartbeat);
    stream.end();
    client.close();
  };

  stream.write({ hello: { token: args.token, client: 'arena-node-bot/0.1' } });

  stream.on('data', (msg) => {
    switch (msg.kind) {
      case 'welcome': {
        const w = msg.welcome;
        const every = Number(w.heartbeat_interval.seconds) * 1000 || 10000;
        heartbeat = setInterval(() => {
          const now = Date.now();
          stream.write({
            heartbeat: { sent_at: { seconds: Math.floor(now / 1000), nanos: (now % 1000) * 1e6 } },
          });
        }, every);
        console.log(`welcome: bot ${w.bot_name} (id ${w.bot_id}), ${w.active_matches} active matches`);
        break;
      }
      case 'match_start': {
        const s = msg.match_start;
        games.set(s.match_id, s);
        console.log(`match ${s.match_id}: ${s.game} seat ${s.seat} of ${s.seats}: ${s.players.join(', ')}`);
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
        if (args.matches && ended >= args.matches) finish();
        break;
      }
      case 'heartbeat':
        break;
      default:
        console.log('unknown message', msg);
    }
  });

  stream.on('error', (err) => {
    if (err.code === grpc.status.CANCELLED) return;
    console.error(`stream ended: ${grpc.status[err.code]} ${err.details}`);
    if (heartbeat) clearInterval(heartbeat);
    process.exitCode = 1;
  });
  stream.on('end', () => {
    if (heartbeat) clearInterval(heartbeat);
  });
}

if (require.main === module) {
  play(parseArgs(process.argv));
}

module.exports = { choose, loadBotService };
