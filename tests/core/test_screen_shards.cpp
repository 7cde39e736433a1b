// Screening shard boundaries and compressed files: the union of byte-range shards equals the file,
// with no record twice, for every format and line-ending variant over fuzzed chunk sizes; gzip,
// bzip2 and zstd round trips, concatenated members, truncated data reported.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include <unistd.h>

#include "common/compression.h"
#include "data/file_segments.h"
#include "data/record_reader.h"
#include "screen/plan_builder.h"

namespace gs {
namespace {

// A file name in the test temporary directory that no other test process uses (ctest runs the
// tests of this binary in parallel, each in its own process).
std::string tempPath(const std::string& name) {
  return ::testing::TempDir() + "/" + name + "_" + std::to_string(::getpid());
}

struct Variant {
  bool crlf, final_newline, bom;
};

std::string makeFile(data::FileFormat f, int n, const Variant& v, std::mt19937& rng) {
  const std::string nl = v.crlf ? "\r\n" : "\n";
  std::ostringstream s;
  if (v.bom) s << "\xEF\xBB\xBF";
  if (f == data::FileFormat::Csv) s << "id,note,smiles" << nl;
  if (f == data::FileFormat::Cxsmiles) s << "smiles\tidnumber" << nl;
  for (int i = 0; i < n; ++i) {
    const std::string smi = std::string(1 + rng() % 6, 'C') + (rng() % 3 == 0 ? "O" : "");
    const bool last = i == n - 1;
    const std::string end = last && !v.final_newline ? "" : nl;
    switch (f) {
      case data::FileFormat::Smi:
        if (rng() % 7 == 0) s << "# a comment" << nl;
        s << (rng() % 11 == 0 ? "" : smi + " m" + std::to_string(i)) << end;
        break;
      case data::FileFormat::Csv:
        s << "m" << i << ",\"note " << (rng() % 4 == 0 ? "with\nnewline, \"\"quote\"\"" : "plain") << "\"," << smi
          << end;
        break;
      case data::FileFormat::Cxsmiles: s << smi << " |$;;$|\tm" << i << end; break;
      default:
        s << "m" << i << nl << "  test" << nl << nl << "  0  0  0  0  0  0  0  0  0  0999 V2000" << nl << "M  END" << nl
          << "> <P>" << nl << i << nl << nl << "$$$$" << end;
    }
  }
  return s.str();
}

std::vector<data::RawRecord> readAll(data::RecordReader& r) {
  std::vector<data::RawRecord> out;
  data::RawRecord rec;
  while (r.next(rec)) out.push_back(rec);
  return out;
}

void expectSame(const data::RawRecord& a, const data::RawRecord& b) {
  EXPECT_EQ(a.row, b.row);
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.text, b.text);
  EXPECT_EQ(a.status.code(), b.status.code());
}

TEST(ScreenShards, UnionOfRangesIsTheFileForEveryFormatAndChunkSize) {
  std::mt19937 rng(7);
  const std::string path = tempPath("shards_input");
  const std::pair<data::FileFormat, const char*> formats[] = {{data::FileFormat::Smi, ".smi"},
                                                              {data::FileFormat::Csv, ".csv"},
                                                              {data::FileFormat::Sdf, ".sdf"},
                                                              {data::FileFormat::Cxsmiles, ".cxsmiles"}};
  for (const auto& [format, ext] : formats) {
    for (int variant = 0; variant < 8; ++variant) {
      const Variant v{(variant & 1) != 0, (variant & 2) != 0, (variant & 4) != 0};
      const int n = 1 + static_cast<int>(rng() % 40);
      const std::string file = path + ext;
      std::ofstream(file, std::ios::binary) << makeFile(format, n, v, rng);
      auto whole_reader = data::openReader(file);
      ASSERT_TRUE(whole_reader.isOk());
      const auto whole = readAll(*whole_reader.value());
      for (int chunk : {1, 2, 3, 5, 7, 64}) {
        SCOPED_TRACE(std::string(ext) + " variant " + std::to_string(variant) + " chunk " + std::to_string(chunk));
        int64_t header = 0;
        auto bounds = screen::scanBoundaries(file, format, {}, chunk, &header);
        ASSERT_TRUE(bounds.isOk());
        const auto& B = bounds.value();
        std::vector<data::RawRecord> joined;
        for (size_t b = 0; b + 1 < B.size(); ++b) {
          std::vector<data::Segment> segments;
          if (header > 0) segments.push_back({0, header});
          segments.push_back({B[b].offset, B[b + 1].offset - B[b].offset});
          auto in = data::SegmentStream::open(file, segments);
          ASSERT_TRUE(in.isOk());
          data::ReaderOptions options;
          options.first_row = B[b].rows + 1;
          auto reader = data::makeReader(format, *in.value(), options);
          const auto part = readAll(*reader);
          EXPECT_EQ(static_cast<int64_t>(part.size()), B[b + 1].rows - B[b].rows);
          joined.insert(joined.end(), part.begin(), part.end());
        }
        ASSERT_EQ(joined.size(), whole.size());
        for (size_t i = 0; i < whole.size(); ++i) expectSame(joined[i], whole[i]);
      }
    }
  }
  std::remove((path + ".smi").c_str());
}

TEST(ScreenShards, SpreadChunksCoversEveryChunkOnce) {
  for (int64_t chunks = 1; chunks < 40; ++chunks)
    for (int64_t parts = 1; parts < 12; ++parts) {
      const auto spread = screen::spreadChunks(chunks, parts);
      int64_t sum = 0;
      for (int64_t c : spread) {
        EXPECT_GE(c, 1);
        sum += c;
      }
      EXPECT_EQ(sum, chunks);
      EXPECT_EQ(static_cast<int64_t>(spread.size()), std::min(chunks, parts));
    }
}

std::string roundTrip(Codec codec, const std::string& text, int pieces, std::string* error) {
  const std::string path = tempPath("codec" + std::to_string(static_cast<int>(codec)));
  {
    std::ofstream out(path, std::ios::binary);
    const size_t step = text.size() / static_cast<size_t>(pieces) + 1;
    for (size_t at = 0; at < text.size(); at += step) {  // concatenated members / frames
      CompressingStream z(out, codec);
      z << text.substr(at, step);
      EXPECT_TRUE(z.finish().isOk());
    }
  }
  auto in = InputFile::open(path);
  if (!in.isOk()) return "";
  EXPECT_EQ(in.value()->codec(), codec);
  std::ostringstream s;
  s << in.value()->rdbuf();
  *error = in.value()->error().message();
  return s.str();
}

TEST(Compression, RoundTripsAndConcatenatedStreams) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "C" + std::to_string(i * 7919 % 1000) + " mol" + std::to_string(i) + "\n";
  for (Codec c : {Codec::Gzip, Codec::Bzip2, Codec::Zstd}) {
    if (!codecAvailable(c)) continue;
    std::string error;
    EXPECT_EQ(roundTrip(c, text, 1, &error), text) << codecName(c);
    EXPECT_EQ(error, "");
    EXPECT_EQ(roundTrip(c, text, 5, &error), text) << codecName(c) << " concatenated";
    std::remove(tempPath("codec" + std::to_string(static_cast<int>(c))).c_str());
  }
}

