// Config::from_json on RapidJSON's SAX reader. Of the JSON libraries Debian ships, RapidJSON reads
// the NaN, Infinity and -Infinity that Python's json module (and so Keras) writes for non-finite
// floats, and kiln writes too; it parses iteratively, so no input exhausts the stack, and at full
// precision, so every float reads back to the double that was written.
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/core/limits.h"

namespace kiln {
namespace {

// Builds the Config as the reader reports values, with an explicit stack of the lists and maps
// still open. A map finds repeated keys by hash (a map of many keys reads in linear time) and
// keeps the later value, as JavaScript's and Python's readers do. Nesting beyond the bound is
// refused: the Config would be destroyed recursively, and no config comes near it (Keras's nest
// a dozen levels).
class ConfigBuilder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, ConfigBuilder> {
 public:
  ConfigBuilder() : max_depth_(limit_from_environment("KILN_JSON_MAX_DEPTH", 128)) {}

  bool Null() { return add(Config()); }
  bool Bool(bool b) { return add(Config(b)); }
  bool Int(int i) { return add(Config(static_cast<int64_t>(i))); }
  bool Uint(unsigned u) { return add(Config(static_cast<int64_t>(u))); }
  bool Int64(int64_t i) { return add(Config(i)); }
  bool Uint64(uint64_t u) {
    // Beyond int64: a float, as an integer too large for any reader's int is.
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return add(Config(static_cast<double>(u)));
    return add(Config(static_cast<int64_t>(u)));
  }
  bool Double(double d) { return add(Config(d)); }
  bool String(const char* text, rapidjson::SizeType length, bool) {
    return add(Config(std::string(text, length)));
  }
  bool Key(const char* text, rapidjson::SizeType length, bool) {
    open_.back().key.assign(text, length);
    return true;
  }
  bool StartObject() { return open(Config::map()); }
  bool EndObject(rapidjson::SizeType) { return close(); }
  bool StartArray() { return open(Config::list()); }
  bool EndArray(rapidjson::SizeType) { return close(); }

  Config& result() { return result_; }
  // Why the builder stopped the reader ("" when it did not).
  const std::string& refusal() const { return refusal_; }

 private:
  struct Open {
    Config value;
    std::unordered_map<std::string, size_t> keys;  // a map's, to their entries
    std::string key;                               // the key of the value read next
  };

  bool open(Config value) {
    if (static_cast<int64_t>(open_.size()) == max_depth_) {
      refusal_ = detail::concat("nested more than ", max_depth_,
                                " levels deep; set KILN_JSON_MAX_DEPTH to allow more");
      return false;
    }
    open_.push_back({std::move(value), {}, {}});
    return true;
  }

  bool close() {
    Config value = std::move(open_.back().value);
    open_.pop_back();
    return add(std::move(value));
  }

  bool add(Config value) {
    if (open_.empty()) {
      result_ = std::move(value);
      return true;
    }
    Open& parent = open_.back();
    if (parent.value.is_list()) {
      parent.value.push_back(std::move(value));
      return true;
    }
    Config::Map& entries = parent.value.as_map();
    if (const auto [it, added] = parent.keys.try_emplace(parent.key, entries.size()); added)
      entries.emplace_back(std::move(parent.key), std::move(value));
    else
      entries[it->second].second = std::move(value);
    return true;
  }

  int64_t max_depth_;
  std::vector<Open> open_;
  Config result_;
  std::string refusal_;
};

}  // namespace

Config Config::from_json(std::string_view text) {
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseFullPrecisionFlag |
                              rapidjson::kParseNanAndInfFlag;
  rapidjson::MemoryStream bytes(text.data(), text.size());
  ConfigBuilder builder;
  rapidjson::Reader reader;
  const rapidjson::ParseResult parsed = reader.Parse<kFlags>(bytes, builder);
  if (!parsed) {
    const std::string why =
        builder.refusal().empty() ? rapidjson::GetParseError_En(parsed.Code()) : builder.refusal();
    throw Error(detail::concat("JSON at offset ", parsed.Offset(), ": ", why));
  }
  return std::move(builder.result());
}

}  // namespace kiln
