#pragma once
// TextVectorization's string processing, as Keras does it with tf.strings:
// - standardize: "lower" lowercases ASCII letters only (tf.strings.lower without an encoding,
//   as Keras calls it: "Ä" stays); "strip_punctuation" removes ASCII punctuation (Python's
//   string.punctuation, Keras's regex); "lower_and_strip_punctuation" does both; "" neither.
// - split: "whitespace" splits on runs of ASCII whitespace and drops empty pieces
//   (tf.strings.split); "character" splits into UTF-8 code points (tf.strings.unicode_split;
//   an invalid byte becomes U+FFFD, as its errors="replace"); "" keeps the string whole.
// - ngrams: tf.strings.ngrams with separator " ": for each width in order, every run of that
//   many consecutive tokens joined by spaces.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::layers {

enum class Standardize { none, lower, strip_punctuation, lower_and_strip_punctuation };
enum class TextSplit { none, whitespace, character };

// Keras's names ("lower_and_strip_punctuation", ...; "" for None); others are refused.
Standardize parse_standardize(const std::string& name);
std::string standardize_name(Standardize standardize);
TextSplit parse_text_split(const std::string& name);
std::string text_split_name(TextSplit split);

std::string standardize_text(std::string_view text, Standardize standardize);
std::vector<std::string> split_text(const std::string& text, TextSplit split);
// The tokens' ngrams for each width (widths >= 1).
std::vector<std::string> ngrams(const std::vector<std::string>& tokens,
                                const std::vector<int64_t>& widths);

}  // namespace kiln::layers
