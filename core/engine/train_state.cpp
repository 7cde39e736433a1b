#include "engine/train_state.h"

#include <limits>

#include "bundle/config.h"
#include "common/atomic_file.h"
#include "common/json_writer.h"

namespace gs::engine {

Status writeState(const std::string& path, const TrainState& s) {
  AtomicFile file(path);
  if (!file.isOpen()) return file.openStatus();
  JsonWriter w(file.stream());
  w.beginObject()
      .field("epoch", s.epoch)
      .field("step", s.step)
      .field("loss_sum", s.loss_sum)
      .field("best_epoch", s.best_epoch)
      .field("since_best", s.since_best)
      .field("best_valid_mae", s.best)
      .field("micro_batch", s.micro_batch)
      .field("checkpoint_ratio", s.checkpoint_ratio)
      .endObject();
  return file.commit();
}

Result<TrainState> readState(const std::string& path) {
  auto json = bundle::readJsonFile(path);
  if (!json.isOk()) return json.status();
  TrainState s;
  const auto* e = json->find("epoch");
  const auto* be = json->find("best_epoch");
  const auto* sb = json->find("since_best");
  const auto* b = json->find("best_valid_mae");
  if (!e || !be || !sb || !b) return Status(StatusCode::MalformedRecord, path + ": incomplete training state");
  s.epoch = int(e->asInteger());
  s.best_epoch = int(be->asInteger());
  s.since_best = int(sb->asInteger());
  // No epoch validated yet: JSON has no infinity, the writer wrote null for it.
  s.best = b->isNumber() ? b->asNumber() : std::numeric_limits<double>::infinity();
  if (const auto* v = json->find("step")) s.step = int(v->asInteger());
  if (const auto* v = json->find("loss_sum")) s.loss_sum = v->asNumber();
  if (const auto* v = json->find("micro_batch")) s.micro_batch = int(v->asInteger());
  if (const auto* v = json->find("checkpoint_ratio")) s.checkpoint_ratio = v->asNumber();
  return s;
}

}  // namespace gs::engine
