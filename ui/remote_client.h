#pragma once
// The app as a client of `graphormer-cli serve` (docs/SERVING.md): predictions in chunks through
// POST /v1/predict, and the server's memory and throughput from GET /v1/status for the live
// chart. Qt Network, so https:// URLs work through a TLS reverse proxy. Overload and outages are
// told apart and retried politely: 429 waits for Retry-After, 503 and connection errors back off
// (1, 2, 4, 8 s), and after that the run stops with what the server said.
#include <QByteArray>
#include <QObject>
#include <QString>
#include <QTimer>

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "data/record.h"
#include "predict/prediction_table.h"
#include "tensor/memory_probe.h"

class QNetworkAccessManager;

namespace gs::ui {

struct ServerSettings {
  QString url;      // "http://gpu-box:8080" (https through a proxy)
  QString api_key;  // "" = none
};

struct RemoteReply {
  int http_status = 0;  // 0 = no answer (connection refused, timeout, TLS error)
  QByteArray body;
  QString error;  // transport error, or the server's {"error": ...}
  int retry_after_s = 0;
};

// Blocking requests on the calling thread (the worker's), with a local event loop.
class RemoteClient {
 public:
  explicit RemoteClient(ServerSettings settings);
  ~RemoteClient();
  RemoteReply get(const QString& path, int timeout_ms);
  RemoteReply post(const QString& path, const QByteArray& body, int timeout_ms,
                   const std::function<bool()>& cancelled = {});
  const ServerSettings& settings() const { return settings_; }

 private:
  RemoteReply send(const QString& path, const QByteArray* body, int timeout_ms, const std::function<bool()>& cancelled);
  ServerSettings settings_;
  std::unique_ptr<QNetworkAccessManager> network_;
};

struct RemoteModel {
  QString sha256, device, precision;
  std::vector<std::string> outputs;
};

// One prediction row per record, in order, from the server (statuses as it gives them). Retries
// as described above; `note` says what the client is waiting for. Stops early (rows cancelled)
// when `cancelled` turns true. The error when the server cannot be used.
Result<std::vector<predict::PredictedRow>> predictOnServer(RemoteClient& client,
                                                           const std::vector<data::RawRecord>& records,
                                                           const std::function<bool()>& cancelled,
                                                           const std::function<void(const QString&)>& note,
                                                           RemoteModel* model);

struct ServerStatus {
  bool ready = false;
  QString device, precision, sha256;
  tensor::MemorySample memory;  // the server's: tensor, RSS, CUDA allocator, NVML
  double molecules_total = 0;
};
std::optional<ServerStatus> parseServerStatus(const QByteArray& body);

// Polls GET /v1/status twice a second on the UI thread while started.
class ServerMonitor final : public QObject {
  Q_OBJECT
 public:
  explicit ServerMonitor(QObject* parent = nullptr);
  ~ServerMonitor() override;
  void start(const ServerSettings& settings);
  void stop();
  bool active() const { return timer_.isActive(); }

 Q_SIGNALS:
  // molecules_per_second from the server's molecule counter over the last 2-3 s (its counter moves
  // a batch at a time, so two consecutive samples alone would zig-zag).
  void sampled(const gs::ui::ServerStatus& status, double molecules_per_second);
  void unreachable(const QString& message);

 private:
  void poll();
  ServerSettings settings_;
  QNetworkAccessManager* network_ = nullptr;
  QTimer timer_;
  bool in_flight_ = false;
  std::deque<std::pair<double, double>> history_;  // (time, molecules_total) of the last ~3 s
};

}  // namespace gs::ui

Q_DECLARE_METATYPE(gs::ui::ServerStatus)
