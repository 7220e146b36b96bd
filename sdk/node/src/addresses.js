// Which referees the bot may connect to, and which one to try next. No dependencies, so it can be
// checked with plain `node` (see tests/sdk/test_node_addresses.py).
//
//   "localhost:50051"                  one referee
//   "ref-a:50051,ref-b:50051"          several referees of one arena: on a dropped stream the bot
//                                      moves on to the next one (the seats wait reconnect_grace)
//   "dns:///referees.internal:50051"   a gRPC target, passed whole to grpc-js (balanced with
//                                      round_robin over every address the name resolves to)
'use strict';

const SCHEMES = ['dns:', 'ipv4:', 'ipv6:', 'unix:', 'unix-abstract:'];
const BALANCED = ['dns:', 'ipv4:', 'ipv6:'];
const FIRST_BACKOFF_MS = 100; // the pause before trying the next referee
const MAX_BACKOFF_MS = 5000;

/** @param {string} text */
function isTarget(text) {
  return SCHEMES.some((s) => text.toLowerCase().startsWith(s));
}

// The addresses in a comma-separated list (a gRPC target stays whole). Throws on an empty element
// or a HOST:PORT whose port is not 1-65535.
/**
 * @param {string} text
 * @returns {string[]}
 */
function parseAddresses(text) {
  const trimmed = String(text || '').trim();
  if (!trimmed) throw new Error('no referee address given');
  if (isTarget(trimmed)) return [trimmed];
  return trimmed.split(',').map((item) => {
    const one = item.trim();
    if (!one) throw new Error(`empty address in '${trimmed}'`);
    if (isTarget(one)) return one;
    const colon = one.lastIndexOf(':');
    const host = one.slice(0, colon);
    const port = one.slice(colon + 1);
    if (colon <= 0 || (host.includes(':') && !host.startsWith('['))) {
      throw new Error(`'${one}' is not HOST:PORT`);
    }
    if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
      throw new Error(`'${one}' has a bad port '${port}' (a number from 1 to 65535)`);
    }
    return one;
  });
}

// grpc-js channel options for an address: round_robin where a target can name several referees.
// Keepalive pings notice a referee that froze (its stream neither ends nor answers) within
// about 9 s, before the arena gives up on this bot's seats; the referee accepts a ping every 5 s.
const KEEPALIVE = { 'grpc.keepalive_time_ms': 6000, 'grpc.keepalive_timeout_ms': 3000 };

/**
 * @param {string} address
 * @returns {Record<string, string | number>}
 */
function channelOptions(address) {
  if (!BALANCED.some((s) => address.toLowerCase().startsWith(s))) return { ...KEEPALIVE };
  return {
    ...KEEPALIVE,
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  };
}

// The referees in turn: after a failure the next one, soon; slower only once all have failed.
class Rotation {
  /** @param {string[]} addresses */
  constructor(addresses) {
    this.addresses = addresses;
    this.index = 0;
    this.failures = 0; // attempts failed since the last Welcome
    /** @type {string | null} a referee outside the list the bot moved to (it hosts its match) */
    this.visiting = null;
  }

  get current() {
    return this.visiting || this.addresses[this.index];
  }

  // Goes to `address` next (the referee hosting the bot's match); a later failure goes back to
  // the list, where it was left.
  /** @param {string} address */
  move(address) {
    const index = this.addresses.indexOf(address);
    if (index >= 0) {
      this.index = index;
      this.visiting = null;
    } else {
      this.visiting = address;
    }
  }

  connected() {
    this.failures = 0;
  }

  // Moves to the next address; returns the milliseconds to wait before trying it.
  /** @returns {number} */
  failed() {
    this.failures += 1;
    if (this.visiting !== null) {
      this.visiting = null;
      return FIRST_BACKOFF_MS * (0.5 + Math.random());
    }
    this.index = (this.index + 1) % this.addresses.length;
    const rounds = Math.floor((this.failures - 1) / this.addresses.length);
    const pause = Math.min(FIRST_BACKOFF_MS * 2 ** Math.min(rounds, 16), MAX_BACKOFF_MS);
    return pause * (0.5 + Math.random());
  }
}

module.exports = { parseAddresses, channelOptions, Rotation };
