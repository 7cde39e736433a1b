#pragma once
// Routes RDKit's error and warning logs into a per-thread buffer, so that a parse failure can carry
// RDKit's own explanation in its status and nothing spills onto stderr unless echo is switched on.
#include <string>

namespace gs::chem::detail {

void installLogCapture();       // idempotent, thread-safe
void clearCapturedLog();        // for the calling thread
std::string takeCapturedLog();  // last message logged on the calling thread, cleaned up
void setLogEcho(bool echo);

}  // namespace gs::chem::detail
