// Writes derived-address vectors made by independent implementations, for airlock's own
// curve test and PDA derivation (common/src/pda.cpp): @solana/web3.js decides which 32-byte
// strings are on the Ed25519 curve and finds program addresses, @solana/spl-token derives
// associated token accounts, and @meteora-ag/dlmm derives the pools' bin arrays.
//
// usage: node pda_vectors.mjs OUT.json
import fs from "node:fs";
import crypto from "node:crypto";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const web3 = require("@solana/web3.js");
const spl = require("@solana/spl-token");
const dlmm = require("@meteora-ag/dlmm");
const { BN } = require("@coral-xyz/anchor");

const [outPath] = process.argv.slice(2);
if (!outPath) {
  console.error("usage: node pda_vectors.mjs OUT.json");
  process.exit(2);
}

// A fixed stream of pseudo-random bytes, so the vectors are the same on every run.
let counter = 0;
const bytes = (n) => {
  const out = [];
  while (out.length < n) {
    const h = crypto.createHash("sha256").update(`airlock-pda-vectors-${counter++}`).digest();
    out.push(...h);
  }
  return Buffer.from(out.slice(0, n));
};
const hex = (b) => Buffer.from(b).toString("hex");

// Random strings (about half on the curve), real keys, and edge encodings: zero, y = 1, the
// sign bit set, y >= p (read modulo p), and all ones.
const curve = [];
const add = (b, edge = false) =>
  curve.push({ key: hex(b), on_curve: web3.PublicKey.isOnCurve(b), edge });
for (let i = 0; i < 600; i++) add(bytes(32));
for (let i = 0; i < 20; i++) add(web3.Keypair.fromSeed(bytes(32)).publicKey.toBytes());
// Edge encodings are marked: web3.js refuses non-canonical ones (y >= p, or x = 0 with the
// sign bit set) where the runtime's decompression (curve25519-dalek) reads y modulo p and
// accepts them, so for these the test checks the runtime's rule instead.
const edge = (f) => {
  const b = Buffer.alloc(32);
  f(b);
  add(b, true);
};
edge(() => {});
edge((b) => (b[0] = 1));
edge((b) => { b[0] = 1; b[31] = 0x80; });
edge((b) => b.fill(0xff));
edge((b) => { b.fill(0xff); b[31] = 0x7f; });
edge((b) => { b.fill(0xff); b[0] = 0xed; b[31] = 0x7f; }); // p itself
edge((b) => { b.fill(0xff); b[0] = 0xec; b[31] = 0x7f; }); // p - 1 = -1
edge((b) => { b.fill(0xff); b[0] = 0xee; b[31] = 0x7f; }); // p + 1 = 1 mod p

const programs = [
  "AirLockVau1t1111111111111111111111111111111",
  "LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo",
  "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
].map((p) => new web3.PublicKey(p));
const pdas = [];
for (let i = 0; i < 60; i++) {
  const program = programs[i % programs.length];
  const seeds = [];
  const count = i % 4;
  for (let s = 0; s < count; s++) seeds.push(bytes(1 + ((i * 7 + s * 13) % 32)));
  if (i % 5 === 0) seeds.push(Buffer.from("strategy"));
  const [address, bump] = web3.PublicKey.findProgramAddressSync(seeds, program);
  pdas.push({ program: program.toBase58(), seeds: seeds.map(hex), address: address.toBase58(), bump });
}

const tokenPrograms = [spl.TOKEN_PROGRAM_ID, spl.TOKEN_2022_PROGRAM_ID];
const atas = [];
for (let i = 0; i < 40; i++) {
  // Owners on and off the curve: a vault is often itself a program address.
  const owner = i % 2 ? web3.Keypair.fromSeed(bytes(32)).publicKey
                      : web3.PublicKey.findProgramAddressSync([bytes(16)], programs[0])[0];
  const mint = new web3.PublicKey(bytes(32));
  const tokenProgram = tokenPrograms[i % 2];
  const ata = spl.getAssociatedTokenAddressSync(mint, owner, true, tokenProgram);
  atas.push({ owner: owner.toBase58(), mint: mint.toBase58(), token_program: tokenProgram.toBase58(),
              address: ata.toBase58() });
}

const dlmmProgram = new web3.PublicKey(dlmm.LBCLMM_PROGRAM_IDS["mainnet-beta"]);
const bins = [];
for (const bin of [0, 1, 69, 70, 71, 139, 140, 5000, 5069, 5070, -1, -69, -70, -71, -140, -141,
                   443636, -443636]) {
  const lbPair = new web3.PublicKey(bytes(32));
  const index = dlmm.binIdToBinArrayIndex(new BN(bin));
  const [address] = dlmm.deriveBinArray(lbPair, index, dlmmProgram);
  bins.push({ lb_pair: lbPair.toBase58(), bin, index: index.toNumber(), program: dlmmProgram.toBase58(),
              address: address.toBase58() });
}

fs.writeFileSync(outPath, JSON.stringify({ curve, pdas, atas, bins }, null, 1));
console.log(`wrote ${curve.length} curve, ${pdas.length} PDA, ${atas.length} ATA and ${bins.length} bin-array vectors`);
