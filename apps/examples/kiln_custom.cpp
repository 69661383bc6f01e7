// The kiln command with this program's own parts registered: run files can then name them
// (configs/fashion_mnist_custom_layer.yaml uses ResidualDense, squareplus and
// sparse_focal_crossentropy). `kiln_custom train configs/fashion_mnist_custom_layer.yaml`
#include "apps/examples/custom_parts.h"
#include "apps/kiln/cli.h"

int main(int argc, char** argv) {
  kiln::examples::register_custom_parts();
  return kiln::cli::run(argc, argv);
}
