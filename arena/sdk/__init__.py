"""The Python bot SDK and the reference bots: subclass `Bot`, implement `decide`, call `run`.

`arena.sdk.client` holds the SDK itself; `arena.sdk.bots` the reference strategies;
`arena.sdk.local` plays strategies against each other in process.
"""

from arena.sdk.addresses import AddressError, parse_addresses
from arena.sdk.client import Bot, BotRejected, BotReplaced, StrategyBot, turn_of

__all__ = [
    "AddressError",
    "Bot",
    "BotRejected",
    "BotReplaced",
    "StrategyBot",
    "parse_addresses",
    "turn_of",
]
