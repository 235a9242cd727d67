#include <cstdio>
#include <cstdlib>

#include <airlock/common/error.h>

namespace airlock {

std::string_view error_code_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::kHexInvalid:
      return "encoding.hex_invalid";
    case ErrorCode::kBase58Invalid:
      return "encoding.base58_invalid";
    case ErrorCode::kBase64Invalid:
      return "encoding.base64_invalid";
    case ErrorCode::kWrongLength:
      return "encoding.wrong_length";
    case ErrorCode::kTruncated:
      return "bytes.truncated";
    case ErrorCode::kTrailingBytes:
      return "bytes.trailing";
    case ErrorCode::kTooLarge:
      return "bytes.too_large";
    case ErrorCode::kShortvecTruncated:
      return "shortvec.truncated";
    case ErrorCode::kShortvecTooLong:
      return "shortvec.too_long";
    case ErrorCode::kShortvecOverflow:
      return "shortvec.overflow";
    case ErrorCode::kShortvecAlias:
      return "shortvec.alias";
    case ErrorCode::kMessageUnsupportedVersion:
      return "message.unsupported_version";
    case ErrorCode::kMessageHeaderCounts:
      return "message.header_counts";
    case ErrorCode::kMessageNoWritableFeePayer:
      return "message.no_writable_fee_payer";
    case ErrorCode::kMessageTooManyAccounts:
      return "message.too_many_accounts";
    case ErrorCode::kMessageEmptyLookup:
      return "message.empty_lookup";
    case ErrorCode::kMessageProgramIsFeePayer:
      return "message.program_is_fee_payer";
    case ErrorCode::kMessageProgramIndexOutOfRange:
      return "message.program_index_out_of_range";
    case ErrorCode::kMessageAccountIndexOutOfRange:
      return "message.account_index_out_of_range";
    case ErrorCode::kMessageDuplicateAccount:
      return "message.duplicate_account";
    case ErrorCode::kTransactionSignatureCount:
      return "transaction.signature_count";
    case ErrorCode::kTransactionTooLarge:
      return "transaction.too_large";
    case ErrorCode::kNotASigner:
      return "transaction.not_a_signer";
    case ErrorCode::kLookupIndexOutOfRange:
      return "lookup.index_out_of_range";
    case ErrorCode::kLookupTableAccount:
      return "lookup.table_account";
    case ErrorCode::kCryptoUnavailable:
      return "crypto.unavailable";
    case ErrorCode::kOutOfSecureMemory:
      return "crypto.out_of_secure_memory";
    case ErrorCode::kIo:
      return "io.failed";
    case ErrorCode::kUsage:
      return "usage.invalid";
    case ErrorCode::kCborMalformed:
      return "cbor.malformed";
    case ErrorCode::kCborIndefiniteLength:
      return "cbor.indefinite_length";
    case ErrorCode::kCborNotDeterministic:
      return "cbor.not_deterministic";
    case ErrorCode::kCborDuplicateKey:
      return "cbor.duplicate_key";
    case ErrorCode::kCborTooDeep:
      return "cbor.too_deep";
    case ErrorCode::kCborUnsupportedType:
      return "cbor.unsupported_type";
    case ErrorCode::kEnvelopeVersion:
      return "envelope.unsupported_version";
    case ErrorCode::kEnvelopeFieldMissing:
      return "envelope.field_missing";
    case ErrorCode::kEnvelopeWrongType:
      return "envelope.wrong_type";
    case ErrorCode::kEnvelopeBadValue:
      return "envelope.bad_value";
    case ErrorCode::kEnvelopeUnknownKey:
      return "envelope.unknown_key";
    case ErrorCode::kUrInvalid:
      return "ur.invalid";
    case ErrorCode::kUrChecksum:
      return "ur.checksum";
    case ErrorCode::kUrInconsistentPart:
      return "ur.inconsistent_part";
    case ErrorCode::kFrameInvalid:
      return "frame.invalid";
    case ErrorCode::kDenseOtherTransfer:
      return "dense.other_transfer";
    case ErrorCode::kDenseMixed:
      return "dense.mixed";
    case ErrorCode::kApiKeyInvalid:
      return "api.key_invalid";
    case ErrorCode::kHttp:
      return "api.http";
    case ErrorCode::kApi:
      return "api.error";
    case ErrorCode::kResponseMismatch:
      return "response.mismatch";
    case ErrorCode::kResponseLate:
      return "response.late";
    case ErrorCode::kBackupInvalid:
      return "backup.invalid";
    case ErrorCode::kKeystoreLocked:
      return "keystore.locked";
    case ErrorCode::kPolicyInvalid:
      return "policy.invalid";
    case ErrorCode::kAuditLogBroken:
      return "audit.broken";
    case ErrorCode::kNetworkUp:
      return "hardening.network_up";
    case ErrorCode::kLockdown:
      return "hardening.lockdown";
    case ErrorCode::kQrEncodeFailed:
      return "qr.encode_failed";
    case ErrorCode::kImageInvalid:
      return "image.invalid";
    case ErrorCode::kIdlInvalid:
      return "idl.invalid";
    case ErrorCode::kIdlUndecodable:
      return "idl.undecodable";
  }
  return "unknown";
}

std::string Error::to_string() const {
  std::string out(code_name());
  out += ": ";
  out += message_;
  return out;
}

Error Error::in_field(std::string_view field) const {
  std::string prefixed(field);
  prefixed += ": ";
  prefixed += message_;
  return Error(code_, std::move(prefixed));
}

void wrong_result_access(const char* asked, const Error* held) noexcept {
  if (held != nullptr) {
    std::fprintf(stderr, "airlock: internal error: %s of a result holding the error %s\n", asked,
                 held->to_string().c_str());
  } else {
    std::fprintf(stderr, "airlock: internal error: %s of a result holding no error\n", asked);
  }
  std::abort();
}

}  // namespace airlock
