#include "kiln/training/model/summary.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "kiln/framework/core/error.h"
#include "kiln/layers/registry.h"

namespace kiln {
namespace {

// Display width of UTF-8 text (box characters are one column, three bytes).
size_t columns(const std::string& s) {
  size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string repeat(const std::string& glyph, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += glyph;
  return out;
}

// Text cut to `width` columns (with an ellipsis) and padded, left or right aligned.
std::string cell(std::string text, size_t width, bool right) {
  if (columns(text) > width) text = text.substr(0, width - 1) + "…";
  const std::string pad(width - columns(text), ' ');
  return right ? pad + text : text + pad;
}

}  // namespace

std::string format_shape(const Shape& shape) {
  std::string out = "(";
  for (int i = 0; i < shape.rank(); ++i) {
    if (i > 0) out += ", ";
    out += shape[i] < 0 ? "None" : std::to_string(shape[i]);
  }
  if (shape.rank() == 1) out += ",";
  return out + ")";
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %s", bytes, units[u]);
  return buf;
}

std::string format_count(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string render_summary(const std::string& model_name, const std::vector<SummaryRow>& rows,
                           const SummaryTotals& totals, int line_length) {
  const bool connected = std::any_of(rows.begin(), rows.end(),
                                     [](const SummaryRow& r) { return !r.connected_to.empty(); });
  std::vector<std::string> headers{"Layer (type)", "Output Shape", "Param #"};
  // Keras 3's column widths (76 columns in all, 101 with "Connected to"); a line_length scales
  // them.
  std::vector<size_t> widths{31, 22, 13};
  if (connected) {
    headers.emplace_back("Connected to");
    widths = {28, 22, 12, 27};
  }
  if (line_length > 0) {
    size_t natural = 1;
    for (const size_t w : widths) natural += w + 3;
    for (size_t& w : widths)
      w = std::max<size_t>(4, w * static_cast<size_t>(line_length) / natural);
  }
  const auto border = [&](const char* left, const char* fill, const char* mid, const char* right) {
    std::string line = left;
    for (size_t i = 0; i < widths.size(); ++i) {
      line += repeat(fill, widths[i] + 2);
      line += i + 1 < widths.size() ? mid : right;
    }
    return line + "\n";
  };
  const auto row = [&](const std::vector<std::string>& cells, const char* bar) {
    std::string line = bar;
    for (size_t i = 0; i < widths.size(); ++i) {
      line += ' ';
      line += cell(cells[i], widths[i], i == 2);
      line += ' ';
      line += bar;
    }
    line += '\n';
    return line;
  };

  std::string out = "Model: \"" + model_name + "\"\n";
  out += border("┏", "━", "┳", "┓");
  out += row(headers, "┃");
  out += border("┡", "━", "╇", "┩");
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<std::string> cells{rows[r].layer, rows[r].output_shape,
                                   format_count(rows[r].params)};
    if (connected) cells.push_back(rows[r].connected_to);
    out += row(cells, "│");
    if (r + 1 < rows.size()) out += border("├", "─", "┼", "┤");
  }
  out += border("└", "─", "┴", "┘");
  const auto total_line = [&](const char* what, int64_t n) {
    std::string line = " ";
    line += what;
    line += ": ";
    line += format_count(n);
    line += " (";
    line += format_bytes(static_cast<double>(n) * totals.bytes_per_param);
    line += ")\n";
    return line;
  };
  out += total_line("Total params", totals.trainable + totals.non_trainable + totals.optimizer);
  out += total_line("Trainable params", totals.trainable);
  out += total_line("Non-trainable params", totals.non_trainable);
  if (totals.optimizer > 0) out += total_line("Optimizer params", totals.optimizer);
  if (!totals.device.empty()) out += " Device: " + totals.device + "\n";
  return out;
}

std::string summary_of_config(const std::string& json) {
  try {
    const auto model =
        std::dynamic_pointer_cast<Model>(layers::deserialize_layer(Config::from_json(json)));
    if (model) return model->summary();
  } catch (const Error& e) {
    return std::string("(the stored model config does not rebuild here: ") + e.what() + ")\n";
  }
  return "(the stored config is not a model)\n";
}

}  // namespace kiln
