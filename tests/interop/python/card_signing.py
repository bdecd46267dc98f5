"""Signed agent cards (A2A spec 8.4) between a2a-sdk's signing utilities and our implementation.

    card_signing.py sign --key PRIVATE.pem --kid KID [--description TEXT]
        Signs a card with `create_agent_card_signer` (ES256) and prints its ProtoJSON
        (`MessageToDict`, as an a2a-sdk server serves it) on stdout, for our verifier.
    card_signing.py verify --url CARD_URL --key PUBLIC.pem --kid KID --op OP
        Reads the card at CARD_URL (our server's, signed with `--card-signing-key`) into a2a-sdk's
        AgentCard and verifies it with `create_signature_verifier`; reports the cell OP.

Cells are reported as in common.py (binding null: signatures do not depend on the binding).
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request

from a2a.types import AgentCard
from a2a.utils.signing import create_agent_card_signer, create_signature_verifier
from google.protobuf.json_format import MessageToDict, ParseDict

from common import report


def sign(key: str, kid: str, description: str) -> int:
    card = ParseDict(
        {
            'name': 'a2a-sdk signed agent',
            'description': description,
            'supportedInterfaces': [
                {'url': 'http://127.0.0.1:1/', 'protocolBinding': 'JSONRPC', 'protocolVersion': '1.0'}
            ],
            'version': '1.0.0',
            'capabilities': {'streaming': True, 'pushNotifications': False},
            'defaultInputModes': ['text/plain'],
            'defaultOutputModes': ['text/plain'],
            'skills': [{'id': 'echo', 'name': 'Echo', 'description': 'Echoes', 'tags': ['demo']}],
        },
        AgentCard(),
    )
    with open(key, encoding='utf-8') as file:
        private = file.read()
    signer = create_agent_card_signer(
        signing_key=private, protected_header={'alg': 'ES256', 'typ': 'JOSE', 'kid': kid, 'jku': None}
    )
    print(json.dumps(MessageToDict(signer(card))))
    return 0


def verify(url: str, key: str, kid: str, op: str) -> int:
    with open(key, encoding='utf-8') as file:
        public = file.read()
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            document = json.load(response)
        card = ParseDict(document, AgentCard(), ignore_unknown_fields=True)
        if not card.signatures:
            raise AssertionError('the card has no signatures')

        def key_provider(signature_kid: str | None, jku: str | None) -> str:
            if signature_kid != kid:
                raise AssertionError(f'unexpected kid {signature_kid!r} (jku {jku!r})')
            return public

        create_signature_verifier(key_provider, algorithms=['ES256'])(card)
    except Exception as err:  # noqa: BLE001 - every failure becomes the reported cell
        report(None, op, 'fail', f'{type(err).__name__}: {err}')
        return 1
    report(None, op, 'pass')
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('mode', choices=['sign', 'verify'])
    parser.add_argument('--key', required=True)
    parser.add_argument('--kid', required=True)
    parser.add_argument('--description', default='Signed by a2a-sdk')
    parser.add_argument('--url')
    parser.add_argument('--op')
    args = parser.parse_args()
    if args.mode == 'sign':
        return sign(args.key, args.kid, args.description)
    return verify(args.url, args.key, args.kid, args.op)


if __name__ == '__main__':
    sys.exit(main())
