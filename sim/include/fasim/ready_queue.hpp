// ReadyQueue: which resident thread block issues the next step. Each slot
// (one resident block) is ready at a time t >= 0, or idle; top() is the ready
// slot with the smallest (t, slot), so ties go to the lower slot.
//
// The simulation asks for the top and then changes only the top slot's time
// (the block that just took a step), once per step: with hundreds of resident
// blocks this queue is a large part of a counting-only run. So it is a 4-ary
// min-heap whose replace_top() is a bottom-up sift-down: the hole at the
// root goes down to a leaf, the earliest of four children filling it at each
// level, and then the new entry climbs from there. Blocks run nearly in step,
// so the new time is usually among the latest and hardly climbs. Each entry
// is one 128-bit integer (the time's IEEE bits, which order as times >= 0 do,
// above the slot), so a comparison is a single branch-free integer compare;
// which child wins is data-dependent and a branch there would mispredict.
// Against std::priority_queue (a pop and a push): 2 to 2.5x faster on the
// step sequences of flash2 with 132 and 924 resident blocks.
//
// Most of the time the new time is not only among the latest but the latest
// of all: in the benchmark of record (flash2, N 32768, d 128, 16 heads, 132
// resident blocks) 73% of replace_top()s. Such an entry skips the heap: it
// goes to the back of a FIFO (a ring), which stays sorted because each entry
// it gets is later than every entry ever queued. The earliest entry is then
// the FIFO's front or the heap's root, whichever is earlier, and only the
// other entries pay for the heap (one sift, or a pop and a push when an
// entry moves between the two). Ties and order are as before: the two hold
// the same entries the heap alone held. Measured: the counting run of record
// (N 131072) went from 7.8 s to 6.7 s; flash2 with d 64 on an H200 (924
// resident blocks, where the new time is the latest less often) from 2.49 s
// to 2.37 s at N 65536.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace fasim {

/// @brief Ready times of a fixed set of slots; the earliest (time, slot) first.
class ReadyQueue {
 public:
  /// @brief The time of an idle slot: it comes after every ready one.
  static constexpr double kIdle = std::numeric_limits<double>::infinity();

  /// @brief Slot s is ready at times[s] >= 0 (kIdle: idle).
  void build(const std::vector<double>& times) {
    heap_.clear();
    fifo_.assign(times.size(), 0);
    head_ = count_ = 0;
    latest_ = 0;
    for (std::size_t s = 0; s < times.size(); ++s) {
      heap_.push_back(key(times[s], s));
      latest_ = std::max(latest_, heap_.back());
    }
    for (std::size_t i = heap_.size(); i-- > 0;) {  // every subtree, bottom up, becomes a heap
      const Key e = heap_[i];
      std::size_t h = i;
      for (std::size_t c = 4 * h + 1; c < heap_.size(); c = 4 * h + 1) {
        c = earliest_child(c);
        if (!(heap_[c] < e)) break;
        heap_[h] = heap_[c];
        h = c;
      }
      heap_[h] = e;
    }
    find_top();
  }
  /// @brief True when no slot is ready.
  bool empty() const { return top_ >= key(kIdle, 0); }
  /// @brief The ready slot with the smallest (time, slot); only when !empty().
  std::size_t top() const { return static_cast<std::size_t>(top_ & kSlotMask); }
  /// @brief The top slot becomes ready at time t >= 0 (kIdle: idle); the next top is found.
  void replace_top(double t) {
    const Key e = key(t, top());
    const bool to_fifo = e > latest_;  // later than every entry: the FIFO's back keeps it sorted
    if (!top_in_fifo_ && !to_fifo) {
      sift_from_root(e);  // from the heap's root into the heap: one sift, as a heap alone does
    } else {
      if (top_in_fifo_) {  // out with the top
        head_ = head_ + 1 == fifo_.size() ? 0 : head_ + 1;
        --count_;
      } else {
        const Key last = heap_.back();
        heap_.pop_back();
        if (!heap_.empty()) sift_from_root(last);
      }
      if (to_fifo) {
        const std::size_t back = head_ + count_;
        fifo_[back >= fifo_.size() ? back - fifo_.size() : back] = e;
        ++count_;
        latest_ = e;
      } else {  // a heap push: e climbs from a new leaf
        std::size_t h = heap_.size();
        heap_.push_back(e);
        for (; h > 0 && e < heap_[(h - 1) / 4]; h = (h - 1) / 4) heap_[h] = heap_[(h - 1) / 4];
        heap_[h] = e;
      }
    }
    find_top();
  }

 private:
  __extension__ typedef unsigned __int128 Key;  // time bits << 64 | slot
  static constexpr Key kSlotMask = std::numeric_limits<std::uint64_t>::max();

  // +0.0 turns -0.0 into 0.0, whose bits are the smallest.
  static Key key(double t, std::size_t slot) {
    return static_cast<Key>(std::bit_cast<std::uint64_t>(t + 0.0)) << 64 | slot;
  }
  // Fills the hole at the root with e: the hole goes down to a leaf, the
  // earliest of four children filling it at each level, then e climbs.
  void sift_from_root(Key e) {
    std::size_t h = 0;  // the hole
    for (std::size_t c = 1; c < heap_.size(); c = 4 * h + 1) {  // down: the earliest child fills it
      c = earliest_child(c);
      heap_[h] = heap_[c];
      h = c;
    }
    while (h > 0 && e < heap_[(h - 1) / 4]) {  // up: e climbs while it comes first
      heap_[h] = heap_[(h - 1) / 4];
      h = (h - 1) / 4;
    }
    heap_[h] = e;
  }
  // The earliest entry: the FIFO's front or the heap's root (none: past kIdle).
  void find_top() {
    const Key none = ~Key{0};
    const Key root = heap_.empty() ? none : heap_[0];
    top_in_fifo_ = count_ > 0 && fifo_[head_] < root;
    top_ = top_in_fifo_ ? fifo_[head_] : root;
  }
  // The earliest of the (up to four) children starting at c.
  std::size_t earliest_child(std::size_t c) const {
    const std::size_t n = heap_.size();
    if (c + 3 < n) {  // all four: two matches, then the final
      const std::size_t a = c + (heap_[c + 1] < heap_[c]);
      const std::size_t b = c + 2 + (heap_[c + 3] < heap_[c + 2]);
      return heap_[b] < heap_[a] ? b : a;
    }
    std::size_t m = c;
    for (std::size_t k = c + 1; k < n; ++k) m = heap_[k] < heap_[m] ? k : m;
    return m;
  }

  std::vector<Key> heap_;  // heap_[0] is the earliest; the children of h: 4h+1 .. 4h+4
  std::vector<Key> fifo_;  // a ring of count_ entries from head_, earliest first
  std::size_t head_ = 0, count_ = 0;
  Key latest_ = 0;             // the latest entry ever queued (since build)
  Key top_ = ~Key{0};          // the earliest entry (past kIdle when there is none)
  bool top_in_fifo_ = false;   // ... and it is the FIFO's front
};

}  // namespace fasim
