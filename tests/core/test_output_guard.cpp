// checkOutputsAreNotInputs: the same file under any name is refused, different files are not.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/output_guard.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

class OutputGuard : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("gs_guard_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "sub");
    std::ofstream(dir / "in.smi") << "CCO\n";
    std::ofstream(dir / "other.smi") << "CCO\n";  // same content, another file
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string p(const std::string& name) const { return (dir / name).string(); }
  fs::path dir;
};

TEST_F(OutputGuard, RefusesTheInputUnderAnyName) {
  const std::string in = p("in.smi");
  fs::create_symlink(in, p("link.smi"));
  fs::create_hard_link(in, p("hard.smi"));
  for (const std::string& out : {in, p("link.smi"), p("hard.smi"), p("sub/../in.smi"), p("./in.smi")}) {
    const Status s = checkOutputsAreNotInputs({out}, {in});
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << out;
    EXPECT_NE(s.message().find("refusing to write '" + out + "'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(in), std::string::npos) << s.message();
  }
  // The input given through a link, the output as the real file.
  EXPECT_FALSE(checkOutputsAreNotInputs({in}, {p("link.smi")}).isOk());
  // Any output of several against any input of several.
  EXPECT_FALSE(checkOutputsAreNotInputs({p("a.csv"), p("hard.smi")}, {p("model"), in}).isOk());
  EXPECT_TRUE(sameFile(in, p("link.smi")));
}

TEST_F(OutputGuard, AllowsOtherFilesNewFilesAndEmptyPaths) {
  const std::string in = p("in.smi");
  EXPECT_TRUE(checkOutputsAreNotInputs({p("other.smi")}, {in}).isOk());  // equal content is not the same file
  EXPECT_TRUE(checkOutputsAreNotInputs({p("new.csv"), p("new.csv.json")}, {in}).isOk());
  EXPECT_TRUE(checkOutputsAreNotInputs({"", p("new.csv")}, {"", in}).isOk());
  EXPECT_TRUE(checkOutputsAreNotInputs({p("sub")}, {in}).isOk());
  EXPECT_TRUE(checkOutputsAreNotInputs({p("new.csv")}, {p("missing.smi")}).isOk());
  EXPECT_FALSE(sameFile(p("new.csv"), p("new.csv")));  // a file that does not exist is no input
}

}  // namespace
}  // namespace gs
