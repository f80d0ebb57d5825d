#include "fasim/trace_writer.hpp"

#include "fasim/error.hpp"

namespace fasim {

TraceFormat TraceWriter::parse(const std::string& format) {
  auto f = parse_trace_format(format);
  if (!f) throw UserError("unknown trace format '" + format + "'; use --trace-format chrome, jsonl or csv");
  return *f;
}

TraceMeta trace_meta(const Simulation& sim) {
  TraceMeta meta;
  meta.device = sim.device().name;
  meta.workload = sim.workload();
  meta.mapping = sim.mapping();
  for (const Kernel& k : sim.program().kernels) meta.kernel_names.emplace_back(k.name);
  meta.time_unit_note =
      "simulated time from fasim's cycle-approximate timing model (docs/timing-model.md), microseconds";
  meta.watched_row = sim.options().watch.row;
  meta.watched_bh = sim.options().watch.bh;
  meta.numerics = sim.options().numerics;
  meta.sram_bytes_per_block = sim.device().sram_bytes_per_block;
  meta.register_bytes_per_block = sim.device().register_bytes_per_block;
  return meta;
}

TraceWriter::TraceWriter(const std::string& path, const std::string& format, const Simulation& sim)
    // Check the format before creating anything visible: AtomicFile only makes a temporary.
    : TraceWriter(path, [f = parse(format)](std::ostream& os) { return make_trace_sink(f, os); }, sim) {}

TraceWriter::TraceWriter(const std::string& path, const TraceSinkFactory& make_sink, const Simulation& sim)
    : file_(path) {
  sink_ = make_sink(file_.stream());
  sink_->begin(trace_meta(sim));
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
