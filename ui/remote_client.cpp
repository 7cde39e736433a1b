#include "remote_client.h"

#include <QDateTime>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QUrl>

#include <algorithm>

#include "common/json_value.h"
#include "predict/prediction_json.h"
#include "predict/predictor.h"

namespace gs::ui {
namespace {

constexpr int kChunk = 256;         // molecules per request
constexpr int kTimeoutMs = 120000;  // per request
constexpr int kMaxRetries = 5;

QNetworkRequest request(const ServerSettings& s, const QString& path) {
  QUrl url(s.url.trimmed());
  url.setPath(url.path().section(QLatin1Char('/'), 0, -1, QString::SectionSkipEmpty).prepend(QLatin1Char('/')) + path);
  if (url.path().startsWith(QLatin1String("//"))) url.setPath(url.path().mid(1));
  QNetworkRequest r(url);
  r.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
  if (!s.api_key.isEmpty()) r.setRawHeader("Authorization", "Bearer " + s.api_key.toUtf8());
  r.setTransferTimeout(kTimeoutMs);
  return r;
}

RemoteReply collect(QNetworkReply* reply) {
  RemoteReply out;
  out.http_status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  out.body = reply->readAll();
  out.retry_after_s = reply->rawHeader("Retry-After").toInt();
  if (out.http_status == 0) {
    out.error = reply->errorString();
  } else if (out.http_status != 200) {
    const QString message = QJsonDocument::fromJson(out.body).object().value(QStringLiteral("error")).toString();
    out.error =
        QStringLiteral("HTTP %1: %2").arg(out.http_status).arg(message.isEmpty() ? reply->errorString() : message);
  }
  return out;
}

// Waits `seconds` unless cancelled (checked every 100 ms).
void politeWait(int seconds, const std::function<bool()>& cancelled) {
  for (int i = 0; i < seconds * 10 && !(cancelled && cancelled()); ++i) {
    QEventLoop loop;
    QTimer::singleShot(100, &loop, &QEventLoop::quit);
    loop.exec();
  }
}

// One server result as a row of the input record (its row, id and text are the record's).
Result<predict::PredictedRow> rowFrom(const JsonValue& r, const data::RawRecord& record, const RemoteModel& model) {
  auto decoded = predict::readPredictionJson(r, model.outputs);
  if (!decoded.isOk()) return decoded.status();
  predict::PredictedRow row = std::move(decoded->row);
  row.row = record.row;
  row.id = record.id;
  row.input = record.text;
  return row;
}

QByteArray chunkBody(const std::vector<data::RawRecord>& records, const std::vector<size_t>& sent) {
  QJsonArray molecules;
  for (size_t i : sent)
    molecules.append(QJsonObject{{QStringLiteral("smiles"), QString::fromStdString(records[i].text)},
                                 {QStringLiteral("id"), QString::fromStdString(records[i].id)}});
  return QJsonDocument(QJsonObject{{QStringLiteral("molecules"), molecules}}).toJson(QJsonDocument::Compact);
}

// One chunk, retried politely; the reply that ended the tries.
RemoteReply postChunk(RemoteClient& client, const QByteArray& body, const std::function<bool()>& cancelled,
                      const std::function<void(const QString&)>& note) {
  RemoteReply reply;
  for (int attempt = 0; attempt <= kMaxRetries; ++attempt) {
    reply = client.post(QStringLiteral("/v1/predict"), body, kTimeoutMs, cancelled);
    const bool retry = reply.http_status == 0 || reply.http_status == 429 || reply.http_status == 503;
    if (!retry || attempt == kMaxRetries || (cancelled && cancelled())) return reply;
    const int wait = reply.http_status == 429 ? std::clamp(reply.retry_after_s, 1, 30) : 1 << attempt;
    if (note)
      note(reply.http_status == 429 ? QStringLiteral("server busy (429): retrying in %1 s").arg(wait)
           : reply.http_status == 503
               ? QStringLiteral("server not ready (503): retrying in %1 s").arg(wait)
               : QStringLiteral("no answer from the server (%1): retrying in %2 s").arg(reply.error).arg(wait));
    politeWait(wait, cancelled);
  }
  return reply;
}

// The reply's "model" block (absent fields read as empty).
void readModel(const JsonValue& reply, RemoteModel* model) {
  const JsonValue* m = reply.find("model");
  const auto text = [m](const char* key) {
    const JsonValue* v = m ? m->find(key) : nullptr;
    return v && v->isString() ? QString::fromStdString(v->asString()) : QString();
  };
  model->sha256 = text("sha256");
  model->device = text("device");
  model->precision = text("precision");
  model->outputs.clear();
  if (const JsonValue* outputs = m ? m->find("outputs") : nullptr; outputs && outputs->isArray())
    for (const JsonValue& o : outputs->items())
      if (o.isString()) model->outputs.push_back(o.asString());
}

}  // namespace

RemoteClient::RemoteClient(ServerSettings settings) : settings_(std::move(settings)) {}
RemoteClient::~RemoteClient() = default;

RemoteReply RemoteClient::get(const QString& path, int timeout_ms) { return send(path, nullptr, timeout_ms, {}); }

RemoteReply RemoteClient::post(const QString& path, const QByteArray& body, int timeout_ms,
                               const std::function<bool()>& cancelled) {
  return send(path, &body, timeout_ms, cancelled);
}

RemoteReply RemoteClient::send(const QString& path, const QByteArray* body, int timeout_ms,
                               const std::function<bool()>& cancelled) {
  if (!network_) network_ = std::make_unique<QNetworkAccessManager>();
  QNetworkRequest r = request(settings_, path);
  r.setTransferTimeout(timeout_ms);
  QNetworkReply* reply = body ? network_->post(r, *body) : network_->get(r);
  QEventLoop loop;
  QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
  QTimer poll;  // notices a cancel while the server computes
  QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
    if (cancelled && cancelled()) reply->abort();
  });
  poll.start(100);
  if (!reply->isFinished()) loop.exec();
  RemoteReply out = collect(reply);
  reply->deleteLater();
  return out;
}

