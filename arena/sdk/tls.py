"""How a client reaches a referee over TLS: the settings, the channels, and what a failure means.

A bot, `arena bot run`, every client command and the workers build their gRPC channels here:

    ClientTls()                                   plaintext (the default)
    ClientTls(enabled=True)                       TLS, the referee's certificate checked against
                                                  the system's roots
    ClientTls(enabled=True, ca=Path("ca.pem"))    TLS against a private CA
    ClientTls(..., cert=..., key=...)             mutual TLS: this client shows a certificate too

`ClientTls.from_env()` reads the same settings from the environment, so a bot started by someone
else (a runner, `arena bot test`, a container) takes them without flags:

    ARENA_TLS=1                  use TLS (implied by any of the others; ARENA_TLS=0 turns it off
                                 whatever they say, unless a flag asks for TLS)
    ARENA_TLS_CA=FILE            PEM roots that sign the referee's certificate
    ARENA_TLS_CLIENT_CERT=FILE   this client's certificate chain (mutual TLS)
    ARENA_TLS_CLIENT_KEY=FILE    its private key
    ARENA_TLS_SERVER_NAME=NAME   the name to expect in the referee's certificate when the address
                                 does not carry it (e.g. an IP address)

gRPC reports a TLS mismatch as a bare UNAVAILABLE; `diagnose` turns the status into one line that
says which side is wrong and what to pass (`TlsProblem`).
"""

from __future__ import annotations

import argparse
import os
import socket
import ssl
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Union

import grpc

from arena.sdk.addresses import is_target

TRUE = ("1", "true", "yes", "on")
FALSE = ("", "0", "false", "no", "off")
PROBE_TIMEOUT = timedelta(seconds=1)
"""How long `speaks_tls` waits for a referee's TLS handshake."""

ChannelOptions = Sequence[tuple[str, Union[str, int]]]  # noqa: UP007 (a runtime alias: Python 3.9)


class TlsConfigError(ValueError):
    """TLS settings that cannot work: a file that is missing or not PEM, a cert without a key."""


@dataclass(frozen=True)  # no slots: the slim SDK runs on Python 3.9
class TlsProblem:
    """Why a connection failed at the TLS layer, and what to do about it."""

    message: str
    hint: str

    def line(self) -> str:
        """The problem as one line: `<message>; <hint>`."""
        return f"{self.message}; {self.hint}"


