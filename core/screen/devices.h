#pragma once
// Which GPU each worker of a node takes. A plan made for "cuda" (no index) runs each local worker
// slot on its own device: slot k of the process with local rank r (SLURM_LOCALID, or Open MPI's
// OMPI_COMM_WORLD_LOCAL_RANK; 0 otherwise) of a job with `slots` workers per process takes device
// (r * slots + k) mod n, n = the GPUs visible to the process (CUDA_VISIBLE_DEVICES, which Slurm's
// GPU binding sets, else the driver's count). A CPU plan, or one naming "cuda:N", is left alone:
// every slot gets "" (the plan's device). CPU-only nodes run the same code path.
#include <string>
#include <vector>

namespace gs::screen {

int localRank();
int visibleGpus();
std::vector<std::string> slotDevices(const std::string& plan_device, int slots, int local_rank, int gpus);

}  // namespace gs::screen
