// SLIP-0039 shares from an independent implementation, the npm package `slip39` (ilap's
// slip39-js, which follows the current spec including extendable sets), for
// offline/src/slip39.cpp to agree with in both directions.
//
// usage: node slip39_vectors.mjs OUT.json
//          Splits fixed secrets in many shapes and writes every set's mnemonics to OUT.json.
//        node slip39_vectors.mjs --combine IN.json
//          Reads {"sets": [{"name", "passphrase", "mnemonics": [...]}]} (shares made by airlock),
//          combines each set and prints {"results": [{"name", "secret" | "error"}]} on stdout.
import fs from "node:fs";
import crypto from "node:crypto";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const slip39 = require("slip39");
const { version } = require("slip39/package.json");

const hex = (b) => Buffer.from(b).toString("hex");

if (process.argv[2] === "--combine") {
  const input = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
  const results = input.sets.map(({ name, passphrase, mnemonics }) => {
    try {
      return { name, secret: hex(slip39.recoverSecret(mnemonics, passphrase)) };
    } catch (e) {
      return { name, error: String(e.message) };
    }
  });
  process.stdout.write(JSON.stringify({ generator: `slip39 ${version}`, results }) + "\n");
  process.exit(0);
}

const [outPath] = process.argv.slice(2);
if (!outPath) {
  console.error("usage: node slip39_vectors.mjs OUT.json | --combine IN.json");
  process.exit(2);
}

// Fixed secrets, so only the package's own random identifiers and shares change between runs.
let counter = 0;
const bytes = (n) => {
  const out = [];
  while (out.length < n) {
    out.push(...crypto.createHash("sha256").update(`airlock-slip39-vectors-${counter++}`).digest());
  }
  return out.slice(0, n);
};

// [name, secret bytes, passphrase, group threshold, groups, iteration exponent]
const shapes = [
  ["1of1", 16, "", 1, [[1, 1]], 0],
  ["2of3", 16, "TREZOR", 1, [[2, 3]], 0],
  ["3of5-256", 32, "a b ~ 7", 1, [[3, 5]], 1],
  ["groups-2of3", 16, "TREZOR", 2, [[2, 3], [1, 1], [3, 5]], 0],
  ["groups-2of3-256", 32, "", 2, [[2, 3], [1, 1], [3, 5]], 2],
  ["groups-3of4-160", 20, "x", 3, [[1, 1], [2, 2], [4, 6], [2, 3]], 0],
  ["5of16-512", 64, "TREZOR", 1, [[5, 16]], 0],
];

const sets = [];
for (const extendable of [false, true]) {
  for (const [name, n, passphrase, threshold, groups, exponent] of shapes) {
    const secret = bytes(n);
    const slip = slip39.fromArray(secret, {
      passphrase,
      threshold,
      groups,
      iterationExponent: exponent,
      extendableBackupFlag: extendable ? 1 : 0,
    });
    const mnemonics = groups.map((_, g) => slip.fromPath(`r/${g}`).mnemonics);
    // The oracle must recover its own set from the first members of the first groups.
    const subset = groups
      .slice(0, threshold)
      .flatMap(([t], g) => mnemonics[g].slice(0, t));
    const recovered = hex(slip39.recoverSecret(subset, passphrase));
    if (recovered !== hex(secret)) throw new Error(`${name}: the oracle does not recover its set`);
    sets.push({
      name: `${name}-${extendable ? "ext" : "plain"}`,
      secret: hex(secret),
      passphrase,
      extendable,
      iteration_exponent: exponent,
      group_threshold: threshold,
      groups,
      mnemonics,
    });
  }
}

fs.writeFileSync(outPath, JSON.stringify({ generator: `slip39 ${version}`, sets }, null, 1) + "\n");
console.log(`wrote ${sets.length} SLIP-0039 sets from slip39 ${version} to ${outPath}`);
