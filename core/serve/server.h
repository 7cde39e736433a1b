#pragma once
// `graphormer-cli serve`: the prediction server's lifecycle. Listens first (live at once), loads
// and warms the model (ready only then: READY=1 to systemd), serves until SIGTERM/SIGINT, then
// drains: ready turns 503 at once, admitted work finishes within the drain timeout, exit 0.
// SIGHUP (or POST /v1/admin/reload) loads and warms the model again beside the current one and
// swaps; a failed load keeps the current model and logs why. With WATCHDOG_USEC set, pings
// systemd at half the period from the I/O loop.
#include "serve/server_options.h"

namespace gs::serve {

// Returns the process exit status: 0 after a drain, 1 when the model or keys cannot be loaded
// or the address cannot be bound.
int runServer(const ServeOptions& options);

}  // namespace gs::serve
