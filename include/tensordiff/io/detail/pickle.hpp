// tensordiff — a safe, allow-list pickle machine for PyTorch files.
//
// torch.save pickles an object graph whose only callables are a handful of
// tensor rebuild functions. This machine runs exactly the opcode subset those
// pickles use (protocols 2-5, spec formats.md §2.7) and resolves GLOBAL /
// STACK_GLOBAL against a fixed table (§3): anything else stops the machine AT
// that opcode with the global's name and byte offset. Nothing is ever looked
// up dynamically; REDUCE only runs internal constructors that build plain
// records (a storage reference, a tensor record, an OrderedDict).
//
// Hostile input is bounded: pickle size, memo entries, stack length, marks,
// values created, container items, nesting depth; every length is checked
// against the bytes left before anything is allocated. Containers cannot form
// cycles: a list/dict/set becomes sealed once it is placed inside another
// object, and a sealed container can no longer be modified (Python's pickler
// always fills a container before it uses it, so real files never need that).
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../../core/dtype.hpp"
#include "../../core/error.hpp"
#include "../../core/tensor_view.hpp"

TD_NAMESPACE_BEGIN
namespace detail {
namespace pickle {

/// Resource caps. Defaults suit checkpoints with ~10^5 tensors.
struct Limits {
  std::uint64_t max_pickle_bytes = 64ull << 20;  ///< data.pkl size
  std::size_t max_memo = 1u << 20;               ///< memo entries
  std::size_t max_stack = 1u << 20;              ///< stack length (all marks together)
  std::size_t max_depth = 1000;                  ///< container nesting
  std::size_t max_values = 1u << 23;             ///< values created by one run
  std::size_t max_items = 1u << 24;              ///< items placed into containers by one run
  std::size_t max_global_name = 1024;            ///< GLOBAL line length
};

/// The globals the machine knows. Everything else is refused.
enum class Global : std::uint8_t {
  ordered_dict,                  ///< collections.OrderedDict
  rebuild_tensor,                ///< torch._utils._rebuild_tensor (pre-v2 files)
  rebuild_tensor_v2,             ///< torch._utils._rebuild_tensor_v2
  rebuild_tensor_v3,             ///< torch._utils._rebuild_tensor_v3
  rebuild_parameter,             ///< torch._utils._rebuild_parameter
  rebuild_parameter_with_state,  ///< torch._utils._rebuild_parameter_with_state
  rebuild_from_type_v2,          ///< torch._tensor._rebuild_from_type_v2
  rebuild_npu_tensor,            ///< torch_npu.utils.storage._rebuild_npu_tensor
  tensor_type,                   ///< torch.Tensor (type token only)
  parameter_type,                ///< torch.nn.parameter.Parameter (type token only)
  size_type,                     ///< torch.Size
  typed_storage,                 ///< torch.<X>Storage
  untyped_storage,               ///< torch.UntypedStorage
  dtype,                         ///< torch.<dtype>
};

enum class Kind : std::uint8_t {
  none, boolean, integer, floating, string, bytes, tuple, list, dict, set,
  global,   ///< an allowed GLOBAL token
  storage,  ///< a BINPERSID storage reference
  tensor,   ///< a rebuilt tensor record
};

inline const char* kind_name(Kind k) noexcept {
  switch (k) {
    case Kind::none: return "None";
    case Kind::boolean: return "bool";
    case Kind::integer: return "int";
    case Kind::floating: return "float";
    case Kind::string: return "str";
    case Kind::bytes: return "bytes";
    case Kind::tuple: return "tuple";
    case Kind::list: return "list";
    case Kind::dict: return "dict";
    case Kind::set: return "set";
    case Kind::global: return "global";
    case Kind::storage: return "storage";
    case Kind::tensor: return "tensor";
  }
  return "?";
}

struct Value;
using ValuePtr = std::shared_ptr<Value>;

/// An allowed global: which one, its spelling and (storages, dtypes) its element type.
struct GlobalRef {
  Global id;
  std::string module, name;
  std::optional<DType> dtype;  ///< typed storages and dtypes tensordiff can hold
  std::uint8_t opaque_size = 0;  ///< dtypes it cannot hold but can carry as opaque words
  std::string qualified() const { return module + "." + name; }
};

/// A storage named by a persistent id: ('storage', class, key, location, numel[, view_metadata]).
struct StorageRef {
  std::string key;
  std::string location;
  std::string class_name;        ///< e.g. "FloatStorage", "UntypedStorage"
  bool untyped = false;          ///< numel counts bytes; the dtype comes from the rebuild
  std::optional<DType> dtype;    ///< typed storages
  std::uint64_t numel = 0;       ///< elements of dtype (typed) or bytes (untyped)
  std::uint64_t nbytes = 0;      ///< numel * element size, checked
  std::uint64_t offset = 0;      ///< byte offset of its BINPERSID
};

/// A tensor built by an allowed rebuild function, not yet bound to bytes.
struct TensorRecord {
  std::shared_ptr<const Value> storage;  ///< Kind::storage
  DType dtype = DType::float32;
  std::int64_t storage_offset = 0;       ///< in elements of dtype
  Shape shape;
  Strides strides;
  bool requires_grad = false;
  bool is_parameter = false;
  std::string rebuild;                   ///< e.g. "torch._utils._rebuild_tensor_v2"
  std::optional<std::int64_t> npu_format;  ///< torch_npu's npu_storage_info
  std::string opaque_dtype;              ///< e.g. "float8_e4m3fnuz": dtype holds same-size opaque words
  std::uint64_t offset = 0;              ///< byte offset of its REDUCE

