"""Double Crossing (Paul J. Gruen, 1988): registers `CrossingRules` under the name "crossing".

Two to six railroad barons roll dice to move their locomotives round a loop track (an outer loop
and an inner branch), carrying out each space they stop on: buying cars at the yards and crew
cards, paying taxes and fares, trading sets of cars for company contracts, and suffering derails,
double crosses and dissatisfied customers. Before each roll the active player may play crew cards
(Railroad Crew to slow or reverse, a Villain against a rival's rack, an Engineer for another turn)
while the others may play Stop to take the turn away. The first player back at Central Station
with six contracts wins; a round cap ranks the rest by contracts, then money.

Files (the same roles in every game, and one module per rule family beside them):

| file | role |
| --- | --- |
| `__init__.py` | this docstring; registers `CrossingRules` |
| `components.py` | the typed board: cars, crew cards, kinds of space, spaces, contracts, `Board` |
| `data.py` | reading and validating the board files (`board.json`); the packaged `BOARDS` |
| `state.py` | the options and the frozen state: `CrossingState`, players, turn, prompts, tasks |
| `actions.py` | the action types |
| `records.py` | cheaper builders of tasks, prompts and turn records (`new_task`, `evolve_turn`) |
| `work.py` | `Work`, the mutable working copy a step edits: `emit`, `ask`, `freeze`, cars, money |
| `rules.py` | `CrossingRules`: the contract's entry points, each delegating |
| `legal.py` | who decides now; the legal actions per decision label, from the rule that asked it |
| `view.py` | `observe` (what a viewer may know) and `scramble` |
| `wire.py` | the JSON forms of actions and the view keys (`parse_action`, `dump_action`) |
| `scenario.py` | building named positions for tests and bots |
| `members.py` | the enum members the rules read, bound once as module constants (speed) |
| `setup.py` | the setup and the first player |
| `turns.py` | the turn sequence: a step, pending tasks, answering, beginning and ending turns |
| `moves.py` | rolling, doubles, moving, routes, arriving (and winning), dropped cars |
| `spaces.py` | carrying out every space but the contract ones |
| `contracts.py` | TRADE, CONNECTIONS, DOUBLE CROSS, DISSATISFIED CUSTOMER; moving contracts |
| `cards.py` | the crew cards: the piles, declaring, Railroad Crew, Villain, Engineer, Stop |
| `money.py` | the rack limit, debts and raising cash |
| `decisions.py` | what the decisions share: the options/answer signatures, common choices |

Rule -> function (the rulebook: shared/rules/double-crossing.md)

| rule | function |
| --- | --- |
| Components (the board file: spaces, cars, crew mix, contracts) | `data.load_board` |
| Setup 1-4: yards, crew piles, contract stacks, DEPOT, money, hands | `setup.deal` |
| Setup 5: two starting cars each; an empty yard's die is re-rolled | `setup.starting_cars` |
| Play: all roll, the highest starts, play goes clockwise | `setup.first_player` |
| Play 1: roll 2 dice and move (leaving Central counts as 1 step) | `moves.roll`, `moves.move` |
| Play 1: a junction makes the end of the move a choice (D1/D2) | `moves.answer_route` |
| Play 2: carry out the space where the locomotive stops | `spaces.carry_out` |
| GOVT CONTRACT: may buy crew cards, up to a die, 10 each | `spaces.offer_crew_cards` |
| TRAIN SHOP: roll 1 die, take that car free | `spaces.answer_train_shop` |
| TRADE: fulfil up to 3 contracts of this space | `contracts.trade`, `contracts.answer_trade` |
| ROLL AGAIN: another turn | `spaces.roll_again` |
| STOP: the turn ends at once | `spaces.stop_space` |
| PAY TAXES: pay the printed amount | `spaces.pay_taxes` |
| YARD: may buy 1 car at the printed price | `spaces.yard`, `spaces.answer_yard` |
| CREW CARDS: draw 1 crew card | `spaces.crew_cards` |
| CORNER STATIONS: 5 per passenger car from every other seat | `spaces.corner_station` |
| DERAIL: drop a car, or take the car lying there | `spaces.derail`, `moves.take_loose` |
| DOUBLE CROSS: duel another seat for one of its contracts | `contracts.answer_double_cross` |
| ROUNDHOUSE: a double in 3 rolls moves anywhere; else the turn ends | `spaces.roundhouse` |
| CONTROL TOWER: move another seat's locomotive anywhere | `spaces.answer_tower_space` |
| DEPOT: take the money there; the bank puts 10 back | `spaces.depot` |
| DISSATISFIED CUSTOMER: no double in 3 rolls returns a contract | `contracts.dissatisfied` |
| CONNECTIONS: buy any contract at half price | `contracts.answer_connections` |
| General rule 1: buy crew cards instead of rolling to move | `cards.plan_actions` |
| General rule 2: a double (not 6-6) discards a crew card | `moves.double`, `moves.answer_discard` |
| General rule 3: double six takes a box car | `moves.double` |
| General rule 4: stopping on an occupied space earns a turn | `moves.land`, `turns.end_turn` |
| General rule 5: a 7th car is sold back | `money.rack_check`, `money.answer_rack_limit` |
| General rule 6: raise cash by selling cars or contracts at half price | `money.debt` |
| Crew cards: declared before the roll (one simultaneous decision) | `cards.answer_declare` |
| Crew card 1: Railroad Crew slows and/or reverses the roll | `cards.railroad_crew_modes` |
| Crew card 2: Villain makes another seat drop a car | `cards.play_villain`, `cards.villain` |
| Crew card 2: the next locomotive stopping there takes the car | `moves.take_loose` |
| Crew card 3: Engineer gives another turn (not on STOP or DERAIL) | `cards.settle_engineer` |
| Crew card 4: Stop duels the active seat for its turn | `cards.stop` |
| End: back at Central Station with 6 contracts wins | `moves.arrive` |
| Part B: duel ties are re-rolled (D8) | `cards.duel` |
| Part B: a debt that cannot be raised is forgiven (D15) | `money.debt` |
| Part B: round cap; rank by contracts, money | `turns.begin_turn`, `rules.CrossingRules.outcome` |
| Part B: passenger fees are paid clockwise from the lander's left | `spaces.corner_station` |
| Part B: chained extra turns are capped (D18) | `turns.end_turn` |
| Part B: empty crew piles are refilled from the discards (D7) | `cards.reshuffle` |

Sources: rules/double-crossing.md (part A, the seed; part B, the open points) and
research-notes section 2. The board, companies, contracts, taxes, yard prices and crew mix live in
`board.json`, each value marked sourced or proposed (D1..D20); `arena rules crossing` prints them.
Wire forms and view keys: `engines.crossing.wire`. Choices made where the sources are silent:

- Board (D1/D2): an outer loop of 40 spaces and an inner branch of 12; START -> Central Station
  -> O0, where a move chooses outer or inner ("route", asked only when the end depends on it).
- Before each roll one simultaneous "declare" decision: the active seat declares its cards (or
  buys crew cards instead of rolling) while every other seat holding any card may play Stop.
  Stops resolve first, clockwise from the active seat's left (D9); a stopped turn spends none of
  the active seat's declared cards. Asking every seat with cards (hand sizes are public) keeps
  who holds a Stop secret.
- Engineer: declared before the roll; at the end of the turn it gives one more turn, unless the
  turn ended on STOP, DERAIL, a failed ROUNDHOUSE or DISSATISFIED CUSTOMER, another extra turn was
  already earned, or the chain cap (D18) is reached: then it goes back to the hand, unused.
- STOP, a failed ROUNDHOUSE and every DISSATISFIED CUSTOMER outcome end the turn outright (no
  extra turn, even on an occupied space). ROUNDHOUSE/DISSATISFIED rolls do not move (D17).
- Crew cards are drawn from the fuller pile (a face-down choice carries no information); when
  both piles are empty the discards are shuffled into new piles (D7). A double discards a card of
  the roller's choice, none with an empty hand (D16).
- Villain: targets any other seat holding a car, on START or not (「其他任一玩家」; no sentence
  of the seed forbids START); the victim picks the car (D13). Dropped
  cars stack on a space; the next locomotive to stop there takes the oldest (D12); on DERAIL that
  take replaces the drop.
- Winning (D10): reaching Central Station with 6+ contracts, by passing or stopping ("exact":
  stopping only); a move that can pass it ends the game at once. Teleports count when they land.
- CONTROL TOWER (D11): any other seat, or nobody, to any space but START and CONTROL TOWER; the
  moved seat resolves it with no extra turn. ROUNDHOUSE: after a double the seat may move to any
  space but START and ROUNDHOUSE, or stay (「可將…移至」).
- Optional effects are decisions: DOUBLE CROSS may take a contract or not (「可…拿取」); TRAIN SHOP
  may roll or not (「可擲1顆骰子」). Duel ties are re-rolled (D8).
- Money: a debt (tax, passenger fees paid clockwise from the lander's left) is paid in full when
  possible; else the debtor sells cars or contracts at half price, its choice (「須以半價賣出
  車輛或契約」, D14), and the rest is forgiven (D15, D20). Half prices round down to the smallest
  note (5): CONNECTIONS 25 -> 10. Optional purchases need the cash in hand. CONNECTIONS buys the
  contract alone, as the seed says; option `connections_cars` also requires and returns its cars.
- The cap counts rounds (every seat's regular turn once; extra turns do not count); at the cap
  seats rank by contracts, then money (part B). A winner at Central Station ranks first, the
  rest by the same keys.
"""

from engines.crossing.rules import CrossingRules
from engines.registry import register

register(CrossingRules())

__all__ = ["CrossingRules"]
