// arena-bot: write Arena bots in Node.js. See README.md.
'use strict';

const { Bot, BotRejected, BotReplaced, Turn, actionFor } = require('./bot');
const { parseAddresses, channelOptions, Rotation } = require('./addresses');
const { LOADER_OPTIONS, protoDir, loadBotService } = require('./proto');
const { tlsSettings, tlsProblem } = require('./tls');
const openspielView = require('./openspiel_view');

module.exports = {
  tlsSettings,
  tlsProblem,
  Bot,
  BotRejected,
  BotReplaced,
  Turn,
  actionFor,
  parseAddresses,
  channelOptions,
  Rotation,
  LOADER_OPTIONS,
  protoDir,
  loadBotService,
  openspielView,
};
