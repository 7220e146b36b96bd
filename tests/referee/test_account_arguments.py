"""AccountService checks every request value at the door: a bad one is INVALID_ARGUMENT naming its
field, and random junk never reaches the server as an unexpected error."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration
from google.protobuf.message import Message

from arena.v1 import account_pb2, account_pb2_grpc
from tests.referee.harness import ADMIN_METADATA, running_referee

pytestmark = pytest.mark.integration

NO_ARGUMENTS = {"WhoAmI", "ListKeys"}
LONG = Duration(seconds=400 * 86400)
SHA = b"\x01" * 32
RUN = "python3 bot.py"


def _cases() -> dict[str, list[tuple[Message, str]]]:
    a = account_pb2
    return {
        "CreateAccount": [
            (a.CreateAccountRequest(name="bad name!"), "name"),
            (a.CreateAccountRequest(name="ok", password="short"), "password"),
            (a.CreateAccountRequest(name="ok", role=99), "role"),  # type: ignore[arg-type]
        ],
        "Login": [
            (a.LoginRequest(name=""), "name"),
            (a.LoginRequest(name="ada", password=""), "password"),
            (a.LoginRequest(name="ada", password="x", expires_in=LONG), "expires_in"),
            (a.LoginRequest(name="ada", password="x", key_name="x y"), "key_name"),
        ],
        "CreateKey": [
            (a.CreateKeyRequest(name=""), "name"),
            (a.CreateKeyRequest(name="k", expires_in=Duration(seconds=1)), "expires_in"),
        ],
        "RevokeKey": [(a.RevokeKeyRequest(name="a\nb"), "name")],
        "SetRole": [
            (a.SetRoleRequest(name="", role=a.ROLE_ADMIN), "name"),
            (a.SetRoleRequest(name="ada"), "role"),
        ],
        "RotateBotToken": [(a.BotRef(bot=""), "bot")],
        "RetireBot": [(a.BotRef(bot="../etc"), "bot")],
        "CreateBotVersion": [
            (a.CreateBotVersionRequest(bot="b", label=""), "label"),
            (a.CreateBotVersionRequest(bot="b", label="v2", notes="\x00"), "notes"),
            (a.CreateBotVersionRequest(bot="", label="v2"), "bot"),
        ],
        "UploadArchivePart": [
            (a.ArchivePart(bot="b", sha256=b"x", data=b"x"), "sha256"),
            (a.ArchivePart(bot="b", sha256=SHA, offset=-1, data=b"x"), "offset"),
            (a.ArchivePart(bot="b", sha256=SHA, data=b""), "data"),
            (a.ArchivePart(bot="b", sha256=SHA, data=b"x" * (48 * 1024 + 1)), "data"),
            (a.ArchivePart(bot="", sha256=SHA, data=b"x"), "bot"),
        ],
        "UploadBotVersion": [
            (a.UploadBotVersionRequest(bot="b", label="", sha256=SHA, run=RUN), "label"),
            (a.UploadBotVersionRequest(bot="b", label="v", sha256=b"", run=RUN), "sha256"),
            (a.UploadBotVersionRequest(bot="b", label="v", sha256=SHA, run="bash x"), "run"),
            (a.UploadBotVersionRequest(bot="b", label="v", sha256=SHA, run="python3 'x"), "run"),
            (a.UploadBotVersionRequest(bot="b", label="v", sha256=SHA, run="x\n"), "run"),
            (a.UploadBotVersionRequest(bot="b", label="v", sha256=SHA), "run"),
            (a.UploadBotVersionRequest(bot="", label="v", sha256=SHA, run=RUN), "bot"),
        ],
        "ListBotVersions": [(a.BotRef(bot="x" * 65), "bot")],
        "SetBotAlwaysOn": [(a.SetBotAlwaysOnRequest(bot="", always_on=True), "bot")],
        "ListAudit": [
            (a.ListAuditRequest(limit=501), "limit"),
            (a.ListAuditRequest(before_id=-1), "before_id"),
        ],
    }


def test_every_account_rpc_answers_invalid_argument_naming_the_field(
    fresh_database_url: str,
) -> None:
    cases = _cases()
    service = account_pb2.DESCRIPTOR.services_by_name["AccountService"]
    assert set(cases) | NO_ARGUMENTS == {m.name for m in service.methods}, "an RPC lacks cases"

    async def scenario() -> None:
        async with (
            running_referee(fresh_database_url) as server,
            grpc.aio.insecure_channel(server.address) as channel,
        ):
            stub = account_pb2_grpc.AccountServiceStub(channel)
            for method, requests in cases.items():
                for request, field in requests:
                    with pytest.raises(grpc.aio.AioRpcError) as info:
                        await getattr(stub, method)(request, metadata=ADMIN_METADATA)
                    got = (info.value.code(), info.value.details() or "")
                    assert got[0] == grpc.StatusCode.INVALID_ARGUMENT, (method, field, got)
                    assert got[1].startswith(f"{field}:"), (method, field, got)

    asyncio.run(scenario())


def _junk(rng: random.Random) -> str:
    size = rng.choice([0, 1, 8, 64, 65, 300, 5000])
    alphabet = "aZ09._-!\n\x00 é/\\'\"" + chr(0x1F600)
    return "".join(rng.choice(alphabet) for _ in range(size))


def test_random_account_requests_get_a_clean_status(fresh_database_url: str) -> None:
    rng = random.Random(25)
    allowed = {
        grpc.StatusCode.OK,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.FAILED_PRECONDITION,
    }

    async def scenario() -> None:
        async with (
            running_referee(fresh_database_url) as server,
            grpc.aio.insecure_channel(server.address) as channel,
        ):
            stub = account_pb2_grpc.AccountServiceStub(channel)
            a = account_pb2
            for _ in range(60):
                bearer = "Bearer " + "".join(rng.choice("arenakey_AZ-09") for _ in range(60))
                who = rng.choice([None, ADMIN_METADATA, (("authorization", bearer),)])
                request, method = rng.choice(
                    [
                        (a.CreateAccountRequest(name=_junk(rng)), "CreateAccount"),
                        (a.LoginRequest(name=_junk(rng), password=_junk(rng)), "Login"),
                        (a.CreateKeyRequest(name=_junk(rng)), "CreateKey"),
                        (a.RevokeKeyRequest(name=_junk(rng)), "RevokeKey"),
                        (a.BotRef(bot=_junk(rng)), "RotateBotToken"),
                        (
                            a.CreateBotVersionRequest(
                                bot=_junk(rng), label=_junk(rng), notes=_junk(rng)
                            ),
                            "CreateBotVersion",
                        ),
                    ]
                )
                try:
                    await getattr(stub, method)(request, metadata=who)
                    code = grpc.StatusCode.OK
                except grpc.aio.AioRpcError as exc:
                    code = exc.code()
                assert code in allowed, (method, request, code)

    asyncio.run(scenario())
