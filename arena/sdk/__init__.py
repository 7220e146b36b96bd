"""The Python bot SDK and the reference bots: subclass `Bot`, implement `decide`, call `run`.

`arena.sdk.client` holds the SDK itself; `arena.sdk.bots` the reference strategies;
`arena.sdk.local` plays strategies against each other in process (full install only: the
`arena-sdk` wheel of sdk/python/ leaves it out, with the engines it drives).
"""

from arena.sdk.addresses import AddressError, parse_addresses
from arena.sdk.client import Bot, BotRejected, BotReplaced, StrategyBot, TlsMismatch
from arena.sdk.tls import ClientTls
from arena.sdk.turns import turn_of

__all__ = [
    "AddressError",
    "Bot",
    "BotRejected",
    "BotReplaced",
    "ClientTls",
    "StrategyBot",
    "TlsMismatch",
    "parse_addresses",
    "turn_of",
]
