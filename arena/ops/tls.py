"""A listening port's TLS: the certificate, key and client CA of `arena serve` and `arena web`.

    arena serve --tls-cert FILE --tls-key FILE [--tls-client-ca FILE]
    arena web   --tls-cert FILE --tls-key FILE [--tls-client-ca FILE]

With a client CA the port asks every client for a certificate signed by it (mutual TLS) and
refuses the handshake without one. The flags default to ARENA_TLS_CERT, ARENA_TLS_KEY and
ARENA_TLS_CLIENT_CA. The files are checked when the process starts (`ServerTls.check`), so a
missing, unreadable or mismatched file stops it with one line, not at the first handshake.
Metrics ports stay plaintext.
"""

from __future__ import annotations

import argparse
import os
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

SERVER_TLS_VARIABLES = ("ARENA_TLS_CERT", "ARENA_TLS_KEY", "ARENA_TLS_CLIENT_CA")
"""The variables the --tls-cert, --tls-key and --tls-client-ca flags default to."""


class ServerTlsError(ValueError):
    """Server TLS files that cannot work: missing, unreadable, not PEM, a key of another cert."""


@dataclass(frozen=True, slots=True)
class ServerTls:
    """A port's certificate and key, and the CA its clients' certificates must come from."""

    cert: Path
    """The server's certificate chain (PEM), leaf first."""
    key: Path
    """Its private key (PEM, unencrypted)."""
    client_ca: Path | None = None
    """PEM roots that sign client certificates; set, every client must show one (mutual TLS)."""

    @classmethod
    def of(cls, cert: str, key: str, client_ca: str = "") -> ServerTls | None:
        """The settings of the flags ("" = not given); None for plaintext. Raises
        ServerTlsError for a certificate without a key (or the reverse), or a client CA
        without either."""
        if not cert and not key:
            if client_ca:
                raise ServerTlsError(
                    "--tls-client-ca needs --tls-cert and --tls-key: mutual TLS is TLS first"
                )
            return None
        if not cert or not key:
            raise ServerTlsError("TLS needs both --tls-cert FILE and --tls-key FILE")
        return cls(Path(cert), Path(key), Path(client_ca) if client_ca else None)

    @classmethod
    def of_args(cls, args: argparse.Namespace) -> ServerTls | None:
        """The settings of a command's --tls-cert, --tls-key and --tls-client-ca, checked."""
        tls = cls.of(args.tls_cert, args.tls_key, args.tls_client_ca)
        if tls is not None:
            tls.check()
        return tls

    def check(self) -> None:
        """Load the files the way a handshake would; ServerTlsError in one line if they fail."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        for path, flag in ((self.cert, "--tls-cert"), (self.key, "--tls-key")):
            _readable(path, flag)
        try:
            context.load_cert_chain(self.cert, self.key)
        except ssl.SSLError as exc:
            raise ServerTlsError(
                f"{self.cert} and {self.key} are not a PEM certificate and its private key "
                f"({exc.reason or exc}); check --tls-cert and --tls-key"
            ) from None
        if self.client_ca is not None:
            _readable(self.client_ca, "--tls-client-ca")
            try:
                context.load_verify_locations(self.client_ca)
            except ssl.SSLError as exc:
                raise ServerTlsError(
                    f"{self.client_ca} holds no PEM CA certificate ({exc.reason or exc}); "
                    "check --tls-client-ca"
                ) from None

    def grpc_credentials(self) -> grpc.ServerCredentials:
        """The gRPC server credentials (read from the files now)."""
        pair = (self.key.read_bytes(), self.cert.read_bytes())
        roots = self.client_ca.read_bytes() if self.client_ca else None
        return grpc.ssl_server_credentials(
            [pair], root_certificates=roots, require_client_auth=roots is not None
        )

    def uvicorn_options(self) -> dict[str, Any]:
        """`uvicorn.run` keyword arguments that serve HTTPS with these files."""
        options: dict[str, Any] = {"ssl_certfile": str(self.cert), "ssl_keyfile": str(self.key)}
        if self.client_ca is not None:
            options |= {"ssl_ca_certs": str(self.client_ca), "ssl_cert_reqs": ssl.CERT_REQUIRED}
        return options


def _readable(path: Path, flag: str) -> None:
    try:
        with path.open("rb"):
            pass
    except OSError as exc:
        raise ServerTlsError(f"cannot read {path} ({exc.strerror or exc}); check {flag}") from None


def add_server_arguments(parser: argparse.ArgumentParser, port: str) -> None:
    """Add --tls-cert, --tls-key and --tls-client-ca (defaults from the environment)."""
    parser.add_argument(
        "--tls-cert",
        metavar="FILE",
        default=os.environ.get(SERVER_TLS_VARIABLES[0], ""),
        help=f"serve the {port} over TLS with this PEM certificate chain (with --tls-key; "
        "default: ARENA_TLS_CERT, else plaintext)",
    )
    parser.add_argument(
        "--tls-key",
        metavar="FILE",
        default=os.environ.get(SERVER_TLS_VARIABLES[1], ""),
        help="the PEM private key of --tls-cert (default: ARENA_TLS_KEY)",
    )
    parser.add_argument(
        "--tls-client-ca",
        metavar="FILE",
        default=os.environ.get(SERVER_TLS_VARIABLES[2], ""),
        help="require every client to show a certificate signed by this PEM CA (mutual TLS; "
        "default: ARENA_TLS_CLIENT_CA, else none asked)",
    )
