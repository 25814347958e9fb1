// tensordiff — builds an nlohmann::ordered_json document in linear time.
//
// ordered_json::parse inserts every object key with a linear duplicate scan,
// so a dump.json whose "data" object holds n entries costs O(n^2) (100,000
// entries: ~10 s). This SAX handler appends keys instead and keeps a hash
// index only for objects that grow large, with Python's json.load semantics
// for duplicate keys: the last value wins, at the first key's position.
#pragma once
#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "../../core/config.hpp"

TD_NAMESPACE_BEGIN
namespace io::detail {

class OrderedJsonBuilder {
 public:
  using json = nlohmann::ordered_json;
  using number_integer_t = json::number_integer_t;
  using number_unsigned_t = json::number_unsigned_t;
  using number_float_t = json::number_float_t;
  using string_t = json::string_t;
  using binary_t = json::binary_t;

  json result;

  bool null() { return put(json(nullptr)); }
  bool boolean(bool v) { return put(json(v)); }
  bool number_integer(number_integer_t v) { return put(json(v)); }
  bool number_unsigned(number_unsigned_t v) { return put(json(v)); }
  bool number_float(number_float_t v, const string_t& /*text*/) { return put(json(v)); }
  bool string(string_t& v) { return put(json(std::move(v))); }
  bool binary(binary_t& v) { return put(json::binary(std::move(v))); }

  bool start_object(std::size_t /*size hint*/) { return open(json::object()); }
  bool start_array(std::size_t /*size hint*/) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(string_t& k) {
    Frame& f = stack_.back();
    auto& entries = static_cast<Entries&>(f.node->get_ref<json::object_t&>());
    std::size_t at = entries.size();
    if (!f.index.empty()) {
      const auto [it, inserted] = f.index.emplace(k, at);
      if (!inserted) at = it->second;
    } else {
      for (std::size_t i = 0; i < entries.size(); ++i)
        if (entries[i].first == k) { at = i; break; }
      if (at == entries.size() && entries.size() + 1 >= kIndexFrom) {  // switch to hashing
        for (std::size_t i = 0; i < entries.size(); ++i) f.index.emplace(entries[i].first, i);
        f.index.emplace(k, at);
      }
    }
    if (at == entries.size()) entries.emplace_back(std::move(k), nullptr);
    f.pending = &entries[at].second;
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*last token*/, const Exception& ex) {
    throw ex;  // the caller turns nlohmann's error into a tensordiff::Error
  }

 private:
  using Entries = std::vector<std::pair<const std::string, json>>;
  static constexpr std::size_t kIndexFrom = 32;  // below this a scan beats hashing

  struct Frame {
    json* node;
    json* pending = nullptr;  // the value slot the last key() opened
    std::unordered_map<std::string, std::size_t> index;
  };
  std::vector<Frame> stack_;

  // Where the next value goes: the document, the open array's end, or the
  // slot of the key just read.
  json* slot() {
    if (stack_.empty()) return &result;
    Frame& f = stack_.back();
    if (f.node->is_array()) {
      f.node->get_ref<json::array_t&>().emplace_back();
      return &f.node->get_ref<json::array_t&>().back();
    }
    return f.pending;
  }
  bool put(json&& v) {
    *slot() = std::move(v);
    return true;
  }
  bool open(json&& v) {
    json* s = slot();
    *s = std::move(v);
    stack_.push_back(Frame{s, nullptr, {}});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
};

}  // namespace io::detail
TD_NAMESPACE_END