  const StorageRef& storage_ref() const;
};

/// One pickled value. Containers hold shared references, so memo aliasing
/// (the same object reached twice) is preserved.
struct Value {
  Kind kind = Kind::none;
  bool sealed = false;      ///< placed inside another object: no longer mutable
  bool ordered = false;     ///< dict made by collections.OrderedDict
  std::uint32_t depth = 0;  ///< nesting depth (0 for leaves)
  bool b = false;
  std::int64_t i = 0;
  double f = 0;
  std::string s;                                        ///< str (UTF-8) and bytes
  std::vector<ValuePtr> items;                          ///< tuple, list, set
  std::vector<std::pair<ValuePtr, ValuePtr>> entries;   ///< dict, in insertion order
  std::unique_ptr<std::unordered_map<std::string, std::size_t>> index;  ///< dict key -> entry
  std::shared_ptr<const GlobalRef> global;
  std::shared_ptr<const StorageRef> storage;
  std::shared_ptr<const TensorRecord> tensor;

  bool is_container() const noexcept {
    return kind == Kind::tuple || kind == Kind::list || kind == Kind::dict || kind == Kind::set;
  }
};

inline const StorageRef& TensorRecord::storage_ref() const { return *storage->storage; }

/// Printable form of untrusted text for messages: escapes, at most 120 chars.
inline std::string printable(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (out.size() >= 120) return out + "...";
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\'' && c != '\\') {
      out += c;
    } else {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  return out;
}

/// Name of a pickle opcode (every opcode of protocol 5), or nullptr.
inline const char* opcode_name(std::uint8_t op) noexcept {
  switch (op) {
    case 0x28: return "MARK";          case 0x2e: return "STOP";          case 0x30: return "POP";
    case 0x31: return "POP_MARK";      case 0x32: return "DUP";           case 0x46: return "FLOAT";
    case 0x49: return "INT";           case 0x4a: return "BININT";        case 0x4b: return "BININT1";
    case 0x4c: return "LONG";          case 0x4d: return "BININT2";       case 0x4e: return "NONE";
    case 0x50: return "PERSID";        case 0x51: return "BINPERSID";     case 0x52: return "REDUCE";
    case 0x53: return "STRING";        case 0x54: return "BINSTRING";     case 0x55: return "SHORT_BINSTRING";
    case 0x56: return "UNICODE";       case 0x58: return "BINUNICODE";    case 0x61: return "APPEND";
    case 0x62: return "BUILD";         case 0x63: return "GLOBAL";        case 0x64: return "DICT";
    case 0x7d: return "EMPTY_DICT";    case 0x65: return "APPENDS";       case 0x67: return "GET";
    case 0x68: return "BINGET";        case 0x69: return "INST";          case 0x6a: return "LONG_BINGET";
    case 0x6c: return "LIST";          case 0x5d: return "EMPTY_LIST";    case 0x6f: return "OBJ";
    case 0x70: return "PUT";           case 0x71: return "BINPUT";        case 0x72: return "LONG_BINPUT";
    case 0x73: return "SETITEM";       case 0x74: return "TUPLE";         case 0x29: return "EMPTY_TUPLE";
    case 0x75: return "SETITEMS";      case 0x47: return "BINFLOAT";      case 0x80: return "PROTO";
    case 0x81: return "NEWOBJ";        case 0x82: return "EXT1";          case 0x83: return "EXT2";
    case 0x84: return "EXT4";          case 0x85: return "TUPLE1";        case 0x86: return "TUPLE2";
    case 0x87: return "TUPLE3";        case 0x88: return "NEWTRUE";       case 0x89: return "NEWFALSE";
    case 0x8a: return "LONG1";         case 0x8b: return "LONG4";         case 0x42: return "BINBYTES";
    case 0x43: return "SHORT_BINBYTES"; case 0x8c: return "SHORT_BINUNICODE"; case 0x8d: return "BINUNICODE8";
    case 0x8e: return "BINBYTES8";     case 0x8f: return "EMPTY_SET";     case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";     case 0x92: return "NEWOBJ_EX";     case 0x93: return "STACK_GLOBAL";
    case 0x94: return "MEMOIZE";       case 0x95: return "FRAME";         case 0x96: return "BYTEARRAY8";
    case 0x97: return "NEXT_BUFFER";   case 0x98: return "READONLY_BUFFER";
    default: return nullptr;
  }
}

/// A torch dtype name: known or not, and the DType when tensordiff holds it.
struct TorchDType {
  bool known = false;
  std::optional<DType> type;
  std::uint8_t opaque_size = 0;  ///< unheld dtypes read as opaque bytes (float8 fnuz: 1, complex32: 4); 0 = refuse
};

/// torch dtype names: those tensordiff holds, and those it knows but cannot hold.
inline TorchDType torch_dtype(std::string_view name) {
  struct Entry {
    const char* name;
    DType type;
  };
  static constexpr Entry known[] = {
      {"float32", DType::float32},   {"float", DType::float32},      {"float64", DType::float64},
      {"double", DType::float64},    {"float16", DType::float16},    {"half", DType::float16},
      {"bfloat16", DType::bfloat16}, {"int8", DType::int8},          {"uint8", DType::uint8},
      {"int16", DType::int16},       {"short", DType::int16},        {"int32", DType::int32},
      {"int", DType::int32},         {"int64", DType::int64},        {"long", DType::int64},
      {"bool", DType::boolean},      {"complex64", DType::complex64}, {"cfloat", DType::complex64},
      {"complex128", DType::complex128}, {"cdouble", DType::complex128}, {"uint16", DType::uint16},
      {"uint32", DType::uint32},     {"uint64", DType::uint64},
      {"float8_e4m3fn", DType::float8_e4m3fn}, {"float8_e5m2", DType::float8_e5m2},
  };
  for (const Entry& e : known)
    if (name == e.name) return TorchDType{true, e.type};
  // Known dtypes tensordiff has no arithmetic for: their bytes are kept as
  // opaque unsigned words of the same size (shown, hashed, compared bitwise).
  struct Unheld {
    const char* name;
    std::uint8_t size;
  };
  static constexpr Unheld unheld[] = {
      {"complex32", 4}, {"chalf", 4}, {"float8_e4m3fnuz", 1},
      {"float8_e5m2fnuz", 1}, {"float8_e8m0fnu", 1}, {"float4_e2m1fn_x2", 1}, {"bits1x8", 1}, {"bits2x4", 1},
      {"bits4x2", 1}, {"bits8", 1}, {"bits16", 2}, {"qint8", 0}, {"quint8", 0}, {"qint32", 0}, {"quint4x2", 0},
      {"quint2x4", 0}, {"int1", 0}, {"int2", 0}, {"int3", 0}, {"int4", 0}, {"int5", 0}, {"int6", 0}, {"int7", 0},
      {"uint1", 0}, {"uint2", 0}, {"uint3", 0}, {"uint4", 0}, {"uint5", 0}, {"uint6", 0}, {"uint7", 0}};
  for (const Unheld& u : unheld)
    if (name == u.name) return TorchDType{true, std::nullopt, u.size};
  return TorchDType{};
}

/// Legacy typed storage classes (spec table 2.4).
inline std::optional<DType> torch_storage_dtype(std::string_view name) {
  struct Entry {
    const char* name;
    DType type;
  };
  static constexpr Entry table[] = {
      {"DoubleStorage", DType::float64},       {"FloatStorage", DType::float32},
      {"HalfStorage", DType::float16},         {"BFloat16Storage", DType::bfloat16},
      {"LongStorage", DType::int64},           {"IntStorage", DType::int32},
      {"ShortStorage", DType::int16},          {"CharStorage", DType::int8},
      {"ByteStorage", DType::uint8},           {"BoolStorage", DType::boolean},
      {"ComplexFloatStorage", DType::complex64}, {"ComplexDoubleStorage", DType::complex128},
  };
  for (const Entry& e : table)
    if (name == e.name) return e.type;
  return std::nullopt;
}

/// The allow-list (spec §3). Throws Error{security} for anything not in it and
/// Error{unsupported} for known torch kinds tensordiff does not read.
inline GlobalRef resolve_global(const std::string& module, const std::string& name, const ErrorContext& where) {
  GlobalRef g{Global::ordered_dict, module, name, std::nullopt};
  auto set = [&](Global id) {
    g.id = id;
    return g;
  };
  if (module == "collections" && name == "OrderedDict") return set(Global::ordered_dict);
  if (module == "torch._utils") {
    if (name == "_rebuild_tensor_v2") return set(Global::rebuild_tensor_v2);
    if (name == "_rebuild_tensor_v3") return set(Global::rebuild_tensor_v3);
    if (name == "_rebuild_tensor") return set(Global::rebuild_tensor);
    if (name == "_rebuild_parameter") return set(Global::rebuild_parameter);
    if (name == "_rebuild_parameter_with_state") return set(Global::rebuild_parameter_with_state);
    static constexpr const char* kinds[] = {
        "_rebuild_qtensor", "_rebuild_sparse_tensor", "_rebuild_sparse_csr_tensor",
        "_rebuild_sparse_compressed_tensor", "_rebuild_nested_tensor", "_rebuild_meta_tensor_no_storage",
        "_rebuild_wrapper_subclass", "_rebuild_device_tensor_from_numpy",
        "_rebuild_device_tensor_from_cpu_tensor", "_rebuild_xla_tensor", "_rebuild_mlc_tensor"};
    for (const char* k : kinds)
      if (name == k)
        throw Error(ErrorCategory::unsupported, "unsupported tensor kind 'torch._utils." + name + "'", where);
  }
  if (module == "torch._tensor" && name == "_rebuild_from_type_v2") return set(Global::rebuild_from_type_v2);
  if (module == "torch_npu.utils.storage" && name == "_rebuild_npu_tensor") return set(Global::rebuild_npu_tensor);
  if (module == "torch.nn.parameter" && name == "Parameter") return set(Global::parameter_type);
  if (module == "torch") {
    if (name == "Tensor") return set(Global::tensor_type);
    if (name == "Size") return set(Global::size_type);
    if (name == "UntypedStorage") return set(Global::untyped_storage);
    if (auto dt = torch_storage_dtype(name)) {
      g.dtype = *dt;
      return set(Global::typed_storage);
    }
    if (name.size() > 7 && name.compare(name.size() - 7, 7, "Storage") == 0 && name[0] == 'Q')
      throw Error(ErrorCategory::unsupported, "quantized storage 'torch." + printable(name) + "' is not supported", where);
    if (name.size() > 7 && name.compare(name.size() - 7, 7, "Storage") == 0) {
      // torch names typed storages after the dtype: Float8_e4m3fnStorage.
      std::string stem = name.substr(0, name.size() - 7);
      for (char& ch : stem) ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
      const TorchDType dt = torch_dtype(stem);
      if (dt.known && dt.type) {  // e.g. UInt16Storage of newer torch
        g.dtype = *dt.type;
        return set(Global::typed_storage);
      }
      if (dt.known)
        throw Error(ErrorCategory::unsupported,
                    "storage 'torch." + printable(name) + "' holds torch." + stem +
                        ", which tensordiff does not support (convert with .float() before torch.save)",
                    where);
    }
    if (const TorchDType dt = torch_dtype(name); dt.known) {
      g.dtype = dt.type;
      g.opaque_size = dt.opaque_size;
      return set(Global::dtype);
    }
  }
  throw Error(ErrorCategory::security,
              "forbidden global '" + printable(module) + "." + printable(name) +
                  "' (only torch tensor rebuild functions, storages, dtypes and collections.OrderedDict are allowed)",
              where);
}

/// Result of one run: the value STOP returned and where the pickle ended.
struct Result {
  ValuePtr value;
  std::uint64_t end = 0;  ///< bytes consumed, STOP included
};

/// One run of the machine over `data[0, size)`. `file` and `label` (e.g.
/// "data.pkl") name the input in errors; `base` is added to every reported
/// offset so errors give file offsets.
class Machine {
 public:
  Machine(const std::byte* data, std::size_t size, std::string file, std::string label = "pickle",
          std::uint64_t base = 0, Limits limits = {})
      : data_(reinterpret_cast<const unsigned char*>(data)),
        size_(size),
        file_(std::move(file)),
        label_(std::move(label)),
        base_(base),
        lim_(limits) {}

