// tensordiff — GoogleTest assertions and gMock matchers for tensors.
//
//   EXPECT_TENSOR_CLOSE(out, expected);                               // torch defaults by dtype
//   ASSERT_TENSOR_CLOSE(out, FromFile("golden/x.npy"), standards::Ulp{4});
//   EXPECT_THAT(out, TensorNear(expected, standards::Numpy{}));
//   EXPECT_THAT(bits, TensorEq(expected));                            // bitwise
//
// Arguments: anything testing/adapt.hpp accepts (TensorView, Tensor, vectors
// and other contiguous ranges, Values(ptr, shape), FromFile(path), Eigen with
// testing/eigen.hpp). A failure prints torch.testing's message
// (report/text.hpp) with the standard and the worst elements; success costs
// one pass over the data and formats nothing.
//
// This is the only tensordiff header that includes gtest/gmock; link
// tensordiff::gtest.
#pragma once
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ostream>
#include <sstream>
#include <string>

#include "../metrics/standards.hpp"
#include "../report/text.hpp"
#include "adapt.hpp"

TD_NAMESPACE_BEGIN

/// gtest value printers (found by ADL): "float32 tensor of shape [2, 3]".
inline void PrintTo(const TensorView& v, std::ostream* os) {
  *os << dtype_name(v.dtype) << " tensor of shape " << shape_to_string(v.shape);
}
/// gtest printer of a Tensor: its view's dtype and shape, never the elements.
inline void PrintTo(const Tensor& t, std::ostream* os) { PrintTo(t.view(), os); }

namespace testing {

/// gtest printer of a golden-file argument: `FromFile("golden/x.npy")`.
inline void PrintTo(const FromFile& f, std::ostream* os) { *os << "FromFile(\"" << f.path << "\")"; }

/// Message options shared by the assertions and matchers (per process).
inline report::TextOptions& message_options() {
  static report::TextOptions o;
  return o;
}

namespace detail {
/// Runs a standard on two adapted arguments; adapter and check errors become
/// a failed verdict carrying the error text, so a bad golden file fails the
/// test instead of aborting it.
template <class A, class E>
Verdict run_check(const A& actual, const E& expected, const Standard& standard, std::string* error) {
  try {
    const TensorArg a = as_tensor(actual);
    const TensorArg e = as_tensor(expected);
    CheckOptions co;
    co.worst_count = message_options().max_worst;
    return standard.check(a.view, e.view, co);
  } catch (const std::exception& ex) {
    *error = ex.what();
    Verdict v;
    v.level = VerdictLevel::error;
    return v;
  }
}

template <class A, class E>
::testing::AssertionResult assert_close(const char* actual_expr, const char* rest_expr, const A& actual,
                                        const E& expected, const Standard& standard = Standard{}) {
  std::string error;
  const Verdict v = run_check(actual, expected, standard, &error);
  if (TD_LIKELY(error.empty() && v.passed())) return ::testing::AssertionSuccess();
  ::testing::AssertionResult r = ::testing::AssertionFailure();
  if (!error.empty()) {
    r << "tensordiff could not compare " << actual_expr << " with " << rest_expr << ": " << error;
    return r;
  }
  r << report::format_verdict(v, message_options()) << "Actual: " << actual_expr << "\nExpected: " << rest_expr;
  return r;
}

/// gMock matcher implementation behind TensorNear / TensorEq.
template <class E> class TensorNearMatcher {
 public:
  TensorNearMatcher(E expected, Standard standard) : expected_(std::move(expected)), standard_(std::move(standard)) {}

  template <class A> bool MatchAndExplain(const A& actual, ::testing::MatchResultListener* listener) const {
    std::string error;
    const Verdict v = run_check(actual, expected_, standard_, &error);
    if (TD_LIKELY(error.empty() && v.passed())) return true;
    if (listener->IsInterested()) {
      if (!error.empty()) {
        *listener << "tensordiff could not compare: " << error;
      } else {
        std::string msg = report::format_verdict(v, message_options());
        while (!msg.empty() && msg.back() == '\n') msg.pop_back();
        *listener << msg;
      }
    }
    return false;
  }

  void DescribeTo(std::ostream* os) const { *os << "is close to the expected tensor under " << standard_.describe(); }
  void DescribeNegationTo(std::ostream* os) const {
    *os << "is not close to the expected tensor under " << standard_.describe();
  }

 private:
  E expected_;
  Standard standard_;
};
}  // namespace detail

/// Matches a tensor-like that is close to `expected` under `standard`.
template <class E> auto TensorNear(E expected, Standard standard = Standard{}) {
  return ::testing::MakePolymorphicMatcher(detail::TensorNearMatcher<E>(std::move(expected), std::move(standard)));
}

/// Matches a tensor-like with the same dtype, shape and bits as `expected`.
template <class E> auto TensorEq(E expected) {
  return ::testing::MakePolymorphicMatcher(detail::TensorNearMatcher<E>(std::move(expected), standards::Bitwise{}));
}

}  // namespace testing
TD_NAMESPACE_END

/// EXPECT_TENSOR_CLOSE(actual, expected[, standard]): non-fatal; the standard
/// defaults to torch.testing's per-dtype tolerances.
#define EXPECT_TENSOR_CLOSE(actual, ...)                                                                            \
  GTEST_ASSERT_(::tensordiff::testing::detail::assert_close(#actual, #__VA_ARGS__, actual, __VA_ARGS__), \
                GTEST_NONFATAL_FAILURE_)

/// ASSERT_TENSOR_CLOSE(actual, expected[, standard]): fatal (returns from the test).
#define ASSERT_TENSOR_CLOSE(actual, ...)                                                                            \
  GTEST_ASSERT_(::tensordiff::testing::detail::assert_close(#actual, #__VA_ARGS__, actual, __VA_ARGS__), \
                GTEST_FATAL_FAILURE_)
