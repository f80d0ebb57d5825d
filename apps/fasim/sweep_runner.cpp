#include "sweep_runner.hpp"

#include <csignal>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace fasim::cli {

namespace {

volatile std::sig_atomic_t g_caught = 0;

extern "C" void on_stop_signal(int sig) { g_caught = sig; }

struct OldHandlers {
  struct sigaction int_, term_;
};
OldHandlers g_old;

// Shared with the worker, which may outlive the caller's locals when a
// signal makes run_missing_points return while a point is still running.
struct Work {
  SweepSpec spec;
  std::vector<SweepPoint> points;
  std::vector<std::size_t> todo;  // indices of missing points, in order
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::pair<std::size_t, FlatRow>> finished;  // handed over under mutex
  std::size_t started = 0;                                // todo entries begun
  std::exception_ptr failure;                             // a bug, not a UserError
  bool over = false;
};

void work(const std::shared_ptr<Work>& w) {
  for (std::size_t n = 0; n < w->todo.size(); ++n) {
    const std::size_t i = w->todo[n];
    {
      std::lock_guard lock(w->mutex);
      if (g_caught) break;
      w->started = n + 1;
    }
    w->changed.notify_all();
    try {
      FlatRow row = run_point(w->spec, w->points[i]);
      std::lock_guard lock(w->mutex);
      w->finished.emplace_back(i, std::move(row));
    } catch (...) {
      std::lock_guard lock(w->mutex);
      w->failure = std::current_exception();
      break;
    }
    w->changed.notify_all();
  }
  std::lock_guard lock(w->mutex);
  w->over = true;
  w->changed.notify_all();
}

}  // namespace

StopSignals::StopSignals() {
  g_caught = 0;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old.int_);
  sigaction(SIGTERM, &sa, &g_old.term_);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &g_old.int_, nullptr);
  sigaction(SIGTERM, &g_old.term_, nullptr);
}

int StopSignals::caught() { return g_caught; }

bool run_missing_points(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                        std::vector<std::optional<FlatRow>>& rows, const RunnerProgress& progress) {
  auto w = std::make_shared<Work>();
  w->spec = spec;
  w->points = points;
  std::size_t done = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (rows[i]) ++done;
    else w->todo.push_back(i);
  }
  if (w->todo.empty()) {
    if (progress && !points.empty()) progress(points.size(), points.size(), points.back());
    return true;
  }
  std::thread worker(work, w);
  std::size_t shown = 0;  // todo entries whose start was reported
  std::unique_lock lock(w->mutex);
  for (;;) {
    // Wake on news, or every 50 ms to look at the signal flag.
    w->changed.wait_for(lock, std::chrono::milliseconds(50));
    for (auto& [i, row] : w->finished) {
      rows[i] = std::move(row);
      ++done;
    }
    w->finished.clear();
    if (w->failure) {
      lock.unlock();
      worker.join();
      std::rethrow_exception(w->failure);
    }
    if (progress && w->started > shown) {
      shown = w->started;
      progress(done, points.size(), points[w->todo[shown - 1]]);
    }
    if (w->over) break;
    if (g_caught) {
      lock.unlock();
      worker.detach();  // the running point is abandoned; the caller exits
      return false;
    }
  }
  lock.unlock();
  worker.join();
  if (done < points.size()) return false;  // a signal stopped it between points
  if (progress) progress(points.size(), points.size(), points.back());
  return true;
}

}  // namespace fasim::cli
