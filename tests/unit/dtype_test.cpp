// DType names, sizes, traits and the parsers for numpy, PyTorch and MindSpore
// spellings.
#include <gtest/gtest.h>

#include <tensordiff/core/dtype.hpp>
#include <tensordiff/core/visit.hpp>

namespace {
using namespace tensordiff;

TEST(DType, NamesAndSizes) {
  const std::pair<DType, std::pair<const char*, std::size_t>> table[] = {
      {DType::boolean, {"bool", 1}},      {DType::int8, {"int8", 1}},        {DType::uint8, {"uint8", 1}},
      {DType::int16, {"int16", 2}},       {DType::uint16, {"uint16", 2}},    {DType::int32, {"int32", 4}},
      {DType::uint32, {"uint32", 4}},     {DType::int64, {"int64", 8}},      {DType::uint64, {"uint64", 8}},
      {DType::float16, {"float16", 2}},   {DType::bfloat16, {"bfloat16", 2}}, {DType::float32, {"float32", 4}},
      {DType::float64, {"float64", 8}},   {DType::complex64, {"complex64", 8}}, {DType::complex128, {"complex128", 16}},
      {DType::float8_e4m3fn, {"float8_e4m3fn", 1}}, {DType::float8_e5m2, {"float8_e5m2", 1}}};
  ASSERT_EQ(std::size(table), std::size(all_dtypes));
  for (const auto& [t, e] : table) {
    EXPECT_STREQ(dtype_name(t), e.first);
    EXPECT_EQ(dtype_size(t), e.second);
    EXPECT_EQ(parse_dtype(dtype_name(t)), t) << dtype_name(t);  // canonical names round-trip
  }
}

TEST(DType, Classification) {
  int floats = 0, complexes = 0, ints = 0, signed_ints = 0;
  for (DType t : all_dtypes) {
    floats += is_floating(t);
    complexes += is_complex(t);
    ints += is_integral(t);
    signed_ints += is_signed_integer(t);
    EXPECT_EQ(is_floating(t) + is_complex(t) + is_integral(t), 1) << dtype_name(t);
  }
  EXPECT_EQ(floats, 6);
  EXPECT_EQ(complexes, 2);
  EXPECT_EQ(ints, 9);
  EXPECT_EQ(signed_ints, 4);
  EXPECT_TRUE(is_floating(DType::bfloat16));
  EXPECT_TRUE(is_integral(DType::boolean));
  EXPECT_FALSE(is_signed_integer(DType::boolean));
}

template <DType T> void check_trait() {
  using C = dtype_type_t<T>;
  static_assert(dtype_of<C>() == T);
  static_assert(sizeof(C) == dtype_size(T));
}
TEST(DType, TraitsAgree) {
  check_trait<DType::boolean>();
  check_trait<DType::int8>();
  check_trait<DType::uint8>();
  check_trait<DType::int16>();
  check_trait<DType::uint16>();
  check_trait<DType::int32>();
  check_trait<DType::uint32>();
  check_trait<DType::int64>();
  check_trait<DType::uint64>();
  check_trait<DType::float16>();
  check_trait<DType::bfloat16>();
  check_trait<DType::float32>();
  check_trait<DType::float64>();
  check_trait<DType::complex64>();
  check_trait<DType::complex128>();
  check_trait<DType::float8_e4m3fn>();
  check_trait<DType::float8_e5m2>();
  // visit's storage types have the dtype's size; complex is refused
  for (DType t : all_dtypes) {
    if (is_complex(t)) {
      EXPECT_THROW(visit_real_dtype(t, [](auto) { return 0; }), Error);
      continue;
    }
    EXPECT_EQ(visit_real_dtype(t, [](auto tag) { return sizeof(typename decltype(tag)::type); }), dtype_size(t));
  }
}

TEST(DType, NumpyDescrAllByteOrders) {
  const std::pair<const char*, DType> codes[] = {
      {"b1", DType::boolean}, {"i1", DType::int8},     {"u1", DType::uint8},     {"i2", DType::int16},
      {"u2", DType::uint16},  {"i4", DType::int32},    {"u4", DType::uint32},    {"i8", DType::int64},
      {"u8", DType::uint64},  {"f2", DType::float16},  {"f4", DType::float32},   {"f8", DType::float64},
      {"c8", DType::complex64}, {"c16", DType::complex128}};
  for (const auto& [code, t] : codes)
    for (char order : {'<', '>', '|', '='}) {
      const std::string descr = std::string(1, order) + code;
      bool be = !(order == '>');  // must be overwritten
      EXPECT_EQ(parse_dtype(descr, &be), t) << descr;
      EXPECT_EQ(be, order == '>' && dtype_size(t) > 1) << descr;
    }
  for (const char* bad : {"<V2", "<f3", "<i16", "<U10", "<O", "<", "<f", "|S5", "<M8"}) EXPECT_EQ(parse_dtype(bad), std::nullopt) << bad;
}

TEST(DType, FrameworkSpellings) {
  const std::pair<const char*, DType> names[] = {
      // PyTorch
      {"torch.bfloat16", DType::bfloat16}, {"torch.float16", DType::float16}, {"torch.half", DType::float16},
      {"torch.float32", DType::float32},   {"torch.float", DType::float32},   {"torch.float64", DType::float64},
      {"torch.double", DType::float64},    {"torch.int64", DType::int64},     {"torch.long", DType::int64},
      {"torch.int32", DType::int32},       {"torch.int", DType::int32},       {"torch.int16", DType::int16},
      {"torch.short", DType::int16},       {"torch.int8", DType::int8},       {"torch.uint8", DType::uint8},
      {"torch.bool", DType::boolean},      {"torch.complex64", DType::complex64}, {"torch.cfloat", DType::complex64},
      {"torch.complex128", DType::complex128},
      {"torch.float8_e4m3fn", DType::float8_e4m3fn}, {"torch.float8_e5m2", DType::float8_e5m2},
      {"Float8E4M3FN", DType::float8_e4m3fn}, {"Float8E5M2", DType::float8_e5m2},
      // MindSpore
      {"BFloat16", DType::bfloat16}, {"Float16", DType::float16}, {"Float32", DType::float32},
      {"Float64", DType::float64},   {"Int8", DType::int8},       {"Int16", DType::int16},
      {"Int32", DType::int32},       {"Int64", DType::int64},     {"UInt8", DType::uint8},
      {"UInt16", DType::uint16},     {"UInt32", DType::uint32},   {"UInt64", DType::uint64},
      {"Bool", DType::boolean},      {"Complex64", DType::complex64},
      // numpy names
      {"bool_", DType::boolean}, {"float32", DType::float32}, {"half", DType::float16}, {"double", DType::float64}};
  for (const auto& [s, t] : names) {
    bool be = true;
    EXPECT_EQ(parse_dtype(s, &be), t) << s;
    EXPECT_FALSE(be) << s;
  }
}

TEST(DType, UnknownSpellings) {
  for (const char* bad : {"", "float8_e4m3fnuz", "torch.float8_e5m2fnuz", "Float8", "int4", "torch.", "string", "object",
                          "floa", "float32 ", "torch.torch.float32"}) {
    EXPECT_EQ(parse_dtype(bad), std::nullopt) << '"' << bad << '"';
    try {
      parse_dtype_or_throw(bad, ErrorContext{"x.json", "dtype", std::nullopt});
      ADD_FAILURE() << "no exception for " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::unsupported);
      EXPECT_NE(std::string(e.what()).find("'" + std::string(bad) + "'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("x.json: dtype"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(parse_dtype_or_throw("Float32"), DType::float32);
}

}  // namespace
