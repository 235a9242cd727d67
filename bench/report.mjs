// Prints airlock's time per operation next to the peer's, and the ratio.
import { readFileSync } from 'node:fs';

const [ours, peer] = process.argv.slice(2).map((p) => JSON.parse(readFileSync(p, 'utf8')));
const run = ours.benchmarks.find((b) => b.run_type === 'iteration');
if (run.error_occurred) {
  console.error(`airlock benchmark failed: ${run.error_message}`);
  process.exit(1);
}
const toNs = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 }[run.time_unit];
const oursNs = run.real_time * toNs;
const fmt = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(3)} ms` : `${(ns / 1e3).toFixed(2)} µs`);
console.log(`${"airlock (libsodium)".padEnd(34)}${fmt(oursNs)} per transaction (${run.iterations} iterations)`);
console.log(`${peer.peer.padEnd(34)}${fmt(peer.ns_per_op)} per transaction (${peer.iterations} iterations)`);
console.log(`ratio: airlock is ${(peer.ns_per_op / oursNs).toFixed(1)}x faster (target: at least 20x)`);
