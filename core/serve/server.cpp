#include "serve/server.h"

#include <csignal>
#include <mutex>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "common/atomic_file.h"
#include "serve/http_server.h"
#include "serve/log.h"
#include "serve/sd_notify.h"
#include "tensor/torch_compat.h"

namespace gs::serve {
namespace {

namespace net = boost::asio;

Result<KeySet> keysFrom(const std::string& path) {
  if (path.empty()) return KeySet{};
  return KeySet::load(path);
}

Status writePortFile(const std::string& path, int port) {
  if (path.empty()) return Status::ok();
  AtomicFile file(path);
  file.stream() << port << '\n';
  return file.commit();
}

void logFailure(const char* event, const Status& s) {
  logLine("error", event, [&](JsonWriter& w) { w.field("message", s.message()); });
}

class Lifecycle {
 public:
  Lifecycle(const ServeOptions& o, KeySet api, KeySet admin)
      : options_(o),
        host_(withoutThreads(o.predictor), o.model_name, o.workers),
        scheduler_(o.scheduler, host_, metrics_),
        service_(o, host_, scheduler_, metrics_, std::move(api), std::move(admin)),
        http_(io_, service_, o.http, metrics_),
        signals_(io_, SIGTERM, SIGINT, SIGHUP),
        timer_(io_),
        watchdog_(io_) {
    service_.reload = [this](std::function<void(Status)> done) { startReload(std::move(done)); };
  }

  int run() {
    auto port = http_.listen(options_.host, options_.port);
    if (!port.isOk()) return logFailure("listen_failed", port.status()), 1;
    if (Status s = writePortFile(options_.port_file, port.value()); !s.isOk()) return logFailure("port_file", s), 1;
    logLine("info", "listening", [&](JsonWriter& w) { w.field("host", options_.host).field("port", port.value()); });
    http_.startAccepting();
    waitForSignal();
    pingWatchdog();
    std::vector<std::thread> io_threads;
    for (int i = 0; i < std::max(1, options_.io_threads); ++i) io_threads.emplace_back([this] { io_.run(); });
    const int status = loadAndServe();
    for (auto& t : io_threads) t.join();
    joinReloads();
    scheduler_.stop();
    logLine("info", "stopped", [&](JsonWriter& w) { w.field("exit_status", status); });
    return status;
  }

 private:
  static predict::PredictorOptions withoutThreads(predict::PredictorOptions p) {
    compat::setThreads(p.session.threads);  // process-wide, once
    p.session.threads = 0;
    return p;
  }

  int loadAndServe() {
    auto generation = host_.load(host_.options());
    if (!generation.isOk()) {
      logFailure("load_failed", generation.status());
      net::post(io_, [this] { finish(); });
      return 1;
    }
    host_.install(generation.value());
    scheduler_.start();
    logLine("info", "ready", [&](JsonWriter& w) {
      const ModelInfo& m = generation.value()->info;
      w.field("model", m.name).field("sha256", m.sha256).field("device", m.device).field("precision", m.precision);
      w.field("workers", options_.workers).field("load_seconds", generation.value()->load_seconds);
      w.field("trust", generation.value()->trust);
    });
    if (!service_.draining()) {
      service_.setReady(true);
      sdNotify("READY=1\nSTATUS=serving " + options_.model_name);
    }
    return 0;
  }

  void waitForSignal() {
    signals_.async_wait([this](const boost::system::error_code& ec, int signal) {
      if (ec) return;
      if (signal == SIGHUP) {
        startReload([](const Status&) {});
        return waitForSignal();
      }
      drain();
    });
  }

  void drain() {
    if (service_.draining()) return;
    service_.startDraining();
    sdNotify("STOPPING=1\nSTATUS=draining");
    drain_deadline_ = std::chrono::steady_clock::now() +
                      std::chrono::milliseconds(static_cast<int64_t>(options_.drain_timeout_seconds * 1000));
    logLine("info", "draining", [&](JsonWriter& w) {
      w.field("open_requests", service_.open_predictions.load())
          .field("timeout_seconds", options_.drain_timeout_seconds);
    });
    checkDrained();
  }

  // Polls the counters every 20 ms: admitted work is answered and written, or the time is up.
  void checkDrained() {
    const bool idle = service_.open_predictions.load() == 0 && service_.responses_in_write.load() == 0;
    if (idle || std::chrono::steady_clock::now() >= drain_deadline_) {
      if (!idle) {
        logLine("warning", "drain_timeout",
                [&](JsonWriter& w) { w.field("open_requests", service_.open_predictions.load()); });
      }
      return finish();
    }
    timer_.expires_after(std::chrono::milliseconds(20));
    timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) checkDrained();
    });
  }

  void finish() {
    http_.stopAccepting();
    signals_.cancel();
    watchdog_.cancel();
    io_.stop();
  }

  void pingWatchdog() {
    const auto period = watchdogPeriod();
    if (period.count() == 0) return;
    sdNotify("WATCHDOG=1");
    watchdog_.expires_after(period / 2);
    watchdog_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) pingWatchdog();
    });
  }

  void startReload(std::function<void(Status)> done) {
    std::lock_guard<std::mutex> lock(reload_mutex_);
    reloads_.emplace_back([this, done = std::move(done)] {
      sdNotify("RELOADING=1\n" + monotonicUsec());
      logLine("info", "reloading");
      const Status s = host_.reload();
      metrics_.countReload(s.isOk());
      if (s.isOk()) {
        auto g = host_.current();
        logLine("info", "reloaded", [&](JsonWriter& w) {
          w.field("sha256", g->info.sha256).field("generation", g->number).field("load_seconds", g->load_seconds);
        });
      } else {
        logFailure("reload_failed", s);
      }
      sdNotify(service_.draining() ? "STATUS=draining" : "READY=1\nSTATUS=serving " + options_.model_name);
      done(s);
    });
  }

  void joinReloads() {
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(reload_mutex_);
      threads.swap(reloads_);
    }
    for (auto& t : threads) t.join();
  }

  const ServeOptions& options_;
  Metrics metrics_;
  ModelHost host_;
  Scheduler scheduler_;
  Service service_;
  net::io_context io_;
  HttpServer http_;
  net::signal_set signals_;
  net::steady_timer timer_, watchdog_;
  std::chrono::steady_clock::time_point drain_deadline_;
  std::mutex reload_mutex_;
  std::vector<std::thread> reloads_;
};

}  // namespace

int runServer(const ServeOptions& options) {
  auto api = keysFrom(options.api_keys_file);
  if (!api.isOk()) return logFailure("api_keys", api.status()), 1;
  auto admin = keysFrom(options.admin_keys_file);
  if (!admin.isOk()) return logFailure("admin_keys", admin.status()), 1;
  if (options.host != "127.0.0.1" && options.host != "::1" && api->empty())
    logLine("warning", "no_api_keys", [&](JsonWriter& w) {
      w.field("message",
              "listening on " + options.host + " without --api-keys: anyone who reaches the port can predict");
    });
  Lifecycle lifecycle(options, std::move(api.value()), std::move(admin.value()));
  return lifecycle.run();
}

}  // namespace gs::serve
