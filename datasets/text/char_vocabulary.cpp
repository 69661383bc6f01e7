#include "kiln/datasets/text/char_vocabulary.h"

#include <algorithm>
#include <map>

#include "kiln/framework/core/error.h"

namespace kiln::datasets {

std::u32string decode_utf8(std::string_view text) {
  constexpr char32_t kReplacement = 0xFFFD;
  std::u32string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    // Continuation bytes after the lead byte: 0 for ASCII, -1 for a byte that cannot lead.
    int extra = -1;
    if (lead < 0x80)
      extra = 0;
    else if ((lead >> 5) == 0x6)
      extra = 1;
    else if ((lead >> 4) == 0xE)
      extra = 2;
    else if ((lead >> 3) == 0x1E)
      extra = 3;
    if (extra < 0 || i + static_cast<size_t>(extra) >= text.size()) {
      out.push_back(kReplacement);
      ++i;
      continue;
    }
    char32_t c = extra == 0 ? lead : lead & (0x3F >> extra);
    bool valid = true;
    for (int k = 1; k <= extra; ++k) {
      const auto next = static_cast<unsigned char>(text[i + static_cast<size_t>(k)]);
      valid = valid && (next >> 6) == 0x2;
      c = (c << 6) | (next & 0x3F);
    }
    if (!valid) {
      out.push_back(kReplacement);
      ++i;
      continue;
    }
    out.push_back(c);
    i += static_cast<size_t>(extra) + 1;
  }
  return out;
}

CharVocabulary CharVocabulary::build(std::span<const std::u32string> texts, int64_t min_count) {
  std::map<char32_t, int64_t> counts;
  for (const std::u32string& t : texts)
    for (char32_t c : t) ++counts[c];
  std::vector<std::pair<char32_t, int64_t>> kept;
  for (const auto& [c, n] : counts)
    if (n >= min_count) kept.emplace_back(c, n);
  // counts is ordered by code point and the sort is stable: ties keep that order.
  std::stable_sort(kept.begin(), kept.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  CharVocabulary v;
  for (const auto& [c, n] : kept) {
    v.ids_.emplace(c, static_cast<int32_t>(v.chars_.size()) + 2);
    v.chars_.push_back(c);
  }
  return v;
}

std::vector<int32_t> CharVocabulary::encode(std::u32string_view text) const {
  std::vector<int32_t> ids;
  ids.reserve(text.size());
  for (char32_t c : text) {
    const auto it = ids_.find(c);
    ids.push_back(it == ids_.end() ? kUnknown : it->second);
  }
  return ids;
}

char32_t CharVocabulary::character(int32_t id) const {
  KILN_CHECK(id >= 2 && id < size(), "CharVocabulary: id ", id,
             " is not a character (0 is padding, 1 unknown, characters are 2..", size() - 1, ")");
  return chars_[static_cast<size_t>(id - 2)];
}

}  // namespace kiln::datasets
