// The main window's undo steps and unsaved mark (ui/work_history.h), without a window.
#include <gtest/gtest.h>

#include <string>

#include "work_history.h"

namespace gs::ui {
namespace {

using History = WorkHistory<std::string>;

TEST(WorkHistory, UndoBringsBackEachStepWithItsUnsavedMarkNewestFirst) {
  History h;
  EXPECT_FALSE(h.canUndo());
  EXPECT_FALSE(h.undo().has_value());
  h.resultsChanged(true);  // predictions of input A, not exported
  h.keep("Paste", "A");
  h.saved();  // input B replaced A
  EXPECT_FALSE(h.unsaved());
  h.keep("Clear", "B");  // B had nothing unsaved
  EXPECT_EQ(h.nextUndo(), "Clear");
  auto b = h.undo();
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->snapshot, "B");
  EXPECT_FALSE(h.unsaved());
  EXPECT_EQ(h.nextUndo(), "Paste");
  auto a = h.undo();
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->snapshot, "A");
  EXPECT_TRUE(h.unsaved()) << "A's predictions come back as unsaved as they were";
  EXPECT_FALSE(h.canUndo());
  EXPECT_EQ(h.nextUndo(), "");
}

TEST(WorkHistory, ResultsMarkUnsavedOnlyWhenThereAreRowsAndExportClearsIt) {
  History h;
  h.resultsChanged(false);
  EXPECT_FALSE(h.unsaved());
  h.resultsChanged(true);
  h.resultsChanged(false);  // a later empty run does not hide earlier unsaved rows
  EXPECT_TRUE(h.unsaved());
  h.saved();
  EXPECT_FALSE(h.unsaved());
}

TEST(WorkHistory, KeepsAtMostItsLimitDroppingTheOldest) {
  History h(3);
  for (int i = 0; i < 5; ++i) h.keep(QString::number(i), std::to_string(i));
  EXPECT_EQ(h.steps(), 3u);
  std::string order;
  while (auto s = h.undo()) order += s->snapshot;
  EXPECT_EQ(order, "432");
}

}  // namespace
}  // namespace gs::ui