  /// Runs to STOP (once per Machine).
  Result run();

  /// Storage references met so far, by key (one class and size per key).
  const std::unordered_map<std::string, std::shared_ptr<const Value>>& storages() const noexcept { return storages_; }

 private:
  [[noreturn]] void fail(ErrorCategory c, const std::string& reason) const {
    const char* n = opcode_name(op_);
    std::string field = label_ + " opcode " + (n ? std::string(n) : "0x" + hex2(op_));
    throw Error(c, reason, ErrorContext{file_, std::move(field), base_ + op_pos_});
  }
  [[noreturn]] void bad(const std::string& reason) const { fail(ErrorCategory::format, reason); }
  ErrorContext where() const {
    const char* n = opcode_name(op_);
    return ErrorContext{file_, label_ + " opcode " + (n ? std::string(n) : "0x" + hex2(op_)), base_ + op_pos_};
  }
  static std::string hex2(std::uint8_t v) {
    static const char hex[] = "0123456789abcdef";
    return std::string{hex[v >> 4], hex[v & 15]};
  }

  // --- reading ---
  const unsigned char* take(std::uint64_t n) {
    if (n > size_ - pos_)
      bad("truncated pickle: needs " + std::to_string(n) + " bytes, " + std::to_string(size_ - pos_) + " left");
    const unsigned char* p = data_ + pos_;
    pos_ += static_cast<std::size_t>(n);
    return p;
  }
  std::uint64_t read_le(unsigned n) {
    const unsigned char* p = take(n);
    std::uint64_t v = 0;
    for (unsigned k = 0; k < n; ++k) v |= static_cast<std::uint64_t>(p[k]) << (8 * k);
    return v;
  }
  std::string read_line() {
    const std::size_t limit = size_ - pos_ < lim_.max_global_name ? size_ - pos_ : lim_.max_global_name;
    const void* nl = std::memchr(data_ + pos_, '\n', limit);
    if (!nl) {
      if (limit == size_ - pos_) bad("truncated pickle: GLOBAL line has no newline");
      fail(ErrorCategory::security, "GLOBAL line longer than " + std::to_string(lim_.max_global_name) + " bytes");
    }
    const std::size_t len = static_cast<std::size_t>(static_cast<const unsigned char*>(nl) - (data_ + pos_));
    std::string s(reinterpret_cast<const char*>(data_ + pos_), len);
    pos_ += len + 1;
    return s;
  }

