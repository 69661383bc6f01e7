// The kiln command (`kiln --help`).
#include "apps/kiln/cli.h"
#include "kiln/configs/interrupt_watch.h"

int main(int argc, char** argv) {
  kiln::configs::watch_interrupts();
  return kiln::cli::run(argc, argv);
}
