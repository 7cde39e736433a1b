// Shard receipts are read back from a shared file system that other processes (and people) write
// to: a receipt survives a round trip exactly, anything else — malformed JSON, a wrong version,
// missing or mistyped fields, absurd numbers, truncated or mutated text — is refused with a
// "receipt:" error or read with safe values, and never crashes (this suite runs under ASan/UBSan).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "screen/receipt.h"

namespace gs::screen {
namespace {

Receipt sampleReceipt() {
  Receipt r;
  r.plan_id = "0f1e2d";
  r.shard = 3;
  r.complete = true;
  r.model_sha256 = "abcdef";
  r.first_row = 1024;
  r.rows_in = 512;
  r.rows_out = 512;
  r.next_offset = 40960;
  r.reached_end = true;
  r.by_status = {{"ok", 510}, {"syntax_error", 2}};
  r.pieces = {{"shards/000/3.a.csv.gz", 1024, 256, 9000, "11"}, {"shards/000/3.b.csv.gz", 1280, 256, 9100, "22"}};
  r.seconds.read = 0.5;
  r.seconds.total = 2.25;
  r.host = "node1";
  r.device = "cpu";
  r.precision = "fp32";
  r.threads = 1;
  r.attempt = "x1";
  r.attempts = 2;
  r.started = "2026-12-05T10:00:00Z";
  r.finished = "2026-12-05T10:00:02Z";
  return r;
}

TEST(Receipts, SurviveARoundTripExactly) {
  const Receipt r = sampleReceipt();
  auto back = receiptFromJson(toJson(r));
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  EXPECT_EQ(toJson(back.value()), toJson(r));
  EXPECT_EQ(back->pieces.size(), 2u);
  EXPECT_EQ(back->pieces[1].first_row, 1280);
  EXPECT_EQ(back->by_status.at("syntax_error"), 2);
  EXPECT_EQ(back->attempts, 2);
}

TEST(Receipts, WhatIsNotAReceiptIsRefusedWithTheReason) {
  const std::string good = toJson(sampleReceipt());
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  const std::pair<std::string, std::string> cases[] = {
      {"", "receipt:"},
      {"[1,2]", "unknown version"},
      {good.substr(0, good.size() / 2), "receipt:"},
      {replaced("\"version\":1", "\"version\":2"), "unknown version"},
      {replaced("\"rows_in\":512", "\"rows_in\":\"512\""), "'rows_in' missing or not an integer"},
      {replaced("\"first_row\":1024", "\"first_row\":1e300"), "'first_row' missing or not an integer"},
      {replaced("\"shard\":3", "\"shard\":null"), "'shard' missing or not an integer"}};
  for (const auto& [text, reason] : cases) {
    auto r = receiptFromJson(text);
    ASSERT_FALSE(r.isOk()) << text;
    EXPECT_NE(r.status().message().find(reason), std::string::npos) << r.status().message();
  }
  // Informational counts out of range read as 0 instead of overflowing an int.
  auto odd = receiptFromJson(replaced("\"threads\":1", "\"threads\":1e300"));
  ASSERT_TRUE(odd.isOk()) << odd.status().toString();
  EXPECT_EQ(odd->threads, 0);
  odd = receiptFromJson(replaced("\"attempts\":2", "\"attempts\":-7"));
  ASSERT_TRUE(odd.isOk());
  EXPECT_EQ(odd->attempts, 0);
}

TEST(Receipts, MutatedTextIsReadOrRefusedNeverCrashes) {
  const std::string good = toJson(sampleReceipt());
  const char* const fragments[] = {"{",
                                   "}",
                                   "[",
                                   "]",
                                   "\"",
                                   ",",
                                   ":",
                                   "\\u",
                                   "\\ud800",
                                   "1e999",
                                   "-1",
                                   "null",
                                   "\xff",
                                   "\"pieces\"",
                                   "[[[[[[[[",
                                   "99999999999999999999",
                                   "\"by_status\""};
  std::mt19937 rng(20261205);
  int read = 0, refused = 0;
  for (int n = 0; n < 3000; ++n) {
    std::string s = good;
    for (int e = 0, edits = 1 + static_cast<int>(rng() % 4); e < edits; ++e) {
      const size_t pos = rng() % (s.size() + 1);
      switch (rng() % 4) {
        case 0:
          if (pos < s.size()) s.erase(pos, 1 + rng() % 6);
          break;
        case 1: s.insert(pos, fragments[rng() % (sizeof fragments / sizeof *fragments)]); break;
        case 2:
          if (pos < s.size()) s[pos] = static_cast<char>(rng() % 256);
          break;
        default: s.resize(pos); break;
      }
    }
    auto r = receiptFromJson(s);
    if (r.isOk()) {
      ++read;
      EXPECT_GE(r->threads, 0);
      EXPECT_GE(r->attempts, 0);
    } else {
      ++refused;
      EXPECT_EQ(r.status().message().rfind("receipt: ", 0), 0u) << r.status().message();
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(read, 0);  // some mutations keep a valid receipt (e.g. inside a string)
}

}  // namespace
}  // namespace gs::screen