@dataclass(frozen=True)  # no slots: the slim SDK runs on Python 3.9
class ClientTls:
    """A client's transport security towards the referees."""

    enabled: bool = False
    """Whether to speak TLS at all; plaintext when False."""
    ca: Path | None = None
    """PEM file of the roots that sign the referee's certificate; None: the system's roots."""
    cert: Path | None = None
    """This client's certificate chain (PEM), shown to a referee that asks (mutual TLS)."""
    key: Path | None = None
    """The private key of `cert` (PEM)."""
    server_name: str = ""
    """The name the referee's certificate must hold, when not the address's host."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ClientTls:
        """The settings in ARENA_TLS, ARENA_TLS_CA, ARENA_TLS_CLIENT_CERT/_KEY and
        ARENA_TLS_SERVER_NAME; plaintext when none is set."""
        return cls.of_args(argparse.Namespace(), environ)

    @classmethod
    def of_args(
        cls, args: argparse.Namespace, environ: Mapping[str, str] | None = None
    ) -> ClientTls:
        """The settings of a command's --tls, --tls-ca, --tls-client-cert and --tls-client-key,
        each falling back to its environment variable (`from_env`)."""
        env = os.environ if environ is None else environ
        flag = env.get("ARENA_TLS", "").strip().lower()
        if flag not in TRUE + FALSE:
            raise TlsConfigError(f"ARENA_TLS={flag!r}: use 1/0, true/false, yes/no or on/off")
        flags = ("tls", "tls_ca", "tls_client_cert", "tls_client_key")
        if flag and flag in FALSE and not any(getattr(args, name, "") for name in flags):
            return cls()  # ARENA_TLS=0 says plaintext whatever the other variables say
        return cls.of(
            bool(getattr(args, "tls", False)) or flag in TRUE,
            ca=getattr(args, "tls_ca", "") or env.get("ARENA_TLS_CA", ""),
            cert=getattr(args, "tls_client_cert", "") or env.get("ARENA_TLS_CLIENT_CERT", ""),
            key=getattr(args, "tls_client_key", "") or env.get("ARENA_TLS_CLIENT_KEY", ""),
            server_name=env.get("ARENA_TLS_SERVER_NAME", ""),
        )

    @classmethod
    def of(
        cls, enabled: bool, *, ca: str = "", cert: str = "", key: str = "", server_name: str = ""
    ) -> ClientTls:
        """Settings from flag values ("" = not given); a CA, a certificate or a server name
        implies TLS. Raises TlsConfigError for a certificate without its key or the reverse."""
        if bool(cert) != bool(key):
            raise TlsConfigError(
                "a client certificate needs its key and the reverse: pass both "
                "--tls-client-cert and --tls-client-key (or ARENA_TLS_CLIENT_CERT and _KEY)"
            )
        return cls(
            enabled=enabled or bool(ca or cert or server_name),
            ca=Path(ca) if ca else None,
            cert=Path(cert) if cert else None,
            key=Path(key) if key else None,
            server_name=server_name,
        )

    def environ(self) -> dict[str, str]:
        """These settings as the variables `from_env` reads (for a child process)."""
        if not self.enabled:
            return {"ARENA_TLS": "0"}
        named = {
            "ARENA_TLS_CA": self.ca,
            "ARENA_TLS_CLIENT_CERT": self.cert,
            "ARENA_TLS_CLIENT_KEY": self.key,
            "ARENA_TLS_SERVER_NAME": self.server_name,
        }
        return {"ARENA_TLS": "1"} | {k: str(v) for k, v in named.items() if v}

    def credentials(self) -> grpc.ChannelCredentials:
        """The channel credentials: the files read now. Raises TlsConfigError for a file that
        is missing, unreadable or not PEM."""
        roots = _read(self.ca, "CA", "--tls-ca", "CERTIFICATE") if self.ca else None
        if self.cert is None or self.key is None:
            return grpc.ssl_channel_credentials(roots)
        chain = _read(self.cert, "client certificate", "--tls-client-cert", "CERTIFICATE")
        key = _read(self.key, "client key", "--tls-client-key", "PRIVATE KEY")
        return grpc.ssl_channel_credentials(roots, key, chain)

    def options(self) -> tuple[tuple[str, str], ...]:
        """Channel options TLS needs: the expected server name, if one is set."""
        if self.enabled and self.server_name:
            return (("grpc.ssl_target_name_override", self.server_name),)
        return ()

    def aio_channel(self, address: str, options: ChannelOptions = ()) -> grpc.aio.Channel:
        """A grpc.aio channel to `address`, over TLS when enabled."""
        if not self.enabled:
            return grpc.aio.insecure_channel(address, options=list(options))
        opts = [*options, *self.options()]
        return grpc.aio.secure_channel(address, self.credentials(), options=opts)

    def channel(self, address: str, options: ChannelOptions = ()) -> grpc.Channel:
        """A blocking grpc channel to `address`, over TLS when enabled."""
        if not self.enabled:
            return grpc.insecure_channel(address, options=list(options))
        opts = [*options, *self.options()]
        return grpc.secure_channel(address, self.credentials(), options=opts)


PLAINTEXT = ClientTls()
"""No TLS: the default of every client."""


def _read(path: Path, what: str, flag: str, marker: str) -> bytes:
    """The PEM bytes of a TLS file, or TlsConfigError naming the file and the flag."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TlsConfigError(
            f"cannot read the TLS {what} {path}: {exc.strerror or exc}; check {flag}"
        ) from None
    if b"-----BEGIN" not in data or marker.encode() not in data:
        raise TlsConfigError(f"the TLS {what} {path} is not a PEM {marker.lower()}; check {flag}")
    return data


