#include "serve/service.h"

#include <sstream>

#include "common/json_writer.h"
#include "common/text.h"

namespace gs::serve {
namespace {

int cudaIndex(const std::string& device) {
  if (device == "cuda") return 0;
  if (startsWith(device, "cuda:")) return std::atoi(device.c_str() + 5);
  return -1;
}

bool jsonContentType(const std::string& value) {
  std::string v;
  for (char c : value.substr(0, value.find(';'))) v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v == "application/json";
}

HttpResponse json(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

// Rows for every molecule of the request from the job's distinct ones.
std::vector<predict::PredictedRow> expand(const Job& job, const std::vector<MoleculeIn>& molecules,
                                          const std::vector<int>& unique_index) {
  std::vector<predict::PredictedRow> rows(molecules.size());
  for (size_t i = 0; i < molecules.size(); ++i) {
    rows[i] = job.rows[unique_index[i]];
    rows[i].row = static_cast<int64_t>(i) + 1;
    rows[i].id = molecules[i].id;
  }
  return rows;
}

}  // namespace

const std::vector<RouteSpec>& routeTable() {
  using S = Service;
  static const std::vector<RouteSpec> table = {
      {Endpoint::Predict, "POST", "/v1/predict", "predict", Access::ApiKey, Body::Json, true, &S::predict},
      {Endpoint::Status, "GET", "/v1/status", "status", Access::ApiKey, Body::None, false, &S::status},
      {Endpoint::Metrics, "GET", "/metrics", "metrics", Access::ApiKey, Body::None, false, &S::metrics},
      {Endpoint::Reload, "POST", "/v1/admin/reload", "reload", Access::AdminKey, Body::Any, false, &S::reloadModel},
      {Endpoint::Live, "GET", "/v2/health/live", "health", Access::Open, Body::None, false, &S::health},
      {Endpoint::Ready, "GET", "/v2/health/ready", "health", Access::Open, Body::None, false, &S::health},
      {Endpoint::ServerMeta, "GET", "/v2", "metadata", Access::ApiKey, Body::None, false, &S::health},
      {Endpoint::ModelMeta, "GET", "/v2/models/{model}", "metadata", Access::ApiKey, Body::None, false, &S::health},
      {Endpoint::ModelReady, "GET", "/v2/models/{model}/ready", "health", Access::Open, Body::None, false, &S::health},
      {Endpoint::V2Infer, "POST", "/v2/models/{model}/infer", "v2_infer", Access::ApiKey, Body::Json, true,
       &S::predict},
  };
  return table;
}

namespace {

// Whether `path` matches `pattern`; a "{model}" segment matches one non-empty segment, put in `model`.
bool matches(const std::string& pattern, const std::string& path, std::string* model) {
  constexpr std::string_view kSlot = "{model}";
  const size_t slot = pattern.find(kSlot);
  if (slot == std::string::npos) return path == pattern;
  const std::string prefix = pattern.substr(0, slot), suffix = pattern.substr(slot + kSlot.size());
  if (path.size() <= prefix.size() + suffix.size() || !startsWith(path, prefix)) return false;
  if (path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  const std::string segment = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  if (segment.find('/') != std::string::npos) return false;
  *model = segment;
  return true;
}

}  // namespace

Route route(const std::string& path) {
  Route r;
  for (const auto& spec : routeTable()) {
    if (!matches(spec.path, path, &r.model)) continue;
    r.endpoint = spec.endpoint;
    r.method = spec.method;
    r.name = spec.name;
    r.spec = &spec;
    return r;
  }
  return r;
}

Service::Service(const ServeOptions& options, ModelHost& host, Scheduler& scheduler, Metrics& metrics, KeySet api_keys,
                 KeySet admin_keys)
    : options_(options),
      host_(host),
      scheduler_(scheduler),
      metrics_(metrics),
      api_keys_(std::move(api_keys)),
      admin_keys_(std::move(admin_keys)),
      probe_(scheduler.tensorMemory(), cudaIndex(options.predictor.session.device)) {}

HttpResponse Service::error(int status, const std::string& message) {
  HttpResponse r = json(status, encodeError({status, message}));
  if (status == 401) r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"graphormer\"");
  return r;
}

std::optional<HttpResponse> Service::checkAuth(const HttpRequest& head, const Route& route) const {
  if (route.spec->access == Access::Open) return std::nullopt;
  const std::string& authorization = head.header("authorization");
  if (route.spec->access == Access::AdminKey) {
    if (admin_keys_.empty())
      return error(403, "this endpoint is off: start the server with --admin-keys FILE (reload: or send SIGHUP)");
    if (authorization.empty()) return error(401, "an admin key is required (Authorization: Bearer KEY)");
    if (admin_keys_.accepts(authorization)) return std::nullopt;
    return error(
        api_keys_.accepts(authorization) ? 403 : 401,
        api_keys_.accepts(authorization) ? "this key may predict but not administer the server" : "unknown admin key");
  }
  if (api_keys_.empty() || api_keys_.accepts(authorization) || admin_keys_.accepts(authorization)) return std::nullopt;
  return error(401, authorization.empty() ? "an API key is required (Authorization: Bearer KEY)" : "unknown API key");
}

std::optional<HttpResponse> Service::checkBody(const HttpRequest& head, const Route& r,
                                               std::optional<uint64_t> content_length) const {
  if (r.spec->body == Body::None) return std::nullopt;
  const std::string& encoding = head.header("content-encoding");
  if (!encoding.empty() && encoding != "identity")
    return error(415, "Content-Encoding " + encoding + " is not accepted: send the JSON uncompressed");
  if (r.spec->body == Body::Json && !jsonContentType(head.header("content-type")))
    return error(415, "Content-Type must be application/json");
  if (content_length && *content_length > static_cast<uint64_t>(options_.http.max_body_bytes))
    return error(413, "the body is " + std::to_string(*content_length) + " bytes; the limit is " +
                          std::to_string(options_.http.max_body_bytes));
  return std::nullopt;
}

std::optional<HttpResponse> Service::check(const HttpRequest& head, std::optional<uint64_t> content_length) const {
  return refusal(head, route(head.path()), content_length);
}

std::optional<HttpResponse> Service::refusal(const HttpRequest& head, const Route& r,
                                             std::optional<uint64_t> content_length) const {
  if (r.endpoint == Endpoint::NotFound) return error(404, "no such endpoint: " + head.path());
  if (head.method != r.method) {
    HttpResponse resp = error(405, head.method + " is not allowed on " + head.path() + " (" + r.method + ")");
    resp.headers.emplace_back("Allow", r.method);
    return resp;
  }
  if (auto refused = checkAuth(head, r)) return refused;
  if (!r.model.empty() && r.model != options_.model_name)
    return error(404, "unknown model \"" + r.model + "\"; this server serves \"" + options_.model_name + "\"");
  if (auto refused = checkBody(head, r, content_length)) return refused;
  if (r.spec->needs_model && !ready())
    return error(503, draining() ? "the server is shutting down" : "the model is not loaded yet");
  return std::nullopt;
}

std::shared_ptr<Job> Service::handle(const HttpRequest& request, std::function<void(HttpResponse)> respond) {
  const Route r = route(request.path());  // routed once: the refusal checks and the handler share it
  if (auto refused = refusal(request, r, std::nullopt)) {
    respond(*refused);
    return nullptr;
  }
  return (this->*(r.spec->handler))(request, r, std::move(respond));
}

std::shared_ptr<Job> Service::status(const HttpRequest&, const Route&, Respond respond) {
  respond(json(200, statusJson()));
  return nullptr;
}

std::shared_ptr<Job> Service::metrics(const HttpRequest&, const Route&, Respond respond) {
  HttpResponse m = json(200, metrics_.render(gauges()));
  m.content_type = "text/plain; version=0.0.4; charset=utf-8";
  respond(m);
  return nullptr;
}

std::shared_ptr<Job> Service::reloadModel(const HttpRequest&, const Route&, Respond respond) {
  if (!reload) {
    respond(error(503, "reload is not available"));
    return nullptr;
  }
  reload([this, respond](const Status& outcome) { respond(reloadResponse(outcome)); });
  return nullptr;
}

std::shared_ptr<Job> Service::health(const HttpRequest&, const Route& r, Respond respond) {
  respond(healthResponse(r));
  return nullptr;
}

HttpResponse Service::reloadResponse(const Status& outcome) const {
  if (!outcome.isOk()) return error(500, "reload failed; still serving the previous model: " + outcome.message());
  auto g = host_.current();
  std::ostringstream out;
  JsonWriter(out)
      .beginObject()
      .field("reloaded", true)
      .field("sha256", g->info.sha256)
      .field("generation", g->number)
      .field("load_seconds", g->load_seconds)
      .endObject();
  return json(200, out.str());
}

HttpResponse Service::healthResponse(const Route& r) const {
  switch (r.endpoint) {
    case Endpoint::Live: return json(200, "{\"live\":true}");
    case Endpoint::Ready:
    case Endpoint::ModelReady:
      return ready() ? json(200, "{\"ready\":true}")
                     : error(503, draining() ? "draining: the server is shutting down" : "the model is not loaded yet");
    case Endpoint::ServerMeta: return json(200, "{\"name\":\"graphormer-studio\",\"version\":\"1\",\"extensions\":[]}");
    case Endpoint::ModelMeta: {
      auto g = host_.current();
      if (!g) return error(503, "the model is not loaded yet");
      return json(200, encodeV2Metadata(g->info, g->trust));
    }
    default: return error(404, "no such endpoint");
  }
}

std::shared_ptr<Job> Service::predict(const HttpRequest& request, const Route& r, Respond respond) {
  PredictRequest decoded;
  std::string v2_id;
  const bool v2 = r.endpoint == Endpoint::V2Infer;
  const auto bad = v2 ? decodeV2Infer(request.body, options_.request, &decoded, &v2_id)
                      : decodePredict(request.body, options_.request, &decoded);
  if (bad) {
    metrics_.countRejection(bad->status == 413 ? "too_large" : "malformed");
    respond(error(bad->status, bad->message));
    return nullptr;
  }
  if (!decoded.model.empty() && decoded.model != options_.model_name) {
    respond(error(404, "unknown model \"" + decoded.model + "\"; this server serves \"" + options_.model_name + "\""));
    return nullptr;
  }
  auto job = std::make_shared<Job>();
  job->request_id = request.request_id;
  const std::vector<int> first = findDuplicates(decoded.molecules);
  std::vector<int> unique_index(decoded.molecules.size());
  for (size_t i = 0; i < decoded.molecules.size(); ++i) {
    if (first[i] >= 0) {
      unique_index[i] = unique_index[first[i]];
      continue;
    }
    unique_index[i] = static_cast<int>(job->molecules.size());
    job->molecules.push_back(decoded.molecules[i]);
  }
  job->admitted = Clock::now();
  job->deadline = job->admitted + std::chrono::milliseconds(decoded.timeout_ms.value_or(options_.default_timeout_ms));
  auto molecules = std::make_shared<std::vector<MoleculeIn>>(std::move(decoded.molecules));
  job->on_done = [this, job = job.get(), molecules, first, unique_index, v2, v2_id, respond] {
    if (job->cancelled) {
      open_predictions.fetch_sub(1);
      return;
    }
    HttpResponse resp;
    if (job->expired) {
      resp = error(504, "the request's deadline passed before its molecules were computed");
    } else {
      const auto rows = expand(*job, *molecules, unique_index);
      for (const auto& [status, n] : predict::statusCounts(rows)) metrics_.countMolecules(status, n);
      std::shared_ptr<Generation> g;
      {
        std::lock_guard<std::mutex> lock(job->mutex);
        g = job->generation;
      }
      resp = json(200, v2 ? encodeV2Response(g->info, v2_id, rows)
                          : encodePredictResponse(g->info, job->request_id, rows, first));
      resp.molecules = static_cast<int64_t>(rows.size());
    }
    metrics_.request_seconds.observe(std::chrono::duration<double>(Clock::now() - job->admitted).count());
    respond(std::move(resp));  // counts the response as in write before the job stops counting
    open_predictions.fetch_sub(1);
  };
  return admit(std::move(job), respond);
}

std::shared_ptr<Job> Service::admit(std::shared_ptr<Job> job, const Respond& respond) {
  open_predictions.fetch_add(1);
  switch (scheduler_.submit(job)) {
    case Admission::Admitted: return job;
    case Admission::QueueFull: {
      metrics_.countRejection("queue_full");
      HttpResponse busy = error(429, "the queue is full; retry later");
      busy.headers.emplace_back(
          "Retry-After", std::to_string(scheduler_.retryAfterSeconds(static_cast<int64_t>(job->molecules.size()))));
      open_predictions.fetch_sub(1);
      respond(busy);
      return nullptr;
    }
    case Admission::TooLarge:
      metrics_.countRejection("too_large");
      open_predictions.fetch_sub(1);
      respond(error(413, "the request is larger than the whole queue (" +
                             std::to_string(scheduler_.options().max_queue_molecules) + " molecules)"));
      return nullptr;
    case Admission::Stopped:
    default:
      open_predictions.fetch_sub(1);
      respond(error(503, "the server is shutting down"));
      return nullptr;
  }
}

GaugeSnapshot Service::gauges() const {
  GaugeSnapshot g;
  g.ready = ready();
  g.draining = draining();
  g.queue_molecules = scheduler_.queuedMolecules();
  g.queue_bytes = scheduler_.queuedBytes();
  g.requests_in_flight = scheduler_.jobsInFlight();
  g.connections = connections.load();
  g.workers = host_.workers();
  if (auto gen = host_.current()) {
    g.model_name = gen->info.name;
    g.model_sha256 = gen->info.sha256;
    g.precision = gen->info.precision;
    g.device = gen->info.device;
    for (const auto& p : gen->predictors) g.out_of_memory_retries += p->session().outOfMemoryRetries();
  }
  g.memory = probe_.sample();
  g.uptime_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  return g;
}

std::string Service::statusJson() const {
  const GaugeSnapshot g = gauges();
  auto gen = host_.current();
  std::ostringstream out;
  JsonWriter w(out);
  w.beginObject().field("ready", g.ready).field("draining", g.draining).field("uptime_seconds", g.uptime_seconds);
  w.key("model").beginObject().field("name", g.model_name).field("sha256", g.model_sha256);
  w.field("generation", gen ? gen->number : int64_t{0}).field("trust", gen && gen->trust);
  w.field("trust_note", gen ? gen->trust_note : std::string()).endObject();
  w.field("device", g.device).field("precision", g.precision).field("workers", g.workers);
  w.key("queue").beginObject().field("molecules", g.queue_molecules).field("bytes", g.queue_bytes);
  w.field("max_molecules", scheduler_.options().max_queue_molecules)
      .field("requests_in_flight", g.requests_in_flight)
      .endObject();
  w.field("connections", g.connections);
  const tensor::MemorySample& m = g.memory;
  w.key("memory").beginObject().field("tensor_bytes", m.tensor_bytes).field("rss_bytes", m.rss_bytes);
  w.field("cuda_allocated_bytes", m.cuda_allocated_bytes)
      .field("cuda_peak_allocated_bytes", m.cuda_peak_allocated_bytes);
  w.field("cuda_reserved_bytes", m.cuda_reserved_bytes).field("device_used_bytes", m.device_used_bytes);
  w.field("device_total_bytes", m.device_total_bytes).endObject();
  w.key("throughput").beginObject().field("molecules_total", metrics_.batchedMolecules());
  w.field("forward_passes_total", metrics_.forwardPasses())
      .field("out_of_memory_retries", g.out_of_memory_retries)
      .endObject();
  w.endObject();
  return out.str();
}

}  // namespace gs::serve
