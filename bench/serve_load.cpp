// Load generator for `graphormer-cli serve` (Boost.Beast client, keep-alive connections).
//
//   serve_load --port P --key K --smiles FILE closed --concurrency C --requests N [--molecules M]
//       C clients send back to back: throughput, latency percentiles, molecules per forward pass.
//   serve_load ... open --rate R --seconds S [--connections K] [--molecules M]
//       Open loop: requests are scheduled at R per second and their latency is measured from the
//       scheduled time, so queueing is not hidden (no coordinated omission); K connections (256).
//   serve_load ... soak --requests N --pid PID [--concurrency C]
//       Closed loop; samples the server's RSS, open files and threads every N/10 requests.
//
// Prints one line of `key=value` figures per run (bench/serve_bench.sh makes the table).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

struct Config {
  int port = 8080;
  std::string key, mode;
  std::vector<std::string> smiles;
  int concurrency = 1, connections = 256, molecules = 1, pid = 0;
  int64_t requests = 1000;
  double rate = 10, seconds = 10;
};

struct Sample {
  int status = 0;  // 0 = connection error
  double seconds = 0;
};

class Client {
 public:
  explicit Client(const Config& c) : config_(c), stream_(io_) {}

  // One request; reconnects when the server closed the connection.
  int send(const std::string& body) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      beast::error_code ec;
      if (!connected_) connect(ec);
      if (ec) return 0;
      http::request<http::string_body> req{http::verb::post, "/v1/predict", 11};
      req.set(http::field::host, "127.0.0.1");
      req.set(http::field::content_type, "application/json");
      if (!config_.key.empty()) req.set(http::field::authorization, "Bearer " + config_.key);
      req.body() = body;
      req.prepare_payload();
      http::write(stream_, req, ec);
      http::response<http::string_body> res;
      beast::flat_buffer buffer;
      if (!ec) http::read(stream_, buffer, res, ec);
      if (ec) {
        connected_ = false;
        stream_.close();
        continue;
      }
      if (!res.keep_alive()) {
        connected_ = false;
        stream_.close();
      }
      return res.result_int();
    }
    return 0;
  }

  std::string get(const std::string& target) {
    for (int attempt = 0; attempt < 2; ++attempt) {  // a kept-alive connection may have timed out
      beast::error_code ec;
      if (!connected_) connect(ec);
      http::request<http::empty_body> req{http::verb::get, target, 11};
      req.set(http::field::host, "127.0.0.1");
      if (!config_.key.empty()) req.set(http::field::authorization, "Bearer " + config_.key);
      http::response<http::string_body> res;
      beast::flat_buffer buffer;
      if (!ec) http::write(stream_, req, ec);
      if (!ec) http::read(stream_, buffer, res, ec);
      if (!ec) return res.body();
      connected_ = false;
    }
    return "";
  }

 private:
  void connect(beast::error_code& ec) {
    stream_.socket().close(ec);
    stream_.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(config_.port)), ec);
    if (!ec) stream_.socket().set_option(tcp::no_delay(true), ec);
    connected_ = !ec;
  }
  const Config& config_;
  net::io_context io_;
  beast::tcp_stream stream_;
  bool connected_ = false;
};

std::string body(const Config& c, int64_t n) {
  std::string b = "{\"molecules\":[";
  for (int m = 0; m < c.molecules; ++m) {
    const std::string& s = c.smiles[static_cast<size_t>(n * c.molecules + m) % c.smiles.size()];
    b += (m ? ",\"" : "\"") + s + "\"";
  }
  return b + "]}";
}

