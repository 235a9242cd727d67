// Writes Voltr vault transactions made by Voltr's own SDK (@voltr/vault-sdk, its Anchor IDL and
// Anchor's coder), for the proof that a descriptor alone (tests/data/voltr) lets airlock bind a
// program nobody here wrote: each manager action built honestly with its arguments as the
// intent, and hostile variants built with the same SDK and one thing changed.
//
// usage: node voltr_vectors.mjs OUT.json
import fs from "node:fs";
import crypto from "node:crypto";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const web3 = require("@solana/web3.js");
const { BN } = require("@coral-xyz/anchor");
const { VoltrClient } = require("@voltr/vault-sdk");

const [outPath] = process.argv.slice(2);
if (!outPath) {
  console.error("usage: node voltr_vectors.mjs OUT.json");
  process.exit(2);
}

const seedOf = (name) => crypto.createHash("sha256").update(`airlock-voltr-${name}`).digest();
const keyOf = (name) => web3.Keypair.fromSeed(seedOf(name)).publicKey;
const manager = web3.Keypair.fromSeed(seedOf("manager"));
const vault = keyOf("vault");
const otherVault = keyOf("other vault");
const strategy = keyOf("strategy");
const adaptor = keyOf("adaptor program");
const otherAdaptor = keyOf("another adaptor program");
const mint = keyOf("asset mint");
const tokenProgram = new web3.PublicKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const adaptorAccounts = [keyOf("adaptor pool"), keyOf("adaptor reserve")];
const blockhash = keyOf("blockhash").toBase58();

// No request reaches a node: Anchor resolves every account this SDK leaves out from the IDL's
// constants and derivations.
const client = new VoltrClient(new web3.Connection("http://127.0.0.1:9"), manager);
const voltrProgram = client.vaultProgram.programId;

const unsigned = (ix) => {
  const message = new web3.TransactionMessage({
    payerKey: manager.publicKey,
    recentBlockhash: blockhash,
    instructions: [ix],
  }).compileToV0Message();
  return Buffer.from(new web3.VersionedTransaction(message).serialize()).toString("base64");
};

const passed = (keys) => keys.map((pubkey) => ({ pubkey, isSigner: false, isWritable: true }));
const hex = (buffer) => (buffer === null ? null : Buffer.from(buffer).toString("hex"));

// What the manager asked for: the call's arguments, keys in base58, bytes in hex.
const body = (action, args) => ({ vault: vault.toBase58(), ...args });

const discriminator = Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]);
const extra = Buffer.from("0a0b0c", "hex");

async function build(action, over = {}) {
  const p = {
    vault,
    strategy,
    adaptor,
    amount: new BN("1500000"),
    remaining: adaptorAccounts,
    discriminator,
    extra,
    ...over,
  };
  const accounts = {
    manager: manager.publicKey,
    vault: p.vault,
    strategy: p.strategy,
    adaptorProgram: p.adaptor,
    remainingAccounts: p.remainingAccounts ?? passed(p.remaining),
  };
  switch (action) {
    case "voltr/initialize-strategy":
      return client.createInitializeStrategyIx(
        { instructionDiscriminator: p.discriminator, additionalArgs: p.extra },
        { payer: manager.publicKey, ...accounts },
      );
    case "voltr/deposit-strategy":
      return client.createDepositStrategyIx(
        { depositAmount: p.amount, instructionDiscriminator: p.discriminator, additionalArgs: p.extra },
        { ...accounts, vaultAssetMint: mint, assetTokenProgram: tokenProgram },
      );
    case "voltr/withdraw-strategy":
      return client.createWithdrawStrategyIx(
        { withdrawAmount: p.amount, instructionDiscriminator: p.discriminator, additionalArgs: p.extra },
        { ...accounts, vaultAssetMint: mint, assetTokenProgram: tokenProgram },
      );
    case "voltr/close-strategy":
      return client.createCloseStrategyIx({
        payer: manager.publicKey,
        manager: manager.publicKey,
        vault: p.vault,
        strategy: p.strategy,
      });
  }
  throw new Error(action);
}

// The honest intent of each action: what the SDK call was given.
const intent = (action) => {
  const base = { strategy: strategy.toBase58() };
  if (action === "voltr/close-strategy") return body(action, base);
  const args = {
    ...base,
    adaptorProgram: adaptor.toBase58(),
    instructionDiscriminator: hex(discriminator),
    additionalArgs: hex(extra),
  };
  if (action === "voltr/initialize-strategy") return body(action, args);
  return body(action, { ...args, vaultAssetMint: mint.toBase58(), amount: "1500000" });
};

