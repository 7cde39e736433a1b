// The server's parts that need no socket or model: request decoding and its limits, routing,
// API keys, the Prometheus page, atom-cost estimates and the systemd notification datagram.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "serve/api.h"
#include "serve/auth.h"
#include "serve/metrics.h"
#include "serve/scheduler.h"
#include "serve/sd_notify.h"
#include "serve/service.h"

namespace gs::serve {
namespace {

std::optional<HttpError> decode(const std::string& body, PredictRequest* out, RequestLimits limits = {}) {
  return decodePredict(body, limits, out);
}

TEST(ServeApi, DecodesStringsAndObjectsInOrder) {
  PredictRequest r;
  ASSERT_FALSE(decode(R"({"molecules": ["CCO", {"smiles": "c1ccccc1", "id": "benzene"}, {"smiles": "C", "id": 7}],
                         "timeout_ms": 250, "model": "m"})",
                      &r));
  ASSERT_EQ(r.molecules.size(), 3u);
  EXPECT_EQ(r.molecules[0].smiles, "CCO");
  EXPECT_EQ(r.molecules[0].id, "0");
  EXPECT_EQ(r.molecules[1].id, "benzene");
  EXPECT_EQ(r.molecules[2].id, "7");
  EXPECT_EQ(r.timeout_ms.value_or(0), 250);
  EXPECT_EQ(r.model, "m");
}

TEST(ServeApi, RefusesMalformedBodiesWith400) {
  for (const char* body :
       {"", "[]", "{", R"({"molecules": "CCO"})", R"({"molecules": [1]})", R"({"molecules": []})",
        R"({"molecules": ["C"], "extra": 1})", R"({"molecules": [{"id": "x"}]})",
        R"({"molecules": ["C"], "timeout_ms": -5})", R"({"molecules": [{"smiles": "C", "x": 1}]})"}) {
    PredictRequest r;
    const auto e = decode(body, &r);
    ASSERT_TRUE(e) << body;
    EXPECT_EQ(e->status, 400) << body;
    EXPECT_FALSE(e->message.empty());
  }
}

TEST(ServeApi, DeepNestingAndInvalidUtf8Are400NotACrash) {
  const std::string deep = "{\"molecules\":" + std::string(10000, '[') + std::string(10000, ']') + "}";
  PredictRequest r;
  auto e = decode(deep, &r);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status, 400);
  EXPECT_NE(e->message.find("nested"), std::string::npos);
  for (const std::string& bad :
       {std::string("{\"molecules\":[\"C\xff\"]}"), std::string("{\"molecules\":[\"C\xc0\xaf\"]}"),
        std::string("{\"molecules\":[\"C\xed\xa0\x80\"]}"), std::string("{\"molecules\":[\"C\xe2\x82\"]}")}) {
    e = decode(bad, &r);
    ASSERT_TRUE(e);
    EXPECT_NE(e->message.find("UTF-8"), std::string::npos) << e->message;
  }
  EXPECT_FALSE(decode("{\"molecules\":[\"C\", {\"smiles\":\"O\", \"id\":\"caf\xc3\xa9 \xf0\x9f\xa7\xaa\"}]}", &r));
}

TEST(ServeApi, TooManyMoleculesIs413AndTimeoutIsCapped) {
  RequestLimits limits;
  limits.max_molecules = 3;
  limits.max_timeout_ms = 1000;
  PredictRequest r;
  auto e = decode(R"({"molecules": ["C", "C", "C", "C"]})", &r, limits);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status, 413);
  ASSERT_FALSE(decode(R"({"molecules": ["C"], "timeout_ms": 999999})", &r, limits));
  EXPECT_EQ(*r.timeout_ms, 1000);
}

