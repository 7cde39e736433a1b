#pragma once
// The server's log: one JSON object per line on stderr (journald and supervisor keep lines), with
// a UTC timestamp, a level and an event; request lines carry the request id the client sees in
// X-Request-Id. Lines from different threads never interleave.
#include <functional>
#include <string>

#include "common/json_writer.h"

namespace gs::serve {

// `fields` adds the event's own fields after ts, level and event.
void logLine(const char* level, const char* event, const std::function<void(JsonWriter&)>& fields = {});

}  // namespace gs::serve