  // --- values ---
  ValuePtr make(Kind k) {
    if (++values_ > lim_.max_values)
      fail(ErrorCategory::security, "more than " + std::to_string(lim_.max_values) + " pickle values");
    auto v = std::make_shared<Value>();
    v->kind = k;
    return v;
  }
  ValuePtr make_int(std::int64_t x) {
    auto v = make(Kind::integer);
    v->i = x;
    return v;
  }
  ValuePtr make_string(Kind k, std::uint64_t len) {
    const unsigned char* p = take(len);  // checked before allocating
    auto v = make(k);
    v->s.assign(reinterpret_cast<const char*>(p), static_cast<std::size_t>(len));
    if (k == Kind::string && !valid_utf8(v->s)) bad("string is not valid UTF-8");
    return v;
  }
  static bool valid_utf8(const std::string& s) {
    std::size_t i = 0;
    while (i < s.size()) {
      const auto c = static_cast<unsigned char>(s[i]);
      std::size_t n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : 9;
      if (n == 9 || n > s.size() - i - 1) return false;
      for (std::size_t k = 1; k <= n; ++k)
        if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
      i += n + 1;
    }
    return true;
  }

  // --- stack ---
  std::size_t floor() const noexcept { return marks_.empty() ? 0 : marks_.back(); }
  void push(ValuePtr v) {
    if (stack_.size() >= lim_.max_stack)
      fail(ErrorCategory::security, "pickle stack longer than " + std::to_string(lim_.max_stack));
    stack_.push_back(std::move(v));
  }
  ValuePtr pop() {
    if (stack_.size() <= floor()) bad("stack underflow");
    ValuePtr v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  ValuePtr& top() {
    if (stack_.size() <= floor()) bad("stack underflow");
    return stack_.back();
  }
  std::vector<ValuePtr> pop_mark() {
    if (marks_.empty()) bad("no MARK on the stack");
    const std::size_t m = marks_.back();
    marks_.pop_back();
    std::vector<ValuePtr> out(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(m)),
                              std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return out;
  }

  // --- containers ---
  void adopt_child(Value& parent, const ValuePtr& child) {
    if (++items_ > lim_.max_items)
      fail(ErrorCategory::security, "more than " + std::to_string(lim_.max_items) + " container items");
    if (child.get() == &parent) bad("a container cannot contain itself");
    if (child->depth + 1u > parent.depth) parent.depth = child->depth + 1u;
    if (parent.depth > lim_.max_depth)
      fail(ErrorCategory::security, "containers nested deeper than " + std::to_string(lim_.max_depth));
    child->sealed = true;
  }
  void require_mutable(const Value& target, Kind want, const char* what) {
    if (target.kind != want)
      bad(std::string(what) + " target is a " + kind_name(target.kind) + ", not a " + kind_name(want));
    if (target.sealed) bad(std::string(what) + " modifies a " + kind_name(target.kind) + " already placed in another object");
  }
  ValuePtr make_tuple(std::vector<ValuePtr> items) {
    auto t = make(Kind::tuple);
    for (const ValuePtr& c : items) adopt_child(*t, c);
    t->items = std::move(items);
    return t;
  }
  void set_item(Value& d, ValuePtr key, ValuePtr value) {
    std::string k;
    if (key->kind == Kind::string) k = "s" + key->s;
    else if (key->kind == Kind::integer) k = "i" + std::to_string(key->i);
    else bad(std::string("dict key is a ") + kind_name(key->kind) + " (only str and int keys are allowed)");
    adopt_child(d, key);
    adopt_child(d, value);
    if (!d.index) d.index = std::make_unique<std::unordered_map<std::string, std::size_t>>();
    auto [it, fresh] = d.index->emplace(std::move(k), d.entries.size());
    if (fresh) d.entries.emplace_back(std::move(key), std::move(value));
    else d.entries[it->second].second = std::move(value);  // Python keeps the first position
  }

  // --- memo ---
  void memo_put(std::uint64_t idx) {
    ValuePtr& v = top();
    auto it = memo_.find(idx);
    if (it == memo_.end() && memo_.size() >= lim_.max_memo)
      fail(ErrorCategory::security, "more than " + std::to_string(lim_.max_memo) + " memo entries");
    memo_[idx] = v;
  }
  void memo_get(std::uint64_t idx) {
    auto it = memo_.find(idx);
    if (it == memo_.end()) bad("memo index " + std::to_string(idx) + " was never stored");
    push(it->second);
  }

  // --- torch semantics ---
  void persistent_load();
  ValuePtr call(const GlobalRef& g, const Value& args);
  ValuePtr rebuild(const GlobalRef& g, const std::vector<ValuePtr>& a);

  static std::string describe(const Value& v) { return kind_name(v.kind); }
  std::int64_t need_int(const ValuePtr& v, const char* what) {
    if (v->kind != Kind::integer) bad(std::string(what) + " is a " + describe(*v) + ", not an int");
    return v->i;
  }
  bool need_bool(const ValuePtr& v, const char* what) {
    if (v->kind == Kind::boolean) return v->b;
    if (v->kind == Kind::integer && (v->i == 0 || v->i == 1)) return v->i == 1;
    bad(std::string(what) + " is a " + describe(*v) + ", not a bool");
  }
  std::vector<std::int64_t> need_int_tuple(const ValuePtr& v, const char* what) {
    if (v->kind != Kind::tuple && v->kind != Kind::list) bad(std::string(what) + " is a " + describe(*v) + ", not a tuple");
    std::vector<std::int64_t> out;
    out.reserve(v->items.size());
    for (const ValuePtr& x : v->items) {
      const std::int64_t n = need_int(x, what);
      if (n < 0) bad(std::string(what) + " holds the negative value " + std::to_string(n));
      out.push_back(n);
    }
    return out;
  }

  const unsigned char* data_;
  std::size_t size_;
  std::string file_, label_;
  std::uint64_t base_;
  Limits lim_;
  std::size_t pos_ = 0, op_pos_ = 0;
  std::uint8_t op_ = 0;
  std::size_t values_ = 0, items_ = 0;
  std::vector<ValuePtr> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<std::uint64_t, ValuePtr> memo_;
  std::unordered_map<std::string, std::shared_ptr<const Value>> storages_;
};

inline void Machine::persistent_load() {
  ValuePtr pid = pop();
  if (pid->kind != Kind::tuple || (pid->items.size() != 5 && pid->items.size() != 6) ||
      pid->items[0]->kind != Kind::string || pid->items[0]->s != "storage")
    bad("persistent id is not a ('storage', class, key, location, numel) tuple");
  const auto& it = pid->items;
  if (it[1]->kind != Kind::global || (it[1]->global->id != Global::typed_storage && it[1]->global->id != Global::untyped_storage))
    bad("persistent id names a " + describe(*it[1]) + " where a torch storage class is expected");
  if (it[2]->kind != Kind::string) bad("storage key is a " + describe(*it[2]) + ", not a str");
  if (it[3]->kind != Kind::string) bad("storage location is a " + describe(*it[3]) + ", not a str");
  const std::int64_t numel = need_int(it[4], "storage numel");
  if (numel < 0) bad("storage numel is negative (" + std::to_string(numel) + ")");
  if (it.size() == 6 && it[5]->kind != Kind::none)
    fail(ErrorCategory::unsupported, "storage view metadata (legacy storage views) is not supported");

  StorageRef s;
  s.key = it[2]->s;
  s.location = it[3]->s;
  s.class_name = it[1]->global->name;
  s.untyped = it[1]->global->id == Global::untyped_storage;
  s.dtype = it[1]->global->dtype;
  s.numel = static_cast<std::uint64_t>(numel);
  const std::uint64_t item = s.untyped ? 1 : dtype_size(*s.dtype);
  if (s.numel > (std::uint64_t{1} << 62) / item) bad("storage numel " + std::to_string(numel) + " overflows its byte size");
  s.nbytes = s.numel * item;
  s.offset = base_ + op_pos_;

  auto found = storages_.find(s.key);
  if (found != storages_.end()) {
    const StorageRef& old = *found->second->storage;
    if (old.class_name != s.class_name || old.numel != s.numel)
      bad("storage key '" + printable(s.key) + "' is used as " + old.class_name + "(" + std::to_string(old.numel) +
          ") and as " + s.class_name + "(" + std::to_string(s.numel) + ")");
    push(std::const_pointer_cast<Value>(found->second));
    return;
  }
  auto v = make(Kind::storage);
  v->storage = std::make_shared<const StorageRef>(std::move(s));
  v->sealed = true;
  storages_.emplace(v->storage->key, v);
  push(std::move(v));
}

inline ValuePtr Machine::call(const GlobalRef& g, const Value& args) {
  if (args.kind != Kind::tuple) bad("REDUCE arguments are a " + describe(args) + ", not a tuple");
  const auto& a = args.items;
  switch (g.id) {
    case Global::ordered_dict: {
      if (!a.empty()) bad("collections.OrderedDict called with arguments (only OrderedDict() is allowed)");
      auto d = make(Kind::dict);
      d->ordered = true;
      return d;
    }
    case Global::size_type: {
      if (a.size() != 1) bad("torch.Size takes one tuple");
      auto t = make(Kind::tuple);
      for (std::int64_t n : need_int_tuple(a[0], "torch.Size argument")) {
        auto x = make_int(n);
        adopt_child(*t, x);
        t->items.push_back(std::move(x));
      }
      return t;
    }
    case Global::rebuild_tensor:
    case Global::rebuild_tensor_v2:
    case Global::rebuild_tensor_v3:
    case Global::rebuild_parameter:
    case Global::rebuild_parameter_with_state:
    case Global::rebuild_npu_tensor: return rebuild(g, a);
    case Global::rebuild_from_type_v2: {
      if (a.size() != 4) bad("_rebuild_from_type_v2 takes 4 arguments, got " + std::to_string(a.size()));
      if (a[0]->kind != Kind::global) bad("_rebuild_from_type_v2 function is a " + describe(*a[0]));
      const GlobalRef& fn = *a[0]->global;
      if (fn.id == Global::rebuild_from_type_v2 || fn.id == Global::ordered_dict || fn.id == Global::size_type ||
          fn.id == Global::tensor_type || fn.id == Global::parameter_type || fn.id == Global::typed_storage ||
          fn.id == Global::untyped_storage || fn.id == Global::dtype)
        fail(ErrorCategory::security, "_rebuild_from_type_v2 calls '" + fn.qualified() + "', not a tensor rebuild function");
      if (a[1]->kind != Kind::global || a[1]->global->id != Global::tensor_type)
        fail(ErrorCategory::unsupported, "_rebuild_from_type_v2 builds a " +
                                             (a[1]->kind == Kind::global ? "'" + a[1]->global->qualified() + "'" : describe(*a[1])) +
                                             " (only torch.Tensor, no subclasses)");
      if (a[2]->kind != Kind::tuple) bad("_rebuild_from_type_v2 arguments are a " + describe(*a[2]) + ", not a tuple");
      return rebuild(fn, a[2]->items);  // state (a[3]) holds Python attributes: ignored
    }
    case Global::tensor_type:
    case Global::parameter_type:
    case Global::typed_storage:
    case Global::untyped_storage:
    case Global::dtype: break;
  }
  fail(ErrorCategory::security, "REDUCE on '" + g.qualified() + "', which is not an allowed callable");
}

inline ValuePtr Machine::rebuild(const GlobalRef& g, const std::vector<ValuePtr>& a) {
  const std::string fn = g.qualified();
  auto argc = [&](std::size_t lo, std::size_t hi) {
    if (a.size() < lo || a.size() > hi)
      bad(fn + " takes " + std::to_string(lo) + (hi != lo ? "-" + std::to_string(hi) : std::string()) + " arguments, got " +
          std::to_string(a.size()));
  };
  if (g.id == Global::rebuild_parameter || g.id == Global::rebuild_parameter_with_state) {
    argc(g.id == Global::rebuild_parameter ? 3 : 4, g.id == Global::rebuild_parameter ? 3 : 4);
    if (a[0]->kind != Kind::tensor) bad(fn + " data is a " + describe(*a[0]) + ", not a tensor");
    auto rec = std::make_shared<TensorRecord>(*a[0]->tensor);
    rec->requires_grad = need_bool(a[1], "requires_grad");
    rec->is_parameter = true;
    rec->offset = base_ + op_pos_;
    auto v = make(Kind::tensor);
    v->tensor = std::move(rec);
    return v;
  }
  switch (g.id) {
    case Global::rebuild_tensor: argc(4, 4); break;
    case Global::rebuild_tensor_v2: argc(6, 7); break;
    case Global::rebuild_tensor_v3: argc(7, 8); break;
    default: argc(7, 7); break;  // _rebuild_npu_tensor
  }
  if (a[0]->kind != Kind::storage) bad(fn + " storage is a " + describe(*a[0]) + ", not a persistent storage");
  const StorageRef& st = *a[0]->storage;
  auto rec = std::make_shared<TensorRecord>();
  rec->storage = a[0];
  rec->rebuild = fn;
  rec->offset = base_ + op_pos_;
  if (g.id == Global::rebuild_tensor_v3) {
    if (a[6]->kind != Kind::global || a[6]->global->id != Global::dtype)
      bad(fn + " dtype is a " + describe(*a[6]) + ", not a torch dtype");
    const GlobalRef& dt = *a[6]->global;
    if (dt.dtype) {
      rec->dtype = *dt.dtype;
    } else if (dt.opaque_size == 1 || dt.opaque_size == 2 || dt.opaque_size == 4) {
      rec->dtype = dt.opaque_size == 1 ? DType::uint8 : dt.opaque_size == 2 ? DType::uint16 : DType::uint32;
      rec->opaque_dtype = dt.name;
    } else {
      fail(ErrorCategory::unsupported, "dtype 'torch." + dt.name + "' is not supported by tensordiff");
    }
    if (!st.untyped && (st.dtype != rec->dtype || !rec->opaque_dtype.empty()))
      bad("storage '" + printable(st.key) + "' is a " + st.class_name + " but the tensor dtype is " + dtype_name(rec->dtype));
  } else {
    if (st.untyped) bad(fn + " got an UntypedStorage, which carries no dtype");
    rec->dtype = *st.dtype;
  }
  const std::int64_t off = need_int(a[1], "storage_offset");
  if (off < 0) bad("negative storage_offset " + std::to_string(off));
  rec->storage_offset = off;
  rec->shape = need_int_tuple(a[2], "size");
  rec->strides = need_int_tuple(a[3], "stride");
  if (rec->shape.size() != rec->strides.size())
    bad("size has " + std::to_string(rec->shape.size()) + " dimensions but stride has " + std::to_string(rec->strides.size()));
  if (g.id != Global::rebuild_tensor) {
    rec->requires_grad = need_bool(a[4], "requires_grad");
    if (a[5]->kind != Kind::dict) bad("backward_hooks is a " + describe(*a[5]) + ", not an OrderedDict");
  }
  if (g.id == Global::rebuild_npu_tensor) {
    if (a[6]->kind == Kind::boolean) rec->npu_format = a[6]->b ? 1 : 0;
    else rec->npu_format = need_int(a[6], "npu_storage_info");
  }
  // The view must lie inside the storage: offset + sum((size-1)*stride) < numel.
  const std::uint64_t item = dtype_size(rec->dtype);
  if (st.nbytes % item != 0)
    bad("storage '" + printable(st.key) + "' holds " + std::to_string(st.nbytes) + " bytes, not a multiple of " +
        dtype_name(rec->dtype) + "'s " + std::to_string(item));
  std::uint64_t n = 1;
  for (std::int64_t d : rec->shape) {
    if (d != 0 && n > static_cast<std::uint64_t>(INT64_MAX) / static_cast<std::uint64_t>(d))
      bad("element count of size " + shape_to_string(rec->shape) + " overflows 64 bits");
    n *= static_cast<std::uint64_t>(d);
  }
  if (n > 0) {
    // Offset of the last element, overflow-checked (strides are non-negative here).
    std::uint64_t last = static_cast<std::uint64_t>(off);
    bool overflow = false;
    for (std::size_t k = 0; k < rec->shape.size(); ++k) {
      std::uint64_t span = 0;
      overflow = overflow ||
                 __builtin_mul_overflow(static_cast<std::uint64_t>(rec->shape[k] - 1),
                                        static_cast<std::uint64_t>(rec->strides[k]), &span) ||
                 __builtin_add_overflow(last, span, &last);
    }
    const std::uint64_t elements = st.nbytes / item;
    if (overflow || last >= elements)
      bad("view (offset " + std::to_string(off) + ", size " + shape_to_string(rec->shape) + ", stride " +
          shape_to_string(rec->strides) + ") reaches past the " + std::to_string(elements) + " elements of storage '" +
          printable(st.key) + "'");
  }
  auto v = make(Kind::tensor);
  v->tensor = std::move(rec);
  return v;
}

inline Result Machine::run() {
  if (size_ > lim_.max_pickle_bytes)
    throw Error(ErrorCategory::security,
                "pickle of " + std::to_string(size_) + " bytes exceeds the cap of " + std::to_string(lim_.max_pickle_bytes),
                ErrorContext{file_, label_, base_});
  for (;;) {
    op_pos_ = pos_;
    op_ = 0;
    if (pos_ >= size_) bad("truncated pickle: no STOP opcode");
    op_ = data_[pos_++];
    switch (op_) {
      case 0x80: {  // PROTO
        const unsigned p = static_cast<unsigned>(read_le(1));
        if (p < 2 || p > 5) fail(ErrorCategory::unsupported, "pickle protocol " + std::to_string(p) + " (2-5 are read)");
        break;
      }
      case 0x95: {  // FRAME: a length hint only
        const std::uint64_t n = read_le(8);
        if (n > size_ - pos_) bad("FRAME of " + std::to_string(n) + " bytes runs past the end");
        break;
      }
      case 0x2e: {  // STOP: a pickler leaves exactly one value and no MARK
        Result r;
        r.value = pop();
        if (!stack_.empty() || !marks_.empty())
          bad("STOP leaves " + std::to_string(stack_.size()) + " more values and " + std::to_string(marks_.size()) +
              " MARKs on the stack");
        r.end = pos_;
        return r;
      }
      case 0x28:  // MARK
        if (marks_.size() >= lim_.max_stack) fail(ErrorCategory::security, "too many MARKs");
        marks_.push_back(stack_.size());
        break;
      case 0x63: {  // GLOBAL
        std::string module = read_line();
        std::string name = read_line();
        auto v = make(Kind::global);
        v->global = std::make_shared<const GlobalRef>(resolve_global(module, name, where()));
        push(std::move(v));
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        ValuePtr name = pop();
        ValuePtr module = pop();
        if (name->kind != Kind::string || module->kind != Kind::string) bad("STACK_GLOBAL operands are not strings");
        auto v = make(Kind::global);
        v->global = std::make_shared<const GlobalRef>(resolve_global(module->s, name->s, where()));
        push(std::move(v));
        break;
      }
      case 0x71: memo_put(read_le(1)); break;  // BINPUT
      case 0x72: memo_put(read_le(4)); break;  // LONG_BINPUT
      case 0x94: memo_put(memo_.size()); break;  // MEMOIZE
      case 0x68: memo_get(read_le(1)); break;  // BINGET
      case 0x6a: memo_get(read_le(4)); break;  // LONG_BINGET
      case 0x4b: push(make_int(static_cast<std::int64_t>(read_le(1)))); break;  // BININT1
      case 0x4d: push(make_int(static_cast<std::int64_t>(read_le(2)))); break;  // BININT2
      case 0x4a: push(make_int(static_cast<std::int32_t>(static_cast<std::uint32_t>(read_le(4))))); break;  // BININT
      case 0x8a:    // LONG1
      case 0x8b: {  // LONG4
        const std::uint64_t n = read_le(op_ == 0x8a ? 1 : 4);
        if (n > 8) fail(ErrorCategory::unsupported, "integer of " + std::to_string(n) + " bytes exceeds 64 bits");
        const std::uint64_t u = n ? read_le(static_cast<unsigned>(n)) : 0;
        std::int64_t x;
        if (n == 0) x = 0;
        else if (n == 8) x = static_cast<std::int64_t>(u);
        else {
          const std::uint64_t sign = std::uint64_t{1} << (8 * n - 1);
          x = (u & sign) ? static_cast<std::int64_t>(u | ~((sign << 1) - 1)) : static_cast<std::int64_t>(u);
        }
        push(make_int(x));
        break;
      }
      case 0x47: {  // BINFLOAT: big-endian double
        const unsigned char* p = take(8);
        std::uint64_t u = 0;
        for (int k = 0; k < 8; ++k) u = (u << 8) | p[k];
        auto v = make(Kind::floating);
        std::memcpy(&v->f, &u, 8);
        push(std::move(v));
        break;
      }
      case 0x88:
      case 0x89: {  // NEWTRUE / NEWFALSE
        auto v = make(Kind::boolean);
        v->b = op_ == 0x88;
        push(std::move(v));
        break;
      }
      case 0x4e: push(make(Kind::none)); break;  // NONE
      case 0x58: push(make_string(Kind::string, read_le(4))); break;  // BINUNICODE
      case 0x8c: push(make_string(Kind::string, read_le(1))); break;  // SHORT_BINUNICODE
      case 0x8d: push(make_string(Kind::string, read_le(8))); break;  // BINUNICODE8
      case 0x55: push(make_string(Kind::bytes, read_le(1))); break;   // SHORT_BINSTRING (py2 str: keep bytes)
      case 0x43: push(make_string(Kind::bytes, read_le(1))); break;   // SHORT_BINBYTES
      case 0x42: push(make_string(Kind::bytes, read_le(4))); break;   // BINBYTES
      case 0x8e: push(make_string(Kind::bytes, read_le(8))); break;   // BINBYTES8
      case 0x29: push(make(Kind::tuple)); break;  // EMPTY_TUPLE
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1..3
        const std::size_t n = op_ - 0x84u;
        if (stack_.size() < floor() + n) bad("stack underflow");
        std::vector<ValuePtr> items(std::make_move_iterator(stack_.end() - static_cast<std::ptrdiff_t>(n)),
                                    std::make_move_iterator(stack_.end()));
        stack_.resize(stack_.size() - n);
        push(make_tuple(std::move(items)));
        break;
      }
      case 0x74: push(make_tuple(pop_mark())); break;  // TUPLE
      case 0x5d: push(make(Kind::list)); break;        // EMPTY_LIST
      case 0x7d: push(make(Kind::dict)); break;        // EMPTY_DICT
      case 0x8f: push(make(Kind::set)); break;         // EMPTY_SET
      case 0x61: {  // APPEND
        ValuePtr x = pop();
        Value& l = *top();
        require_mutable(l, Kind::list, "APPEND");
        adopt_child(l, x);
        l.items.push_back(std::move(x));
        break;
      }
      case 0x65:    // APPENDS
      case 0x90: {  // ADDITEMS
        std::vector<ValuePtr> xs = pop_mark();
        Value& l = *top();
        require_mutable(l, op_ == 0x65 ? Kind::list : Kind::set, op_ == 0x65 ? "APPENDS" : "ADDITEMS");
        for (ValuePtr& x : xs) {
          adopt_child(l, x);
          l.items.push_back(std::move(x));
        }
        break;
      }
      case 0x73: {  // SETITEM
        ValuePtr value = pop();
        ValuePtr key = pop();
        Value& d = *top();
        require_mutable(d, Kind::dict, "SETITEM");
        set_item(d, std::move(key), std::move(value));
        break;
      }
      case 0x75: {  // SETITEMS
        std::vector<ValuePtr> kv = pop_mark();
        if (kv.size() % 2) bad("SETITEMS with an odd number of items");
        Value& d = *top();
        require_mutable(d, Kind::dict, "SETITEMS");
        for (std::size_t k = 0; k < kv.size(); k += 2) set_item(d, std::move(kv[k]), std::move(kv[k + 1]));
        break;
      }
      case 0x52: {  // REDUCE
        ValuePtr args = pop();
        ValuePtr fn = pop();
        if (fn->kind != Kind::global) bad("REDUCE on a " + describe(*fn) + ", not an allowed global");
        push(call(*fn->global, *args));
        break;
      }
      case 0x62: {  // BUILD: attribute state of a dict (e.g. state_dict's _metadata) or a Parameter: ignored
        ValuePtr state = pop();
        const Value& target = *top();
        const bool ok = target.kind == Kind::dict || (target.kind == Kind::tensor && target.tensor->is_parameter);
        if (!ok) fail(ErrorCategory::security, std::string("BUILD on a ") + kind_name(target.kind) + " (only dict, OrderedDict and Parameter)");
        if (target.kind == Kind::dict && target.sealed) bad("BUILD modifies a dict already placed in another object");
        state->sealed = true;
        break;
      }
      case 0x51: persistent_load(); break;  // BINPERSID
      default: {
        const char* n = opcode_name(op_);
        fail(ErrorCategory::unsupported,
             "unsupported pickle opcode 0x" + hex2(op_) + (n ? " (" + std::string(n) + ")" : std::string(" (unknown)")));
      }
    }
  }
}

}  // namespace pickle
}  // namespace detail
TD_NAMESPACE_END