TEST(Compression, TruncatedDataIsReported) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "CCO mol" + std::to_string(i) + "\n";
  for (Codec c : {Codec::Gzip, Codec::Bzip2, Codec::Zstd}) {
    if (!codecAvailable(c)) continue;
    std::string error;
    roundTrip(c, text, 1, &error);
    const std::string path = tempPath("codec" + std::to_string(static_cast<int>(c)));
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(path + ".cut", std::ios::binary) << bytes.substr(0, bytes.size() * 2 / 3);
    auto file = InputFile::open(path + ".cut");
    ASSERT_TRUE(file.isOk());
    std::ostringstream s;
    s << file.value()->rdbuf();
    EXPECT_LT(s.str().size(), text.size());
    EXPECT_NE(file.value()->error().message().find(c == Codec::Bzip2 ? "bzip2" : codecName(c)), std::string::npos)
        << file.value()->error().message();
    std::remove(path.c_str());
    std::remove((path + ".cut").c_str());
  }
}

TEST(Compression, FormatIgnoresTheCompressionSuffix) {
  EXPECT_EQ(data::formatFromPath("lib.smi.gz").value(), data::FileFormat::Smi);
  EXPECT_EQ(data::formatFromPath("REAL.cxsmiles.bz2").value(), data::FileFormat::Cxsmiles);
  EXPECT_EQ(data::formatFromPath("x.sdf.zst").value(), data::FileFormat::Sdf);
  EXPECT_FALSE(data::formatFromPath("x.gz").isOk());
  EXPECT_EQ(codecFromPath("out.csv.gz"), Codec::Gzip);
  EXPECT_EQ(withoutCodecSuffix("a.csv.zst"), "a.csv");
}

}  // namespace
}  // namespace gs
