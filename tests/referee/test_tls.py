"""TLS on the referee's port, against a throwaway CA made in the test (tests/tlscerts.py): a bot
plays a match over TLS; a plaintext client, a client that trusts another CA, and a client without
a certificate at a mutual-TLS referee are refused, and the SDK says why in one line instead of
retrying for ever.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import grpc
import pytest

from arena.ops.tls import ServerTls, ServerTlsError
from arena.sdk import TlsMismatch
from arena.sdk.tls import ClientTls, TlsConfigError, diagnose, speaks_tls
from arena.v1 import arena_pb2, common_pb2
from tests.referee.bots import RandomBot
from tests.referee.harness import create_match, register, running_referee, stub, wait_finished
from tests.tlscerts import Pki

pytestmark = pytest.mark.integration

REFUSAL = timedelta(seconds=20)
"""Ample time for the SDK to give up on a TLS mismatch (it does after one round of addresses)."""


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return Pki.create(tmp_path_factory.mktemp("pki"))


def _server(pki: Pki, *, mutual: bool = False) -> ServerTls:
    return ServerTls(pki.server_cert, pki.server_key, pki.ca if mutual else None)


async def _list_bots(address: str, tls: ClientTls) -> list[str]:
    channel, api = stub(address, tls)
    async with channel:
        reply = await api.ListBots(arena_pb2.ListBotsRequest(), timeout=5)
    return [b.name for b in reply.bots]


async def _refusal(bot: RandomBot, address: str, token: str, tls: ClientTls) -> str:
    """The one line the SDK stops with."""
    with pytest.raises(TlsMismatch) as caught:
        await asyncio.wait_for(bot.run_async(address, token, tls), REFUSAL.total_seconds())
    return str(caught.value)


def test_two_bots_play_a_match_over_tls(fresh_database_url: str, pki: Pki) -> None:
    trusted = ClientTls(enabled=True, ca=pki.ca)

    async def scenario() -> None:
        async with running_referee(fresh_database_url, tls=_server(pki)) as server:
            names = ["tls-a", "tls-b"]
            tokens = [await register(server.address, n, trusted) for n in names]
            bots = [RandomBot(1), RandomBot(2)]
            tasks = [
                asyncio.create_task(b.run_async(server.address, t, trusted))
                for b, t in zip(bots, tokens, strict=True)
            ]
            try:
                match_id = await create_match(server.address, "crossing", names, tls=trusted)
                match = await wait_finished(server.address, match_id, tls=trusted)
                assert match.status == common_pb2.MATCH_STATUS_FINISHED
                assert sorted(s.bot for s in match.seats) == names
                # The MatchEnd may reach the bots a moment after the match reads as finished.
                for _ in range(200):
                    if all(b.finished for b in bots):
                        break
                    await asyncio.sleep(0.05)
            finally:
                for bot in bots:
                    bot.stop()
                await asyncio.gather(*tasks)
            assert all(len(b.finished) == 1 for b in bots)

    asyncio.run(scenario())


def test_a_plaintext_client_is_refused_and_told_to_pass_tls(
    fresh_database_url: str, pki: Pki
) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url, tls=_server(pki)) as server:
            token = await register(server.address, "plain", ClientTls(enabled=True, ca=pki.ca))
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await _list_bots(server.address, ClientTls())
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
            line = await _refusal(RandomBot(), server.address, token, ClientTls())
            assert line == (
                f"the referee at {server.address} speaks TLS and this client does not; pass "
                "--tls (and --tls-ca FILE if a private CA signed its certificate), or set "
                "ARENA_TLS=1"
            )

    asyncio.run(scenario())


def test_a_certificate_from_another_ca_is_one_clear_line(fresh_database_url: str, pki: Pki) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url, tls=_server(pki)) as server:
            token = await register(server.address, "wary", ClientTls(enabled=True, ca=pki.ca))
            wrong = ClientTls(enabled=True, ca=pki.other_ca)
            line = await _refusal(RandomBot(), server.address, token, wrong)
            assert line == (
                f"the referee's certificate at {server.address} is not trusted (the CA in "
                f"{pki.other_ca} did not sign it); pass --tls-ca FILE with the CA that signed "
                "it (or set ARENA_TLS_CA)"
            )
            # The system's roots do not hold a throwaway CA either.
            line = await _refusal(RandomBot(), server.address, token, ClientTls(enabled=True))
            assert "not trusted (the system's roots did not sign it)" in line

    asyncio.run(scenario())


def test_a_tls_client_at_a_plaintext_referee_is_told_so(fresh_database_url: str, pki: Pki) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            token = await register(server.address, "eager")
            line = await _refusal(
                RandomBot(), server.address, token, ClientTls(enabled=True, ca=pki.ca)
            )
            assert line.startswith(f"the referee at {server.address} does not speak TLS; drop")
            assert not speaks_tls(server.address)

    asyncio.run(scenario())


def test_mutual_tls_refuses_a_client_without_a_certificate_or_with_a_strangers(
    fresh_database_url: str, pki: Pki
) -> None:
    anonymous = ClientTls(enabled=True, ca=pki.ca)
    member = ClientTls(enabled=True, ca=pki.ca, cert=pki.client_cert, key=pki.client_key)
    stranger = ClientTls(
        enabled=True, ca=pki.ca, cert=pki.other_client_cert, key=pki.other_client_key
    )

    async def scenario() -> None:
        async with running_referee(fresh_database_url, tls=_server(pki, mutual=True)) as server:
            token = await register(server.address, "member", member)
            for refused in (anonymous, stranger):
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await _list_bots(server.address, refused)
                assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
            line = await _refusal(RandomBot(), server.address, token, anonymous)
            assert "may require a client certificate" in line
            assert "--tls-client-cert" in line
            bot = RandomBot()
            task = asyncio.create_task(bot.run_async(server.address, token, member))
            try:
                for _ in range(200):
                    if await _list_bots(server.address, member) == ["member"]:
                        break
                    await asyncio.sleep(0.05)
                assert await _list_bots(server.address, member) == ["member"]
            finally:
                bot.stop()
                await task

    asyncio.run(scenario())


def test_the_sdk_reads_tls_from_the_environment(pki: Pki) -> None:
    tls = ClientTls.from_env({"ARENA_TLS": "1", "ARENA_TLS_CA": str(pki.ca)})
    assert tls == ClientTls(enabled=True, ca=pki.ca)
    assert ClientTls.from_env({}) == ClientTls()
    assert ClientTls.from_env({"ARENA_TLS_CA": str(pki.ca)}).enabled  # a CA implies TLS
    assert ClientTls.from_env(tls.environ()) == tls
    assert ClientTls.from_env({**tls.environ(), **ClientTls().environ()}) == ClientTls()
    with pytest.raises(TlsConfigError, match="ARENA_TLS='maybe'"):
        ClientTls.from_env({"ARENA_TLS": "maybe"})
    with pytest.raises(TlsConfigError, match="needs its key"):
        ClientTls.from_env({"ARENA_TLS_CLIENT_CERT": str(pki.client_cert)})
    with pytest.raises(TlsConfigError, match=r"cannot read the TLS CA /no/such\.pem"):
        ClientTls(enabled=True, ca=Path("/no/such.pem")).credentials()
    with pytest.raises(TlsConfigError, match="is not a PEM certificate"):
        ClientTls(enabled=True, ca=pki.client_key).credentials()


def test_server_files_are_checked_before_serving(pki: Pki, tmp_path: Path) -> None:
    _server(pki, mutual=True).check()
    assert ServerTls.of("", "") is None
    with pytest.raises(ServerTlsError, match="both --tls-cert FILE and --tls-key FILE"):
        ServerTls.of(str(pki.server_cert), "")
    with pytest.raises(ServerTlsError, match="mutual TLS is TLS first"):
        ServerTls.of("", "", str(pki.ca))
    with pytest.raises(ServerTlsError, match=r"cannot read /no/cert\.pem"):
        ServerTls(Path("/no/cert.pem"), pki.server_key).check()
    with pytest.raises(ServerTlsError, match="not a PEM certificate and its private key"):
        ServerTls(pki.server_cert, pki.client_key).check()  # another certificate's key
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    with pytest.raises(ServerTlsError, match="holds no PEM CA certificate"):
        ServerTls(pki.server_cert, pki.server_key, junk).check()


def test_other_failures_are_not_taken_for_tls(pki: Pki) -> None:
    tls = ClientTls(enabled=True, ca=pki.ca)
    assert diagnose(grpc.StatusCode.UNAUTHENTICATED, "unknown bot token", tls, "a:1") is None
    assert diagnose(grpc.StatusCode.UNAVAILABLE, "Connection refused", tls, "a:1") is None
    # An address with nothing behind it is not a TLS referee.
    assert not speaks_tls("127.0.0.1:9", timedelta(milliseconds=200))
