// Keystone interop against @keystonehq/bc-ur-registry-sol (../shared/vectors/keystone-sol.json).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/common/ed25519.h>
#include <airlock/formats/envelope.h>
#include <airlock/formats/keystone.h>
#include <airlock/formats/qr_io.h>
#include <airlock/formats/transfer.h>
#include <airlock/formats/ur.h>

#include "support/vectors.h"

using ::testing::HasSubstr;

namespace airlock::keystone {
namespace {

nlohmann::json vector() { return test::vector_list("keystone-sol.json").at(0); }

ur::Resource read_ur(const std::string& text) {
  ur::Decoder decoder;
  EXPECT_TRUE(decoder.receive(text).ok());
  EXPECT_TRUE(decoder.complete());
  return decoder.result();
}

TEST(Keystone, SignRequestRoundTripsByteForByte) {
  const auto v = vector();
  const ur::Resource resource = read_ur(v.at("request_ur"));
  EXPECT_EQ(resource.type, kSignRequestType);
  EXPECT_EQ(to_hex(resource.cbor), v.at("request_cbor_hex").get<std::string>());

  auto request = decode_sign_request(resource.cbor);
  ASSERT_TRUE(request.ok()) << request.error().to_string();
  EXPECT_EQ(uuid_to_string(request->request_id), v.at("request_id").get<std::string>());
  EXPECT_EQ(to_hex(request->sign_data), v.at("sign_data_hex").get<std::string>());
  EXPECT_EQ(request->path.to_string(), v.at("path").get<std::string>());
  ASSERT_TRUE(request->path.source_fingerprint.has_value());
  EXPECT_EQ(*request->path.source_fingerprint, 0xF23F9FD2U);
  ASSERT_TRUE(request->address.has_value());
  EXPECT_EQ(to_base58(*request->address), v.at("address_base58").get<std::string>());
  EXPECT_EQ(request->origin, v.at("origin").get<std::string>());
  EXPECT_EQ(request->type, SignType::kTransaction);

  const Bytes encoded = encode_sign_request(*request);
  EXPECT_EQ(to_hex(encoded), v.at("request_cbor_hex").get<std::string>());
  EXPECT_EQ(ur::encode_single({std::string(kSignRequestType), encoded}),
            v.at("request_ur").get<std::string>());
}

TEST(Keystone, SignatureRoundTripsAndVerifies) {
  const auto v = vector();
  const ur::Resource resource = read_ur(v.at("signature_ur"));
  EXPECT_EQ(resource.type, kSignatureType);
  EXPECT_EQ(to_hex(resource.cbor), v.at("signature_cbor_hex").get<std::string>());
  auto signature = decode_signature(resource.cbor);
  ASSERT_TRUE(signature.ok()) << signature.error().to_string();
  EXPECT_EQ(uuid_to_string(signature->request_id), v.at("request_id").get<std::string>());
  EXPECT_EQ(to_hex(encode_signature(*signature)), v.at("signature_cbor_hex").get<std::string>());
  EXPECT_EQ(ur::encode_single({std::string(kSignatureType), encode_signature(*signature)}),
            v.at("signature_ur").get<std::string>());
  // The signature is a real one by the requested address over the sign data.
  const PublicKey signer = test::key(v.at("address_base58"));
  EXPECT_TRUE(verify_signature(signer, test::hex(v.at("sign_data_hex")), signature->signature));
}

TEST(Keystone, DerivationPaths) {
  auto path = DerivationPath::parse("m/44'/501'/0'/0'");
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(path->components.size(), 4U);
  EXPECT_EQ(path->to_string(), "m/44'/501'/0'/0'");
  EXPECT_TRUE(DerivationPath::parse("m").ok());
  for (const char* bad : {"", "44'/501'", "m/", "m//1", "m/2147483648", "m/1''", "m/-1", "x/1"}) {
    EXPECT_FALSE(DerivationPath::parse(bad).ok()) << bad;
  }
}

TEST(Keystone, RefusesMalformedRequests) {
  SolSignRequest q;
  q.sign_data = Bytes{1, 2, 3};
  q.path = DerivationPath::parse("m/44'/501'/0'/0'").value();
  Bytes wire = encode_sign_request(q);
  ASSERT_TRUE(decode_sign_request(wire).ok());
  wire.back() = 3;  // type 3 does not exist
  auto bad_type = decode_sign_request(wire);
  ASSERT_FALSE(bad_type.ok());
  EXPECT_EQ(bad_type.error().code(), envelope::errors::kBadValue);
  EXPECT_THAT(bad_type.error().message(), HasSubstr("sol_sign_request.type"));
  EXPECT_FALSE(decode_signature(wire).ok());
}

// What the executables use: a file of Keystone UR text is read as its type, written back as the
// same single-part UR text, and travels as QR only as BC-UR (through the receiver, by type).
TEST(KeystoneTransport, UrTextFilesAndQrFramesKeepTheTypeAndTheBytes) {
  const auto v = vector();
  for (const char* field : {"request_ur", "signature_ur"}) {
    SCOPED_TRACE(field);
    const std::string text = v.at(field).get<std::string>() + "\n";
    const transfer::Content content = qr_io::content_of_file(text_bytes(text));
    const bool request = std::string(field) == "request_ur";
    EXPECT_EQ(content.type, request ? dense::ContentType::kKeystoneSignRequest
                                    : dense::ContentType::kKeystoneSignature);
    EXPECT_EQ(to_hex(content.bytes),
              v.at(request ? "request_cbor_hex" : "signature_cbor_hex").get<std::string>());
    const Bytes written = qr_io::file_bytes(content);
    EXPECT_EQ(std::string(written.begin(), written.end()), text);

    EXPECT_FALSE(transfer::Sender::create(content, transfer::Options{}).ok())
        << "never in dense frames";
    transfer::Options ur_options;
    ur_options.framing = transfer::Framing::kUr;
    ur_options.ur_fragment_len = 30;  // several parts
    auto sender = transfer::Sender::create(content, ur_options);
    ASSERT_TRUE(sender.ok()) << sender.error().to_string();
    ASSERT_GT(sender->fragment_count(), 1U);
    transfer::Receiver receiver;
    for (std::uint32_t seq = 1; !receiver.complete() && seq <= 4 * sender->fragment_count();
         ++seq) {
      const std::string part = std::get<std::string>(sender->code(seq));
      ASSERT_TRUE(receiver.receive(text_bytes(part)).ok());
    }
    ASSERT_TRUE(receiver.complete());
    EXPECT_EQ(receiver.result(), content);
  }
  // A request with anything after it, or two requests, is no Keystone file: nothing in the
  // file goes unshown.
  const std::string request = v.at("request_ur").get<std::string>();
  for (const std::string& mixed :
       {request + "\nsign this too\n", request + "\n" + v.at("signature_ur").get<std::string>(),
        "garbage " + request}) {
    EXPECT_EQ(qr_io::content_of_file(text_bytes(mixed)).type, dense::ContentType::kFile) << mixed;
  }
  // Text that only looks like UR stays a plain file.
  const std::string prose = "ur:sol-sign-request/ is how the registry names its type\n";
  EXPECT_EQ(qr_io::content_of_file(text_bytes(prose)).type, dense::ContentType::kFile);
}

}  // namespace
}  // namespace airlock::keystone
