#pragma once
// What the server answers, apart from sockets: routing, API keys, header checks, predictions
// through the scheduler, status, metrics and reload. The connection code (http_server.h) calls
// `check` when a request's header has arrived (a refusal is sent without reading the body) and
// `handle` with the whole request. The HTTP status always describes the request, never one
// molecule: per-molecule outcomes are in the body.
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "serve/auth.h"
#include "serve/http_types.h"
#include "serve/metrics.h"
#include "serve/model_host.h"
#include "serve/scheduler.h"
#include "serve/server_options.h"
#include "tensor/memory_probe.h"

namespace gs::serve {

enum class Endpoint {
  Predict,
  V2Infer,
  Live,
  Ready,
  ServerMeta,
  ModelMeta,
  ModelReady,
  Status,
  Metrics,
  Reload,
  NotFound
};

class Service;
struct Route;

// Who may call an endpoint: anyone (health probes), an API key (when keys are configured; an
// admin key also works), or an admin key only.
enum class Access { Open, ApiKey, AdminKey };
// What a request must send: no body (GET), a JSON body, or any body (both: identity encoding,
// at most ServeOptions::http.max_body_bytes, refused from the header before it is read).
enum class Body { None, Json, Any };

// One row per endpoint in Service's route table: everything decided about a request before its
// handler runs. Adding an endpoint: a row, a handler, and its tests (test_serve_api.cpp).
struct RouteSpec {
  Endpoint endpoint;
  const char* method;
  const char* path;  // exact; "{model}" stands for one path segment naming the model
  const char* name;  // metrics label
  Access access;
  Body body;
  bool needs_model;  // 503 until the model is loaded and while draining
  // Calls `respond` exactly once; returns the prediction job, if it made one.
  std::shared_ptr<Job> (Service::*handler)(const HttpRequest&, const Route&, std::function<void(HttpResponse)>);
};
const std::vector<RouteSpec>& routeTable();

struct Route {
  Endpoint endpoint = Endpoint::NotFound;
  std::string model;           // the {model} segment, when the path has one
  const char* method = "GET";  // the one it takes
  const char* name = "other";  // metrics label
  const RouteSpec* spec = nullptr;
};
Route route(const std::string& path);

class Service {
 public:
  Service(const ServeOptions& options, ModelHost& host, Scheduler& scheduler, Metrics& metrics, KeySet api_keys,
          KeySet admin_keys);

  // A refusal decided from the header alone (405, 404, 401, 403, 413, 415, 503), or nullopt.
  std::optional<HttpResponse> check(const HttpRequest& head, std::optional<uint64_t> content_length) const;
  // `respond` is called exactly once, possibly on a worker thread. For predictions the job is
  // returned, so the caller can mark it cancelled when the client disconnects.
  std::shared_ptr<Job> handle(const HttpRequest& request, std::function<void(HttpResponse)> respond);

  void setReady(bool ready) { ready_ = ready; }
  void startDraining() { draining_ = true; }
  bool ready() const { return ready_ && !draining_; }
  bool draining() const { return draining_; }
  // Runs a reload and calls `done` with its outcome (the server runs it off the I/O threads).
  std::function<void(std::function<void(Status)>)> reload;

  std::atomic<int64_t> connections{0};
  std::atomic<int64_t> open_predictions{0};    // admitted, response not yet handed to the connection
  std::atomic<int64_t> responses_in_write{0};  // being written to a client
  GaugeSnapshot gauges() const;
  std::string statusJson() const;
  static HttpResponse error(int status, const std::string& message);

 private:
  friend const std::vector<RouteSpec>& routeTable();
  using Respond = std::function<void(HttpResponse)>;
  // The handlers of the route table.
  std::shared_ptr<Job> predict(const HttpRequest& request, const Route& route, Respond respond);
  std::shared_ptr<Job> status(const HttpRequest& request, const Route& route, Respond respond);
  std::shared_ptr<Job> metrics(const HttpRequest& request, const Route& route, Respond respond);
  std::shared_ptr<Job> reloadModel(const HttpRequest& request, const Route& route, Respond respond);
  std::shared_ptr<Job> health(const HttpRequest& request, const Route& route, Respond respond);

  std::optional<HttpResponse> refusal(const HttpRequest& head, const Route& route,
                                      std::optional<uint64_t> content_length) const;
  std::optional<HttpResponse> checkAuth(const HttpRequest& head, const Route& route) const;
  std::optional<HttpResponse> checkBody(const HttpRequest& head, const Route& route,
                                        std::optional<uint64_t> content_length) const;
  HttpResponse healthResponse(const Route& route) const;
  HttpResponse reloadResponse(const Status& outcome) const;
  // Registers the job and its response callback with the scheduler; answers 429/413/503 itself.
  std::shared_ptr<Job> admit(std::shared_ptr<Job> job, const Respond& respond);

  const ServeOptions& options_;
  ModelHost& host_;
  Scheduler& scheduler_;
  Metrics& metrics_;
  KeySet api_keys_, admin_keys_;
  tensor::MemoryProbe probe_;
  std::atomic<bool> ready_{false}, draining_{false};
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace gs::serve