double metric(Client& client, const std::string& name) {
  std::istringstream page(client.get("/metrics"));
  for (std::string line; std::getline(page, line);)
    if (line.rfind(name + " ", 0) == 0) return std::atof(line.c_str() + name.size() + 1);
  return 0;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

void report(const Config& c, const std::vector<Sample>& samples, double wall, double per_pass) {
  std::map<int, int64_t> by_status;
  std::vector<double> ok, busy;
  for (const Sample& s : samples) {
    ++by_status[s.status];
    if (s.status == 200) ok.push_back(s.seconds);
    if (s.status == 429) busy.push_back(s.seconds);
  }
  int64_t server_errors = 0;
  for (const auto& [status, n] : by_status) server_errors += status >= 500 ? n : 0;
  std::cout << "mode=" << c.mode << " requests=" << samples.size() << " seconds=" << wall << " ok=" << by_status[200]
            << " r429=" << by_status[429] << " r5xx=" << server_errors << " conn_errors=" << by_status[0]
            << " goodput_mol_s=" << static_cast<double>(by_status[200]) * c.molecules / wall
            << " p50_ms=" << 1e3 * percentile(ok, 0.5) << " p95_ms=" << 1e3 * percentile(ok, 0.95)
            << " p99_ms=" << 1e3 * percentile(ok, 0.99) << " p99_429_ms=" << 1e3 * percentile(busy, 0.99)
            << " molecules_per_pass=" << per_pass << "\n";
}

// Each client takes the next request index; in open mode it waits for the request's scheduled
// time and the latency counts from then.
std::vector<Sample> run(const Config& c, int clients, int64_t total, bool open, double* wall,
                        const std::function<void(int64_t)>& every = {}) {
  std::vector<Sample> samples(static_cast<size_t>(total));
  std::atomic<int64_t> next{0};
  const auto start = Clock::now() + std::chrono::milliseconds(50);
  std::vector<std::thread> threads;
  for (int t = 0; t < clients; ++t)
    threads.emplace_back([&] {
      Client client(c);
      for (int64_t n; (n = next.fetch_add(1)) < total;) {
        const std::string b = body(c, n);
        auto scheduled = Clock::now();
        if (open) {
          scheduled = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(n / c.rate));
          std::this_thread::sleep_until(scheduled);
        }
        const int status = client.send(b);
        samples[static_cast<size_t>(n)] = {status, std::chrono::duration<double>(Clock::now() - scheduled).count()};
        if (every) every(n);
      }
    });
  for (auto& t : threads) t.join();
  *wall = std::chrono::duration<double>(Clock::now() - start).count();
  return samples;
}

std::string procFigures(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line, rss = "?", threads = "?";
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) rss = line.substr(6);
    if (line.rfind("Threads:", 0) == 0) threads = line.substr(8);
  }
  int64_t files = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++files;
  const auto trim = [](std::string s) { return s.substr(s.find_first_not_of(" \t")); };
  return "rss=" + trim(rss) + " files=" + std::to_string(files) + " threads=" + trim(threads);
}

bool parse(int argc, char** argv, Config* c) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--port")
      c->port = std::atoi(value().c_str());
    else if (a == "--key")
      c->key = value();
    else if (a == "--smiles") {
      std::ifstream in(value());
      for (std::string line; std::getline(in, line);)
        if (!line.empty()) c->smiles.push_back(line.substr(0, line.find_first_of(" \t")));
    } else if (a == "--concurrency")
      c->concurrency = std::atoi(value().c_str());
    else if (a == "--connections")
      c->connections = std::atoi(value().c_str());
    else if (a == "--requests")
      c->requests = std::atoll(value().c_str());
    else if (a == "--molecules")
      c->molecules = std::atoi(value().c_str());
    else if (a == "--rate")
      c->rate = std::atof(value().c_str());
    else if (a == "--seconds")
      c->seconds = std::atof(value().c_str());
    else if (a == "--pid")
      c->pid = std::atoi(value().c_str());
    else if (a == "closed" || a == "open" || a == "soak")
      c->mode = a;
    else
      return std::cerr << "serve_load: unknown argument " << a << "\n", false;
  }
  if (c->smiles.empty() || c->mode.empty()) return std::cerr << "serve_load: need --smiles FILE and a mode\n", false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  if (!parse(argc, argv, &c)) return 2;
  Client probe(c);
  const double passes0 = metric(probe, "graphormer_forward_passes_total");
  const double mols0 = metric(probe, "graphormer_batched_molecules_total");
  double wall = 0;
  std::vector<Sample> samples;
  if (c.mode == "open") {
    samples = run(c, c.connections, static_cast<int64_t>(c.rate * c.seconds), true, &wall);
  } else if (c.mode == "closed") {
    samples = run(c, c.concurrency, c.requests, false, &wall);
  } else {
    std::mutex mutex;
    const int64_t step = std::max<int64_t>(1, c.requests / 10);
    std::cout << "soak requests=0 " << procFigures(c.pid) << "\n";
    samples = run(c, c.concurrency, c.requests, false, &wall, [&](int64_t n) {
      if ((n + 1) % step != 0) return;
      std::lock_guard<std::mutex> lock(mutex);
      std::cout << "soak requests=" << n + 1 << " " << procFigures(c.pid) << "\n";
    });
  }
  const double passes = metric(probe, "graphormer_forward_passes_total") - passes0;
  const double mols = metric(probe, "graphormer_batched_molecules_total") - mols0;
  report(c, samples, wall, passes > 0 ? mols / passes : 0);
  return 0;
}
