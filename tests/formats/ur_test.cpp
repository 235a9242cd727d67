// BC-UR against @ngraveio/bc-ur (../shared/vectors/bc-ur-multipart.json): bytewords, the part
// CBOR, the fountain chooser and the Xoshiro256** stream must reproduce every part exactly.
#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include <airlock/formats/cbor.h>
#include <airlock/formats/ur.h>

#include "support/vectors.h"

namespace airlock::ur {
namespace {

Resource bytes_resource(const nlohmann::json& v) {
  return Resource{v.at("ur_type"),
                  cbor::encode(cbor::Value::bytes(test::hex(v.at("message_hex"))))};
}

TEST(UrVectors, EncoderReproducesEveryPart) {
  const auto vectors = test::vector_list("bc-ur-multipart.json");
  ASSERT_EQ(vectors.size(), 3U);
  for (const auto& v : vectors) {
    MultipartEncoder encoder(bytes_resource(v), v.at("max_fragment_length").get<std::size_t>());
    EXPECT_EQ(encoder.seq_len(), v.at("fragments").get<std::uint32_t>());
    const auto parts = v.at("parts").get<std::vector<std::string>>();
    for (std::size_t i = 0; i < parts.size(); ++i) {
      EXPECT_EQ(encoder.part(static_cast<std::uint32_t>(i + 1)), parts[i])
          << "vector with " << encoder.seq_len() << " fragments, part " << i + 1;
    }
    if (!v.at("single_part").is_null()) {
      EXPECT_EQ(encode_single(bytes_resource(v)), v.at("single_part").get<std::string>());
    }
  }
}

TEST(UrVectors, DecoderReadsTheVectorsInAnyOrderWithLossAndDuplicates) {
  std::mt19937 rng(2024);
  for (const auto& v : test::vector_list("bc-ur-multipart.json")) {
    const Resource expected = bytes_resource(v);
    MultipartEncoder encoder(expected, v.at("max_fragment_length").get<std::size_t>());
    for (int trial = 0; trial < 20; ++trial) {
      // A stream that starts mid-way, loses 10 to 30 percent of parts and repeats some.
      std::vector<std::string> stream;
      const double loss = 0.1 + 0.2 * (trial % 3) / 2.0;
      const auto start = static_cast<std::uint32_t>(1 + rng() % (2 * encoder.seq_len()));
      for (std::uint32_t n = start; n < start + 20 * encoder.seq_len() + 20; ++n) {
        if (std::uniform_real_distribution<double>(0, 1)(rng) < loss) continue;
        stream.push_back(encoder.part(n));
        if (rng() % 10 == 0) stream.push_back(stream.back());
      }
      std::shuffle(stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(stream.size() / 3),
                   rng);
      Decoder decoder;
      std::size_t used = 0;
      for (const auto& text : stream) {
        ++used;
        ASSERT_TRUE(decoder.receive(text).ok());
        if (decoder.complete()) break;
      }
      ASSERT_TRUE(decoder.complete()) << "trial " << trial;
      EXPECT_EQ(decoder.result(), expected);
    }
  }
}

TEST(Bytewords, RoundTripAndErrors) {
  const Bytes data{0x00, 0x01, 0xfe, 0xff};
  const std::string text = bytewords_encode(data);
  EXPECT_EQ(text.substr(0, 8), "aeadzezm");  // able acid zone zoom
  auto decoded = bytewords_decode(text);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, data);
  std::string upper = text;
  for (auto& c : upper) c = static_cast<char>(c - 'a' + 'A');
  EXPECT_TRUE(bytewords_decode(upper).ok()) << "QR alphanumeric mode is upper case";

  std::string flipped = text;
  flipped[2] = 'b';
  flipped[3] = 'k';  // "bk" is back (0x0a): a valid word, wrong checksum
  EXPECT_EQ(bytewords_decode(flipped).error().code(), ur::errors::kChecksum);
  std::string invalid = text;
  invalid[0] = 'q';
  invalid[1] = 'q';
  EXPECT_EQ(bytewords_decode(invalid).error().code(), ur::errors::kInvalid);
  EXPECT_EQ(bytewords_decode("aead").error().code(), ur::errors::kInvalid);
}

TEST(UrDecoder, RefusesMalformedAndForeignParts) {
  const auto vectors = test::vector_list("bc-ur-multipart.json");
  MultipartEncoder first(bytes_resource(vectors[1]), 400);
  MultipartEncoder other(bytes_resource(vectors[2]), 200);
  Decoder decoder;
  ASSERT_TRUE(decoder.receive(first.part(1)).ok());
  EXPECT_EQ(decoder.receive(other.part(1)).error().code(), ur::errors::kInconsistentPart);
  EXPECT_EQ(decoder.receive("ur:crypto-psbt/1-4/aeae").error().code(),
            ur::errors::kInconsistentPart);
  EXPECT_EQ(decoder.receive("hello").error().code(), ur::errors::kInvalid);
  EXPECT_EQ(decoder.receive("ur:bytes").error().code(), ur::errors::kInvalid);
  EXPECT_EQ(decoder.receive("ur:bytes/x-4/aeadaeadaead").error().code(), ur::errors::kInvalid);
  // The sequence in the text must match the body.
  std::string lying = first.part(2);
  lying.replace(lying.find("/2-4/"), 5, "/3-4/");
  EXPECT_EQ(decoder.receive(lying).error().code(), ur::errors::kInvalid);
  // After all that noise the real parts still complete the message.
  for (std::uint32_t n = 2; n <= 4; ++n) ASSERT_TRUE(decoder.receive(first.part(n)).ok());
  ASSERT_TRUE(decoder.complete());
  EXPECT_EQ(decoder.result(), bytes_resource(vectors[1]));
}

}  // namespace
}  // namespace airlock::ur
