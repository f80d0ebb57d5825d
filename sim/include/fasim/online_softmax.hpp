// The online softmax of one row: the running max m and running sum l, updated
// one chunk of scores at a time. After the last chunk, softmax(x)_i =
// exp(x_i - m) / l exactly as if the whole row had been seen at once:
//
//   m' = max(m, max_i x_i)            new running max
//   alpha = exp(m - m')               how much the old terms shrink
//   p_i = exp(x_i - m')               this chunk's terms, already on the new scale
//   l' = alpha * l + sum_i p_i        old sum rescaled, plus the new terms
//
// An output accumulated from earlier chunks (O = sum p_j v_j) must be
// multiplied by the same alpha before this chunk's p_i v_i are added.
//
// Masked scores are -inf and give p_i = 0. While every score seen so far is
// masked, m stays -inf and l stays 0 (exp(-inf - -inf) would be NaN, so that
// case is handled before it): a row that sees no key ends with l = 0.
// A NaN score makes m, l and so the row's output NaN, as in the reference.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace fasim {

/// @brief max(a, b), but NaN if either is NaN (std::max(m, NaN) would drop
/// the NaN and let a row of NaN scores pass as one that sees no key).
inline float running_max(float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }

/// @brief Running softmax statistics of one row.
struct OnlineSoftmax {
  float m = -std::numeric_limits<float>::infinity();  ///< running max
  float l = 0.0f;                                    ///< running sum of exp(x - m)

  /// @brief Absorbs n scores: replaces each x_i by p_i = exp(x_i - m') and
  /// returns alpha = exp(m - m'), the factor for everything accumulated before.
  float absorb(float* scores, std::int64_t n) {
    Eigen::Map<Eigen::ArrayXf> x(scores, n);
    const float m_new = running_max(m, n > 0 ? x.maxCoeff<Eigen::PropagateNaN>() : m);
    if (m_new == -std::numeric_limits<float>::infinity()) {  // nothing visible yet
      x.setZero();
      return 1.0f;
    }
    const float alpha = std::exp(m - m_new);  // exp(-inf) = 0 on the first chunk
    x = (x - m_new).exp();
    l = alpha * l + x.sum();
    m = m_new;
    return alpha;
  }
};

}  // namespace fasim
