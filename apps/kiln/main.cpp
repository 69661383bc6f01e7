// The kiln command (`kiln --help`).
#include "apps/kiln/cli.h"

int main(int argc, char** argv) {
  return kiln::cli::run(argc, argv);
}
