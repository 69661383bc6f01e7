#pragma once
// A character vocabulary for character-level models: id 0 is padding (never a character), id 1
// stands for characters outside the vocabulary, and ids 2.. are characters by falling frequency.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kiln::datasets {

// UTF-8 to code points; each malformed byte becomes U+FFFD.
std::u32string decode_utf8(std::string_view text);

class CharVocabulary {
 public:
  static constexpr int32_t kPadding = 0;
  static constexpr int32_t kUnknown = 1;

  // The characters occurring at least min_count times in texts, most frequent first (ties by
  // code point, so the ids depend only on the texts).
  static CharVocabulary build(std::span<const std::u32string> texts, int64_t min_count = 1);

  // One id per character (kUnknown for characters outside the vocabulary).
  std::vector<int32_t> encode(std::u32string_view text) const;
  // Ids (including padding and unknown) are in [0, size()).
  int64_t size() const { return static_cast<int64_t>(chars_.size()) + 2; }
  // The character of an id >= 2.
  char32_t character(int32_t id) const;

 private:
  std::vector<char32_t> chars_;  // id - 2 -> character
  std::unordered_map<char32_t, int32_t> ids_;
};

}  // namespace kiln::datasets
