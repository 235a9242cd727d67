// The peer of bench/offline_bench.cpp: for each case, every transaction deserialized with
// @solana/web3.js 1.x, its message signed with tweetnacl and the signature added, timed for at
// least the given number of seconds after a warm-up. No decoding, policy or intent checks: the
// peer does less than airlock does. Prints one JSON object, ns per request for each case.
import { readFileSync } from 'node:fs';
import { VersionedTransaction } from '@solana/web3.js';
import nacl from 'tweetnacl';

const [fixturePath, secondsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? '2');
const fixture = JSON.parse(readFileSync(fixturePath, 'utf8'));
const keypair = nacl.sign.keyPair.fromSeed(Buffer.from(fixture.seed_hex, 'hex'));

const results = {};
for (const [name, txs] of Object.entries(fixture.cases)) {
  const wires = txs.map((t) => Buffer.from(t, 'base64'));
  const once = () => {
    for (const wire of wires) {
      const tx = VersionedTransaction.deserialize(wire);
      const signature = nacl.sign.detached(tx.message.serialize(), keypair.secretKey);
      tx.addSignature(tx.message.staticAccountKeys[0], signature);
    }
  };
  const warmUntil = performance.now() + 300;
  while (performance.now() < warmUntil) once();
  let iterations = 0;
  const start = performance.now();
  while (performance.now() < start + seconds * 1000) {
    once();
    iterations += 1;
  }
  results[name] = { iterations, ns_per_op: ((performance.now() - start) * 1e6) / iterations, steps: wires.length };
}
console.log(JSON.stringify({ peer: '@solana/web3.js 1.x + tweetnacl', cases: results }));
