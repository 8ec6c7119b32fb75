// The precompiled header of test code (tests/CMakeLists.txt): the third-party and standard
// headers that nearly every test includes, parsed once per build instead of once per test.
// vmc's own headers stay out: a test that does not link a library must not see its inline
// definitions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
