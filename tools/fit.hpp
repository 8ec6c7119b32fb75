// Least-squares fits of measured times to vmc's cost model, for `vmc calibrate`: a message
// of n items takes alpha + n beta (000 §2), a combine of n items c + n gamma.
#pragma once

#include <span>

namespace vmc::cli {

// y = a + b x, fitted by weighted least squares with weights 1 / y^2 (every point's
// relative error counts alike, so the short messages that fix the intercept are not
// drowned by the long ones that fix the slope). The standard errors are the usual ones of
// the weighted fit (residual variance over m - 2 degrees of freedom, times the diagonal of
// (X^T W X)^-1); rms_relative is the root mean square of (fit - y) / y.
struct LineFit {
  double a = 0, b = 0;
  double a_error = 0, b_error = 0;
  double rms_relative = 0;
  int points = 0;
};

// Throws std::invalid_argument for fewer than 3 points, sizes that differ, a y that is not
// positive and finite, or x values that are all equal.
LineFit fit_line(std::span<const double> x, std::span<const double> y);

}  // namespace vmc::cli
