// ReadyQueue: the next block to step is the ready slot with the smallest
// (time, slot), ties to the lower slot, exactly as a sorted set orders them;
// the simulation's step order (and so every timing result) depends on it.
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <utility>
#include <vector>

#include "fasim/ready_queue.hpp"

using fasim::ReadyQueue;

TEST_CASE("ready queue: the earliest (time, slot) first, as a sorted set has it", "[ready_queue]") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 1 + rng() % 300;  // 1 to 300 slots: every heap shape, ragged last level included
    std::vector<double> times(n);
    std::set<std::pair<double, std::size_t>> ready;  // the reference order
    for (std::size_t s = 0; s < n; ++s) {
      times[s] = rng() % 4 == 0 ? ReadyQueue::kIdle : 0.5 * static_cast<double>(rng() % 40);  // many ties
      if (times[s] != ReadyQueue::kIdle) ready.emplace(times[s], s);
    }
    ReadyQueue q;
    q.build(times);
    for (int step = 0; step < 2000 && !ready.empty(); ++step) {
      REQUIRE_FALSE(q.empty());
      const auto [t, s] = *ready.begin();
      REQUIRE(q.top() == s);
      ready.erase(ready.begin());
      // The top slot steps: later by 0 to 2 (0: a tie with itself), or goes idle.
      const double next = rng() % 16 == 0 ? ReadyQueue::kIdle : t + 0.5 * static_cast<double>(rng() % 5);
      if (next != ReadyQueue::kIdle) ready.emplace(next, s);
      q.replace_top(next);
    }
    CHECK(q.empty() == ready.empty());
  }
}

TEST_CASE("ready queue: ties go to the lower slot, idle slots never come first", "[ready_queue]") {
  ReadyQueue q;
  q.build({3.0, 1.0, ReadyQueue::kIdle, 1.0, 0.0});
  CHECK(q.top() == 4);
  q.replace_top(1.0);  // slot 4 ties with slots 1 and 3 at t = 1: slot 1 first
  CHECK(q.top() == 1);
  q.replace_top(ReadyQueue::kIdle);
  CHECK(q.top() == 3);
  q.replace_top(ReadyQueue::kIdle);
  CHECK(q.top() == 4);
  q.replace_top(ReadyQueue::kIdle);
  CHECK(q.top() == 0);
  q.replace_top(ReadyQueue::kIdle);
  CHECK(q.empty());
  q.build({});
  CHECK(q.empty());
}

TEST_CASE("ready queue: blocks in lock step (each new time the latest) come round in turn", "[ready_queue]") {
  // The case replace_top() keeps out of the heap (ready_queue.hpp): with now
  // and then a time that is not the latest, so the two parts mix and the
  // ring wraps around many times.
  std::mt19937_64 rng(11);
  const std::size_t n = 7;
  std::vector<double> times(n, 0.0);
  std::set<std::pair<double, std::size_t>> ready;
  for (std::size_t s = 0; s < n; ++s) ready.emplace(0.0, s);
  ReadyQueue q;
  q.build(times);
  double latest = 0;
  for (int step = 0; step < 5000; ++step) {
    const auto [t, s] = *ready.begin();
    REQUIRE(q.top() == s);
    ready.erase(ready.begin());
    const double next = rng() % 8 == 0 ? t + 0.25 : (latest += 1.0);
    ready.emplace(next, s);
    q.replace_top(next);
  }
}