const cases = [];
const add = async (name, action, honest, over = {}, change = (ix) => ix) => {
  const ix = change(await build(action, over));
  cases.push({ name, action, honest, intent: intent(action), transaction: unsigned(ix) });
};

const actions = [
  "voltr/initialize-strategy",
  "voltr/deposit-strategy",
  "voltr/withdraw-strategy",
  "voltr/close-strategy",
];
for (const action of actions) await add(`${action}, honest`, action, true);
await add("deposit with no adaptor accounts", "voltr/deposit-strategy", false, { remaining: [] });
cases[cases.length - 1].honest = true;

// Hostile: each built by the SDK with one thing other than the intent says.
const receipt = (v) =>
  web3.PublicKey.findProgramAddressSync(
    [Buffer.from("strategy_init_receipt"), v.toBuffer(), strategy.toBuffer()],
    voltrProgram,
  )[0];
const swapKey = (from, to) => (ix) => {
  ix.keys = ix.keys.map((k) => (k.pubkey.equals(from) ? { ...k, pubkey: to } : k));
  return ix;
};
for (const action of ["voltr/deposit-strategy", "voltr/withdraw-strategy"]) {
  await add(`${action}: another vault's strategy receipt`, action, false, {},
    swapKey(receipt(vault), receipt(otherVault)));
  await add(`${action}: the adaptor program swapped`, action, false, { adaptor: otherAdaptor });
  await add(`${action}: the amount changed`, action, false, { amount: new BN("1500001") });
  await add(`${action}: other adaptor arguments`, action, false, { extra: Buffer.from("ff", "hex") });
  await add(`${action}: an extra signer among the adaptor's accounts`, action, false, {
    remainingAccounts: [{ pubkey: keyOf("stranger"), isSigner: true, isWritable: false }],
  });
  await add(`${action}: the vault among the adaptor's accounts`, action, false, {
    remaining: [adaptorAccounts[0], vault],
  });
  const idle = web3.PublicKey.findProgramAddressSync(
    [Buffer.from("vault_asset_idle_auth"), vault.toBuffer()],
    voltrProgram,
  )[0];
  await add(`${action}: the vault's idle asset authority among the adaptor's accounts`, action,
    false, { remaining: [idle] });
  // An account the instruction derives that is no own address of the vault's: passed on, it is
  // refused as the instruction's own.
  const addReceipt = web3.PublicKey.findProgramAddressSync(
    [Buffer.from("adaptor_add_receipt"), vault.toBuffer(), adaptor.toBuffer()],
    voltrProgram,
  )[0];
  await add(`${action}: the adaptor's add receipt among the adaptor's accounts`, action, false,
    { remaining: [addReceipt] });
  await add(`${action}: another vault`, action, false, { vault: otherVault });
}
// Accounts of the vault's that initialize_strategy does not name: only the descriptor's
// own_addresses tell that they are the vault's.
const voltrPda = (...seeds) => web3.PublicKey.findProgramAddressSync(seeds, voltrProgram)[0];
await add("voltr/initialize-strategy: the vault's idle asset authority among the adaptor's accounts",
  "voltr/initialize-strategy", false,
  { remaining: [voltrPda(Buffer.from("vault_asset_idle_auth"), vault.toBuffer())] });
await add("voltr/initialize-strategy: the vault's LP mint among the adaptor's accounts",
  "voltr/initialize-strategy", false,
  { remaining: [voltrPda(Buffer.from("vault_lp_mint"), vault.toBuffer())] });
await add("voltr/initialize-strategy: another strategy", "voltr/initialize-strategy", false,
  { strategy: keyOf("other strategy") });
await add("voltr/close-strategy: another vault's receipt", "voltr/close-strategy", false, {},
  swapKey(receipt(vault), receipt(otherVault)));

const idlPath = require.resolve("@voltr/vault-sdk/dist/idl/voltr_vault.json");
fs.writeFileSync(
  outPath,
  JSON.stringify(
    {
      manager_seed: seedOf("manager").toString("hex"),
      manager: manager.publicKey.toBase58(),
      vault: vault.toBase58(),
      program: voltrProgram.toBase58(),
      idl: fs.readFileSync(idlPath, "utf8"),
      cases,
    },
    null,
    1,
  ),
);
console.log(`voltr vectors: ${cases.length} transactions from @voltr/vault-sdk`);
