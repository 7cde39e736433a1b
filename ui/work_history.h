#pragma once
// The main window's record of the user's work, without widgets (tested alone, tests/ui/test_work_history.cpp):
// whether the results shown have been exported, and the undo steps of replacing or clearing the
// input, each holding what was there and whether it was unsaved then. Undo brings a step back
// together with its unsaved mark, so results brought back are as unsaved as they were.
#include <QString>

#include <optional>
#include <utility>
#include <vector>

namespace gs::ui {

template <typename Snapshot>
class WorkHistory {
 public:
  struct Step {
    QString what;  // "Paste", "Clear", ... as the Undo action names it
    Snapshot snapshot;
    bool unsaved = false;
  };

  explicit WorkHistory(size_t max_steps = 20) : max_steps_(max_steps) {}

  // Keeps what is there before it is replaced, with its unsaved mark; the oldest step goes beyond
  // max_steps. The caller marks the new input saved() once it has replaced the old one.
  void keep(QString what, Snapshot snapshot) {
    steps_.push_back({std::move(what), std::move(snapshot), unsaved_});
    if (steps_.size() > max_steps_) steps_.erase(steps_.begin());
  }
  bool canUndo() const { return !steps_.empty(); }
  // What Undo would bring back ("" when nothing).
  QString nextUndo() const { return steps_.empty() ? QString() : steps_.back().what; }
  // The newest step, removed; the unsaved mark becomes the step's.
  std::optional<Step> undo() {
    if (steps_.empty()) return std::nullopt;
    Step step = std::move(steps_.back());
    steps_.pop_back();
    unsaved_ = step.unsaved;
    return step;
  }

  // A run added results (`any`: the table holds rows).
  void resultsChanged(bool any) { unsaved_ = unsaved_ || any; }
  // Every row was exported, or the input was replaced without keeping a step.
  void saved() { unsaved_ = false; }
  bool unsaved() const { return unsaved_; }
  size_t steps() const { return steps_.size(); }

 private:
  size_t max_steps_;
  std::vector<Step> steps_;
  bool unsaved_ = false;
};

}  // namespace gs::ui
