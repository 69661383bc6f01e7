#include "kiln/layers/preprocessing/text_tokens.h"

#include "kiln/framework/core/error.h"

namespace kiln::layers {
namespace {

bool is_ascii_punctuation(unsigned char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
         (c >= '{' && c <= '~');
}

bool is_ascii_space(unsigned char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

// The length of the UTF-8 sequence a lead byte starts, if the bytes after it continue it; else 0.
size_t code_point_length(std::string_view s, size_t at) {
  const auto lead = static_cast<unsigned char>(s[at]);
  const size_t n = lead < 0x80           ? 1
                   : (lead >> 5) == 0x6  ? 2
                   : (lead >> 4) == 0xE  ? 3
                   : (lead >> 3) == 0x1E ? 4
                                         : 0;
  if (n == 0 || at + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[at + k]) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

Standardize parse_standardize(const std::string& name) {
  if (name.empty()) return Standardize::none;
  if (name == "lower") return Standardize::lower;
  if (name == "strip_punctuation") return Standardize::strip_punctuation;
  if (name == "lower_and_strip_punctuation") return Standardize::lower_and_strip_punctuation;
  throw Error(detail::concat("standardize must be lower_and_strip_punctuation, lower, ",
                             "strip_punctuation or null, got '", name, "'"));
}

std::string standardize_name(Standardize standardize) {
  switch (standardize) {
    case Standardize::lower:
      return "lower";
    case Standardize::strip_punctuation:
      return "strip_punctuation";
    case Standardize::lower_and_strip_punctuation:
      return "lower_and_strip_punctuation";
    case Standardize::none:
      break;
  }
  return "";
}

TextSplit parse_text_split(const std::string& name) {
  if (name.empty()) return TextSplit::none;
  if (name == "whitespace") return TextSplit::whitespace;
  if (name == "character") return TextSplit::character;
  throw Error(detail::concat("split must be whitespace, character or null, got '", name, "'"));
}

std::string text_split_name(TextSplit split) {
  switch (split) {
    case TextSplit::whitespace:
      return "whitespace";
    case TextSplit::character:
      return "character";
    case TextSplit::none:
      break;
  }
  return "";
}

std::string standardize_text(std::string_view text, Standardize standardize) {
  const bool lower =
      standardize == Standardize::lower || standardize == Standardize::lower_and_strip_punctuation;
  const bool strip = standardize == Standardize::strip_punctuation ||
                     standardize == Standardize::lower_and_strip_punctuation;
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (strip && is_ascii_punctuation(c)) continue;
    out.push_back(lower && c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : ch);
  }
  return out;
}

std::vector<std::string> split_text(const std::string& text, TextSplit split) {
  std::vector<std::string> tokens;
  switch (split) {
    case TextSplit::none:
      tokens.push_back(text);
      break;
    case TextSplit::whitespace:
      for (size_t i = 0; i < text.size();) {
        while (i < text.size() && is_ascii_space(static_cast<unsigned char>(text[i]))) ++i;
        const size_t start = i;
        while (i < text.size() && !is_ascii_space(static_cast<unsigned char>(text[i]))) ++i;
        if (i > start) tokens.emplace_back(text, start, i - start);
      }
      break;
    case TextSplit::character:
      for (size_t i = 0; i < text.size();) {
        const size_t n = code_point_length(text, i);
        if (n == 0) {
          tokens.emplace_back("\xEF\xBF\xBD");  // U+FFFD, as unicode_split's errors="replace"
          ++i;
          continue;
        }
        tokens.emplace_back(text, i, n);
        i += n;
      }
      break;
  }
  return tokens;
}

std::vector<std::string> ngrams(const std::vector<std::string>& tokens,
                                const std::vector<int64_t>& widths) {
  std::vector<std::string> out;
  for (const int64_t width : widths) {
    const auto w = static_cast<size_t>(width);
    for (size_t start = 0; start + w <= tokens.size(); ++start) {
      std::string gram = tokens[start];
      for (size_t k = 1; k < w; ++k) gram += " " + tokens[start + k];
      out.push_back(std::move(gram));
    }
  }
  return out;
}

}  // namespace kiln::layers
