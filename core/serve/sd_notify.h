#pragma once
// systemd's readiness protocol without libsystemd: a datagram to $NOTIFY_SOCKET (a path, or an
// abstract socket when it starts with '@'), as sd_notify(3) sends. Nothing happens when the
// variable is unset, so the server runs the same under supervisor, a shell or a test.
#include <chrono>
#include <string>

namespace gs::serve {

// Sends `state` (e.g. "READY=1\nSTATUS=serving"); false when there is no socket or it failed.
bool sdNotify(const std::string& state);
// The watchdog period systemd expects pings within (WATCHDOG_USEC, for this process when
// WATCHDOG_PID is set); zero when there is no watchdog.
std::chrono::microseconds watchdogPeriod();
// "MONOTONIC_USEC=<now>" for RELOADING=1 (systemd 253 wants it; older versions ignore it).
std::string monotonicUsec();

}  // namespace gs::serve
