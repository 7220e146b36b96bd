"""Hart an der Grenze: bluffing, bribes and smuggling across the border, for 3-6 seats.

Each turn one player is the sheriff; the others ("traders") secretly pack 1-5 goods cards from
their hand into a suitcase and declare its contents as a number of one legal good, truthfully or
not. The sheriff may inspect one trader, who may bargain a bribe to keep the suitcase shut; an
opened suitcase earns honest traders a compensation and costs smugglers a penalty. With 5-6
seats a sheriff may once run an extra control, and every sheriff may once seize an unchecked
suitcase. After each round everyone keeps up to three of the goods brought across and sells the
rest; after three rounds the kept goods sell at double value under caps, and the most money wins.

Files (the layout every game follows, see GAME_LAYOUT.md):

| file | role |
| --- | --- |
| `__init__.py` | this description, the rule -> function table; exports `HartRules` and `RULES` |
| `data.py` | the goods cards, the end-sale caps and the game's numbers |
| `state.py` | the frozen values of a state (`Bag` of goods cards, `Player`, `HartState`) |
| `actions.py` | the action types |
| `work.py` | `Work`, the mutable working copy a step edits; `emit` collects its events |
| `rules.py` | `HartRules`: the contract's entry points, each delegating |
| `legal.py` | who decides now and their legal actions (the `ActionSpace` builders) |
| `view.py` | `observe` (what a viewer may know) and `scramble` |
| `wire.py` | the JSON forms of actions and views, documented |
| `scenario.py` | building named positions for tests and bots |
| `members.py` | the enum members the rules read, bound once as module constants (speed) |
| `turns.py` | setup, turns and rounds: which rule answers each decision, what runs next |
| `dealing.py` | refilling the hands |
| `packing.py` | packing and declaring; stowing unopened suitcases |
| `inspection.py` | inspection, bribes, extra control, opening a suitcase |
| `seizure.py` | the seizure |
| `round_end.py` | keeping, selling, the next round's first sheriff |
| `scoring.py` | the end-of-game sale and the winner |

Rule -> function (the rulebook: shared/rules/hart-an-der-grenze.md)

| rule | function |
| --- | --- |
| Decisions: number of players (3-6) | `data.SEAT_COUNTS` |
| Decisions: money (integers; the bank never runs out) | `data.START_MONEY` |
| Decisions: declared count vs. actual count | `inspection.split_by_declaration` |
| Decisions: fewer cards than declared | `inspection.compensation` |
| Decisions: compensation | `inspection.compensation`, `inspection.open_suitcase` |
| Decisions: a player who cannot pay a penalty in full | `inspection.pay_penalty` |
| Decisions: bribe negotiation | `inspection.bargain`, `inspection.pay_bribe`, `legal.bribes` |
| Decisions: extra control | `inspection.inspect`, `inspection.unchecked`, `turns.after_check` |
| Decisions: seizure | `seizure.seize`, `turns.after_check` |
| Decisions: dealing | `dealing.refill` |
| Decisions: first sheriff of the game | `turns.start_match` |
| Decisions: what is public | `view.observe`, `view.scramble` |
| Decisions: who picks the next round's first sheriff | `round_end.poorest`, `round_end.appoint` |
| Decisions: end-of-round selling and keeping | `round_end.keep`, `round_end.sell` |
| Decisions: end-of-game sale | `scoring.final_sale`, `scoring.double_sale` |
| Decisions: winner | `scoring.ranking` |
| Course of a turn: packing and declaring | `packing.pack`, `packing.declare` |
| Course of a turn: the traders and the deal | `turns.begin_turn` |
| Course of a turn: unopened suitcases go behind | `packing.stow` |
| Course of a turn: the next sheriff, the round's end | `turns.end_turn`, `turns.close_round` |
| Worked example 1: no bribe agreed | `inspection.open_suitcase`, `inspection.pay_penalty` |
| Worked example 2: double-value sale of jugs | `scoring.double_sale` |
| Worked example 3: double-value sale of tequila | `scoring.double_sale` |
| Worked example 4: double-value sale of cigars, shared | `scoring.double_sale` |
| Worked example 5: bribe of 15 accepted | `inspection.pay_bribe` |
| Worked example 6: seizure of a statue | `seizure.seize` |
"""

from engines.hart.rules import HartRules
from engines.registry import register

RULES = register(HartRules())

__all__ = ["RULES", "HartRules"]
