#include "jobs/distill_job.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "chem/descriptors.h"
#include "common/atomic_file.h"
#include "common/json_value.h"
#include "common/json_writer.h"
#include "data/csv_reader.h"
#include "data/csv_writer.h"
#include "engine/mirror_average.h"
#include "jobs/train_run.h"
#include "predict/predictor.h"
#include "similarity/fingerprint_index.h"

namespace gs::jobs {
namespace {

using Clock = std::chrono::steady_clock;
using TeacherValues = std::unordered_map<std::string, std::vector<float>>;  // canonical SMILES -> outputs

std::string path(const DistillJobOptions& o, const char* name) { return o.student.output_dir + "/" + name; }

// The molecules of the unlabelled files that are neither labelled molecules nor repeats, each with
// its fingerprint (for the held-out rule).
struct Extras {
  std::vector<chem::MoleculeRow> rows;
  std::vector<similarity::BitFingerprint> fingerprints;
};

Result<Extras> readUnlabelled(const DistillJobOptions& o, const chem::FeaturizeOptions& featurize,
                              std::unordered_set<std::string>& seen, DistillJobSummary& summary) {
  Extras extras;
  chem::FeaturizeOptions f = featurize;
  f.keep_molecule = true;
  f.domain = false;
  for (const auto& file : o.unlabelled) {
    auto reader = data::openReader(file, o.unlabelled_reader);
    if (!reader.isOk()) return reader.status();
    data::RawRecord record;
    while (reader.value()->next(record)) {
      ++summary.unlabelled_rows;
      auto row = chem::featurizeRecord(record, f);
      if (!row.features) continue;
      ++summary.unlabelled_usable;
      if (!seen.insert(row.canonical).second) {
        ++summary.duplicates;
        continue;
      }
      extras.fingerprints.push_back(chem::morganFingerprint(*row.mol));
      row.mol.reset();
      extras.rows.push_back(std::move(row));
    }
  }
  return extras;
}

// Leaves out the extras whose most similar held-out labelled molecule reaches `threshold`.
void dropNearHoldout(Extras& extras, const SplitData& split, double threshold, DistillJobSummary& summary) {
  if (threshold > 1 || extras.rows.empty()) return;
  std::vector<similarity::BitFingerprint> held_out;
  for (size_t i = 0; i < split.data.rows.size(); ++i)
    if (split.split[i] != data::Subset::Train) held_out.push_back(split.data.fingerprints[i]);
  if (held_out.empty()) return;
  const similarity::FingerprintIndex index(std::move(held_out));
  Extras kept;
  for (size_t i = 0; i < extras.rows.size(); ++i) {
    const auto nearest = index.nearest(extras.fingerprints[i], 1);
    if (!nearest.empty() && nearest[0].similarity >= threshold) {
      ++summary.near_holdout;
      continue;
    }
    kept.rows.push_back(std::move(extras.rows[i]));
  }
  extras = std::move(kept);
}

std::string teacherRecord(const model::LoadedModel& teacher) {
  std::ostringstream text;
  JsonWriter json(text);
  json.beginObject().key("teacher_sha256").value(teacher.sha256).key("teacher_adapter_sha256");
  json.value(teacher.adapter_sha256).key("outputs").beginArray();
  for (const auto& name : teacher.metadata.target_names) json.value(name);
  json.endArray().endObject();
  return text.str() + "\n";
}

// The cached predictions of this teacher (none when the cache is missing or another teacher's).
TeacherValues readTeacherCache(const DistillJobOptions& o, const model::LoadedModel& teacher) {
  TeacherValues values;
  std::ifstream record(path(o, kTeacherRecordFile));
  std::stringstream text;
  text << record.rdbuf();
  if (!record || text.str() != teacherRecord(teacher)) return values;
  std::ifstream in(path(o, kTeacherCacheFile), std::ios::binary);
  data::ReaderOptions ro;
  ro.smiles_column = "canonical_smiles";
  data::CsvReader reader(in, ro, ',');
  const size_t k = teacher.metadata.target_names.size();
  data::RawRecord r;
  while (reader.next(r)) {
    if (!r.status.isOk() || r.fields.size() != k + 1) continue;
    std::vector<float> v;
    for (size_t j = 1; j <= k; ++j) v.push_back(std::strtof(r.fields[j].c_str(), nullptr));
    values[r.text] = std::move(v);
  }
  return values;
}

Status writeTeacherCache(const DistillJobOptions& o, const model::LoadedModel& teacher, const TeacherValues& values) {
  std::error_code ec;
  std::filesystem::create_directories(o.student.output_dir, ec);
  if (ec) return Status(StatusCode::IoError, "cannot create '" + o.student.output_dir + "': " + ec.message());
  AtomicFile file(path(o, kTeacherCacheFile));
  if (!file.isOpen()) return file.openStatus();
  data::CsvWriter csv(file.stream());
  std::vector<std::string> header{"canonical_smiles"};
  header.insert(header.end(), teacher.metadata.target_names.begin(), teacher.metadata.target_names.end());
  csv.row(header);
  char cell[32];
  for (const auto& [smiles, v] : values) {
    std::vector<std::string> row{smiles};
    for (float x : v) row.push_back((std::snprintf(cell, sizeof cell, "%.9g", x), cell));
    csv.row(row);
  }
  if (Status s = file.commit(); !s.isOk()) return s;
  AtomicFile record(path(o, kTeacherRecordFile));
  if (!record.isOpen()) return record.openStatus();
  record.stream() << teacherRecord(teacher);
  return record.commit();
}

// The teacher's outputs for every row of `rows` not yet in `values`, in chunks with progress notes.
Status labelWithTeacher(predict::Predictor& teacher, const std::vector<const chem::MoleculeRow*>& rows,
                        TeacherValues& values, DistillJobSummary& summary, const engine::TrainCallbacks& callbacks) {
  std::vector<const chem::MoleculeRow*> todo;
  for (const auto* r : rows)
    if (!values.count(r->canonical)) todo.push_back(r);
  summary.teacher_cached = static_cast<int64_t>(rows.size() - todo.size());
  const bool mirror = teacher.model().metadata.mirrorInvariant();
  const auto start = Clock::now();
  constexpr size_t kChunk = 4096;
  for (size_t begin = 0; begin < todo.size(); begin += kChunk) {
    if (callbacks.cancelled && callbacks.cancelled())
      return Status(StatusCode::Cancelled, "cancelled while the teacher labelled molecules");
    const size_t end = std::min(todo.size(), begin + kChunk);
    std::vector<const graph::Featurized*> molecules;
    for (size_t i = begin; i < end; ++i) molecules.push_back(&*todo[i]->features);
    const auto predictions = engine::predictForTargets(teacher.session(), mirror, molecules);
    for (size_t i = begin; i < end; ++i)
      if (const auto& p = predictions[i - begin]; p.status.isOk() && !p.values.empty())
        values[todo[i]->canonical] = p.values;
    note(callbacks, "teacher: " + std::to_string(end) + " of " + std::to_string(todo.size()) + " molecules labelled");
  }
  summary.teacher_predicted = static_cast<int64_t>(todo.size());
  summary.teacher_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return Status::ok();
}

// The soft target of one training molecule; `label` is null for an unlabelled molecule. An output
// learnt from labels alone (w = 1) has no target where its label is missing.
std::vector<float> softTargets(const std::vector<float>& teacher, const std::vector<float>* label,
                               const std::vector<double>& w) {
  std::vector<float> y = teacher;
  for (size_t j = 0; j < y.size() && j < w.size(); ++j) {
    const bool labelled = label && j < label->size() && !std::isnan((*label)[j]);
    if (labelled)
      y[j] = static_cast<float>((1 - w[j]) * teacher[j] + w[j] * (*label)[j]);
    else if (w[j] >= 1)
      y[j] = std::nanf("");
  }
  return y;
}

// The student's folds: the labelled split with the training fold's targets made soft, plus the
// extras with the teacher's outputs; validation, calibration and test keep the true labels.
Folds distillFolds(const SplitData& split, const Extras& extras, const TeacherValues& values,
                   const std::vector<double>& w) {
  Folds folds = foldsOf(split.data, split.split);
  folds.train.clear();
  for (size_t i = 0; i < split.data.rows.size(); ++i) {
    if (split.split[i] != data::Subset::Train) continue;
    const auto it = values.find(split.data.rows[i].canonical);
    if (it == values.end()) continue;
    folds.train.push_back({&*split.data.rows[i].features, softTargets(it->second, &split.data.targets[i], w)});
  }
  for (const auto& row : extras.rows)
    if (const auto it = values.find(row.canonical); it != values.end())
      folds.train.push_back({&*row.features, softTargets(it->second, nullptr, w)});
  return folds;
}

// One label weight per output of the teacher.
Result<std::vector<double>> labelWeights(const DistillJobOptions& o, const std::vector<std::string>& outputs) {
  std::vector<double> w(outputs.size(), o.label_weight);
  for (const auto& [name, weight] : o.label_weight_of) {
    const auto at = std::find(outputs.begin(), outputs.end(), name);
    if (at == outputs.end())
      return Status(StatusCode::InvalidArgument, "label weight for '" + name + "': the teacher has no such output");
    if (!(weight >= 0 && weight <= 1))
      return Status(StatusCode::InvalidArgument, "the label weight of '" + name + "' must be in [0, 1]");
    w[at - outputs.begin()] = weight;
  }
  return w;
}

std::vector<double> teacherTestMae(const SplitData& split, const TeacherValues& values) {
  std::vector<double> sum, count;
  for (size_t i = 0; i < split.data.rows.size(); ++i) {
    const auto it = values.find(split.data.rows[i].canonical);
    if (split.split[i] != data::Subset::Test || it == values.end()) continue;
    const auto& y = split.data.targets[i];
    sum.resize(y.size()), count.resize(y.size());
    for (size_t j = 0; j < y.size() && j < it->second.size(); ++j)
      if (!std::isnan(y[j])) sum[j] += std::fabs(it->second[j] - y[j]), count[j] += 1;
  }
  for (size_t j = 0; j < sum.size(); ++j) sum[j] = count[j] > 0 ? sum[j] / count[j] : std::nan("");
  return sum;
}

Status checkDistillOptions(const DistillJobOptions& o) {
  if (!(o.label_weight >= 0 && o.label_weight <= 1))
    return Status(StatusCode::InvalidArgument, "the label weight must be in [0, 1]");
  if (o.student.train.lora_rank > 0)
    return Status(StatusCode::InvalidArgument, "a student is trained whole: LoRA adapters are not distilled");
  if (o.student.input.empty())
    return Status(StatusCode::InvalidArgument,
                  "distill needs the labelled file (--labels): the student is validated, tested and calibrated on "
                  "its true labels");
  return Status::ok();
}

// The student's options with the teacher's outputs, units and card.
TrainJobOptions studentOptions(const DistillJobOptions& o, const model::LoadedModel& teacher) {
  TrainJobOptions s = o.student;
  const auto& md = teacher.metadata;
  s.targets = md.target_names;
  s.target_units = md.target_units;
  s.mirror_invariant = md.mirrorInvariant();
  if (s.description.empty()) {
    // The teacher by its directory's name ("accurate"), not by a path of the machine it ran on.
    const auto weights = std::filesystem::path(teacher.weights_path);
    const std::string name = weights.has_parent_path() ? weights.parent_path().filename().string() : weights.string();
    char weight[32];
    std::snprintf(weight, sizeof weight, "%g", o.label_weight);
    std::string label_weights = weight;
    for (const auto& [output, w] : o.label_weight_of) {
      std::snprintf(weight, sizeof weight, "%g", w);
      label_weights += std::string(", ") + output + " " + weight;
    }
    s.description = (md.description.empty() ? std::string("distilled") : md.description) + " (student of '" + name +
                    "', label weight " + label_weights + ")";
  }
  return s;
}

}  // namespace

Result<DistillJobSummary> runDistill(const DistillJobOptions& o, const engine::TrainCallbacks& callbacks) {
  if (Status s = checkDistillOptions(o); !s.isOk()) return s;
  predict::PredictorOptions po;
  po.model = o.teacher;
  po.trust = false;
  po.session.device = o.student.train.device;
  po.session.threads = o.teacher_threads > 0 ? o.teacher_threads : o.student.train.threads;
  po.parse = o.student.featurize.parse;
  po.atom_order = o.student.featurize.atom_order;
  auto teacher = predict::Predictor::open(po);
  if (!teacher.isOk()) return teacher.status();
  const auto& tm = teacher.value()->model();
  const TrainJobOptions student = studentOptions(o, tm);
  const auto weights = labelWeights(o, tm.metadata.target_names);
  if (!weights.isOk()) return weights.status();
  std::vector<std::string> inputs = o.unlabelled;
  inputs.push_back(tm.weights_path);
  if (Status s = checkTrainOptions(student, {path(o, kTeacherCacheFile), path(o, kTeacherRecordFile)}, inputs); !s.isOk())
    return s;
  model::LoraSpec spec;
  std::string head_note;
  auto prepared = modelToTrain(student, false, spec, &head_note);
  if (!prepared.isOk()) return prepared.status();
  if (!head_note.empty()) note(callbacks, head_note);

  DistillJobSummary summary;
  summary.targets = student.targets;
  auto read = labelledDataOptions(student, prepared->config);
  read.fingerprints = true;  // the held-out rule
  auto split = readAndSplit(read, student.split, callbacks);
  if (!split.isOk()) return split.status();
  std::unordered_set<std::string> seen;
  for (const auto& r : split->data.rows) seen.insert(r.canonical);
  auto extras = readUnlabelled(o, read.featurize, seen, summary);
  if (!extras.isOk()) return extras.status();
  const double threshold = o.holdout_similarity >= 0 ? o.holdout_similarity : student.split.cluster_similarity;
  dropNearHoldout(extras.value(), split.value(), threshold, summary);
  summary.added = static_cast<int64_t>(extras->rows.size());
  note(callbacks, "unlabelled: " + std::to_string(summary.unlabelled_rows) + " rows, " +
                      std::to_string(summary.duplicates) + " already labelled or repeated, " +
                      std::to_string(summary.near_holdout) + " left out as too similar to held-out molecules, " +
                      std::to_string(summary.added) + " added");

  std::vector<const chem::MoleculeRow*> to_label;
  for (size_t i = 0; i < split->data.rows.size(); ++i)
    if (split->split[i] == data::Subset::Train || split->split[i] == data::Subset::Test)
      to_label.push_back(&split->data.rows[i]);
  for (const auto& r : extras->rows) to_label.push_back(&r);
  TeacherValues values = student.train.resume ? readTeacherCache(o, tm) : TeacherValues{};
  if (Status s = labelWithTeacher(*teacher.value(), to_label, values, summary, callbacks); !s.isOk()) return s;
  if (summary.teacher_predicted > 0)
    if (Status s = writeTeacherCache(o, tm, values); !s.isOk()) return s;
  summary.teacher_test_mae = teacherTestMae(split.value(), values);
  teacher.value().reset();

  const Folds folds = distillFolds(split.value(), extras.value(), values, weights.value());
  auto trained = trainFolds(student, std::move(prepared.value()), split.value(), folds, nullptr, callbacks);
  if (!trained.isOk()) return trained.status();
  summary.student = std::move(trained.value());
  return summary;
}

}  // namespace gs::jobs
