#include "screen/devices.h"

#include <cstdlib>

#include "tensor/torch_compat.h"

namespace gs::screen {

int localRank() {
  for (const char* name : {"SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"})
    if (const char* v = std::getenv(name); v && *v) return std::atoi(v);
  return 0;
}

int visibleGpus() {
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) {
    const std::string s(v);
    if (s.empty() || s == "NoDevFiles" || s == "-1") return 0;
    int n = 1;
    for (char c : s) n += c == ',' ? 1 : 0;
    return n;
  }
  return compat::cudaDeviceCount();
}

std::vector<std::string> slotDevices(const std::string& plan_device, int slots, int local_rank, int gpus) {
  std::vector<std::string> out(static_cast<size_t>(std::max(1, slots)));
  if (plan_device != "cuda" || gpus <= 0) return out;
  for (int k = 0; k < static_cast<int>(out.size()); ++k)
    out[static_cast<size_t>(k)] = "cuda:" + std::to_string((local_rank * static_cast<int>(out.size()) + k) % gpus);
  return out;
}

}  // namespace gs::screen
