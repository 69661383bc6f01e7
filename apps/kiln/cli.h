#pragma once
// The kiln command as a function, so a program that registers its own layers, losses or
// activations can offer the same command with them (apps/examples/kiln_custom.cpp):
//
//   int main(int argc, char** argv) {
//     kiln::layers::register_layer("MyLayer", MyLayer::from_config);
//     return kiln::cli::run(argc, argv);
//   }
//
// Exit status: 0 success, 1 a failure of the work (an unreadable file, a bad run file, an
// interrupted training), 2 a usage error (unknown command or option, missing argument).
namespace kiln::cli {

int run(int argc, char** argv);

}  // namespace kiln::cli
