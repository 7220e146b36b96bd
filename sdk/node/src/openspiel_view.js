// What a bot makes of a typed OpenSpielView: the same object as the JSON view (view_json).
// Mirrors arena/sdk/openspiel_view.py. A bot that asks for the typed form only (Bot.form =
// 'PAYLOAD_FORM_TYPED') still gets Turn.view in the JSON shape, and Turn.legal as OpenSpiel's
// action strings, which only the typed view carries alongside their ids.
'use strict';

/** @typedef {import('../gen/arena/v1/OpenSpielView').OpenSpielView__Output} OpenSpielView */

const STRINGS = /** @type {const} */ (['information_state', 'observation', 'final']);

/**
 * Whether the proto3 `optional` field `name` is set: proto-loader names it in the synthetic
 * oneof `_name` (oneofs: true) and leaves it out, even with defaults: true, when it is unset.
 * @param {any} view
 * @param {string} name
 * @returns {boolean}
 */
function isSet(view, name) {
  const oneof = view['_' + name];
  if (oneof !== undefined) return oneof === name;
  return view[name] !== undefined && view[name] !== null;
}

/**
 * The JSON view the typed `view` was made from: unset fields and empty lists left out.
 * @param {OpenSpielView} view
 * @returns {Record<string, any>}
 */
function viewJson(view) {
  /** @type {Record<string, any>} */
  const out = {};
  if (isSet(view, 'seat')) out.seat = view.seat;
  for (const name of STRINGS) {
    if (isSet(view, name)) out[name] = view[name];
  }
  if (view.game) out.game = view.game;
  const tensor = view.tensor || [];
  if (tensor.length > 0) out.tensor = tensor.map(Number);
  const history = view.history || [];
  if (history.length > 0 || view.has_history) out.history = history.map(Number);
  const returns = view.returns || [];
  if (returns.length > 0) out.returns = returns.map(Number);
  return out;
}

/**
 * The viewer's legal actions: OpenSpiel's action string to its id, in the listed order.
 * @param {OpenSpielView} view
 * @returns {Map<string, number>}
 */
function legal(view) {
  const labels = view.legal_labels || [];
  const ids = view.legal_ids || [];
  if (labels.length !== ids.length) {
    throw new Error(`OpenSpielView: ${labels.length} legal labels but ${ids.length} ids`);
  }
  return new Map(labels.map((label, i) => [label, Number(ids[i])]));
}

module.exports = { viewJson, legal };