TEST(ServeApi, V2InferReadsBytesTensorsAndChecksShapes) {
  PredictRequest r;
  std::string id;
  ASSERT_FALSE(decodeV2Infer(R"({"id": "q1", "inputs": [{"name": "smiles", "datatype": "BYTES", "shape": [2, 1],
      "data": ["CCO", "CCN"]}, {"name": "id", "datatype": "BYTES", "shape": [2], "data": ["a", "b"]}]})",
                             {}, &r, &id));
  EXPECT_EQ(id, "q1");
  ASSERT_EQ(r.molecules.size(), 2u);
  EXPECT_EQ(r.molecules[1].smiles, "CCN");
  EXPECT_EQ(r.molecules[1].id, "b");
  // An empty id gets the molecule's index, as in /v1 (found by fuzz.serve_decode's time budget).
  ASSERT_FALSE(decodeV2Infer(R"({"inputs": [{"name": "smiles", "datatype": "BYTES", "shape": [2], "data": ["O", "N"]},
      {"name": "id", "datatype": "BYTES", "shape": [2], "data": ["", "n"]}]})",
                             {}, &r, &id));
  EXPECT_EQ(r.molecules[0].id, "0");
  EXPECT_EQ(r.molecules[1].id, "n");
  for (const char* body : {R"({"inputs": [{"name": "smiles", "datatype": "BYTES", "shape": [3], "data": ["C"]}]})",
                           R"({"inputs": [{"name": "smiles", "datatype": "FP32", "shape": [1], "data": ["C"]}]})",
                           R"({"inputs": [{"name": "other", "datatype": "BYTES", "shape": [1], "data": ["C"]}]})"}) {
    const auto e = decodeV2Infer(body, {}, &r, &id);
    ASSERT_TRUE(e) << body;
    EXPECT_EQ(e->status, 400);
  }
}

TEST(ServeApi, DuplicatesPointToTheirFirstOccurrence) {
  const std::vector<MoleculeIn> m{{"CCO", "a"}, {"C", "b"}, {"CCO", "c"}, {"C", "d"}, {"N", "e"}};
  EXPECT_EQ(findDuplicates(m), (std::vector<int>{-1, -1, 0, 1, -1}));
}

TEST(ServeApi, ResponsesKeepOrderStatusAndNaNFreeJson) {
  ModelInfo info{"m", "abc", "", "fp32", "cpu", {"gap"}, {"eV"}};
  std::vector<predict::PredictedRow> rows(2);
  rows[0].id = "x";
  rows[0].values = {1.5f};
  rows[1].id = "y";
  rows[1].status = Status(StatusCode::SyntaxError, "bad");
  const auto v1 = nlohmann::json::parse(encodePredictResponse(info, "r1", rows, {-1, -1}));
  EXPECT_EQ(v1["results"][0]["values"]["gap"], 1.5);
  EXPECT_EQ(v1["results"][1]["status"], "syntax_error");
  EXPECT_EQ(v1["counts"]["ok"], 1);
  EXPECT_EQ(v1["model"]["outputs"], nlohmann::json::array({"gap"}));
  EXPECT_EQ(v1["model"]["units"], nlohmann::json::array({"eV"}));  // every property says its unit
  const auto v2 = nlohmann::json::parse(encodeV2Response(info, "r1", rows));
  EXPECT_EQ(v2["outputs"][0]["name"], "status");
  EXPECT_EQ(v2["outputs"][1]["data"][0], 1.5);
  EXPECT_TRUE(v2["outputs"][1]["data"][1].is_null());  // NaN is not JSON
}

TEST(ServeApi, RoutesAndMethods) {
  EXPECT_EQ(route("/v1/predict").endpoint, Endpoint::Predict);
  EXPECT_EQ(route("/v2/models/graphormer/infer").endpoint, Endpoint::V2Infer);
  EXPECT_EQ(route("/v2/models/graphormer/infer").model, "graphormer");
  EXPECT_EQ(route("/v2/models/graphormer").endpoint, Endpoint::ModelMeta);
  EXPECT_EQ(route("/v2/models/graphormer/other").endpoint, Endpoint::NotFound);
  EXPECT_EQ(route("/v2/models/").endpoint, Endpoint::NotFound);
  EXPECT_STREQ(route("/v1/predict").method, "POST");
}

