#include "engine/loss_scaler.h"

#include <torch/torch.h>

namespace gs::engine {

bool LossScaler::unscaleAndCheck(const std::vector<torch::Tensor>& parameters) {
  bool finite = true;
  for (const auto& p : parameters) {
    if (!p.grad().defined()) continue;
    if (enabled_) p.mutable_grad().div_(scale_);
    if (!torch::isfinite(p.grad()).all().item<bool>()) finite = false;
  }
  if (!finite) {
    ++skipped_;
    clean_steps_ = 0;
    if (enabled_) scale_ = std::max(scale_ * 0.5, 1.0);
    return false;
  }
  if (enabled_ && ++clean_steps_ >= growth_interval_) {
    scale_ *= 2.0;
    clean_steps_ = 0;
  }
  return true;
}

}  // namespace gs::engine
