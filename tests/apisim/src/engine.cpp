#include "engine.h"

#include <algorithm>
#include <chrono>

#include <sodium.h>

#include <airlock/common/hash.h>

namespace airlock::apisim {

namespace {
std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

Engine::Engine(World w, ServiceOptions o)
    : world(std::move(w)), options(std::move(o)), start_wall_ms_(wall_ms()) {
  frozen_ms = start_wall_ms_;
}

std::int64_t Engine::now_ms() const {
  return (options.frozen_clock ? frozen_ms : wall_ms()) + clock_offset_ms;
}

Hash Engine::blockhash_for(std::uint64_t slot_number) const {
  std::string seed =
      "airlock-apisim blockhash " + std::to_string(world.seed) + " " + std::to_string(slot_number);
  return sha256(text_bytes(seed));
}

Result<Keypair> Engine::derived_keypair(std::string_view tag, const PublicKey& base,
                                        std::uint64_t n) const {
  const PublicKey seed = derive_address(
      std::string("keypair:") + std::string(tag) + ":" + std::to_string(world.seed), base, n);
  return Keypair::from_seed(seed.view());
}

std::optional<std::string> Engine::take_tokens(const Limits& limits, bool consume) {
  const std::int64_t now = now_ms();
  for (const auto& [name, spec] : limits) {
    auto [it, inserted] = buckets_.try_emplace(name);
    Bucket& b = it->second;
    if (inserted) {
      b.capacity = b.tokens = spec.first;
      b.period_ms = spec.second;
      b.updated_ms = now;
    }
    b.refill(now);
    if (b.tokens < 1.0) return name;
  }
  if (consume) {
    for (const auto& [name, spec] : limits) buckets_[name].tokens -= 1.0;
  }
  return std::nullopt;
}

std::string Engine::add_ticket(Ticket ticket) {
  std::uint8_t random[18];
  randombytes_buf(random, sizeof random);
  std::string id = "tkt_" + to_base58(ByteView(random, sizeof random));
  tickets_.emplace(id, std::move(ticket));
  return id;
}

const Ticket* Engine::ticket(const std::string& id) const {
  auto it = tickets_.find(id);
  return it == tickets_.end() ? nullptr : &it->second;
}

Receipt& Engine::add_receipt(Receipt receipt) {
  std::uint8_t random[18];
  randombytes_buf(random, sizeof random);
  receipt.id = "rcpt_" + to_base58(ByteView(random, sizeof random));
  receipt_by_signature_[to_base58(receipt.signature)] = receipt.id;
  return receipts_.emplace(receipt.id, std::move(receipt)).first->second;
}

Receipt* Engine::receipt(const std::string& id) {
  auto it = receipts_.find(id);
  return it == receipts_.end() ? nullptr : &it->second;
}

Receipt* Engine::receipt_for_signature(const Signature& signature) {
  auto it = receipt_by_signature_.find(to_base58(signature));
  return it == receipt_by_signature_.end() ? nullptr : receipt(it->second);
}

// Moves a receipt along the state machine of spec 3.2, applying the effect once on landing.
void Engine::advance_receipt(Receipt& r) {
  if (r.status != "pending") return;
  const std::int64_t now = now_ms();
  const bool blockhash_expired =
      slot() > r.blockhash_slot + static_cast<std::uint64_t>(kBlockhashSlots);
  if (r.landing != Landing::kNever && now >= r.land_ms && !r.landed) {
    r.landed = true;
    r.landed_slot = slot();
    ++counters.landed;
    ++counters.landed_by_signature[to_base58(r.signature)];
    if (r.landing == Landing::kLands) {
      if (r.effect) r.effect(*this);
      r.status = "confirmed";
    } else {
      r.status = "failed";
    }
    return;
  }
  if (!r.landed && blockhash_expired) r.status = "expired";
}

void Engine::advance_receipts() {
  for (auto& [id, r] : receipts_) advance_receipt(r);
}

std::uint64_t Engine::landed_unread() const {
  return static_cast<std::uint64_t>(
      std::count_if(receipts_.begin(), receipts_.end(),
                    [](const auto& r) { return r.second.landed && !r.second.read; }));
}

void Engine::drop_expired() {
  const std::int64_t now = now_ms();
  std::erase_if(tickets_,
                [&](const auto& t) { return t.second.expires_ms + kTicketLifetimeMs < now; });
  for (auto it = receipts_.begin(); it != receipts_.end();) {
    if (it->second.sent_ms + kReceiptLifetimeMs < now) {
      receipt_by_signature_.erase(to_base58(it->second.signature));
      it = receipts_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace airlock::apisim
