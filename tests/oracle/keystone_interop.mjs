// Keystone's Solana registry (@keystonehq/bc-ur-registry-sol) as the other side of airlock's
// Keystone interop: it makes `ur:sol-sign-request` parts for a message, and reads the
// `ur:sol-signature` airlock answers with, checking the signature with @noble/curves' Ed25519.
//
//   node keystone_interop.mjs make MESSAGE_HEX PUBKEY_BASE58 UUID FRAGMENT_LEN OUT_FILE
//     writes the request's UR parts, one a line (one line when FRAGMENT_LEN is 0)
//   node keystone_interop.mjs verify SIGNATURE_UR_FILE MESSAGE_HEX PUBKEY_BASE58 UUID
//     reads every UR part in the file, prints {"ok": true} when the signature answers the
//     request id and verifies; exits 1 otherwise
import { readFileSync, writeFileSync } from "node:fs";
import { SolSignRequest, SolSignature, SignType } from "@keystonehq/bc-ur-registry-sol";
import { URDecoder, UREncoder } from "@ngraveio/bc-ur";
import { ed25519 } from "@noble/curves/ed25519";
import bs58 from "bs58";

const [command, ...args] = process.argv.slice(2);

if (command === "make") {
  const [messageHex, pubkey, uuid, fragmentLen, out] = args;
  const request = SolSignRequest.constructSOLRequest(
    Buffer.from(messageHex, "hex"), "m/44'/501'/0'/0'", "f23f9fd2", SignType.Transaction, uuid,
    Buffer.from(bs58.decode(pubkey)).toString("hex"), "keystone-interop-test");
  const ur = request.toUR();
  const length = Number(fragmentLen);
  const parts = [];
  if (length === 0) {
    parts.push(new UREncoder(ur, 100000).nextPart());
  } else {
    const encoder = new UREncoder(ur, length);
    // The pure fragments and as many fountain parts again, so a reader can miss some.
    for (let i = 0; i < 2 * encoder.fragmentsLength; i++) parts.push(encoder.nextPart());
  }
  writeFileSync(out, parts.join("\n") + "\n");
  console.log(JSON.stringify({ parts: parts.length }));
} else if (command === "verify") {
  const [file, messageHex, pubkey, uuid] = args;
  const decoder = new URDecoder();
  for (const line of readFileSync(file, "utf8").split(/\s+/)) {
    if (line.length > 0) decoder.receivePart(line.toLowerCase());
  }
  if (!decoder.isSuccess()) {
    console.log(JSON.stringify({ ok: false, why: "the UR parts did not complete" }));
    process.exit(1);
  }
  const ur = decoder.resultUR();
  if (ur.type !== "sol-signature") {
    console.log(JSON.stringify({ ok: false, why: `type ${ur.type}` }));
    process.exit(1);
  }
  const signature = SolSignature.fromCBOR(ur.cbor);
  const id = signature.getRequestId().toString("hex");
  const wanted = uuid.replaceAll("-", "");
  const valid = ed25519.verify(signature.getSignature(), Buffer.from(messageHex, "hex"),
                               bs58.decode(pubkey));
  console.log(JSON.stringify({ ok: id === wanted && valid, id, valid }));
  process.exit(id === wanted && valid ? 0 : 1);
} else {
  console.error("usage: keystone_interop.mjs make|verify ...");
  process.exit(2);
}
