// The least-squares fit behind `vmc calibrate` (tools/fit.hpp): it recovers a line exactly,
// weighs relative errors alike, scales with its data, and refuses what cannot be fitted.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "tools/fit.hpp"

namespace vmc::cli {
namespace {

TEST(Fit, RecoversAnExactLine) {
  const std::vector<double> x{0, 1, 4, 16, 64, 256, 1024, 4096};
  std::vector<double> y;
  for (double v : x) y.push_back(0.5e-6 + v * 0.08e-9);
  const LineFit f = fit_line(x, y);
  EXPECT_NEAR(f.a, 0.5e-6, 1e-18);
  EXPECT_NEAR(f.b, 0.08e-9, 1e-21);
  EXPECT_NEAR(f.a_error, 0, 1e-18);
  EXPECT_NEAR(f.b_error, 0, 1e-21);
  EXPECT_NEAR(f.rms_relative, 0, 1e-12);
  EXPECT_EQ(f.points, 8);
}

// Points 10% above and below the line in turn: the fit stays near it, and its standard
// errors and residual say how far the points stray.
TEST(Fit, NoisyPointsGiveErrorsThatCoverTheLine) {
  const double a = 2e-6, b = 1e-9;
  std::vector<double> x, y;
  for (int k = 0; k < 12; ++k) {
    const double n = k == 0 ? 0 : std::pow(4.0, k - 1);
    x.push_back(n);
    y.push_back((a + b * n) * (k % 2 == 0 ? 1.1 : 0.9));
  }
  const LineFit f = fit_line(x, y);
  EXPECT_GT(f.a_error, 0);
  EXPECT_GT(f.b_error, 0);
  EXPECT_NEAR(f.a, a, 4 * f.a_error);
  EXPECT_NEAR(f.b, b, 4 * f.b_error);
  EXPECT_NEAR(f.rms_relative, 0.1, 0.02);
}

// Weighted by relative error: one long message off by 10% moves the intercept (alpha) far
// less than an unweighted fit, whose residual there would be a thousand short ones.
TEST(Fit, AFarOffLongPointBarelyMovesTheIntercept) {
  std::vector<double> x{0, 1, 2, 4, 8, 1e6}, y;
  for (double n : x) y.push_back(1e-6 + n * 1e-9);
  y.back() *= 1.1;
  const LineFit f = fit_line(x, y);
  EXPECT_NEAR(f.a, 1e-6, 0.02e-6);
}

TEST(Fit, ScalesWithTheData) {
  const std::vector<double> x{1, 10, 100, 1000};
  const std::vector<double> y{3e-6, 4.2e-6, 11e-6, 101e-6};
  std::vector<double> y3;
  for (double v : y) y3.push_back(3 * v);
  const LineFit f = fit_line(x, y), g = fit_line(x, y3);
  EXPECT_NEAR(g.a, 3 * f.a, 1e-15);
  EXPECT_NEAR(g.b, 3 * f.b, 1e-18);
  EXPECT_NEAR(g.a_error, 3 * f.a_error, 1e-15);
  EXPECT_NEAR(g.rms_relative, f.rms_relative, 1e-12);
}

TEST(Fit, RefusesWhatCannotBeFitted) {
  const std::vector<double> two{1, 2};
  EXPECT_THROW(fit_line(two, two), std::invalid_argument);
  const std::vector<double> x{1, 2, 3}, same{5, 5, 5};
  EXPECT_THROW(fit_line(x, std::vector<double>{1, 2}), std::invalid_argument);
  EXPECT_THROW(fit_line(x, std::vector<double>{1, 0, 2}), std::invalid_argument);
  EXPECT_THROW(fit_line(x, std::vector<double>{1, NAN, 2}), std::invalid_argument);
  EXPECT_THROW(fit_line(same, x), std::invalid_argument);
}

}  // namespace
}  // namespace vmc::cli
