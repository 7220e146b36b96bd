"""Double Crossing (Gruen, 1988): registers `CrossingRules` under the name "crossing".

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
