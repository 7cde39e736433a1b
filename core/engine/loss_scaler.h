#pragma once
// Dynamic loss scaling for FP16 training (CUDA): the loss is multiplied by a scale before backward
// so small gradients survive in fp16; before the step the gradients are unscaled and checked. A
// step with any inf/NaN gradient is skipped and the scale backs off; after `growth_interval`
// clean steps the scale grows. Master weights stay fp32.
#include <torch/types.h>

#include <vector>

namespace gs::engine {

class LossScaler {
 public:
  explicit LossScaler(bool enabled, double initial_scale = 65536.0, int growth_interval = 2000)
      : enabled_(enabled), scale_(initial_scale), growth_interval_(growth_interval) {}

  torch::Tensor scale(const torch::Tensor& loss) const { return enabled_ ? loss * scale_ : loss; }
  // Unscales the gradients in place; false (and the scale backs off) when any is not finite: the
  // caller must skip the optimizer step.
  bool unscaleAndCheck(const std::vector<torch::Tensor>& parameters);
  double currentScale() const { return scale_; }
  int skippedSteps() const { return skipped_; }

 private:
  bool enabled_;
  double scale_;
  int growth_interval_;
  int clean_steps_ = 0;
  int skipped_ = 0;
};

}  // namespace gs::engine
