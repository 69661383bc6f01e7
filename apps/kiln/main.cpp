// The kiln command. Exit status: 0 success, 1 a failure of the work (an unreadable file, a bad
// config), 2 a usage error (unknown command or option, missing argument).
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "engine/saving/inspect.h"
#include "framework/core/log.h"

namespace {

constexpr int kFailure = 1;
constexpr int kUsage = 2;

const char* const kHelp =
    "usage: kiln [--quiet | --verbose] <command> [arguments]\n"
    "\n"
    "commands:\n"
    "  inspect FILE   what a weights file or checkpoint holds: the run's epoch and step, the\n"
    "                 model's summary (when the file stores its config), every variable with\n"
    "                 its shape and dtype, the optimizer's state and the stored run config\n"
    "  help           this text (also --help, -h)\n"
    "\n"
    "options:\n"
    "  --quiet        only errors\n"
    "  --verbose      also kiln's debug messages\n"
    "\n"
    "exit status: 0 success, 1 the command failed, 2 a usage error\n";

const char* const kInspectHelp =
    "usage: kiln inspect FILE\n"
    "\n"
    "Prints what FILE (a kiln checkpoint, a Keras 3 .weights.h5, or a legacy Keras .h5) holds.\n";

int usage_error(const std::string& message) {
  std::fprintf(stderr, "kiln: %s\n(kiln --help lists the commands)\n", message.c_str());
  return kUsage;
}

int inspect(const std::vector<std::string>& args) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(kInspectHelp, stdout);
    return 0;
  }
  if (args.size() != 1)
    return usage_error("inspect takes one file, got " + std::to_string(args.size()));
  std::fputs(kiln::saving::describe_file(args[0]).c_str(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // Global options come before the command.
  while (!args.empty() && args[0].rfind("--", 0) == 0 && args[0] != "--help") {
    if (args[0] == "--quiet")
      kiln::set_log_level(kiln::LogLevel::error);
    else if (args[0] == "--verbose")
      kiln::set_log_level(kiln::LogLevel::debug);
    else
      return usage_error("unknown option '" + args[0] + "'");
    args.erase(args.begin());
  }
  if (args.empty()) return usage_error("no command given");
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "help" || command == "--help" || command == "-h") {
      std::fputs(kHelp, stdout);
      return 0;
    }
    if (command == "inspect") return inspect(args);
    return usage_error("unknown command '" + command + "'");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kiln %s: %s\n", command.c_str(), e.what());
    return kFailure;
  }
}
