#include "engine/mirror_average.h"

#include <deque>

namespace gs::engine {

std::vector<Prediction> predictMirrorAveraged(InferenceSession& session,
                                              const std::vector<const graph::Featurized*>& molecules,
                                              const RunCallbacks& callbacks) {
  std::deque<graph::Featurized> mirrors;  // stable addresses while the list grows
  std::vector<const graph::Featurized*> all = molecules;
  std::vector<int> mirror_of(molecules.size(), -1);
  for (size_t i = 0; i < molecules.size(); ++i) {
    if (!molecules[i] || !graph::hasTetrahedralStereo(molecules[i]->graph)) continue;
    mirrors.push_back(graph::Featurized{graph::mirrorImage(molecules[i]->graph), molecules[i]->enc});
    mirror_of[i] = static_cast<int>(all.size());
    all.push_back(&mirrors.back());
  }
  if (mirrors.empty()) return session.predict(molecules, callbacks);
  auto predictions = session.predict(all, callbacks);
  std::vector<Prediction> out(predictions.begin(), predictions.begin() + static_cast<long>(molecules.size()));
  for (size_t i = 0; i < molecules.size(); ++i) {
    if (mirror_of[i] < 0 || !out[i].status.isOk()) continue;
    const Prediction& m = predictions[static_cast<size_t>(mirror_of[i])];
    if (!m.status.isOk()) {
      out[i] = m;  // the pair stands or falls together: half an average is not the model's answer
      continue;
    }
    for (size_t j = 0; j < out[i].values.size(); ++j) out[i].values[j] = 0.5f * (out[i].values[j] + m.values[j]);
    for (size_t e = 0; e < out[i].embedding.size() && e < m.embedding.size(); ++e)
      out[i].embedding[e] = 0.5f * (out[i].embedding[e] + m.embedding[e]);
  }
  return out;
}

std::vector<Prediction> predictForTargets(InferenceSession& session, bool mirror_invariant,
                                          const std::vector<const graph::Featurized*>& molecules,
                                          const RunCallbacks& callbacks) {
  return mirror_invariant ? predictMirrorAveraged(session, molecules, callbacks)
                          : session.predict(molecules, callbacks);
}

}  // namespace gs::engine
