// Shared between message.cpp and transaction.cpp: reading a message from a running cursor.
#pragma once

#include <airlock/common/message.h>
#include <airlock/common/reader.h>

namespace airlock::detail {

// Reads one message at the cursor; the caller checks that nothing follows.
void read_message(ByteReader& reader, Message& out);

}  // namespace airlock::detail
