#include "apps/kiln/launch_ranks.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace kiln::cli {

void launch_ranks(int nproc, const std::vector<std::string>& args, std::string* error) {
  std::vector<std::string> argv{"mpirun", "-np", std::to_string(nproc)};
  // mpirun refuses root without it; kiln's own CI and containers run as root.
  if (geteuid() == 0) argv.emplace_back("--allow-run-as-root");
  // More ranks than OpenMPI's slots (its count of physical cores) are allowed; each rank then
  // yields while it waits for the others.
  argv.emplace_back("--oversubscribe");
  argv.push_back(std::filesystem::read_symlink("/proc/self/exe").string());
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw;
  for (std::string& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  execvp("mpirun", raw.data());
  *error = std::string("--nproc: cannot start mpirun (") + std::strerror(errno) +
           "); it comes with OpenMPI (Debian: openmpi-bin)";
}

}  // namespace kiln::cli
