#include "apps/kiln/cli.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apps/kiln/launch_ranks.h"
#include "kiln/configs/run.h"
#include "kiln/datasets/npy_file.h"
#include "kiln/framework/backends/backend.h"
#include "kiln/framework/backends/library_versions.h"
#include "kiln/framework/core/log.h"
#include "kiln/framework/distributed/mpi_communicator.h"
#include "kiln/training/model/keras_file.h"
#include "kiln/training/model/summary.h"
#include "kiln/training/saving/inspect.h"

namespace {

constexpr int kFailure = 1;
constexpr int kUsage = 2;

const char* const kHelp =
    "usage: kiln [--quiet | --verbose] <command> [arguments]\n"
    "\n"
    "commands:\n"
    "  train RUN.yaml [--set key=value ...] [--resume [CHECKPOINT]] [--nproc N]\n"
    "                 trains as the run file says; the run directory (output.dir) gets the\n"
    "                 resolved config, log.csv and checkpoints; ends with the test scores\n"
    "  evaluate RUN.yaml --weights FILE [--set key=value ...]\n"
    "  evaluate RUN.yaml --model MODEL.keras\n"
    "                 the test split's loss and metrics with the given weights, or of a whole\n"
    "                 saved model (a .keras file, from kiln or Keras) in place of the run's\n"
    "  predict RUN.yaml --weights FILE --input IN.npy --output OUT.npy [--set key=value ...]\n"
    "  predict MODEL.keras --input IN.npy --output OUT.npy\n"
    "                 the model's outputs for the rows of IN.npy\n"
    "  validate RUN.yaml [--set key=value ...]\n"
    "                 checks the run file (keys, layers, arguments) without training\n"
    "  inspect FILE   what a weights file, checkpoint or .keras model holds: the run's epoch\n"
    "                 and step, the model's summary (when the file stores its config), the\n"
    "                 compile arguments, every variable with its shape and dtype, the\n"
    "                 optimizer's state and the stored run config\n"
    "  version        the versions of the libraries kiln was built against and of those it\n"
    "                 loaded (oneDNN; the CUDA runtime, cuBLAS, cuDNN, NVRTC and NCCL), and\n"
    "                 the GPUs it sees; fails when a loaded library's major version differs\n"
    "  help           this text (also --help, -h)\n"
    "\n"
    "options:\n"
    "  --quiet        only errors\n"
    "  --verbose      also kiln's debug messages\n"
    "\n"
    "exit status: 0 success, 1 the command failed, 2 a usage error\n";

const char* const kTrainHelp =
    "usage: kiln train RUN.yaml [--set key=value ...] [--resume [CHECKPOINT]] [--nproc N]\n"
    "\n"
    "  --set key=value   overrides a value of the run file (optimizer.learning_rate=3e-4,\n"
    "                    model.layers[1].Dense.units=64); repeatable\n"
    "  --resume          continues from the run directory's latest.checkpoint.h5, or from\n"
    "                    CHECKPOINT\n"
    "  --nproc N         runs N processes under mpirun (data-parallel: the run's distribute\n"
    "                    section says strategy: multi_worker); the same as\n"
    "                    mpirun -np N kiln train RUN.yaml ...; under distribute:\n"
    "                    {strategy: mirrored, devices: [cuda:0, cuda:1]} kiln train starts one\n"
    "                    process per device itself\n"
    "\n"
    "Ctrl-C stops after the current batch, writing latest.checkpoint.h5 first (under --nproc,\n"
    "mpirun ends the ranks at once: --resume continues from the last checkpoint written).\n";

const char* const kEvaluateHelp =
    "usage: kiln evaluate RUN.yaml --weights FILE [--set key=value ...]\n"
    "       kiln evaluate RUN.yaml --model MODEL.keras [--set key=value ...]\n"
    "\n"
    "MODEL.keras (kiln's model.save or Keras's) replaces the run's model: its architecture,\n"
    "weights and compile arguments (the run's loss and metrics when it was saved uncompiled);\n"
    "the run file gives the data.\n";

const char* const kPredictHelp =
    "usage: kiln predict RUN.yaml --weights FILE --input IN.npy --output OUT.npy "
    "[--set key=value ...]\n"
    "       kiln predict MODEL.keras --input IN.npy --output OUT.npy\n"
    "\n"
    "IN.npy holds a batch of the model's input (rows first, e.g. uint8 or float32 [n, 28, 28]\n"
    "images, int32 [n, length] token ids); OUT.npy gets the model's output for each row.\n";

const char* const kValidateHelp = "usage: kiln validate RUN.yaml [--set key=value ...]\n";

const char* const kInspectHelp =
    "usage: kiln inspect FILE\n"
    "\n"
    "Prints what FILE (a kiln checkpoint, a Keras 3 .weights.h5 or .keras model, or a legacy\n"
    "Keras .h5) holds.\n";

int usage_error(const std::string& message) {
  std::fprintf(stderr, "kiln: %s\n(kiln --help lists the commands)\n", message.c_str());
  return kUsage;
}

// RUN.yaml and the options after it.
struct RunArgs {
  std::string file;
  std::vector<std::string> overrides;
  bool resume = false;
  std::string resume_from;
  std::string weights;
  std::string model;  // --model: a .keras file in place of the run's model
  std::string input;
  std::string output;
  // What the run's model takes its weights from: --model's whole model or --weights' file.
  const std::string& trained() const { return model.empty() ? weights : model; }
};

// Parses `args`; nullopt after printing a usage error (its status in *status) or help.
std::optional<RunArgs> parse_run_args(const std::vector<std::string>& args, const char* help,
                                      bool takes_resume, bool takes_weights, int* status) {
  RunArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&]() -> const std::string* {
      return i + 1 < args.size() ? &args[++i] : nullptr;
    };
    if (a == "--help" || a == "-h") {
      std::fputs(help, stdout);
      *status = 0;
      return std::nullopt;
    }
    if (a == "--set") {
      const std::string* v = value();
      if (v == nullptr) return *status = usage_error("--set needs key=value"), std::nullopt;
      out.overrides.push_back(*v);
    } else if (a.rfind("--set=", 0) == 0) {
      out.overrides.push_back(a.substr(6));
    } else if (takes_resume && a == "--resume") {
      out.resume = true;
      if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) out.resume_from = args[++i];
    } else if (takes_weights &&
               (a == "--weights" || a == "--model" || a == "--input" || a == "--output")) {
      const std::string* v = value();
      if (v == nullptr) return *status = usage_error(a + " needs a file"), std::nullopt;
      (a == "--weights" ? out.weights
       : a == "--model" ? out.model
       : a == "--input" ? out.input
                        : out.output) = *v;
    } else if (a.rfind("--", 0) == 0) {
      *status = usage_error("unknown option '" + a + "'");
      return std::nullopt;
    } else if (out.file.empty()) {
      out.file = a;
    } else {
      *status = usage_error("unexpected argument '" + a + "'");
      return std::nullopt;
    }
  }
  if (out.file.empty()) {
    *status = usage_error("no run file given");
    return std::nullopt;
  }
  if (!out.model.empty() && !out.model.ends_with(".keras")) {
    *status = usage_error("--model takes a .keras file, got '" + out.model + "'");
    return std::nullopt;
  }
  if (!out.model.empty() && !out.weights.empty()) {
    *status = usage_error("give --weights or --model, not both");
    return std::nullopt;
  }
  // A .keras file given as the file is a whole model (predict): nothing else is needed.
  if (takes_weights && out.weights.empty() && out.model.empty() && !out.file.ends_with(".keras")) {
    *status = usage_error("--weights FILE is required (or --model MODEL.keras)");
    return std::nullopt;
  }
  return out;
}

