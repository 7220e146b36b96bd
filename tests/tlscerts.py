"""Throwaway certificate authorities and certificates for the TLS tests, made in the test.

pki = Pki.create(tmp_path)          # a CA, a server certificate for 127.0.0.1/localhost,
                                    # a client certificate, and a second, unrelated CA
ServerTls(pki.server_cert, pki.server_key)
ClientTls(enabled=True, ca=pki.ca)
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

Key = ec.EllipticCurvePrivateKey


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _builder(subject: str, issuer: x509.Name, key: Key) -> x509.CertificateBuilder:
    now = datetime.now(UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
    )


def _write(folder: Path, stem: str, cert: x509.Certificate, key: Key) -> tuple[Path, Path]:
    cert_path, key_path = folder / f"{stem}.pem", folder / f"{stem}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    key_path.chmod(0o600)
    return cert_path, key_path


def _ca(folder: Path, stem: str) -> tuple[Path, x509.Certificate, Key]:
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        _builder(stem, _name(stem), key)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    path, _ = _write(folder, stem, cert, key)
    return path, cert, key


def _leaf(
    folder: Path, stem: str, ca: x509.Certificate, ca_key: Key, *, server: bool
) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
    builder = _builder(stem, ca.subject, key).add_extension(
        x509.ExtendedKeyUsage([usage]), critical=False
    )
    if server:
        names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return _write(folder, stem, builder.sign(ca_key, hashes.SHA256()), key)


@dataclass(frozen=True)
class Pki:
    """The files of a throwaway PKI in a test's temporary folder."""

    ca: Path
    """The CA that signs both certificates."""
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    other_ca: Path
    """A CA that signed nothing here: trusting it alone must fail."""
    other_client_cert: Path
    other_client_key: Path
    """A client certificate from `other_ca`: mutual TLS must refuse it."""

    @classmethod
    def create(cls, folder: Path) -> Pki:
        """Make the keys and certificates in `folder` (created if need be)."""
        folder.mkdir(parents=True, exist_ok=True)
        ca, ca_cert, ca_key = _ca(folder, "ca")
        other, other_cert, other_key = _ca(folder, "other-ca")
        server_cert, server_key = _leaf(folder, "server", ca_cert, ca_key, server=True)
        client_cert, client_key = _leaf(folder, "client", ca_cert, ca_key, server=False)
        stranger_cert, stranger_key = _leaf(folder, "stranger", other_cert, other_key, server=False)
        return cls(
            ca, server_cert, server_key, client_cert, client_key, other, stranger_cert, stranger_key
        )
