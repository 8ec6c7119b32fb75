// Weighted least squares for `vmc calibrate` (fit.hpp).
#include "tools/fit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace vmc::cli {

LineFit fit_line(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) throw std::invalid_argument("fit: x and y differ in length");
  const int m = static_cast<int>(x.size());
  if (m < 3) throw std::invalid_argument("fit: 3 points or more are needed, got " +
                                         std::to_string(m));
  if (std::all_of(x.begin(), x.end(), [&](double v) { return v == x[0]; })) {
    throw std::invalid_argument("fit: every point has the same x");
  }
  // The normal equations of sum w (a + b x - y)^2, w = 1 / y^2.
  double sw = 0, swx = 0, swxx = 0, swy = 0, swxy = 0;
  for (int i = 0; i < m; ++i) {
    if (!(y[i] > 0) || !std::isfinite(y[i])) {
      throw std::invalid_argument("fit: time " + std::to_string(y[i]) + " at x = " +
                                  std::to_string(x[i]) + " is not positive and finite");
    }
    const double w = 1 / (y[i] * y[i]);
    sw += w;
    swx += w * x[i];
    swxx += w * x[i] * x[i];
    swy += w * y[i];
    swxy += w * x[i] * y[i];
  }
  const double det = sw * swxx - swx * swx;
  if (!(det > 0)) throw std::invalid_argument("fit: every point has the same x");
  LineFit f;
  f.points = m;
  f.a = (swxx * swy - swx * swxy) / det;
  f.b = (sw * swxy - swx * swy) / det;
  double rss = 0;  // the weighted residuals are the relative ones, (fit - y) / y
  for (int i = 0; i < m; ++i) {
    const double r = (f.a + f.b * x[i] - y[i]) / y[i];
    rss += r * r;
  }
  const double s2 = rss / (m - 2);
  f.a_error = std::sqrt(s2 * swxx / det);
  f.b_error = std::sqrt(s2 * sw / det);
  f.rms_relative = std::sqrt(rss / m);
  return f;
}

}  // namespace vmc::cli