// `kiln train` again as `nproc` MPI ranks (mpirun replaces this process); returns only when
// mpirun cannot start.
int train_as_ranks(int nproc, const std::vector<std::string>& global_options,
                   const std::vector<std::string>& args) {
  std::vector<std::string> again = global_options;
  again.push_back("train");
  again.insert(again.end(), args.begin(), args.end());
  std::string error;
  kiln::cli::launch_ranks(nproc, again, &error);
  std::fprintf(stderr, "kiln train: %s\n", error.c_str());
  return kFailure;
}

int train(const std::vector<std::string>& args, int verbose) {
  int status = 0;
  const std::optional<RunArgs> a = parse_run_args(args, kTrainHelp, true, false, &status);
  if (!a) return status;
  const kiln::Config run = kiln::configs::load_run(a->file, a->overrides);
  const kiln::configs::TrainResult result = kiln::configs::train(
      run, {.resume = a->resume, .resume_from = a->resume_from, .verbose = verbose});
  if (result.interrupted) {
    std::printf("interrupted; resume with: kiln train %s --resume\n", a->file.c_str());
    return kFailure;
  }
  // The other ranks of a data-parallel run have the same scores; the chief reports them.
  if (!result.chief) return 0;
  if (!result.test_scores.empty())
    std::printf("%s\n", kiln::configs::format_scores(result.test_scores, "test_").c_str());
  std::printf("run directory: %s\n", result.output_dir.c_str());
  if (!result.saved_model.empty()) std::printf("model saved: %s\n", result.saved_model.c_str());
  for (const std::string& dir : result.tensorboard_dirs)
    std::printf("TensorBoard: tensorboard --logdir %s\n", dir.c_str());
  return 0;
}

