#include "fasim/trace_writer.hpp"

#include "fasim/error.hpp"

namespace fasim {

TraceFormat TraceWriter::parse(const std::string& format) {
  auto f = parse_trace_format(format);
  if (!f) throw UserError("unknown trace format '" + format + "'; use --trace-format chrome, jsonl or csv");
  return *f;
}

TraceWriter::TraceWriter(const std::string& path, const std::string& format, const Simulation& sim)
    : file_(path) {
  // Check the format before creating anything visible: AtomicFile only made a temporary.
  sink_ = make_trace_sink(parse(format), file_.stream());
  TraceMeta meta;
  meta.device = sim.device().name;
  meta.workload = sim.workload();
  meta.mapping = sim.mapping();
  for (const Kernel& k : sim.program().kernels) meta.kernel_names.emplace_back(k.name);
  meta.time_unit_note =
      "simulated time from fasim's cycle-approximate timing model (docs/timing-model.md), microseconds";
  sink_->begin(meta);
}

void TraceWriter::step(const Simulation& sim) {
  const Step& s = sim.step();
  sink_->step(s, index_++, sim.ledger(), StepTime{s.start_s * 1e6, (s.end_s - s.start_s) * 1e6});
}

void TraceWriter::commit() {
  sink_->end();
  file_.commit();
}

}  // namespace fasim
