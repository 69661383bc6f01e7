// Writes the fortunes corpus as text folders (apps/examples/text_folders.h) for the
// text_directory source: `example_text_folders OUT [--limit N]`, e.g.
// `build/apps/example_text_folders data/fortunes-text` before
// `kiln train configs/fortunes_text_folder.yaml`.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "apps/examples/text_folders.h"
#include "kiln/datasets/text/fortunes.h"
#include "kiln/framework/core/error.h"

int main(int argc, char** argv) {
  int64_t limit = 0;
  const bool limited = argc == 4 && std::string(argv[2]) == "--limit";
  if (argc != 2 && !limited) {
    std::fprintf(stderr, "usage: %s OUT [--limit N]  (N fortunes per language)\n", argv[0]);
    return 2;
  }
  if (limited) limit = std::atoll(argv[3]);
  try {
    const int64_t n = kiln::examples::write_fortune_folders(argv[1], limit,
                                                            kiln::datasets::default_fortunes_dir());
    std::printf("%lld fortunes in %s, a folder per language\n", static_cast<long long>(n), argv[1]);
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