// Removes `--nproc N` (or --nproc=N) from `args`; throws on a malformed count.
std::optional<int> take_nproc(std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string value;
    size_t taken = 1;
    if (args[i] == "--nproc") {
      if (i + 1 >= args.size()) throw kiln::Error("--nproc needs a number of processes");
      value = args[i + 1];
      taken = 2;
    } else if (args[i].rfind("--nproc=", 0) == 0) {
      value = args[i].substr(8);
    } else {
      continue;
    }
    size_t end = 0;
    int n = 0;
    try {
      n = std::stoi(value, &end);
    } catch (const std::exception&) {
      end = 0;
    }
    if (end != value.size() || n < 1)
      throw kiln::Error("--nproc needs a positive number of processes, got '" + value + "'");
    KILN_CHECK(n == 1 || !kiln::distributed::launched_by_mpi(),
               "--nproc: this process is already one of mpirun's ranks");
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
               args.begin() + static_cast<std::ptrdiff_t>(i + taken));
    return n;
  }
  return std::nullopt;
}

int evaluate(const std::vector<std::string>& args) {
  int status = 0;
  const std::optional<RunArgs> a = parse_run_args(args, kEvaluateHelp, false, true, &status);
  if (!a) return status;
  if (a->file.ends_with(".keras"))
    return usage_error(
        "evaluate takes the run file (for its data) first; give the model with "
        "--model " +
        a->file);
  const kiln::configs::LoadedRun loaded =
      kiln::configs::evaluate(kiln::configs::load_run(a->file, a->overrides), a->trained());
  std::printf("%s\n", kiln::configs::format_scores(loaded.test_scores, "test_").c_str());
  return 0;
}

int predict(const std::vector<std::string>& args) {
  int status = 0;
  const std::optional<RunArgs> a = parse_run_args(args, kPredictHelp, false, true, &status);
  if (!a) return status;
  if (a->input.empty() || a->output.empty())
    return usage_error("predict needs --input IN.npy and --output OUT.npy");
  const bool whole_model = a->file.ends_with(".keras");
  if (whole_model && (!a->weights.empty() || !a->model.empty() || !a->overrides.empty()))
    return usage_error("predict " + a->file +
                       " is a whole model: it takes no --weights, --model "
                       "or --set");
  const kiln::Tensor input = kiln::datasets::load_npy(a->input);
  const kiln::Tensor output =
      whole_model ? kiln::load_model(a->file, {.compile = false})->predict(input, {.verbose = 0})
                  : kiln::configs::predict(kiln::configs::load_run(a->file, a->overrides),
                                           a->trained(), input);
  kiln::datasets::save_npy(a->output, output);
  std::printf("wrote %s: %lld rows\n", a->output.c_str(), static_cast<long long>(output.dim(0)));
  return 0;
}

