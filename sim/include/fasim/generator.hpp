// Generator<T>: a minimal C++20 coroutine that yields values one at a time.
// Each thread block's tile program is a Generator<Step>, so the simulation can
// be advanced one Step at a time and the program still reads top to bottom.
#pragma once

#include <coroutine>
#include <exception>
#include <utility>

namespace fasim {

/// @brief A lazily evaluated sequence: the body runs until its next co_yield
/// each time next() is called.
template <typename T>
class Generator {
 public:
  /// @brief The coroutine's promise (the C++ coroutine protocol); not for direct use.
  struct promise_type {
    const T* current = nullptr;  ///< the value of the last co_yield (not a copy)
    std::exception_ptr error;  ///< an exception the body threw, rethrown by next()

    /// @brief The Generator that owns this coroutine.
    Generator get_return_object() {
      return Generator{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    /// @brief The body starts at the first next(), not at the call.
    std::suspend_always initial_suspend() noexcept { return {}; }
    /// @brief Stays suspended at the end, so done() can be asked.
    std::suspend_always final_suspend() noexcept { return {}; }
    /// @brief Keeps a pointer to `value` and suspends.
    std::suspend_always yield_value(const T& value) noexcept {
      current = &value;  // a temporary lives in the coroutine frame until resumed; a variable, where it is
      return {};
    }
    /// @brief The body ran to its end.
    void return_void() noexcept {}
    /// @brief Keeps the exception for next() to rethrow.
    void unhandled_exception() { error = std::current_exception(); }
  };

  Generator() = default;
  /// @brief Takes over `other`'s coroutine; `other` becomes empty.
  Generator(Generator&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  /// @brief Destroys this coroutine and takes over `other`'s.
  Generator& operator=(Generator&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;
  ~Generator() { reset(); }

  /// @brief Runs the body to its next co_yield. False when the body finished.
  /// Rethrows an exception the body threw.
  bool next() {
    if (!handle_ || handle_.done()) return false;
    handle_.resume();
    if (handle_.promise().error) std::rethrow_exception(handle_.promise().error);
    return !handle_.done();
  }

  /// @brief The value of the last co_yield; valid until the next call to next().
  const T& value() const { return *handle_.promise().current; }

 private:
  explicit Generator(std::coroutine_handle<promise_type> h) : handle_(h) {}
  void reset() {
    if (handle_) handle_.destroy();
    handle_ = {};
  }
  std::coroutine_handle<promise_type> handle_;
};

}  // namespace fasim
