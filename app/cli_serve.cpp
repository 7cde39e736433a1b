// graphormer-cli serve: the prediction server's flags (docs/SERVING.md); everything else is in
// core/serve.
#include <string>

#include "cli_options.h"
#include "serve/server.h"

namespace gs::app {
namespace {

FlagSet serveFlags() {
  return {{"--listen",
           "--port-file",
           "--name",
           "--workers",
           "--io-threads",
           "--max-batch-atoms",
           "--max-queue-delay-ms",
           "--queue-molecules",
           "--queue-mib",
           "--max-body-mib",
           "--max-molecules",
           "--max-smiles-length",
           "--max-atoms",
           "--timeout-ms",
           "--drain-timeout",
           "--api-keys",
           "--admin-keys",
           "--header-timeout-ms",
           "--body-timeout-ms",
           "--keep-alive-ms",
           "--max-connections"},
          {}};
}

// "127.0.0.1:8080", "[::1]:8080", ":8080" (loopback) or "8080".
bool readListen(const std::string& value, serve::ServeOptions* o, std::string* error) {
  std::string host = o->host, port = value;
  if (const size_t colon = value.rfind(':'); colon != std::string::npos) {
    host = value.substr(0, colon);
    port = value.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (host.empty()) host = "127.0.0.1";
  }
  char* end = nullptr;
  const long p = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || *end || p < 0 || p > 65535)
    return *error = "--listen: expected HOST:PORT, got '" + value + "'", false;
  o->host = host;
  o->port = static_cast<int>(p);
  return true;
}

bool readMillis(const CliArgs& args, const char* flag, std::chrono::milliseconds* out, std::string* error) {
  int ms = static_cast<int>(out->count());
  if (!args.getInt(flag, ms, 1, 3600 * 1000, &ms, error)) return false;
  *out = std::chrono::milliseconds(ms);
  return true;
}

bool readLimits(const CliArgs& args, serve::ServeOptions* o, std::string* error) {
  int body_mib = static_cast<int>(o->http.max_body_bytes >> 20),
      queue_mib = static_cast<int>(o->scheduler.max_queue_bytes >> 20);
  int queue_molecules = static_cast<int>(o->scheduler.max_queue_molecules), delay_ms = 2, timeout_ms = 60000;
  if (!args.getInt("--max-body-mib", body_mib, 1, 1024, &body_mib, error) ||
      !args.getInt("--queue-mib", queue_mib, 1, 4096, &queue_mib, error) ||
      !args.getInt("--queue-molecules", queue_molecules, 1, 10000000, &queue_molecules, error) ||
      !args.getInt("--max-molecules", o->request.max_molecules, 1, 1000000, &o->request.max_molecules, error) ||
      !args.getInt("--max-smiles-length", o->scheduler.max_smiles_bytes, 1, 1 << 20, &o->scheduler.max_smiles_bytes,
                   error) ||
      !args.getInt("--max-batch-atoms", o->scheduler.max_batch_atoms, 1, 1 << 24, &o->scheduler.max_batch_atoms,
                   error) ||
      !args.getInt("--max-queue-delay-ms", delay_ms, 0, 10000, &delay_ms, error) ||
      !args.getInt("--timeout-ms", timeout_ms, 1, 3600 * 1000, &timeout_ms, error) ||
      !args.getInt("--max-connections", o->http.max_connections, 1, 1 << 20, &o->http.max_connections, error) ||
      !readMillis(args, "--header-timeout-ms", &o->http.header_timeout, error) ||
      !readMillis(args, "--body-timeout-ms", &o->http.body_timeout, error) ||
      !readMillis(args, "--keep-alive-ms", &o->http.keep_alive_timeout, error) ||
      !args.getDouble("--drain-timeout", 0, 3600, &o->drain_timeout_seconds, error))
    return false;
  o->http.max_body_bytes = int64_t{body_mib} << 20;
  o->scheduler.max_queue_bytes = int64_t{queue_mib} << 20;
  o->scheduler.max_queue_molecules = queue_molecules;
  o->scheduler.max_queue_delay = std::chrono::milliseconds(delay_ms);
  o->default_timeout_ms = timeout_ms;
  return true;
}

}  // namespace

int serveCommand(int argc, char** argv) {
  CliArgs args;
  std::string error;
  serve::ServeOptions o;
  const FlagSet flags = serveFlags() + modelFlags() + collationFlags() + trustFlags();
  ModelFlagRules rules;
  rules.default_batch_size = o.scheduler.max_batch_molecules;
  if (!args.parse(argc, argv, 2, flags.valued, flags.switches, &error) ||
      !readModelFlags(args, rules, &o.predictor, &error) || !readTrustFlags(args, &o.predictor, &error) ||
      !readCollationFlags(args, &o.predictor.session, &error) ||
      !args.getInt("--max-atoms", 512, 1, 100000, &o.predictor.parse.max_atoms, &error) ||
      !args.getInt("--workers", 1, 1, 256, &o.workers, &error) ||
      !args.getInt("--io-threads", 1, 1, 64, &o.io_threads, &error) || !readLimits(args, &o, &error) ||
      (args.has("--listen") && !readListen(args.get("--listen"), &o, &error)))
    return fail(error);
  // A scheduler batch is one predict call: the engine's batch size follows it, and the engine
  // splits it into size-sorted batches whose padded size (molecules x largest molecule) stays
  // under the atom budget, so one large molecule does not pad a whole batch of small ones.
  o.scheduler.max_batch_molecules = o.predictor.session.plan.max_batch_size;
  o.predictor.session.plan.max_padded_nodes = o.scheduler.max_batch_atoms;
  o.model_name = args.get("--name", o.model_name);
  o.port_file = args.get("--port-file");
  o.api_keys_file = args.get("--api-keys");
  o.admin_keys_file = args.get("--admin-keys");
  return serve::runServer(o);
}

}  // namespace gs::app
