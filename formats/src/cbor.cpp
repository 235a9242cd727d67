#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <cbor.h>

#include <airlock/formats/cbor.h>

namespace airlock::cbor {

Value Value::unsigned_int(std::uint64_t v) {
  Value out;
  out.kind_ = Kind::kUnsigned;
  out.number_ = v;
  return out;
}

Value Value::negative(std::uint64_t n) {
  Value out;
  out.kind_ = Kind::kNegative;
  out.number_ = n;
  return out;
}

Value Value::bytes(Bytes b) {
  Value out;
  out.kind_ = Kind::kBytes;
  out.data_ = std::move(b);
  return out;
}

Value Value::text(std::string s) {
  Value out;
  out.kind_ = Kind::kText;
  out.data_.assign(s.begin(), s.end());
  return out;
}

Value Value::array(std::vector<Value> items) {
  Value out;
  out.kind_ = Kind::kArray;
  out.items_ = std::move(items);
  return out;
}

Value Value::map(std::vector<Entry> entries) {
  Value out;
  out.kind_ = Kind::kMap;
  out.entries_ = std::move(entries);
  return out;
}

Value Value::tag(std::uint64_t tag, Value inner) {
  Value out;
  out.kind_ = Kind::kTag;
  out.number_ = tag;
  out.items_.push_back(std::move(inner));
  return out;
}

Value Value::boolean(bool v) {
  Value out;
  out.kind_ = Kind::kBool;
  out.number_ = v ? 1 : 0;
  return out;
}

Value Value::null() { return Value(); }

const Value* Value::find(std::uint64_t key) const {
  for (const auto& [k, v] : entries_) {
    if (k.kind_ == Kind::kUnsigned && k.number_ == key) return &v;
  }
  return nullptr;
}

const char* kind_name(Value::Kind kind) noexcept {
  switch (kind) {
    case Value::Kind::kUnsigned:
      return "unsigned integer";
    case Value::Kind::kNegative:
      return "negative integer";
    case Value::Kind::kBytes:
      return "byte string";
    case Value::Kind::kText:
      return "text string";
    case Value::Kind::kArray:
      return "array";
    case Value::Kind::kMap:
      return "map";
    case Value::Kind::kTag:
      return "tag";
    case Value::Kind::kBool:
      return "boolean";
    case Value::Kind::kNull:
      return "null";
  }
  return "unknown";
}

// ---------------------------------------------------------------------------------------------
// Encoding

namespace {

using HeadWriter = size_t (*)(std::uint64_t, unsigned char*, size_t);

void append_head(HeadWriter writer, std::uint64_t value, Bytes& out) {
  unsigned char head[9];
  const size_t n = writer(value, head, sizeof head);
  out.insert(out.end(), head, head + n);
}

size_t write_bytes_head(std::uint64_t n, unsigned char* b, size_t s) {
  return cbor_encode_bytestring_start(n, b, s);
}
size_t write_text_head(std::uint64_t n, unsigned char* b, size_t s) {
  return cbor_encode_string_start(n, b, s);
}
size_t write_array_head(std::uint64_t n, unsigned char* b, size_t s) {
  return cbor_encode_array_start(n, b, s);
}
size_t write_map_head(std::uint64_t n, unsigned char* b, size_t s) {
  return cbor_encode_map_start(n, b, s);
}

void encode_into(const Value& v, Bytes& out) {
  switch (v.kind()) {
    case Value::Kind::kUnsigned:
      append_head(cbor_encode_uint, v.number(), out);
      break;
    case Value::Kind::kNegative:
      append_head(cbor_encode_negint, v.number(), out);
      break;
    case Value::Kind::kBytes:
    case Value::Kind::kText: {
      const Bytes& data = v.byte_string();
      append_head(v.kind() == Value::Kind::kBytes ? write_bytes_head : write_text_head, data.size(),
                  out);
      out.insert(out.end(), data.begin(), data.end());
      break;
    }
    case Value::Kind::kArray:
      append_head(write_array_head, v.items().size(), out);
      for (const auto& item : v.items()) encode_into(item, out);
      break;
    case Value::Kind::kMap: {
      std::vector<std::pair<Bytes, const Value*>> sorted;
      sorted.reserve(v.entries().size());
      for (const auto& [key, value] : v.entries()) sorted.emplace_back(encode(key), &value);
      std::sort(sorted.begin(), sorted.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      append_head(write_map_head, sorted.size(), out);
      for (const auto& [key, value] : sorted) {
        out.insert(out.end(), key.begin(), key.end());
        encode_into(*value, out);
      }
      break;
    }
    case Value::Kind::kTag:
      append_head(cbor_encode_tag, v.number(), out);
      encode_into(v.tagged(), out);
      break;
    case Value::Kind::kBool: {
      unsigned char b[1];
      out.insert(out.end(), b, b + cbor_encode_bool(v.as_bool(), b, 1));
      break;
    }
    case Value::Kind::kNull: {
      unsigned char b[1];
      out.insert(out.end(), b, b + cbor_encode_null(b, 1));
      break;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Strict decoding: libcbor's streaming decoder reads one head at a time into an Event; the
// tree is built here, so every limit is checked before anything is allocated for it.

struct Event {
  enum Type {
    kUnsigned,
    kNegative,
    kBytes,
    kText,
    kArray,
    kMap,
    kTag,
    kBool,
    kNull,
    kIndefinite,
    kUnsupported,
    kBreak,
  } type = kNull;
  std::uint64_t number = 0;
  const unsigned char* data = nullptr;
  std::size_t length = 0;
  const char* what = "";
};

Event& ev(void* context) { return *static_cast<Event*>(context); }
void on_uint8(void* c, uint8_t v) { ev(c) = {Event::kUnsigned, v}; }
void on_uint16(void* c, uint16_t v) { ev(c) = {Event::kUnsigned, v}; }
void on_uint32(void* c, uint32_t v) { ev(c) = {Event::kUnsigned, v}; }
void on_uint64(void* c, uint64_t v) { ev(c) = {Event::kUnsigned, v}; }
void on_neg8(void* c, uint8_t v) { ev(c) = {Event::kNegative, v}; }
void on_neg16(void* c, uint16_t v) { ev(c) = {Event::kNegative, v}; }
void on_neg32(void* c, uint32_t v) { ev(c) = {Event::kNegative, v}; }
void on_neg64(void* c, uint64_t v) { ev(c) = {Event::kNegative, v}; }
void on_bytes(void* c, cbor_data d, size_t n) { ev(c) = {Event::kBytes, 0, d, n}; }
void on_text(void* c, cbor_data d, size_t n) { ev(c) = {Event::kText, 0, d, n}; }
void on_array(void* c, size_t n) { ev(c) = {Event::kArray, n}; }
void on_map(void* c, size_t n) { ev(c) = {Event::kMap, n}; }
void on_tag(void* c, uint64_t t) { ev(c) = {Event::kTag, t}; }
void on_bool(void* c, bool b) { ev(c) = {Event::kBool, b ? 1U : 0U}; }
void on_null(void* c) { ev(c) = {Event::kNull}; }
void on_indef_bytes(void* c) { ev(c) = {Event::kIndefinite, 0, nullptr, 0, "byte string"}; }
void on_indef_text(void* c) { ev(c) = {Event::kIndefinite, 0, nullptr, 0, "text string"}; }
void on_indef_array(void* c) { ev(c) = {Event::kIndefinite, 0, nullptr, 0, "array"}; }
void on_indef_map(void* c) { ev(c) = {Event::kIndefinite, 0, nullptr, 0, "map"}; }
void on_float(void* c, float) { ev(c) = {Event::kUnsupported, 0, nullptr, 0, "float"}; }
void on_double(void* c, double) { ev(c) = {Event::kUnsupported, 0, nullptr, 0, "float"}; }
void on_undefined(void* c) { ev(c) = {Event::kUnsupported, 0, nullptr, 0, "undefined"}; }
void on_break(void* c) { ev(c) = {Event::kBreak}; }

const cbor_callbacks kCallbacks = [] {
  cbor_callbacks cb = cbor_empty_callbacks;
  cb.uint8 = on_uint8;
  cb.uint16 = on_uint16;
  cb.uint32 = on_uint32;
  cb.uint64 = on_uint64;
  cb.negint8 = on_neg8;
  cb.negint16 = on_neg16;
  cb.negint32 = on_neg32;
  cb.negint64 = on_neg64;
  cb.byte_string = on_bytes;
  cb.string = on_text;
  cb.array_start = on_array;
  cb.map_start = on_map;
  cb.tag = on_tag;
  cb.boolean = on_bool;
  cb.null = on_null;
  cb.byte_string_start = on_indef_bytes;
  cb.string_start = on_indef_text;
  cb.indef_array_start = on_indef_array;
  cb.indef_map_start = on_indef_map;
  cb.float2 = on_float;
  cb.float4 = on_float;
  cb.float8 = on_double;
  cb.undefined = on_undefined;
  cb.indef_break = on_break;
  return cb;
}();

class StrictDecoder {
 public:
  StrictDecoder(ByteView input, const DecodeLimits& limits) : in_(input), limits_(limits) {}

  Result<Value> decode() {
    if (in_.size() > limits_.max_bytes) {
      return Error(ErrorCode::kTooLarge, "CBOR input is " + std::to_string(in_.size()) +
                                             " bytes, over the limit of " +
                                             std::to_string(limits_.max_bytes));
    }
    auto value = read_value(0);
    if (!value.ok()) return value;
    if (pos_ != in_.size()) {
      return Error(ErrorCode::kTrailingBytes, "CBOR value ends at offset " + std::to_string(pos_) +
                                                  " but " + std::to_string(in_.size() - pos_) +
                                                  " more bytes follow");
    }
    const Bytes canonical = encode(*value);
    if (canonical != Bytes(in_.begin(), in_.end())) {
      std::size_t at = 0;
      while (at < canonical.size() && at < in_.size() && canonical[at] == in_[at]) ++at;
      return Error(cbor::errors::kNotDeterministic,
                   "CBOR is not in deterministic form (RFC 8949 §4.2.1: shortest heads, map keys "
                   "sorted); first difference at offset " +
                       std::to_string(at));
    }
    return value;
  }

 private:
  Result<Event> next_event() {
    const std::size_t at = pos_;
    if (pos_ >= in_.size()) {
      return Error(cbor::errors::kMalformed, "CBOR input ends early, at offset " +
                                                 std::to_string(at) + ", where a value was due");
    }
    Event event;
    const auto result =
        cbor_stream_decode(in_.data() + pos_, in_.size() - pos_, &kCallbacks, &event);
    if (result.status == CBOR_DECODER_NEDATA) {
      return Error(cbor::errors::kMalformed,
                   "CBOR input ends inside the value at offset " + std::to_string(at));
    }
    if (result.status != CBOR_DECODER_FINISHED || result.read == 0) {
      return Error(cbor::errors::kMalformed,
                   "CBOR has an invalid or reserved head at offset " + std::to_string(at));
    }
    pos_ += result.read;
    return event;
  }

  Status count_item() {
    if (++items_ > limits_.max_items) {
      return Error(ErrorCode::kTooLarge, "CBOR has more than " + std::to_string(limits_.max_items) +
                                             " values, the limit");
    }
    return {};
  }

  Status enter(std::size_t depth, std::size_t at) {
    if (depth + 1 > limits_.max_depth) {
      return Error(cbor::errors::kTooDeep, "CBOR nests deeper than " +
                                               std::to_string(limits_.max_depth) +
                                               " levels at offset " + std::to_string(at));
    }
    return {};
  }

  // The `count` items of the array whose head is at `at`.
  Result<Value> read_array(std::uint64_t count, std::size_t depth, std::size_t at) {
    if (auto s = enter(depth, at); !s.ok()) return s.error();
    // Every element takes at least one byte: refuse a count that cannot fit before reserving.
    if (count > in_.size() - pos_) {
      return Error(cbor::errors::kMalformed,
                   "CBOR array at offset " + std::to_string(at) + " claims " +
                       std::to_string(count) + " items but only " +
                       std::to_string(in_.size() - pos_) + " bytes remain");
    }
    std::vector<Value> items;
    items.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      auto item = read_value(depth + 1);
      if (!item.ok()) return item;
      items.push_back(std::move(item).value());
    }
    return Value::array(std::move(items));
  }

  // The `count` entries of the map whose head is at `at`; a key given twice is refused.
  Result<Value> read_map(std::uint64_t count, std::size_t depth, std::size_t at) {
    if (auto s = enter(depth, at); !s.ok()) return s.error();
    if (count > (in_.size() - pos_) / 2) {
      return Error(cbor::errors::kMalformed,
                   "CBOR map at offset " + std::to_string(at) + " claims " + std::to_string(count) +
                       " entries but only " + std::to_string(in_.size() - pos_) + " bytes remain");
    }
    std::vector<Value::Entry> entries;
    entries.reserve(count);
    std::set<Bytes> keys;
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::size_t key_at = pos_;
      auto key = read_value(depth + 1);
      if (!key.ok()) return key;
      if (!keys.insert(encode(*key)).second) {
        return Error(cbor::errors::kDuplicateKey, "CBOR map at offset " + std::to_string(at) +
                                                      " repeats a key (second occurrence at "
                                                      "offset " +
                                                      std::to_string(key_at) + ")");
      }
      auto value = read_value(depth + 1);
      if (!value.ok()) return value;
      entries.emplace_back(std::move(key).value(), std::move(value).value());
    }
    return Value::map(std::move(entries));
  }

  Result<Value> read_value(std::size_t depth) {
    if (auto s = count_item(); !s.ok()) return s.error();
    const std::size_t at = pos_;
    auto event = next_event();
    if (!event.ok()) return std::move(event).error();
    const Event& e = *event;
    switch (e.type) {
      case Event::kUnsigned:
        return Value::unsigned_int(e.number);
      case Event::kNegative:
        return Value::negative(e.number);
      case Event::kBytes:
        return Value::bytes(Bytes(e.data, e.data + e.length));
      case Event::kText:
        if (!is_valid_utf8(ByteView(e.data, e.length))) {
          return Error(cbor::errors::kMalformed,
                       "CBOR text string at offset " + std::to_string(at) + " is not valid UTF-8");
        }
        return Value::text(std::string(reinterpret_cast<const char*>(e.data), e.length));
      case Event::kArray:
        return read_array(e.number, depth, at);
      case Event::kMap:
        return read_map(e.number, depth, at);
      case Event::kTag: {
        if (auto s = enter(depth, at); !s.ok()) return s.error();
        auto inner = read_value(depth + 1);
        if (!inner.ok()) return inner;
        return Value::tag(e.number, std::move(inner).value());
      }
      case Event::kBool:
        return Value::boolean(e.number != 0);
      case Event::kNull:
        return Value::null();
      case Event::kIndefinite:
        return Error(cbor::errors::kIndefiniteLength,
                     std::string("CBOR indefinite-length ") + e.what + " at offset " +
                         std::to_string(at) + "; only definite lengths are accepted");
      case Event::kUnsupported:
        return Error(cbor::errors::kUnsupportedType, std::string("CBOR ") + e.what + " at offset " +
                                                         std::to_string(at) +
                                                         " is not used by any airlock format");
      case Event::kBreak:
        return Error(cbor::errors::kMalformed,
                     "CBOR break code at offset " + std::to_string(at) + " outside any container");
    }
    return Error(cbor::errors::kMalformed, "CBOR value at offset " + std::to_string(at));
  }

  ByteView in_;
  const DecodeLimits& limits_;
  std::size_t pos_ = 0;
  std::size_t items_ = 0;
};

}  // namespace

Bytes encode(const Value& value) {
  Bytes out;
  encode_into(value, out);
  return out;
}

Result<Value> decode_strict(ByteView input, const DecodeLimits& limits) {
  return StrictDecoder(input, limits).decode();
}

}  // namespace airlock::cbor
