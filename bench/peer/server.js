// bench/peer.py's boardgame.io server: the card game of game.js, in memory or on FlatFile.
//   node server.js PORT memory|flatfile [DIR]
'use strict';

const { Server, Origins, FlatFile } = require('boardgame.io/server');
const { CardGame } = require('./game');

const [port, storage, dir] = process.argv.slice(2);
const db = storage === 'flatfile' ? new FlatFile({ dir, logging: false, ttl: false }) : undefined;
const server = Server({ games: [CardGame], origins: [Origins.LOCALHOST], db });
server.run(Number(port), () => console.log('ready'));
