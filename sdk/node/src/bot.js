// The Node bot SDK: subclass Bot, implement decide(turn), call run(address, token).
//
// The same life cycle as the Python SDK (arena/sdk/client.py): one Play stream at a time, a Hello
// with the token, heartbeats at the interval the Welcome asks for, and when the stream drops a new
// one to the next referee of the list ("a:1,b:2") after ~100 ms, then with backoff, so the seats
// are back within the arena's reconnect grace. `matches` (match id -> MatchStart) survives the
// switch, and the referee re-sends what is pending. A wrong token ends run() with BotRejected;
// another process taking the token over ends it with BotReplaced (no reconnect, so two processes
// never kick each other off in a loop). Told by a MatchHost that a new match is hosted on another
// referee, it moves its stream there when all its unfinished matches are hosted there
// (`followHost`), so that no referee relays them.
'use strict';

const grpc = require('@grpc/grpc-js');
const { parseAddresses, channelOptions, Rotation } = require('./addresses');
const { loadBotService } = require('./proto');
const { BotRejected, BotReplaced, Turn, actionFor } = require('./turn');
const { tlsSettings, credentials, tlsOptions, tlsProblem } = require('./tls');

/** @typedef {import('../gen/arena/v1/MatchStart').MatchStart__Output} MatchStart */
/** @typedef {import('../gen/arena/v1/MatchEnd').MatchEnd__Output} MatchEnd */
/** @typedef {import('../gen/arena/v1/Problem').Problem__Output} Problem */
/** @typedef {import('../gen/arena/v1/DecisionRequest').DecisionRequest__Output} DecisionRequest */
/** @typedef {import('../gen/arena/v1/Action').Action} Action */
/** @typedef {import('../gen/arena/v1/ArenaMessage').ArenaMessage__Output} ArenaMessage */
/** @typedef {import('../gen/arena/v1/MatchHost').MatchHost__Output} MatchHost */
/** @typedef {import('../gen/arena/v1/BotMessage').BotMessage} BotMessage */
/** A JSON value: an action or a view in a game's wire form. @typedef {any} Wire */

const WELCOME_TIMEOUT_MS = 10000; // a stream that has not said Welcome by then is opened again
const FAILOVER_WELCOME_TIMEOUT_MS = 3000; // the same with other referees to try
const SILENT_AFTER_MS = 3000; // no word this long after a heartbeat: the referee is frozen
// (the time the bot spends in decide() is not counted: it may block the loop, and the
// referee's answers then wait unread)
const FAILOVER_HEARTBEAT_MS = 2000; // with several referees, a heartbeat at least this often
/** gRPC status names that end run() for good instead of reconnecting. */
const FINAL = ['UNAUTHENTICATED', 'INVALID_ARGUMENT', 'ABORTED'];

/** A bot process's brain and its connection to the arena. Override `decide`. */
class Bot {
  constructor() {
    /** @type {Map<string, MatchStart>} the matches being played, by match id */
    this.matches = new Map();
    /** @type {MatchEnd[]} */
    this.finished = [];
    /** @type {Problem[]} */
    this.problems = [];
    /** The bot's name, as the arena's Welcome said it. */
    this.botName = '';
    /** The name of the referee the stream is open on (Welcome.referee). */
    this.referee = '';
    /** @type {Map<string, string>} match id -> the referee hosting it, as a MatchHost named it */
    this.hosts = new Map();
    /** Move the stream to the referee hosting a new match (MatchHost) when every unfinished
     * match is hosted there; false keeps it where it is (relayed). */
    this.followHost = true;
    /** @type {ReturnType<typeof tlsSettings>} how run() reaches the arena (plaintext until run) */
    this.tls = tlsSettings({}, {});
    /** What Hello says the client is. */
    this.client = 'arena-bot-node/0.1.0';
    /** @type {import('../gen/arena/v1/PayloadForm').PayloadForm} the forms of view and actions to ask for */
    this.form = 'PAYLOAD_FORM_UNSPECIFIED';
    /** @type {(message: string) => void} where progress lines go */
    this.log = (message) => console.error(message);
    /** @private */
    this._stopping = false;
    /** @private @type {(() => void) | null} */
    this._wake = null;
    /** @private @type {any} */
    this._call = null;
    /** @private the address the stream is being closed for, to reopen it there */
    this._moveTo = '';
    // Not part of the API: tests shorten these to see a slow decide() meet the silence rule.
    /** @private how long a referee may say nothing after a heartbeat (ms) */
    this._silentAfterMs = SILENT_AFTER_MS;
    /** @private the heartbeat interval (ms); 0 for the Welcome's */
    this._heartbeatMs = 0;
  }

  // -- override these ------------------------------------------------------------------------

