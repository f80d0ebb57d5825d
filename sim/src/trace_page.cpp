// The trace viewer page sink: the jsonl sink's text, escaped for a <script>
// element, between the two halves of the page (generated from web/ by
// cmake/embed_web.cmake).
#include "fasim/trace_page.hpp"

#include <sstream>
#include <string>

namespace fasim {
namespace detail {
std::string_view trace_viewer_head();  // up to and including the trace slot's <script> tag
std::string_view trace_viewer_tail();  // from its </script> on
}  // namespace detail

std::string_view trace_viewer_page() {
  static const std::string page = std::string(detail::trace_viewer_head()) + std::string(detail::trace_viewer_tail());
  return page;
}

namespace {

class PageSink final : public TraceSink {
 public:
  explicit PageSink(std::ostream& out) : out_(out), jsonl_(make_trace_sink(TraceFormat::jsonl, text_)) {}

  void begin(const TraceMeta& meta) override {
    out_ << detail::trace_viewer_head() << '\n';
    jsonl_->begin(meta);
    drain();
  }
  using TraceSink::step;
  void step(const Step& s, std::int64_t index, const Ledger& after, StepTime time) override {
    jsonl_->step(s, index, after, time);
    drain();
  }
  void end() override {
    jsonl_->end();
    drain();
    out_ << detail::trace_viewer_tail();
    out_.flush();
  }

 private:
  // JSON text has '<' only inside strings, where \u003c means the same.
  void drain() {
    const std::string text = text_.str();
    std::size_t from = 0;
    for (std::size_t lt = text.find('<'); lt != std::string::npos; lt = text.find('<', from)) {
      out_.write(text.data() + from, static_cast<std::streamsize>(lt - from));
      out_ << "\\u003c";
      from = lt + 1;
    }
    out_.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
    text_.str({});
  }

  std::ostream& out_;
  std::ostringstream text_;
  std::unique_ptr<TraceSink> jsonl_;
};

}  // namespace

std::unique_ptr<TraceSink> make_trace_page_sink(std::ostream& out) { return std::make_unique<PageSink>(out); }

}  // namespace fasim