// The route table: every endpoint has one row, its path routes back to it, and what the row says
// about method, keys, body and readiness is what Service::check enforces from the header.
class RouteTable : public ::testing::Test {
 protected:
  RouteTable() {
    options_.model_name = "m";
    options_.http.max_body_bytes = 1000;
  }
  Service service(bool with_keys) {
    return Service(options_, host_, scheduler_, metrics_, with_keys ? KeySet::fromKeys({kApi}) : KeySet{},
                   with_keys ? KeySet::fromKeys({kAdmin}) : KeySet{});
  }
  static HttpRequest request(const RouteSpec& spec, const std::string& method, const std::string& key = "") {
    HttpRequest r;
    r.method = method;
    r.target = pathOf(spec);
    if (!key.empty()) r.headers.emplace_back("authorization", "Bearer " + key);
    if (spec.body != Body::None) r.headers.emplace_back("content-type", "application/json");
    return r;
  }
  static std::string pathOf(const RouteSpec& spec) {
    std::string path = spec.path;
    if (const size_t at = path.find("{model}"); at != std::string::npos) path.replace(at, 7, "m");
    return path;
  }
  static int statusOf(const std::optional<HttpResponse>& r) { return r ? r->status : 0; }
  static constexpr const char* kApi = "api-key-0123456789abcdef";
  static constexpr const char* kAdmin = "admin-key-0123456789abcdef";
  ServeOptions options_;
  Metrics metrics_;
  ModelHost host_{{}, "m", 1};
  Scheduler scheduler_{{}, host_, metrics_};
};

TEST_F(RouteTable, EveryEndpointHasOneRowThatRoutesBackToIt) {
  std::set<Endpoint> seen;
  for (const auto& spec : routeTable()) {
    EXPECT_TRUE(seen.insert(spec.endpoint).second) << spec.path;
    const Route r = route(pathOf(spec));
    EXPECT_EQ(r.endpoint, spec.endpoint) << spec.path;
    EXPECT_EQ(r.spec, &spec) << spec.path;
    EXPECT_STREQ(r.method, spec.method) << spec.path;
    EXPECT_EQ(r.model.empty(), std::string(spec.path).find("{model}") == std::string::npos) << spec.path;
    EXPECT_TRUE(spec.handler != nullptr) << spec.path;
    EXPECT_EQ(spec.body == Body::None, std::string(spec.method) == "GET") << spec.path;
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(Endpoint::NotFound));
  EXPECT_EQ(route("/v2/models/m/infer/extra").endpoint, Endpoint::NotFound);
  EXPECT_EQ(route("/v2/models//infer").endpoint, Endpoint::NotFound);
  EXPECT_EQ(route("/v1/predict/").endpoint, Endpoint::NotFound);
}

TEST_F(RouteTable, CheckEnforcesEachRowsMethodAccessBodyAndReadiness) {
  Service keyed = service(true);
  for (const auto& spec : routeTable()) {
    SCOPED_TRACE(spec.path);
    const auto wrong = keyed.check(request(spec, std::string(spec.method) == "GET" ? "POST" : "GET", kAdmin), 0);
    ASSERT_EQ(statusOf(wrong), 405);
    EXPECT_NE(std::find(wrong->headers.begin(), wrong->headers.end(),
                        std::make_pair(std::string("Allow"), std::string(spec.method))),
              wrong->headers.end());
    const int anonymous = statusOf(keyed.check(request(spec, spec.method), 0));
    const int with_api = statusOf(keyed.check(request(spec, spec.method, kApi), 0));
    const int with_admin = statusOf(keyed.check(request(spec, spec.method, kAdmin), 0));
    const int unready = spec.needs_model ? 503 : 0;  // the service is not ready: no model is loaded
    EXPECT_EQ(anonymous, spec.access == Access::Open ? unready : 401);
    EXPECT_EQ(with_api, spec.access == Access::AdminKey ? 403 : unready);
    EXPECT_EQ(with_admin, unready);
    if (spec.body == Body::None) continue;
    HttpRequest big = request(spec, spec.method, kAdmin);
    EXPECT_EQ(statusOf(keyed.check(big, 1001)), 413);
    big.headers.emplace_back("content-encoding", "gzip");
    EXPECT_EQ(statusOf(keyed.check(big, 10)), 415);
    HttpRequest text = request(spec, spec.method, kAdmin);
    text.headers = {{"authorization", std::string("Bearer ") + kAdmin}, {"content-type", "text/plain"}};
    EXPECT_EQ(statusOf(keyed.check(text, 10)), spec.body == Body::Json ? 415 : unready);
  }
  Service open = service(false);
  for (const auto& spec : routeTable()) {
    const int expected = spec.access == Access::AdminKey ? 403 : spec.needs_model ? 503 : 0;
    EXPECT_EQ(statusOf(open.check(request(spec, spec.method), 0)), expected) << spec.path;
  }
  HttpRequest other_model = request(routeTable().back(), "POST", kApi);
  other_model.target = "/v2/models/other/infer";
  EXPECT_EQ(statusOf(keyed.check(other_model, 0)), 404);
}

