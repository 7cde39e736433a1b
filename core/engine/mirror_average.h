#pragma once
// Predictions that cannot tell a molecule from its mirror image, for models whose targets are
// mirror-invariant (ModelMetadata::mirror_invariant: a HOMO-LUMO gap, a logP, a TPSA are the same
// for both enantiomers). The model itself sees CW/CCW tags and would give the two enantiomers
// slightly different numbers; here every molecule with a tetrahedral tag is predicted together with
// its mirror image (graph::mirrorImage) in the same call, and the two values are averaged. The
// average is the same function for both enantiomers, so they agree to float rounding (the batches
// they are run in may differ). Molecules without tetrahedral tags are predicted once, unchanged.
#include <vector>

#include "engine/inference_session.h"

namespace gs::engine {

std::vector<Prediction> predictMirrorAveraged(InferenceSession& session,
                                              const std::vector<const graph::Featurized*>& molecules,
                                              const RunCallbacks& callbacks = {});

// predictMirrorAveraged when `mirror_invariant`, else the session's plain predict.
std::vector<Prediction> predictForTargets(InferenceSession& session, bool mirror_invariant,
                                          const std::vector<const graph::Featurized*>& molecules,
                                          const RunCallbacks& callbacks = {});

}  // namespace gs::engine
