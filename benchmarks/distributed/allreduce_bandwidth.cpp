// All-reduce bandwidth over MPI, run as 2 ranks (benchmarks/distributed/run.sh): MPI_Allreduce
// called directly, as OSU's osu_allreduce measures it, against kiln's path for the same bytes —
// the communicator (its worker thread) and the all_reduce op (with the op's copy). One run,
// alternating the three per size; rank 0 prints a table with kiln's time as a ratio of MPI's.
// The op runs in a traced function, as in a train step: its buffers come from the plan's arena
// and the reduced values are consumed inside the graph.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "kiln/engine/function/function.h"
#include "kiln/framework/distributed/communicator.h"
#include "kiln/framework/distributed/mpi_communicator.h"
#include "kiln/framework/ops/ops.h"

namespace {

using Clock = std::chrono::steady_clock;

// Seconds per call: the median of 7 rounds of `iterations` calls, after a warm-up round, with
// a barrier before each round so the ranks start together.
double seconds_per_call(const std::function<void()>& call, int iterations) {
  std::vector<double> rounds;
  for (int r = 0; r < 8; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = Clock::now();
    for (int i = 0; i < iterations; ++i) call();
    const double s = std::chrono::duration<double>(Clock::now() - start).count() / iterations;
    if (r > 0) rounds.push_back(s);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

}  // namespace

int main() {
  const std::shared_ptr<kiln::distributed::Communicator> world = kiln::distributed::mpi_world();
  kiln::distributed::set_world(world);
  if (world->rank() == 0)
    std::printf("%10s %12s %12s %12s %10s %10s\n", "bytes", "MPI us", "comm us", "op us",
                "comm/MPI", "op/MPI");
  for (int64_t bytes = 4 << 10; bytes <= int64_t{64} << 20; bytes *= 4) {
    const int64_t n = bytes / 4;
    const kiln::Tensor t = kiln::zeros({n}, kiln::DType::f32, kiln::Device::cpu());
    const int iterations = bytes <= (1 << 20) ? 200 : 10;
    const double mpi = seconds_per_call(
        [&] {
          MPI_Allreduce(MPI_IN_PLACE, t.raw_data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM,
                        MPI_COMM_WORLD);
        },
        iterations);
    const double comm = seconds_per_call(
        [&] { world->all_reduce(t, kiln::distributed::ReduceOp::sum, "benchmark"); }, iterations);
    const auto traced = kiln::function(
        [](const kiln::Tensor& x) { return kiln::ops::slice(kiln::ops::all_reduce(x), {0}, {1}); });
    const double op = seconds_per_call([&] { (void)traced(t); }, iterations);
    if (world->rank() == 0)
      std::printf("%10lld %12.1f %12.1f %12.1f %10.2f %10.2f\n", static_cast<long long>(bytes),
                  mpi * 1e6, comm * 1e6, op * 1e6, comm / mpi, op / mpi);
  }
  return 0;
}
