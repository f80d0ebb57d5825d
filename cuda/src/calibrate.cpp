// calibrate(): checks, provenance (GPU, driver, date, stock profile), then
// the benchmarks of calibrate.cu (see calibrate.hpp).
#include <ctime>

#include "fasim/cuda/calibrate.hpp"
#include "fasim/cuda/measure.hpp"
#include "fasim/error.hpp"
#include "fasim/format.hpp"

namespace fasim::cuda {


Calibration calibrate(const CalibrateOptions& options, const std::function<void(std::string_view)>& progress) {
  if (options.runs < 20)
    throw UserError("calibrate needs at least 20 timed runs per benchmark for a median; use --runs 20 or more");
  if (!(options.work > 0)) throw UserError("calibrate's work factor must be positive");
  const GpuInfo g = gpu_info();  // UserError, with the reason, without a usable GPU
  Calibration c;
  c.gpu = g.name;
  c.driver = g.driver;
  c.date = utc_date();
  c.stock = stock_profile_for(g.name);
  detail::run_benchmarks(c, options, progress);
  return c;
}

}  // namespace fasim::cuda
