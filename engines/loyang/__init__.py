"""At the Gates of Loyang (Uwe Rosenberg, 2008): registers `LoyangRules` with the engine registry.

1-4 farmers play 9 rounds. Each round every seat harvests its fields onto its cart, then the card
phase deals action cards that seats play into a shared courtyard or take (two at a time) into their
own area: common fields, market stalls, helpers, regular and casual customers. In the action phase
each seat sows, buys and sells at its shop, trades at its stalls, uses helpers, delivers to
customers for coins and may buy a card pair; at the end of its turn it stores crops and pays coins
to climb the Path of Prosperity. The furthest on the Path (less a step per loan) wins. Variants:
beginner hands, the 2-player reveal, the 4-player paired action phase and the solo grid.

Files (the roles every game package shares, then the phase modules):

| file | role |
| --- | --- |
| `data.py` | loads and checks `cards.json`, the game's fixed data, into `DATA` |
| `cards.py` | the types of that data: crops, card kinds and definitions |
| `counts.py` | arithmetic on crop counts: adding, removing, naming, covering a demand |
| `catalog.py` | `arena rules loyang`: the data printed with its sourced / PROVISIONAL marks |
| `state.py` | the frozen value types of a state |
| `records.py` | cheaper builders of the turn and field records a step replaces |
| `actions.py` | the action types |
| `work.py` | the mutable working copy: `Work`, `PlayerWork`, `emit`, `freeze` |
| `rules.py` | `LoyangRules`: the contract's entry points, each delegating |
| `options.py` | the options schema and the match `Config` built from it |
| `legal.py` | who decides now and the legal actions per decision label |
| `view.py` | `observe` (what a viewer may know) and `scramble` (the no-leak re-deal) |
| `wire.py` | the JSON forms of actions, views and events |
| `scenario.py` | building named positions for tests and bots |
| `members.py` | the enum members the rules read, bound once as module constants (speed) |
| `setup.py` | setup: decks, boards, start player, variant cards, sowing the starting field |
| `rounds.py` | a step; the nine rounds: harvest, phase order, the paired variant, the end |
| `card_phase.py` | the card phase: deal, courtyard options A and B, 2-player reveal, solo grid |
| `action_phase.py` | the action phase: steps A-G, the card pair, loans, raising money that is due |
| `helper_cards.py` | helper effects (lantern helpers too) and deliveries to regular customers |
| `scoring.py` | the end of a turn: regular customers checked, storing, paying for the Path |
| `board.py` | one player's board: placing and discarding cards, fields, money, the Path's costs |

Rule -> function (the rulebook: shared/rules/loyang.md)

| rule | function |
| --- | --- |
| Components: crops, action cards, fields | `cards.Crop`, `data.load` |
| Setup 1. The action deck | `setup.setup` |
| Setup 2. Boards | `board.starting_player` |
| Setup 3. The private field stack; the shop's stock | `setup.private_stack`, `data.parse` |
| Setup 4. Start player; sowing the starting field | `setup.setup`, `setup.sow_home` |
| Setup 5. Allowed crops; at most 2 players per crop | `legal.setup_actions` |
| A game is 9 rounds of 3 phases | `rounds.advance`, `rounds.begin_round` |
| Phase 1. Reveal a private field, harvest, empty the warehouse | `rounds.harvest` |
| Phase 1. Emptied fields are discarded | `board.harvest` |
| Phase 2. Shuffle and deal equal hands | `card_phase.begin` |
| Phase 2. A: play a card into the courtyard | `card_phase.play` |
| Phase 2. B: take a courtyard and a hand card | `card_phase.take` |
| Phase 2. Who may do A or B; the last player | `legal.card_actions` |
| Phase 2. End of the phase; the new start players | `card_phase.is_over`, `card_phase.finish` |
| Phase 2. Placing cards; a common field costs 2 | `board.place`, `board.pay_or_owe` |
| Phase 2. Loans | `action_phase.borrow`, `board.settle` |
| Raising money that is due (sell, helpers, loans) | `action_phase.pay`, `legal.pay_actions` |
| Phase 3. Which actions a seat may take now | `legal.act_actions` |
| Phase 3. A: sow | `action_phase.sow`, `board.sow` |
| Phase 3. B: buy from the shop | `action_phase.buy` |
| Phase 3. C: sell to the shop | `action_phase.sell`, `board.sell` |
| Phase 3. D: trade at a market stall | `action_phase.trade`, `board.stall_after_take` |
| Phase 3. E: which helper uses are possible | `legal.helper_uses` |
| Phase 3. E: use or dismiss a helper | `helper_cards.use_helper`, `action_phase.dismiss` |
| Phase 3. E: lantern helpers: whom they affect | `legal.targets` |
| Phase 3. E: lantern helpers at another's stall | `helper_cards.take_from_other` |
| Phase 3. E: lantern helpers at another's customer | `helper_cards.serve_other` |
| Phase 3. F: deliver to a regular customer | `helper_cards.deliver`, `board.may_deliver` |
| Phase 3. F: a missed delivery flips the marker, then fines | `scoring.end_turn` |
| Phase 3. G: serve a casual customer (+-2) | `action_phase.serve`, `board.casual_payout` |
| Phase 3. H: buy a card pair | `action_phase.buy_pair`, `board.pair_price`, `action_phase.draw` |
| Phase 3. H: keep 0-2 cards | `action_phase.keep` |
| Phase 3. H: the back card follows its front card | `board.reveal_under` |
| After acting: store crops, sell the rest | `scoring.store`, `scoring.clear_cart` |
| After acting: the warehouse and its upgrade | `board.capacity`, `action_phase.upgrade` |
| After acting: score on the Path of Prosperity | `scoring.advance`, `board.path_cost` |
| End of game: loans cost a step each | `board.final_position` |
| End of game: ranking and tie-breaks | `rounds.outcome`, `board.crops_held` |
| Variants 1. Beginner | `setup.beginner_hands` |
| Variants 2. Two players: reveal the deck's top card | `card_phase.reveal` |
| Variants 3. Four players: paired action phase | `legal.opponent_choices`, `rounds.pick_opponent` |
| Variants 4. Solo: the imaginary opponent | `setup.solo_opponent` |
| Variants 4. Solo: laying out the grid | `card_phase.layout_grid` |
| Variants 4. Solo: buying 2 grid cards | `card_phase.grid_buy` |
| Variants 4. Solo: discarding row 2, refilling the grid | `card_phase.finish_grid` |
| Variants 4. Solo: one reshuffle; the rating | `rounds.harvest`, `rounds.solo_rating` |
| Part B. The engine's data and its provisional values | `data.parse`, `catalog.data_lines` |
"""

from engines.loyang.rules import LoyangRules
from engines.registry import register

register(LoyangRules())

__all__ = ["LoyangRules"]
