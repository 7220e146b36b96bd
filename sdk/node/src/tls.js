// How the bot reaches a referee over TLS, read from its flags and the environment the way the
// Python SDK reads them (arena/sdk/tls.py). No dependencies (grpc-js is passed in), so it can be
// checked with plain `node` (see tests/sdk/test_node_tls.py).
//
//   --tls                     use TLS, the referee's certificate checked against the system's roots
//   --tls-ca FILE             PEM roots that sign the referee's certificate (implies --tls)
//   --tls-client-cert FILE    this bot's certificate, for a referee that requires one (mutual TLS)
//   --tls-client-key FILE     its private key
//
// Environment: ARENA_TLS=1, ARENA_TLS_CA, ARENA_TLS_CLIENT_CERT, ARENA_TLS_CLIENT_KEY, and
// ARENA_TLS_SERVER_NAME (the name to expect in the certificate when the address does not hold it).
'use strict';

const fs = require('fs');

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['', '0', 'false', 'no', 'off'];

/**
 * The TLS settings: flags (tls, tlsCa, tlsClientCert, tlsClientKey) over the environment.
 * Throws on a certificate without its key, or an ARENA_TLS that is not a yes/no word.
 * @param {{ tls?: boolean, tlsCa?: string, tlsClientCert?: string, tlsClientKey?: string }} flags
 * @param {Record<string, string | undefined>} env
 * @returns {{ enabled: boolean, ca: string, cert: string, key: string, serverName: string }}
 */
function tlsSettings(flags, env) {
  const word = String(env.ARENA_TLS || '').trim().toLowerCase();
  if (!TRUE.includes(word) && !FALSE.includes(word)) {
    throw new Error(`ARENA_TLS='${word}': use 1/0, true/false, yes/no or on/off`);
  }
  const flagged = Boolean(flags.tls || flags.tlsCa || flags.tlsClientCert || flags.tlsClientKey);
  if (word && FALSE.includes(word) && !flagged) {
    // ARENA_TLS=0 says plaintext whatever the other variables say.
    return { enabled: false, ca: '', cert: '', key: '', serverName: '' };
  }
  const ca = flags.tlsCa || env.ARENA_TLS_CA || '';
  const cert = flags.tlsClientCert || env.ARENA_TLS_CLIENT_CERT || '';
  const key = flags.tlsClientKey || env.ARENA_TLS_CLIENT_KEY || '';
  const serverName = env.ARENA_TLS_SERVER_NAME || '';
  if (Boolean(cert) !== Boolean(key)) {
    throw new Error('a client certificate needs its key and the reverse: pass both --tls-client-cert and --tls-client-key');
  }
  const enabled = Boolean(flags.tls) || TRUE.includes(word) || Boolean(ca || cert || serverName);
  return { enabled, ca, cert, key, serverName };
}

/**
 * @param {string} path
 * @param {string} flag
 * @returns {Buffer}
 */
function readPem(path, flag) {
  try {
    return fs.readFileSync(path);
  } catch (err) {
    const e = /** @type {NodeJS.ErrnoException} */ (err);
    throw new Error(`cannot read ${path} (${e.code || e.message}); check ${flag}`);
  }
}

/**
 * The grpc-js channel credentials of `settings` (files read now).
 * @param {typeof import('@grpc/grpc-js')} grpc
 * @param {{ enabled: boolean, ca: string, cert: string, key: string, serverName: string }} settings
 * @returns {import('@grpc/grpc-js').ChannelCredentials}
 */
function credentials(grpc, settings) {
  if (!settings.enabled) return grpc.credentials.createInsecure();
  const roots = settings.ca ? readPem(settings.ca, '--tls-ca') : null;
  const key = settings.key ? readPem(settings.key, '--tls-client-key') : null;
  const chain = settings.cert ? readPem(settings.cert, '--tls-client-cert') : null;
  return grpc.credentials.createSsl(roots, key, chain);
}

/**
 * Channel options TLS needs: the expected server name, if one is set.
 * @param {{ enabled: boolean, ca: string, cert: string, key: string, serverName: string }} settings
 * @returns {Record<string, string>}
 */
function tlsOptions(settings) {
  return settings.enabled && settings.serverName
    ? { 'grpc.ssl_target_name_override': settings.serverName }
    : {};
}

/**
 * One line saying what a failed first connection means for TLS, or null when it is not TLS.
 * @param {{ enabled: boolean, ca: string, cert: string, key: string, serverName: string }} settings
 * @param {string} address
 * @param {unknown} details
 * @returns {string | null}
 */
function tlsProblem(settings, address, details) {
  const text = String(details || '').toLowerCase();
  if (settings.enabled && /certificate verify failed|certificate_verify_failed|self.signed|unable to (get|verify)/.test(text)) {
    const where = settings.ca ? `the CA in ${settings.ca}` : "the system's roots";
    return `the referee's certificate at ${address} is not trusted (${where} did not sign it); ` +
      'pass --tls-ca FILE with the CA that signed it (or set ARENA_TLS_CA)';
  }
  if (settings.enabled && /wrong.version.number|packet length too long|http_request/.test(text)) {
    return `the referee at ${address} does not speak TLS; drop --tls (and ARENA_TLS)`;
  }
  return null;
}

module.exports = { tlsSettings, credentials, tlsOptions, tlsProblem };
