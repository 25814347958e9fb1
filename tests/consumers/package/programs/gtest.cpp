// tensordiff::gtest: the assertions and matchers in a GoogleTest program.
#include <tensordiff/testing/gtest.hpp>

#include <vector>

TEST(Consumer, TensorAssertions) {
  const std::vector<float> out{1, 2, 3};
  EXPECT_TENSOR_CLOSE(out, std::vector<float>{1, 2, 3.0000001f});
  EXPECT_THAT(out, ::testing::Not(tensordiff::testing::TensorNear(std::vector<float>{1, 2, 4})));
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
