// The peer of bench/core_bench.cpp: the same per-transaction work with @solana/web3.js 1.x and
// tweetnacl (deserialize, sign the message, add the signature, serialize), timed for at least
// the given number of seconds after a warm-up. Prints one JSON object.
import { readFileSync } from 'node:fs';
import { VersionedTransaction } from '@solana/web3.js';
import nacl from 'tweetnacl';

const [vectorsPath, secondsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? '2');
const vectors = JSON.parse(readFileSync(vectorsPath, 'utf8')).vectors;
const v = vectors.find((x) => x.name === 'lookup-table');
const unsignedWire = Buffer.from(v.unsigned_tx_base64, 'base64');
const expected = Buffer.from(v.signed_tx_base64, 'base64');
const keypair = nacl.sign.keyPair.fromSeed(Buffer.from(v.signer_secret_seeds_hex[0], 'hex'));

function once() {
  const tx = VersionedTransaction.deserialize(unsignedWire);
  const signature = nacl.sign.detached(tx.message.serialize(), keypair.secretKey);
  tx.addSignature(tx.message.staticAccountKeys[0], signature);
  return tx.serialize();
}

if (!Buffer.from(once()).equals(expected)) {
  console.error('peer result differs from the vector');
  process.exit(1);
}
const warmUntil = performance.now() + 500;
while (performance.now() < warmUntil) once();

let iterations = 0;
const start = performance.now();
const stopAt = start + seconds * 1000;
while (performance.now() < stopAt) {
  once();
  iterations += 1;
}
const elapsedNs = (performance.now() - start) * 1e6;
console.log(JSON.stringify({ peer: '@solana/web3.js 1.x + tweetnacl', iterations,
                             ns_per_op: elapsedNs / iterations }));
