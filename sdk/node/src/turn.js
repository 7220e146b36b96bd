// What a bot's decide() receives and returns: a Turn (one decision request, its view and legal
// actions parsed from JSON) and actionFor (the Action message for a chosen action), and the two
// errors that end Bot.run() for good.
'use strict';

const openspielView = require('./openspiel_view');

/** @typedef {import('../gen/arena/v1/DecisionRequest').DecisionRequest__Output} DecisionRequest */
/** @typedef {import('../gen/arena/v1/Action').Action} Action */
/** A JSON value: an action or a view in a game's wire form. @typedef {any} Wire */

/** The arena refused the bot for good (e.g. a wrong token); retrying cannot help. */
class BotRejected extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'BotRejected';
  }
}

/** Another process connected with this bot's token and took its matches over. */
class BotReplaced extends BotRejected {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'BotReplaced';
  }
}

/** One decision request as a bot sees it: the view and legal actions parsed from JSON. */
class Turn {
  /**
   * @param {DecisionRequest} request the typed request, as it came over the wire
   * @param {string} game the game's name ("" if its MatchStart was not seen)
   * @param {number} seats how many seats the match has
   */
  constructor(request, game, seats) {
    /** The typed request (view, legal and space also in their typed forms). */
    this.request = request;
    this.game = game;
    this.seat = request.seat;
    this.seats = seats;
    /** The decision number to echo. */
    this.decision = request.decision;
    /** What is being decided, e.g. "pack", "declare", "inspect", "bribe". */
    this.label = request.label;
    /** The match id (an int64, as a decimal string). */
    this.matchId = request.match_id;
    /** @type {Wire} the seat's observation, parsed from view_json */
    this.view = request.view_json ? JSON.parse(request.view_json) : null;
    /** @type {Wire[] | null} the legal actions, or null when the space is described instead */
    this.legal = request.legal_json.length > 0 ? request.legal_json.map((t) => JSON.parse(t)) : null;
    /** @type {Map<string, number> | null} an OpenSpiel game's legal actions: OpenSpiel's action
     * string to its id (from the typed view; null for other games and JSON-only requests) */
    this.openspielLegal = null;
    const typed = request.view && request.view.game === 'openspiel' ? request.view.openspiel : null;
    if (typed) {
      this.openspielLegal = openspielView.legal(typed);
      if (!request.view_json) {
        // Typed only (form PAYLOAD_FORM_TYPED): the JSON view rebuilt, the labels as the listing.
        this.view = openspielView.viewJson(typed);
        this.legal = [...typed.legal_labels];
      }
    }
  }

  /**
   * The legal actions, expanding the ranges of a described space when they are not listed.
   * @returns {Wire[]}
   */
  choices() {
    if (this.legal !== null) return this.legal;
    const space = this.request.space;
    if (!space) return [];
    const out = space.actions_json.map((t) => JSON.parse(t));
    for (const range of space.ranges) {
      const template = JSON.parse(range.template_json);
      for (let v = Number(range.min); v <= Number(range.max); v++) {
        out.push({ ...template, [range.field]: v });
      }
    }
    return out;
  }
}

/**
 * The Action message for a chosen wire action: an index when it is listed, else its JSON.
 * @param {Turn} turn
 * @param {Wire} choice
 * @returns {Action}
 */
function actionFor(turn, choice) {
  /** @type {Action} */
  const action = { match_id: turn.matchId, decision: turn.decision, seat: turn.seat };
  if (turn.legal !== null) {
    let index = turn.legal.indexOf(choice);
    if (index < 0) {
      const text = JSON.stringify(choice);
      index = turn.legal.findIndex((a) => JSON.stringify(a) === text);
    }
    if (index >= 0) {
      action.index = index;
      return action;
    }
  }
  action.json = JSON.stringify(choice);
  return action;
}

module.exports = { BotRejected, BotReplaced, Turn, actionFor };
