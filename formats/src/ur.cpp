#include <array>
#include <charconv>
#include <string>

#include <airlock/common/reader.h>
#include <airlock/formats/cbor.h>
#include <airlock/formats/ur.h>

namespace airlock::ur {
namespace {

// The 256 bytewords of BCR-2020-012, in byte order.
constexpr std::array<std::string_view, 256> kWords = {
    "able", "acid", "also", "apex", "aqua", "arch", "atom", "aunt", "away", "axis", "back", "bald",
    "barn", "belt", "beta", "bias", "blue", "body", "brag", "brew", "bulb", "buzz", "calm", "cash",
    "cats", "chef", "city", "claw", "code", "cola", "cook", "cost", "crux", "curl", "cusp", "cyan",
    "dark", "data", "days", "deli", "dice", "diet", "door", "down", "draw", "drop", "drum", "dull",
    "duty", "each", "easy", "echo", "edge", "epic", "even", "exam", "exit", "eyes", "fact", "fair",
    "fern", "figs", "film", "fish", "fizz", "flap", "flew", "flux", "foxy", "free", "frog", "fuel",
    "fund", "gala", "game", "gear", "gems", "gift", "girl", "glow", "good", "gray", "grim", "guru",
    "gush", "gyro", "half", "hang", "hard", "hawk", "heat", "help", "high", "hill", "holy", "hope",
    "horn", "huts", "iced", "idea", "idle", "inch", "inky", "into", "iris", "iron", "item", "jade",
    "jazz", "join", "jolt", "jowl", "judo", "jugs", "jump", "junk", "jury", "keep", "keno", "kept",
    "keys", "kick", "kiln", "king", "kite", "kiwi", "knob", "lamb", "lava", "lazy", "leaf", "legs",
    "liar", "limp", "lion", "list", "logo", "loud", "love", "luau", "luck", "lung", "main", "many",
    "math", "maze", "memo", "menu", "meow", "mild", "mint", "miss", "monk", "nail", "navy", "need",
    "news", "next", "noon", "note", "numb", "obey", "oboe", "omit", "onyx", "open", "oval", "owls",
    "paid", "part", "peck", "play", "plus", "poem", "pool", "pose", "puff", "puma", "purr", "quad",
    "quiz", "race", "ramp", "real", "redo", "rich", "road", "rock", "roof", "ruby", "ruin", "runs",
    "rust", "safe", "saga", "scar", "sets", "silk", "skew", "slot", "soap", "solo", "song", "stub",
    "surf", "swan", "taco", "task", "taxi", "tent", "tied", "time", "tiny", "toil", "tomb", "toys",
    "trip", "tuna", "twin", "ugly", "undo", "unit", "urge", "user", "vast", "very", "veto", "vial",
    "vibe", "view", "visa", "void", "vows", "wall", "wand", "warm", "wasp", "wave", "waxy", "webs",
    "what", "when", "whiz", "wolf", "work", "yank", "yawn", "yell", "yoga", "yurt", "zaps", "zero",
    "zest", "zinc", "zone", "zoom"};

// Minimal form: first and last letter; the pair is unique across the list.
constexpr std::size_t kLetters = 26;
constexpr std::array<std::int16_t, kLetters * kLetters> make_minimal_index() {
  std::array<std::int16_t, kLetters * kLetters> index{};
  for (auto& i : index) i = -1;
  for (std::size_t b = 0; b < kWords.size(); ++b) {
    index[static_cast<std::size_t>(kWords[b][0] - 'a') * kLetters +
          static_cast<std::size_t>(kWords[b][3] - 'a')] = static_cast<std::int16_t>(b);
  }
  return index;
}
constexpr auto kMinimalIndex = make_minimal_index();

constexpr std::uint64_t kPartCborItems = 5;
constexpr cbor::DecodeLimits kPartLimits{kMaxMessageBytes + 64, 2, 8};

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool valid_type(std::string_view type) {
  if (type.empty() || type.size() > kMaxTypeChars) return false;
  for (char c : type) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

Bytes encode_part_cbor(const fountain::Part& p) {
  return cbor::encode(cbor::Value::array(
      {cbor::Value::unsigned_int(p.seq_num), cbor::Value::unsigned_int(p.seq_len),
       cbor::Value::unsigned_int(p.message_len), cbor::Value::unsigned_int(p.checksum),
       cbor::Value::bytes(p.data)}));
}

Result<fountain::Part> decode_part_cbor(ByteView bytes) {
  AIRLOCK_TRY(v, cbor::decode_strict(bytes, kPartLimits));
  const auto& items = v.items();
  if (v.kind() != cbor::Value::Kind::kArray || items.size() != kPartCborItems ||
      items[4].kind() != cbor::Value::Kind::kBytes) {
    return Error(ur::errors::kInvalid,
                 "multipart UR body must be [seq, count, length, "
                 "checksum, fragment]");
  }
  fountain::Part p;
  std::uint32_t* fields[] = {&p.seq_num, &p.seq_len, &p.message_len, &p.checksum};
  for (std::size_t i = 0; i < 4; ++i) {
    if (items[i].kind() != cbor::Value::Kind::kUnsigned || items[i].number() > UINT32_MAX) {
      return Error(ur::errors::kInvalid, "multipart UR body field " + std::to_string(i) +
                                             " must be an unsigned 32-bit integer");
    }
    *fields[i] = static_cast<std::uint32_t>(items[i].number());
  }
  p.data = items[4].byte_string();
  return p;
}

bool parse_u32(std::string_view s, std::uint32_t& out) {
  if (s.empty() || s.size() > 10) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

std::string bytewords_encode(ByteView data) {
  Bytes with_crc(data.begin(), data.end());
  const std::uint32_t crc = fountain::crc32(data);
  for (int shift = 24; shift >= 0; shift -= 8)
    with_crc.push_back(static_cast<std::uint8_t>(crc >> shift));
  std::string out;
  out.reserve(with_crc.size() * 2);
  for (std::uint8_t b : with_crc) {
    out += kWords[b][0];
    out += kWords[b][3];
  }
  return out;
}

Result<Bytes> bytewords_decode(std::string_view text) {
  if (text.size() % 2 != 0 || text.size() < 10) {
    return Error(ur::errors::kInvalid, "bytewords must be letter pairs with a 4-byte checksum");
  }
  if (text.size() / 2 > kMaxMessageBytes + 64) {
    return Error(ErrorCode::kTooLarge, "bytewords text is over the size limit");
  }
  Bytes bytes;
  bytes.reserve(text.size() / 2);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const char a = lower(text[i]), b = lower(text[i + 1]);
    const int index = (a >= 'a' && a <= 'z' && b >= 'a' && b <= 'z')
                          ? kMinimalIndex[static_cast<std::size_t>(a - 'a') * kLetters +
                                          static_cast<std::size_t>(b - 'a')]
                          : -1;
    if (index < 0) {
      return Error(ur::errors::kInvalid, "'" + std::string(text.substr(i, 2)) + "' at offset " +
                                             std::to_string(i) + " is not a byteword");
    }
    bytes.push_back(static_cast<std::uint8_t>(index));
  }
  const std::size_t body = bytes.size() - 4;
  ByteReader tail(ByteView(bytes).subspan(body));
  const auto crc = static_cast<std::uint32_t>(tail.be(4, "checksum"));
  bytes.resize(body);
  if (fountain::crc32(bytes) != crc) {
    return Error(ur::errors::kChecksum,
                 "bytewords checksum does not match; the text was "
                 "misread or altered");
  }
  return bytes;
}

std::string encode_single(const Resource& r) {
  return "ur:" + r.type + "/" + bytewords_encode(r.cbor);
}

MultipartEncoder::MultipartEncoder(Resource resource, std::size_t max_fragment_len,
                                   std::size_t min_fragment_len)
    : resource_(std::move(resource)),
      encoder_(resource_.cbor, max_fragment_len, min_fragment_len) {}

std::string MultipartEncoder::part(std::uint32_t seq_num) const {
  if (encoder_.seq_len() == 1) return encode_single(resource_);
  const fountain::Part p = encoder_.part(seq_num);
  return "ur:" + resource_.type + "/" + std::to_string(p.seq_num) + "-" +
         std::to_string(p.seq_len) + "/" + bytewords_encode(encode_part_cbor(p));
}

Decoder::Decoder() : fountain_({kMaxMessageBytes, kMaxSequenceLength}, fountain::Chooser::kUr) {}

Status Decoder::receive(std::string_view raw) {
  if (complete()) return {};
  std::string text(raw);
  for (auto& c : text) c = lower(c);
  if (text.rfind("ur:", 0) != 0) return Error(ur::errors::kInvalid, "text does not start with ur:");
  std::string_view rest = std::string_view(text).substr(3);
  const auto slash = rest.find('/');
  if (slash == std::string_view::npos)
    return Error(ur::errors::kInvalid, "UR has no '/' after its type");
  const std::string type(rest.substr(0, slash));
  if (!valid_type(type)) {
    return Error(ur::errors::kInvalid, "UR type must be 1 to 64 of a-z, 0-9 and '-'");
  }
  if (type_ && *type_ != type) {
    return Error(ur::errors::kInconsistentPart,
                 "part of a ur:" + type + " while reading a ur:" + *type_);
  }
  rest = rest.substr(slash + 1);
  const auto second = rest.find('/');
  if (second == std::string_view::npos) {
    AIRLOCK_TRY(payload, bytewords_decode(rest));
    type_ = type;
    result_ = Resource{type, std::move(payload)};
    return {};
  }
  const std::string_view seq = rest.substr(0, second);
  const auto dash = seq.find('-');
  std::uint32_t seq_num = 0, seq_len = 0;
  if (dash == std::string_view::npos || !parse_u32(seq.substr(0, dash), seq_num) ||
      !parse_u32(seq.substr(dash + 1), seq_len)) {
    return Error(ur::errors::kInvalid, "multipart UR sequence must be <number>-<count>");
  }
  AIRLOCK_TRY(body, bytewords_decode(rest.substr(second + 1)));
  AIRLOCK_TRY(part, decode_part_cbor(body));
  if (part.seq_num != seq_num || part.seq_len != seq_len) {
    return Error(ur::errors::kInvalid, "multipart UR sequence in the text (" + std::string(seq) +
                                           ") differs from the one in its body");
  }
  AIRLOCK_CHECK(fountain_.receive(part));
  type_ = type;
  if (fountain_.complete()) result_ = Resource{type, fountain_.message()};
  return {};
}

}  // namespace airlock::ur
