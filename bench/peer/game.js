// The trivial 4-player card game bench/peer.py plays on boardgame.io 0.50: each player holds 32
// cards and plays one per turn (any card in hand), so a match is 128 moves; hands are secret.
'use strict';

const { INVALID_MOVE, PlayerView } = require('boardgame.io/core');

const CARDS = 32;

const CardGame = {
  name: 'cards',
  minPlayers: 2,
  maxPlayers: 6,
  setup: ({ ctx }) => ({
    played: 0,
    pile: [],
    players: Object.fromEntries(
      Array.from({ length: ctx.numPlayers }, (_, p) => [
        String(p),
        { hand: Array.from({ length: CARDS }, (_, c) => c + p * CARDS) },
      ]),
    ),
  }),
  playerView: PlayerView.STRIP_SECRETS,
  moves: {
    play: ({ G, playerID, events }, card) => {
      const hand = G.players[playerID].hand;
      const at = hand.indexOf(card);
      if (at < 0) return INVALID_MOVE;
      hand.splice(at, 1);
      G.pile.push(card);
      G.played += 1;
      events.endTurn();
    },
  },
  endIf: ({ G, ctx }) => (G.played >= CARDS * ctx.numPlayers ? { draw: true } : undefined),
};

module.exports = { CardGame, CARDS };
