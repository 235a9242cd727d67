// Writes seed inputs for the formats fuzz targets into tests/fuzz/corpus/<target>/seed-*:
// real envelopes, UR parts and dense frames made by airlock's own encoders, plus the Keystone
// vector. Run once when a target is added: build-debug/bin/airlock-fuzz-seeds tests/fuzz/corpus
#include <filesystem>
#include <fstream>
#include <iostream>

#include <airlock/formats/audit_record.h>
#include <airlock/formats/cbor.h>
#include <airlock/formats/dense.h>
#include <airlock/formats/envelope.h>
#include <airlock/formats/image.h>
#include <airlock/formats/keystone.h>
#include <airlock/formats/qr.h>
#include <airlock/formats/transfer.h>
#include <airlock/formats/ur.h>

#include "support/vectors.h"

using namespace airlock;

namespace {

std::filesystem::path root;
std::string only;  // when given, seeds for this target alone

void put(const std::string& target, const std::string& name, ByteView data) {
  if (!only.empty() && target != only) return;
  const auto dir = root / target;
  std::filesystem::create_directories(dir);
  std::ofstream(dir / ("seed-" + name), std::ios::binary)
      .write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

void put_text(const std::string& target, const std::string& name, const std::string& text) {
  put(target, name, text_bytes(text));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::cerr << "usage: airlock-fuzz-seeds CORPUS_DIR [TARGET]\n";
    return 2;
  }
  root = argv[1];
  if (argc == 3) only = argv[2];

  envelope::SignRequest q;
  q.request_id = envelope::random_request_id();
  q.created_at = 1'795'000'000;
  q.deadline = q.created_at + 90;
  q.manager = test::key("AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax");
  q.vault = test::key("9WmmvBxK6x2kQhY66XGo29HNYrsySaPef34DTLK3wPk");
  q.action = "dlmm/open";
  q.intent_json =
      R"({"vault":"9WmmvBxK6x2kQhY66XGo29HNYrsySaPef34DTLK3wPk","lowerBinId":0,"upperBinId":140})";
  for (const char* name : {"two-signers", "lookup-table"}) {
    envelope::Step step;
    step.transaction =
        test::b64(test::vector_named("solana-v0-transactions.json", name).at("unsigned_tx_base64"));
    step.units_consumed = 200000;
    step.send_concurrently = true;
    q.steps.push_back(step);
  }
  q.hints.lookup_tables.push_back({q.vault, {{0, q.manager}, {7, q.vault}}});
  q.hints.tokens.push_back({q.manager, "USDC", 6, "USD Coin"});
  q.hints.pools.push_back({q.vault, q.manager, q.vault});
  const Bytes request = envelope::encode_request(q);
  put("sign_request", "batch", request);
  put("cbor_value", "request", request);

  envelope::SignResponse signed_response;
  signed_response.request_id = q.request_id;
  signed_response.signer = q.manager;
  signed_response.result = std::vector<Signature>(2);
  put("sign_response", "signatures", envelope::encode_response(signed_response));
  envelope::SignResponse refused = signed_response;
  refused.result = envelope::Refusal{"policy.fee_payer", "fee payer is not the manager"};
  put("sign_response", "refusal", envelope::encode_response(refused));

  const auto keystone_vector = test::vector_list("keystone-sol.json").at(0);
  put("keystone", "request", test::hex(keystone_vector.at("request_cbor_hex")));
  put("keystone", "signature", test::hex(keystone_vector.at("signature_cbor_hex")));
  put("cbor_value", "keystone", test::hex(keystone_vector.at("request_cbor_hex")));
  put("cbor_value", "scalars",
      cbor::encode(cbor::Value::array({cbor::Value::negative(7), cbor::Value::text("x"),
                                       cbor::Value::boolean(true), cbor::Value::null(),
                                       cbor::Value::tag(37, cbor::Value::bytes(Bytes(16, 1)))})));

  for (const auto& v : test::vector_list("bc-ur-multipart.json")) {
    std::string joined;
    for (const auto& part : v.at("parts")) joined += part.get<std::string>() + "\n";
    put_text("ur_part", std::to_string(v.at("fragments").get<int>()) + "-fragments", joined);
  }
  put_text("ur_part", "keystone", keystone_vector.at("request_ur").get<std::string>());

  auto encoder = dense::Encoder::create(request, dense::ContentType::kSignRequest, 200);
  Bytes stream;
  for (std::uint32_t n = 1; n <= encoder->fragment_count() + 3; ++n) {
    const Bytes frame = encoder->frame(n);
    stream.push_back(static_cast<std::uint8_t>(frame.size()));
    stream.insert(stream.end(), frame.begin(), frame.end());
  }
  put("dense_frame", "request", stream);

  // The receive path: whole transfers in both framings, a stale frame of another transfer
  // first, and the foreign UR type of issue 14.
  const auto framed = [](const std::vector<Bytes>& codes) {
    Bytes out;
    for (const auto& c : codes) {
      out.push_back(static_cast<std::uint8_t>(c.size() & 0xff));
      out.push_back(static_cast<std::uint8_t>(c.size() >> 8));
      out.insert(out.end(), c.begin(), c.end());
    }
    return out;
  };
  const auto codes_of = [](const Bytes& content, transfer::Framing framing) {
    transfer::Options options;
    options.framing = framing;
    options.max_version = 12;
    auto sender = transfer::Sender::create({dense::ContentType::kSignRequest, content}, options);
    std::vector<Bytes> codes;
    for (std::uint32_t n = 1; n <= sender->fragment_count() + 2; ++n) {
      const auto c = sender->code(n);
      if (const auto* b = std::get_if<Bytes>(&c)) {
        codes.push_back(*b);
      } else {
        const auto& t = std::get<std::string>(c);
        codes.emplace_back(t.begin(), t.end());
      }
    }
    return codes;
  };
  put("receive", "dense", framed(codes_of(request, transfer::Framing::kDense)));
  put("receive", "ur", framed(codes_of(request, transfer::Framing::kUr)));
  auto stale = codes_of(Bytes(900, 7), transfer::Framing::kDense);
  auto fresh = codes_of(request, transfer::Framing::kDense);
  fresh.insert(fresh.begin(), stale.front());
  put("receive", "stale-then-fresh", framed(fresh));
  const std::string foreign = "UR:CRYPTO-MULTI-ACCOUNTS/OEADCYBGEEHFKSAONBINLRISWT";
  put("receive", "foreign-ur", framed({Bytes(foreign.begin(), foreign.end())}));
  Bytes repetitive(3000, 'a');
  auto deflated =
      dense::Encoder::create(repetitive, dense::ContentType::kFile, 200, dense::Deflate::kAlways);
  const Bytes frame = deflated->frame(1);
  Bytes one{static_cast<std::uint8_t>(frame.size())};
  one.insert(one.end(), frame.begin(), frame.end());
  put("dense_frame", "deflated", one);

  auto symbol = qr::encode(Bytes{1, 2, 3}, 1, qr::EcLevel::kL);
  put("png_image", "qr", image::encode_png(qr::render(*symbol, 1)).value());
  put("png_image", "tiny", image::encode_png(image::GrayImage(1, 1)).value());
  // Audit exports: empty, one signed entry, and a chain of signed, refused and reissued.
  put_text("audit_export", "empty", "");
  {
    std::string text;
    Hash prev{};
    for (std::uint64_t n = 1; n <= 3; ++n) {
      audit::Entry e;
      e.seq = n;
      e.time = 1'795'000'000 + static_cast<std::int64_t>(n);
      e.prev = prev;
      e.request_id.fill(static_cast<std::uint8_t>(n == 3 ? 1 : n));
      e.action = n == 2 ? "vault/update" : "aggregator/swap";
      e.manager = q.manager;
      e.vault = q.vault;
      e.decision = n == 2 ? audit::Decision::kRefused
                          : (n == 3 ? audit::Decision::kReissued : audit::Decision::kSigned);
      if (n == 2) e.codes = {"policy.fee_payer"};
      e.message_hashes = {Hash{}};
      if (n != 2) e.signatures = {Signature{}};
      e.hash = audit::chain_hash(e.prev, audit::body_text(e));
      prev = e.hash;
      text += audit::line_of(e) + "\n";
      put_text("audit_export", "chain-" + std::to_string(n), text);
    }
    // As `log export` writes it: the lines under the export's header.
    put_text("audit_export", "exported-chain-3", std::string(audit::kExportHeader) + "\n" + text);
  }
  std::cout << "seeds written under " << root << "\n";
  return 0;
}