UNTRUSTED = ("certificate_verify_failed", "certificate verify failed")
NAME_MISMATCH = ("peer name", "hostname mismatch", "not in peer certificate")
PLAINTEXT_PEER = ("wrong_version_number", "http_request", "wrong version number")
CLOSED = ("socket closed", "connection reset", "end of tcp stream")


def diagnose(
    code: grpc.StatusCode, details: str, tls: ClientTls, address: str
) -> TlsProblem | None:
    """What a failed call's status says about TLS, or None when it is not a TLS mismatch.

    A plaintext client whose connection is closed at once asks the address whether it speaks
    TLS (`speaks_tls`), since gRPC only says "Socket closed"."""
    if code != grpc.StatusCode.UNAVAILABLE:
        return None
    text = details.lower()
    if tls.enabled and any(s in text for s in UNTRUSTED):
        where = f"the CA in {tls.ca}" if tls.ca else "the system's roots"
        return TlsProblem(
            f"the referee's certificate at {address} is not trusted ({where} did not sign it)",
            "pass --tls-ca FILE with the CA that signed it (or set ARENA_TLS_CA)",
        )
    if tls.enabled and any(s in text for s in NAME_MISMATCH):
        return TlsProblem(
            f"the referee's certificate does not name {address}",
            "connect by a name the certificate holds, or set ARENA_TLS_SERVER_NAME to one",
        )
    if tls.enabled and any(s in text for s in PLAINTEXT_PEER):
        return TlsProblem(
            f"the referee at {address} does not speak TLS",
            "drop --tls (and ARENA_TLS), or start the referee with --tls-cert and --tls-key",
        )
    if tls.enabled and tls.cert is None and any(s in text for s in CLOSED):
        return TlsProblem(
            f"the referee at {address} closed the TLS handshake: it may require a client "
            "certificate (mutual TLS)",
            "pass --tls-client-cert FILE and --tls-client-key FILE (or ARENA_TLS_CLIENT_CERT "
            "and ARENA_TLS_CLIENT_KEY)",
        )
    if not tls.enabled and any(s in text for s in CLOSED) and speaks_tls(address):
        return TlsProblem(
            f"the referee at {address} speaks TLS and this client does not",
            "pass --tls (and --tls-ca FILE if a private CA signed its certificate), or set "
            "ARENA_TLS=1",
        )
    return None


def speaks_tls(address: str, timeout: timedelta = PROBE_TIMEOUT) -> bool:
    """Whether the server at HOST:PORT completes a TLS handshake (its certificate unchecked:
    this only tells a TLS referee from a plaintext one). False for a gRPC target or on any
    failure."""
    if is_target(address):
        return False
    host, _, port = address.rpartition(":")
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"])
    try:
        with (
            socket.create_connection(
                (host.strip("[]"), int(port)), timeout=timeout.total_seconds()
            ) as raw,
            context.wrap_socket(raw, server_hostname=host.strip("[]")),
        ):
            return True
    except (OSError, ValueError):
        return False


def add_client_arguments(parser: argparse.ArgumentParser) -> None:
    """Add --tls, --tls-ca, --tls-client-cert and --tls-client-key to a client command."""
    parser.add_argument(
        "--tls",
        action="store_true",
        help="talk to the referee over TLS, its certificate checked against the system's roots "
        "(default: ARENA_TLS=1; implied by --tls-ca and --tls-client-cert)",
    )
    parser.add_argument(
        "--tls-ca",
        metavar="FILE",
        default="",
        help="PEM CA that signed the referee's certificate (default: ARENA_TLS_CA, else the "
        "system's roots)",
    )
    parser.add_argument(
        "--tls-client-cert",
        metavar="FILE",
        default="",
        help="this client's PEM certificate, for a referee that requires one (mutual TLS; "
        "default: ARENA_TLS_CLIENT_CERT)",
    )
    parser.add_argument(
        "--tls-client-key",
        metavar="FILE",
        default="",
        help="the PEM private key of --tls-client-cert (default: ARENA_TLS_CLIENT_KEY)",
    )
