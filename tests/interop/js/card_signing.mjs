// Signed agent cards (A2A spec 8.4) between @a2a-js/sdk's signing utilities and our implementation
// (the counterpart of ../python/card_signing.py, same modes and cells):
//
//     node card_signing.mjs sign --key PRIVATE.pem --kid KID [--description TEXT]
//         Signs a card with `generateAgentCardSignature` (ES256) and prints it on stdout.
//     node card_signing.mjs verify --url CARD_URL --key PUBLIC.pem --kid KID --op OP
//         Verifies the card at CARD_URL with `verifyAgentCardSignature`; reports the cell OP.

import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';

import { report } from './lib.mjs';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    key: { type: 'string' },
    kid: { type: 'string' },
    description: { type: 'string', default: 'Signed by @a2a-js/sdk' },
    url: { type: 'string' },
    op: { type: 'string' },
  },
});

async function sign() {
  // The wire (ProtoJSON) form: what the SDK's verifier canonicalizes.
  const card = {
    name: '@a2a-js/sdk signed agent',
    description: values.description,
    supportedInterfaces: [{ url: 'http://127.0.0.1:1/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['demo'] }],
  };
  const key = createPrivateKey(readFileSync(values.key, 'utf8'));
  const signer = generateAgentCardSignature(key, { alg: 'ES256', kid: values.kid, typ: 'JOSE' });
  console.log(JSON.stringify(await signer(card)));
}

async function verify() {
  try {
    const response = await fetch(values.url);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const card = await response.json();
    if (!card.signatures?.length) throw new Error('the card has no signatures');
    const key = createPublicKey(readFileSync(values.key, 'utf8'));
    await verifyAgentCardSignature(async (kid, jku) => {
      if (kid !== values.kid) throw new Error(`unexpected kid ${kid} (jku ${jku})`);
      return key;
    })(card);
  } catch (err) {
    report(null, values.op, 'fail', `${err?.name ?? 'Error'}: ${err?.message ?? err}`);
    return 1;
  }
  report(null, values.op, 'pass');
  return 0;
}

process.exitCode = positionals[0] === 'sign' ? (await sign(), 0) : await verify();
