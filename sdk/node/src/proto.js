// The arena.v1 contract, loaded at run time from the package's copy of proto/ (made by
// scripts/build.js when packing; in a clone of the repository, the repository's proto/ itself).
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

/** The loader options; scripts/build.js generates the message types with the same ones. */
const LOADER_OPTIONS = {
  keepCase: true, // field names as in the .proto: match_id, legal_json, ...
  longs: String, // int64 (match_id, IntRange.min/max) arrive as decimal strings
  enums: String, // enums arrive as their names, e.g. "PROBLEM_KIND_TIMEOUT"
  defaults: true, // unset scalars arrive as 0 / "" / []
  oneofs: true, // message.kind / action.choice name the field that is set
};

/**
 * The folder holding arena/v1/*.proto: the package's own copy, else the repository's proto/.
 * @returns {string}
 */
function protoDir() {
  const packed = path.resolve(__dirname, '..', 'proto');
  if (fs.existsSync(path.join(packed, 'arena', 'v1', 'bot.proto'))) return packed;
  return path.resolve(__dirname, '..', '..', '..', 'proto');
}

/**
 * The BotService client constructor of arena.v1 (from `dir`, default `protoDir()`).
 * @param {string} [dir]
 * @returns {grpc.ServiceClientConstructor}
 */
function loadBotService(dir) {
  const definition = protoLoader.loadSync('arena/v1/bot.proto', {
    ...LOADER_OPTIONS,
    includeDirs: [dir || protoDir()], // google/protobuf/*.proto come bundled with proto-loader
  });
  const arena = /** @type {any} */ (grpc.loadPackageDefinition(definition)).arena;
  return arena.v1.BotService;
}

module.exports = { LOADER_OPTIONS, protoDir, loadBotService };
