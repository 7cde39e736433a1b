#pragma once
// `graphormer-cli distill`: trains a student Graphormer (usually smaller, so faster) on a teacher
// model's predictions. The teacher labels every training molecule of the labelled file and every
// molecule of one or more unlabelled files (any format predict reads); the student learns all of
// the teacher's outputs, mixed with the true labels where they exist:
//   soft target = (1 - w) * teacher + w * label   (w = label_weight; teacher alone where no label)
// w may differ per output (label_weight_of): an output with w = 1 is learnt from the labels alone
// (molecules without its label teach it nothing), for a property the teacher is no better at than
// the labels.
// Everything else is train's machinery on the labelled file: its split (the teacher's split.csv by
// default in the CLI, so the student is tested on molecules the teacher never saw), validation and
// test on the true labels, resume, memory budget, mixed precision, snapshots, and trust data built
// from the true labels of the labelled file (so the student's intervals describe its own error).
//
// Honest held-out molecules: an unlabelled molecule that is a labelled molecule (same canonical
// SMILES) is not added twice, and one whose Tanimoto similarity to any validation, calibration or
// test molecule reaches `holdout_similarity` is left out, so a cluster split stays a cluster split.
//
// The teacher's predictions are cached in <output>/teacher.csv (canonical SMILES and one column
// per output, written with full float precision) beside teacher.json (the teacher's SHA-256):
// a resumed run reuses them, so it trains on exactly the same targets as the interrupted one.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bundle/model_source.h"
#include "jobs/train_job.h"

namespace gs::jobs {

struct DistillJobOptions {
  // The student's run: input = the labelled file (columns named like the teacher's outputs),
  // output_dir, architecture (config) or model to start from, split, training options, snapshots.
  // targets, units, description and mirror invariance are taken from the teacher.
  TrainJobOptions student;
  bundle::ModelSource teacher;
  std::vector<std::string> unlabelled;  // molecule files the teacher labels (may be empty)
  data::ReaderOptions unlabelled_reader;
  double label_weight = 0.5;  // in [0, 1]; 0 = the teacher's outputs only
  std::vector<std::pair<std::string, double>> label_weight_of;  // per output name, overrides label_weight
  // Unlabelled molecules at least this similar to a held-out labelled molecule are left out; a
  // value > 1 keeps them all (only identical molecules are removed). < 0: the split's cluster
  // similarity (0.65 by default).
  double holdout_similarity = -1;
  int teacher_threads = 0;  // 0 = the student's --threads
};

struct DistillJobSummary {
  TrainJobSummary student;
  int64_t unlabelled_rows = 0;     // records read from the unlabelled files
  int64_t unlabelled_usable = 0;   // of which featurized
  int64_t duplicates = 0;          // same canonical SMILES as a labelled or an earlier molecule
  int64_t near_holdout = 0;        // left out: too similar to a validation, calibration or test molecule
  int64_t added = 0;               // unlabelled molecules trained on
  int64_t teacher_predicted = 0;   // molecules the teacher labelled in this run
  int64_t teacher_cached = 0;      // predictions reused from teacher.csv
  double teacher_seconds = 0;
  std::vector<double> teacher_test_mae;  // the teacher on the same test molecules, per output
  std::vector<std::string> targets;
};

// The teacher's prediction cache beside a distillation run.
constexpr const char* kTeacherCacheFile = "teacher.csv";
constexpr const char* kTeacherRecordFile = "teacher.json";

Result<DistillJobSummary> runDistill(const DistillJobOptions& options, const engine::TrainCallbacks& callbacks = {});

}  // namespace gs::jobs