TEST(ServeApi, KeysCompareByValueOnly) {
  const KeySet keys = KeySet::fromKeys({"0123456789abcdef-one", "0123456789abcdef-two"});
  EXPECT_TRUE(keys.accepts("Bearer 0123456789abcdef-two"));
  EXPECT_TRUE(keys.accepts("bearer 0123456789abcdef-one"));
  EXPECT_FALSE(keys.accepts("Bearer 0123456789abcdef-on"));
  EXPECT_FALSE(keys.accepts("0123456789abcdef-one"));
  EXPECT_FALSE(keys.accepts(""));
  char path[] = "/tmp/gs-keys-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string text = "# comment\nshort\n";
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  EXPECT_FALSE(KeySet::load(path).isOk());  // a key under 16 characters
  unlink(path);
}

TEST(ServeApi, EstimatesHeavyAtomsFromSmiles) {
  EXPECT_EQ(estimateAtoms("CCO"), 3);
  EXPECT_EQ(estimateAtoms("c1ccccc1Cl"), 7);
  EXPECT_EQ(estimateAtoms("[NH4+].[Cl-]"), 2);
  EXPECT_EQ(estimateAtoms("OC(=O)C[C@@H](N)Br name"), 7);
  EXPECT_EQ(estimateAtoms(""), 1);
}

TEST(ServeMetrics, HistogramsAreCumulativeAndCountersNamedTotal) {
  Metrics m;
  m.countRequest("predict", 200);
  m.countRejection("queue_full");
  m.observeBatch(4, 80, 0.003);
  m.observeBatch(1, 20, 0.2);
  GaugeSnapshot g;
  g.model_name = "a\"b";
  const std::string page = m.render(g);
  EXPECT_NE(page.find("graphormer_requests_total{endpoint=\"predict\",code=\"200\"} 1"), std::string::npos);
  EXPECT_NE(page.find("graphormer_batch_molecules_bucket{le=\"4\"} 2"), std::string::npos);
  EXPECT_NE(page.find("graphormer_batch_molecules_bucket{le=\"1\"} 1"), std::string::npos);
  EXPECT_NE(page.find("graphormer_batch_molecules_count 2"), std::string::npos);
  EXPECT_NE(page.find("name=\"a\\\"b\""), std::string::npos);
  std::istringstream lines(page);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    EXPECT_EQ(line.rfind("graphormer_", 0), 0u) << line;
    EXPECT_NE(line.find(' '), std::string::npos) << line;
  }
}

TEST(ServeNotify, SendsTheStateToTheNotifySocket) {
  const std::string path = "/tmp/gs-notify-" + std::to_string(getpid());
  const int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  unlink(path.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  setenv("NOTIFY_SOCKET", path.c_str(), 1);
  EXPECT_TRUE(sdNotify("READY=1\nSTATUS=x"));
  char buf[64] = {};
  const ssize_t n = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "READY=1\nSTATUS=x");
  unsetenv("NOTIFY_SOCKET");
  EXPECT_FALSE(sdNotify("READY=1"));
  setenv("WATCHDOG_USEC", "200000", 1);
  EXPECT_EQ(watchdogPeriod().count(), 200000);
  setenv("WATCHDOG_PID", "1", 1);  // another process's watchdog
  EXPECT_EQ(watchdogPeriod().count(), 0);
  unsetenv("WATCHDOG_USEC");
  unsetenv("WATCHDOG_PID");
  close(fd);
  unlink(path.c_str());
}

}  // namespace
}  // namespace gs::serve
