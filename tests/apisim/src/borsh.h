// Borsh serialization, as Anchor programs encode instruction arguments.
#pragma once

#include <string>

#include <airlock/common/bytes.h>

namespace airlock::apisim {

class Borsh {
 public:
  Borsh& u8(std::uint8_t v) {
    out_.push_back(v);
    return *this;
  }
  Borsh& boolean(bool v) { return u8(v ? 1 : 0); }
  Borsh& u16(std::uint16_t v) { return le(v, 2); }
  Borsh& u32(std::uint32_t v) { return le(v, 4); }
  Borsh& i32(std::int32_t v) { return le(static_cast<std::uint32_t>(v), 4); }
  Borsh& u64(std::uint64_t v) { return le(v, 8); }
  Borsh& key(const PublicKey& k) {
    out_.insert(out_.end(), k.bytes.begin(), k.bytes.end());
    return *this;
  }
  Borsh& raw(ByteView b) {
    out_.insert(out_.end(), b.begin(), b.end());
    return *this;
  }
  // Vec<u8> / bytes: u32 length, then the bytes.
  Borsh& bytes(ByteView b) {
    u32(static_cast<std::uint32_t>(b.size()));
    return raw(b);
  }
  template <class T, class F>
  Borsh& option(const std::optional<T>& v, F write) {
    if (!v) return u8(0);
    u8(1);
    write(*this, *v);
    return *this;
  }
  const Bytes& data() const { return out_; }

 private:
  Borsh& le(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    return *this;
  }
  Bytes out_;
};

}  // namespace airlock::apisim