Result<std::vector<predict::PredictedRow>> predictOnServer(RemoteClient& client,
                                                           const std::vector<data::RawRecord>& records,
                                                           const std::function<bool()>& cancelled,
                                                           const std::function<void(const QString&)>& note,
                                                           RemoteModel* model) {
  std::vector<predict::PredictedRow> rows;
  for (size_t first = 0; first < records.size(); first += kChunk) {
    const size_t end = std::min(records.size(), first + kChunk);
    if (cancelled && cancelled()) {
      for (size_t i = first; i < records.size(); ++i)
        rows.push_back(predict::pendingRow(records[i], Status(StatusCode::Cancelled, "run cancelled")));
      break;
    }
    std::vector<size_t> sent;  // records the reader could read; the others keep their status
    for (size_t i = first; i < end; ++i)
      if (records[i].status.isOk()) sent.push_back(i);
    JsonValue json;
    if (!sent.empty()) {
      const RemoteReply reply = postChunk(client, chunkBody(records, sent), cancelled, note);
      if (reply.http_status != 200)
        return Status(StatusCode::IoError, "the server " + client.settings().url.toStdString() +
                                               " did not predict: " + reply.error.toStdString());
      auto parsed = JsonValue::parse(std::string_view(reply.body.constData(), static_cast<size_t>(reply.body.size())));
      if (!parsed.isOk())
        return Status(StatusCode::IoError, "the server's answer is not JSON: " + parsed.status().message());
      json = std::move(parsed.value());
      readModel(json, model);
    }
    const JsonValue* results = json.find("results");
    const size_t answered = results && results->isArray() ? results->items().size() : 0;
    if (answered != sent.size())
      return Status(StatusCode::IoError, "the server answered " + std::to_string(answered) + " results for " +
                                             std::to_string(sent.size()) + " molecules");
    for (size_t i = first, k = 0; i < end; ++i) {
      if (!records[i].status.isOk()) {
        rows.push_back(predict::pendingRow(records[i], records[i].status));
        continue;
      }
      auto row = rowFrom(results->items()[k++], records[i], *model);  // a malformed result fails its row only
      rows.push_back(row.isOk()
                         ? std::move(row.value())
                         : predict::pendingRow(records[i], Status(StatusCode::IoError,
                                                                  "the server's result: " + row.status().message())));
    }
    if (note) note(QString());
  }
  return rows;
}

std::optional<ServerStatus> parseServerStatus(const QByteArray& body) {
  const QJsonObject j = QJsonDocument::fromJson(body).object();
  if (!j.contains(QStringLiteral("memory"))) return std::nullopt;
  ServerStatus s;
  s.ready = j.value(QStringLiteral("ready")).toBool();
  s.device = j.value(QStringLiteral("device")).toString();
  s.precision = j.value(QStringLiteral("precision")).toString();
  s.sha256 = j.value(QStringLiteral("model")).toObject().value(QStringLiteral("sha256")).toString();
  const QJsonObject m = j.value(QStringLiteral("memory")).toObject();
  const auto bytes = [&](const char* key) { return static_cast<int64_t>(m.value(QLatin1String(key)).toDouble(-1)); };
  s.memory.tensor_bytes = bytes("tensor_bytes");
  s.memory.rss_bytes = bytes("rss_bytes");
  s.memory.cuda_allocated_bytes = bytes("cuda_allocated_bytes");
  s.memory.cuda_peak_allocated_bytes = bytes("cuda_peak_allocated_bytes");
  s.memory.cuda_reserved_bytes = bytes("cuda_reserved_bytes");
  s.memory.device_used_bytes = bytes("device_used_bytes");
  s.memory.device_total_bytes = bytes("device_total_bytes");
  s.molecules_total =
      j.value(QStringLiteral("throughput")).toObject().value(QStringLiteral("molecules_total")).toDouble();
  return s;
}

ServerMonitor::ServerMonitor(QObject* parent) : QObject(parent), network_(new QNetworkAccessManager(this)) {
  connect(&timer_, &QTimer::timeout, this, &ServerMonitor::poll);
}

ServerMonitor::~ServerMonitor() = default;

void ServerMonitor::start(const ServerSettings& settings) {
  settings_ = settings;
  history_.clear();
  timer_.start(500);
  poll();
}

void ServerMonitor::stop() { timer_.stop(); }

void ServerMonitor::poll() {
  if (in_flight_) return;
  in_flight_ = true;
  QNetworkRequest r = request(settings_, QStringLiteral("/v1/status"));
  r.setTransferTimeout(2000);
  QNetworkReply* reply = network_->get(r);
  connect(reply, &QNetworkReply::finished, this, [this, reply] {
    in_flight_ = false;
    reply->deleteLater();
    const RemoteReply out = collect(reply);
    const auto status = out.http_status == 200 ? parseServerStatus(out.body) : std::nullopt;
    if (!status) return Q_EMIT unreachable(out.error.isEmpty() ? tr("unexpected /v1/status answer") : out.error);
    const double now = QDateTime::currentMSecsSinceEpoch() / 1000.0;
    while (history_.size() > 1 && now - history_[1].first >= 2.0) history_.pop_front();
    const double rate = history_.empty() || now <= history_.front().first
                            ? 0.0
                            : (status->molecules_total - history_.front().second) / (now - history_.front().first);
    history_.emplace_back(now, status->molecules_total);
    Q_EMIT sampled(*status, std::max(0.0, rate));
  });
}

}  // namespace gs::ui