int validate(const std::vector<std::string>& args) {
  int status = 0;
  const std::optional<RunArgs> a = parse_run_args(args, kValidateHelp, false, false, &status);
  if (!a) return status;
  kiln::configs::validate_run(kiln::configs::load_run(a->file, a->overrides));
  std::printf("%s: valid\n", a->file.c_str());
  return 0;
}

int inspect(const std::vector<std::string>& args) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(kInspectHelp, stdout);
    return 0;
  }
  if (args.size() != 1)
    return usage_error("inspect takes one file, got " + std::to_string(args.size()));
  std::fputs(kiln::saving::describe_file(args[0], kiln::summary_of_config).c_str(), stdout);
  return 0;
}

std::string version_or(const std::optional<kiln::LibraryVersion>& v, const char* none) {
  return v ? v->to_string() : none;
}

int version(const std::vector<std::string>& args) {
  if (!args.empty()) return usage_error("version takes no arguments");
  const std::vector<kiln::LoadedLibrary> libraries = kiln::library_versions();
  std::printf("%-14s %-10s %s\n", "library", "built", "loaded");
  for (const kiln::LoadedLibrary& l : libraries)
    std::printf("%-14s %-10s %s%s\n", l.name.c_str(), version_or(l.built, "-").c_str(),
                version_or(l.loaded, "none").c_str(),
                l.mismatched() ? "  (another major version)" : "");
  std::printf("GPUs visible: %d\n",
              kiln::cuda_available() ? kiln::backend_for(kiln::Device::cuda(0)).device_count() : 0);
  for (const kiln::LoadedLibrary& l : libraries) {
    if (!l.mismatched()) continue;
    std::fprintf(stderr, "kiln version: %s %s is loaded, but kiln was built against %s\n",
                 l.name.c_str(), l.loaded->to_string().c_str(), l.built->to_string().c_str());
    return kFailure;
  }
  return 0;
}

}  // namespace

namespace kiln::cli {

int run(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  int verbose = -1;                         // fit's "auto"
  std::vector<std::string> global_options;  // passed on to the ranks --nproc starts
  // Global options come before the command.
  while (!args.empty() && args[0].rfind("--", 0) == 0 && args[0] != "--help") {
    global_options.push_back(args[0]);
    if (args[0] == "--quiet") {
      kiln::set_log_level(kiln::LogLevel::error);
      verbose = 0;
    } else if (args[0] == "--verbose") {
      kiln::set_log_level(kiln::LogLevel::debug);
    } else {
      return usage_error("unknown option '" + args[0] + "'");
    }
    args.erase(args.begin());
  }
  // The ranks of a data-parallel run besides rank 0 say only what goes wrong (unless --verbose):
  // rank 0 reports the run.
  if (kiln::distributed::launched_rank() != 0 && kiln::log_level() < kiln::LogLevel::warning &&
      std::find(global_options.begin(), global_options.end(), "--verbose") == global_options.end())
    kiln::set_log_level(kiln::LogLevel::warning);
  if (args.empty()) return usage_error("no command given");
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "help" || command == "--help" || command == "-h") {
      std::fputs(kHelp, stdout);
      return 0;
    }
    if (command == "train") {
      const std::optional<int> nproc = take_nproc(args);
      if (nproc && *nproc > 1) return train_as_ranks(*nproc, global_options, args);
      return train(args, verbose);
    }
    if (command == "evaluate") return evaluate(args);
    if (command == "predict") return predict(args);
    if (command == "validate") return validate(args);
    if (command == "inspect") return inspect(args);
    if (command == "version") return version(args);
    return usage_error("unknown command '" + command + "'");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kiln %s: %s\n", command.c_str(), e.what());
    return kFailure;
  }
}

}  // namespace kiln::cli