  /**
   * Return an action (JSON wire form) for the turn; may return a Promise. Throwing leaves the
   * decision unanswered (the referee's clock decides) and keeps the stream.
   * @param {Turn} turn
   * @returns {Wire | Promise<Wire>}
   */
  decide(turn) {
    throw new Error(`${this.constructor.name} must override decide(turn)`);
  }

  /**
   * Called when a match starts (and again after a reconnect).
   * @param {MatchStart} start
   */
  onMatchStart(start) {}

  /**
   * Called when a match ends.
   * @param {MatchEnd} end
   */
  onMatchEnd(end) {}

  /**
   * Called for every error or strike the arena reports.
   * @param {Problem} problem
   */
  onProblem(problem) {
    this.log(`${this.botName}: match ${problem.match_id}: ${problem.kind} ${problem.message}`);
  }

  // -- running -------------------------------------------------------------------------------

  /** Ask run() to return after closing the stream. */
  stop() {
    this._stopping = true;
    if (this._call) this._call.cancel();
    if (this._wake) this._wake();
  }

  /**
   * Play until stopped; reconnects on its own, to any of the addresses. Resolves after stop();
   * rejects with BotRejected (or BotReplaced) when the arena refuses the bot for good, and with
   * an Error for a malformed address list.
   * @param {string | string[]} address "host:port", "a:1,b:2", a list, or a gRPC target
   * @param {string} token the bot's token
   * @param {ReturnType<typeof tlsSettings>} [tls] TLS settings (tlsSettings()); by default read
   *   from ARENA_TLS, ARENA_TLS_CA, ARENA_TLS_CLIENT_CERT, ARENA_TLS_CLIENT_KEY; plaintext when unset
   * @returns {Promise<void>}
   */
  async run(address, token, tls) {
    this.tls = tls || tlsSettings({}, process.env);
    credentials(grpc, this.tls); // an unreadable file fails now, not on every attempt
    const rotation = new Rotation(parseAddresses(Array.isArray(address) ? address.join(',') : address));
    const BotService = loadBotService();
    try {
      while (!this._stopping) {
        const where = rotation.current;
        const failure = await this._session(BotService, rotation, token);
        if (this._stopping) break;
        if (this._moveTo) {
          // At once, and no failure: the match waits for the bot there.
          this.log(`${this.botName}: moving to ${this._moveTo}, which hosts its matches`);
          rotation.move(this._moveTo);
          this._moveTo = '';
          continue;
        }
        const problem = this.botName ? null : tlsProblem(this.tls, where, failure);
        if (problem) throw new BotRejected(problem);
        if (!this.botName && rotation.failures === 0) {
          this.log(`cannot reach the arena at ${rotation.addresses.join(',')} (${failure}); retrying until it answers`);
        }
        const pause = rotation.failed();
        this.log(`stream to ${where}: ${failure}; trying ${rotation.current} in ${Math.round(pause)} ms`);
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, pause);
          this._wake = () => {
            clearTimeout(timer);
            resolve(undefined);
          };
        });
        this._wake = null;
      }
    } finally {
      this._stopping = false; // ready for another run
    }
  }

  /**
   * One Play stream, until it ends. Resolves with why it ended (to reconnect); rejects with
   * BotRejected for a final refusal.
   * @private
   * @param {grpc.ServiceClientConstructor} BotService
   * @param {InstanceType<typeof Rotation>} rotation
   * @param {string} token
   * @returns {Promise<string>}
   */
  _session(BotService, rotation, token) {
    const address = rotation.current;
    const options = { ...channelOptions(address), ...tlsOptions(this.tls) };
    const client = new BotService(address, credentials(grpc, this.tls), options);
    const call = (this._call = /** @type {any} */ (client).Play());
    /** @param {BotMessage} message */
    const send = (message) => {
      if (!ended) call.write(message);
    };
    let ended = false;
    let heardAt = Date.now();
    let deciding = 0; // decide() calls under way: the time they take is no sign of silence
    let why = '';
    /** @type {NodeJS.Timeout | null} */
    let heartbeat = null;
    const failover = rotation.addresses.length > 1;
    const noWelcome = setTimeout(() => {
      why = `no Welcome within ${(failover ? FAILOVER_WELCOME_TIMEOUT_MS : WELCOME_TIMEOUT_MS) / 1000}s`;
      call.cancel();
    }, failover ? FAILOVER_WELCOME_TIMEOUT_MS : WELCOME_TIMEOUT_MS);

    send({ hello: { token, client: this.client, form: this.form, follow_host: this.followHost } });

    return new Promise((resolve, reject) => {
      call.on('data', (/** @type {ArenaMessage} */ message) => {
        heardAt = Date.now();
        switch (message.kind) {
          case 'welcome': {
            const welcome = /** @type {NonNullable<ArenaMessage['welcome']>} */ (message.welcome);
            clearTimeout(noWelcome);
            rotation.connected();
            this.botName = welcome.bot_name;
            this.referee = welcome.referee;
            this.log(`connected to ${address} as ${this.botName}, ${welcome.active_matches} active matches`);
            const interval = welcome.heartbeat_interval;
            let every = interval ? Number(interval.seconds) * 1000 + interval.nanos / 1e6 : 0;
            every = this._heartbeatMs || every || 10000;
            if (failover) every = Math.min(every, FAILOVER_HEARTBEAT_MS);
            const silentAfter = this._silentAfterMs;
            heartbeat = setInterval(() => {
              const now = Date.now();
              send({ heartbeat: { sent_at: { seconds: Math.floor(now / 1000), nanos: (now % 1000) * 1e6 } } });
              setTimeout(() => {
                // After the loop was blocked (a synchronous decide), due timers run before the
                // socket is read: the verdict waits for the next check phase, past the reading.
                setImmediate(() => {
                  if (heardAt < now && deciding === 0 && !ended) {
                    why = `no answer to a heartbeat within ${silentAfter / 1000}s`;
                    call.cancel();
                  }
                });
              }, silentAfter);
            }, every);
            break;
          }
          case 'match_start': {
            const start = /** @type {MatchStart} */ (message.match_start);
            this.matches.set(start.match_id, start);
            this._hook(() => this.onMatchStart(start));
            break;
          }
          case 'decision':
            deciding += 1;
            this._answer(/** @type {DecisionRequest} */ (message.decision))
              .finally(() => {
                deciding -= 1;
                heardAt = Math.max(heardAt, Date.now()); // silence counts from the answer on
              })
              .then((action) => {
                if (action) send({ action });
              });
            break;
          case 'problem': {
            const problem = /** @type {Problem} */ (message.problem);
            this.problems.push(problem);
            this._hook(() => this.onProblem(problem));
            break;
          }
          case 'match_host': {
            const moveTo = this.follow(/** @type {MatchHost} */ (message.match_host));
            if (moveTo) {
              this._moveTo = moveTo;
              call.cancel();
            }
            break;
          }
          case 'match_end': {
            const end = /** @type {MatchEnd} */ (message.match_end);
            this.finished.push(end);
            this.matches.delete(end.match_id);
            this.hosts.delete(end.match_id);
            this._hook(() => this.onMatchEnd(end));
            break;
          }
          default:
            break; // heartbeat answers, and kinds newer than this SDK
        }
      });
      call.on('error', () => {}); // 'status' follows with the same code
      call.on('status', (/** @type {grpc.StatusObject} */ status) => {
        ended = true;
        clearTimeout(noWelcome);
        if (heartbeat) clearInterval(heartbeat);
        this._call = null;
        client.close();
        const code = grpc.status[status.code];
        if (code === 'ABORTED' && !this._stopping) {
          reject(new BotReplaced(status.details || 'replaced by another stream'));
        } else if (FINAL.includes(code) && !this._stopping) {
          reject(new BotRejected(`${code}: ${status.details}`));
        } else {
          const said = status.details ? `${code}: ${status.details}` : code;
          resolve(why || (status.code === grpc.status.OK ? 'the stream ended' : said));
        }
      });
    });
  }

  /**
   * Note where a match is hosted; the address to move the stream to, if the bot follows and
   * every unfinished match it knows of is hosted there (else "", and it is relayed).
   * @param {MatchHost} where
   * @returns {string}
   */
  follow(where) {
    this.hosts.set(where.match_id, where.referee);
    if (!this.followHost || !where.address || where.referee === this.referee) return '';
    const unfinished = new Set([...this.matches.keys(), where.match_id]);
    for (const id of unfinished) {
      if ((this.hosts.get(id) || this.referee) !== where.referee) return '';
    }
    return where.address;
  }

  /**
   * Call a hook; a bug in it is logged, never ends the stream.
   * @private
   * @param {() => void} hook
   */
  _hook(hook) {
    try {
      hook();
    } catch (err) {
      this.log(`a hook failed: ${err instanceof Error ? err.stack : err}`);
    }
  }

  /**
   * The Action answering a request, or null when decide() failed.
   * @private
   * @param {DecisionRequest} request
   * @returns {Promise<Action | null>}
   */
  async _answer(request) {
    const start = this.matches.get(request.match_id);
    const turn = new Turn(request, start ? start.game : '', start ? start.seats : 0);
    try {
      const choice = await this.decide(turn);
      return actionFor(turn, choice);
    } catch (err) {
      this.log(`decide() failed on match ${request.match_id} decision ${request.decision}; not answering: ${err instanceof Error ? err.stack : err}`);
      return null;
    }
  }
}

module.exports = { Bot, BotRejected, BotReplaced, Turn, actionFor };
