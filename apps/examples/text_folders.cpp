#include "apps/examples/text_folders.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "kiln/datasets/text/fortunes.h"
#include "kiln/framework/core/error.h"

namespace kiln::examples {

int64_t write_fortune_folders(const std::string& out, int64_t limit,
                              const std::string& fortunes_dir) {
  namespace fs = std::filesystem;
  const datasets::FortuneTexts corpus = datasets::fortune_texts(fortunes_dir);
  std::map<int64_t, int64_t> written;  // per language
  for (size_t i = 0; i < corpus.texts.size(); ++i) {
    const int64_t label = corpus.labels[i];
    int64_t& count = written[label];
    if (limit > 0 && count >= limit) continue;
    const fs::path folder = fs::path(out) / corpus.languages[static_cast<size_t>(label)];
    fs::create_directories(folder);
    const fs::path file = folder / (std::to_string(count) + ".txt");
    std::ofstream(file, std::ios::binary) << corpus.texts[i];
    KILN_CHECK(fs::file_size(file) == corpus.texts[i].size(), file.string(), ": cannot be written");
    ++count;
  }
  int64_t total = 0;
  for (const auto& [label, count] : written) total += count;
  return total;
}

}  // namespace kiln::examples
