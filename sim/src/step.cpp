#include "fasim/step.hpp"

namespace fasim {

std::string_view name(StepKind k) {
  switch (k) {
    case StepKind::load: return "load";
    case StepKind::store: return "store";
    case StepKind::matmul: return "matmul";
    case StepKind::softmax: return "softmax";
    case StepKind::rescale: return "rescale";
    case StepKind::writeback: return "writeback";
  }
  return "?";
}

}  // namespace fasim
