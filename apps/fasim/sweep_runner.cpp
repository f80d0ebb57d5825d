#include "sweep_runner.hpp"

#include <algorithm>
#include <csignal>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

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
  std::size_t started = 0;                                // todo entries begun (handed out)
  std::exception_ptr failure;                             // a bug, not a UserError
  std::size_t working = 0;                                // workers not yet returned
  bool over = false;                                      // every worker has returned
};

// One worker: takes the next todo entry until none is left, a signal came or
// another worker failed.
void work(const std::shared_ptr<Work>& w) {
  for (;;) {
    std::size_t n = 0;
    {
      std::lock_guard lock(w->mutex);
      if (g_caught || w->failure || w->started == w->todo.size()) break;
      n = w->started++;
    }
    w->changed.notify_all();
    const std::size_t i = w->todo[n];
    try {
      FlatRow row = run_point(w->spec, w->points[i]);
      std::lock_guard lock(w->mutex);
      w->finished.emplace_back(i, std::move(row));
    } catch (...) {
      std::lock_guard lock(w->mutex);
      if (!w->failure) w->failure = std::current_exception();
      break;
    }
    w->changed.notify_all();
  }
  std::lock_guard lock(w->mutex);
  w->over = --w->working == 0;
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

std::size_t default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

bool run_missing_points(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                        std::vector<std::optional<FlatRow>>& rows, const RunnerProgress& progress,
                        std::size_t jobs) {
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
  const std::size_t n_workers = std::clamp<std::size_t>(jobs, 1, w->todo.size());
  w->working = n_workers;  // before any worker starts: each counts itself out when it returns
  std::vector<std::thread> workers;
  for (std::size_t k = 0; k < n_workers; ++k) workers.emplace_back(work, w);
  auto join_all = [&workers] {
    for (std::thread& t : workers) t.join();
  };
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
    if (w->failure) {  // the other workers take no new point; wait for the running ones
      lock.unlock();
      join_all();
      std::rethrow_exception(w->failure);
    }
    if (progress && w->started > shown) {
      shown = w->started;
      progress(done, points.size(), points[w->todo[shown - 1]]);
    }
    if (w->over) break;
    if (g_caught) {
      lock.unlock();
      for (std::thread& t : workers) t.detach();  // the running points are abandoned; the caller exits
      return false;
    }
  }
  lock.unlock();
  join_all();
  if (done < points.size()) return false;  // a signal stopped it between points
  if (progress) progress(points.size(), points.size(), points.back());
  return true;
}

}  // namespace fasim::cli
