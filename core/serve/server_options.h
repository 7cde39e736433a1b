#pragma once
// Everything `graphormer-cli serve` is told: the model, where to listen, the workers, batching,
// limits, timeouts and keys. Plain data; the defaults are the documented ones (docs/SERVING.md).
#include <chrono>
#include <cstdint>
#include <string>

#include "predict/predictor_options.h"
#include "serve/api.h"
#include "serve/scheduler.h"

namespace gs::serve {

struct HttpLimits {
  int64_t max_body_bytes = 8 << 20;                 // 413 before the body is read
  uint32_t max_header_bytes = 16 << 10;             // 431
  int max_connections = 512;                        // more are answered 503 and closed
  std::chrono::milliseconds header_timeout{10000};  // the first request's header
  std::chrono::milliseconds body_timeout{30000};
  std::chrono::milliseconds keep_alive_timeout{15000};  // idle between requests
  std::chrono::milliseconds write_timeout{30000};
};

struct ServeOptions {
  predict::PredictorOptions predictor;
  std::string model_name = "graphormer";
  std::string host = "127.0.0.1";
  int port = 8080;        // 0 = any free port (written to port_file)
  std::string port_file;  // "" = none; the bound port, written once listening
  int workers = 1;        // inference threads, one Predictor each
  int io_threads = 1;     // connection threads (parsing, JSON)
  HttpLimits http;
  RequestLimits request;
  SchedulerOptions scheduler;
  int64_t default_timeout_ms = 60000;  // a request's deadline when it names none
  double drain_timeout_seconds = 30;
  std::string api_keys_file, admin_keys_file;
};

}  // namespace gs::serve
