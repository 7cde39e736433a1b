#pragma once
// Activation checkpointing for the encoder layers. With ratio r, the first round(r * L) layers keep
// only their inputs during the forward pass and recompute their activations during backward
// (an autograd Function that saves the inputs and the RNG state, so dropout draws the same masks).
// The earliest layers are chosen: every layer stores the same amount, and recomputing the first
// ones lets the backward pass free their inputs soonest. The attention bias is an input of each
// checkpointed layer, so it receives its gradients as without checkpointing.
// Without autograd (plain inference) checkpointing changes nothing: there are no activations to drop.
#include "model/graphormer.h"

namespace gs::engine {

int checkpointedLayers(int num_layers, double ratio);
// A LayerRunner for GraphormerImpl::forward; an empty runner when no layer is checkpointed.
model::LayerRunner checkpointRunner(int num_layers, double ratio);

}  // namespace gs::engine
