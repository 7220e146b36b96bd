"""The Node package reads --tls/--tls-ca and ARENA_TLS* the way the Python SDK does (plain `node`,
no packages). Its matches over TLS are played in tests/sdk/test_node_package.py, on the packed
package."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
from pathlib import Path

from arena.sdk.tls import ClientTls, TlsConfigError

NODE = shutil.which("node")
TLS_JS = Path(__file__).resolve().parents[2] / "sdk" / "node" / "src" / "tls.js"

# (flags, environment): what both readers make of them.
CASES: list[tuple[dict[str, object], dict[str, str]]] = [
    ({}, {}),
    ({"tls": True}, {}),
    ({}, {"ARENA_TLS": "yes"}),
    ({}, {"ARENA_TLS": "off"}),
    ({}, {"ARENA_TLS": "0", "ARENA_TLS_CA": "env-ca.pem"}),
    ({"tls": True}, {"ARENA_TLS": "0", "ARENA_TLS_CA": "env-ca.pem"}),
    ({"tlsCa": "ca.pem"}, {}),
    ({}, {"ARENA_TLS_CA": "env-ca.pem"}),
    ({"tlsCa": "flag-ca.pem"}, {"ARENA_TLS_CA": "env-ca.pem"}),
    ({"tlsClientCert": "c.pem", "tlsClientKey": "c.key"}, {}),
    ({"tlsClientCert": "c.pem"}, {}),
    ({}, {"ARENA_TLS": "maybe"}),
    ({}, {"ARENA_TLS_SERVER_NAME": "arena.example.org"}),
]
SCRIPT = """
const { tlsSettings } = require(process.argv[1]);
const cases = JSON.parse(process.argv[2]);
console.log(JSON.stringify(cases.map(([flags, env]) => {
  try { return tlsSettings(flags, env); } catch (e) { return null; }
})));
"""


def _python(flags: dict[str, object], env: dict[str, str]) -> dict[str, object] | None:
    args = argparse.Namespace(
        tls=flags.get("tls", False),
        tls_ca=flags.get("tlsCa", ""),
        tls_client_cert=flags.get("tlsClientCert", ""),
        tls_client_key=flags.get("tlsClientKey", ""),
    )
    try:
        tls = ClientTls.of_args(args, env)
    except TlsConfigError:
        return None
    return {
        "enabled": tls.enabled,
        "ca": str(tls.ca or ""),
        "cert": str(tls.cert or ""),
        "key": str(tls.key or ""),
        "serverName": tls.server_name,
    }


def test_node_and_python_read_tls_settings_alike() -> None:
    assert NODE is not None
    done = subprocess.run(
        [NODE, "-e", SCRIPT, str(TLS_JS), json.dumps(CASES)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert json.loads(done.stdout) == [_python(flags, env) for flags, env in CASES]
